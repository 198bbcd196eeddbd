"""Tracing cost and call overhead of `autograph.function`.

Three figures, as the tracing issue asks (targets: trace <= 10 ms, call
overhead <= 20 us):

* trace: `power(x, 100)` (100 matmuls unrolled by a Python loop), timed as
  the first call of a new Function minus a steady call; with AutoGraph's
  conversion already cached (the tracing alone) and from a cold conversion
  cache (conversion plus tracing);
* retrace: the same Function called with a new shape, minus a steady call;
* call overhead: a steady call of a Function whose graph is `x + 1` on a
  scalar, minus the same NumPy op called directly.

TensorFlow's figures are measured in the same run when it is importable, and
skipped otherwise. Run: ``python bench/bench_tracing.py`` (or ``make
bench``). Writes ``bench/out/tracing.json``. Never asserts on timings.
"""

import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # before anything imports NumPy

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._timing import compare, quiet_gc, write_results  # noqa: I001 - first

import numpy as np

import autograph
import runtime as rt
from autograph.impl import api
from autograph.tracing import function

TRACE_TARGET_MS = 10.0
CALL_TARGET_US = 20.0
ROUNDS = 15


def power(x, y):
    result = rt.eye(x.shape[0], dtype=rt.int32)
    for _ in range(y):
        result = rt.matmul(x, result)
    return result


def _matrix(n: int):
    return rt.random.uniform([n, n], minval=-1, maxval=2, dtype=rt.int32, seed=n)


def _first_minus_steady(make, first_args, steady_args, warm_args=None) -> float:
    """Median over rounds of (first call - steady call), in seconds."""
    samples = []
    for _ in range(ROUNDS):
        traced = make()
        if warm_args is not None:
            traced(*warm_args)
        with quiet_gc():
            start = time.perf_counter()
            traced(*first_args)
            first = time.perf_counter() - start
            start = time.perf_counter()
            traced(*steady_args)
            steady = time.perf_counter() - start
        samples.append(first - steady)
    return statistics.median(samples)


def trace_costs() -> dict[str, float]:
    """Milliseconds: tracing, conversion plus tracing, and a retrace."""
    x10, x12 = _matrix(10), _matrix(12)
    function(power)(x10, 100)  # fills AutoGraph's conversion cache

    traced = _first_minus_steady(lambda: function(power), (x10, 100), (x10, 100))

    def cold():
        api.clear_cache()
        return function(power)

    converted_and_traced = _first_minus_steady(cold, (x10, 100), (x10, 100))
    function(power)(x10, 100)
    retrace = _first_minus_steady(
        lambda: function(power), (x12, 100), (x12, 100), warm_args=(x10, 100)
    )
    return {
        "trace_ms": traced * 1e3,
        "convert_and_trace_ms": converted_and_traced * 1e3,
        "retrace_new_shape_ms": retrace * 1e3,
    }


def call_overhead() -> dict[str, float]:
    """Microseconds per call: Function, ConcreteFunction, eager op, NumPy op."""

    @function
    def add_one(x):
        return x + 1

    x = rt.constant(1.0)
    value, one = x.numpy(), np.float32(1.0)  # what the graph's kernel receives
    add_one(x)
    concrete = add_one.get_concrete_function(x)
    timings = compare(
        {
            "function": lambda: add_one(x),
            "concrete_function": lambda: concrete(x),
            "eager_op": lambda: x + 1,
            "numpy": lambda: np.add(value, one),
        }
    )
    us = {name: t.median_s * 1e6 for name, t in timings.items()}
    us["function_overhead"] = us["function"] - us["numpy"]
    return {f"{name}_us": v for name, v in us.items()}


def tensorflow_figures() -> dict[str, float] | None:
    """The same figures for TensorFlow, or None when it is not installed."""
    try:
        import tensorflow as tf
    except ImportError:
        return None

    def tf_power(x, y):
        result = tf.eye(x.shape[0], dtype=tf.int32)
        for _ in range(y):
            result = tf.matmul(x, result)
        return result

    x10 = tf.random.uniform([10, 10], minval=-1, maxval=2, dtype=tf.int32)
    trace = _first_minus_steady(lambda: tf.function(tf_power), (x10, 100), (x10, 100))
    add_one = tf.function(lambda x: x + 1)
    scalar = tf.constant(1.0)
    add_one(scalar)
    call = compare({"function": lambda: add_one(scalar)})["function"].median_s
    return {"trace_ms": trace * 1e3, "function_us": call * 1e6}


def main() -> None:
    """Measures, prints a table, writes the JSON."""
    assert autograph.to_code(power)  # the bench converts what users convert
    traces = trace_costs()
    calls = call_overhead()
    tensorflow = tensorflow_figures()
    rows = [
        ("trace power(x, 100)", traces["trace_ms"], "ms", TRACE_TARGET_MS),
        ("convert + trace power(x, 100)", traces["convert_and_trace_ms"], "ms", None),
        ("retrace on a new shape", traces["retrace_new_shape_ms"], "ms", None),
        ("Function call (x + 1)", calls["function_us"], "us", None),
        ("ConcreteFunction call", calls["concrete_function_us"], "us", None),
        ("eager op (x + 1)", calls["eager_op_us"], "us", None),
        ("numpy op (np.add)", calls["numpy_us"], "us", None),
        ("Function call overhead", calls["function_overhead_us"], "us", CALL_TARGET_US),
    ]
    for name, value, unit, target in rows:
        goal = f"  (target <= {target:g} {unit})" if target is not None else ""
        print(f"{name:32} {value:9.2f} {unit}{goal}")
    if tensorflow is None:
        print("TensorFlow: not installed, skipped")
    else:
        print(f"TensorFlow trace: {tensorflow['trace_ms']:.2f} ms")
        print(f"TensorFlow Function call: {tensorflow['function_us']:.2f} us")
    path = write_results(
        "tracing",
        {
            "targets": {
                "trace_ms": TRACE_TARGET_MS,
                "call_overhead_us": CALL_TARGET_US,
            },
            "trace": traces,
            "call": calls,
            "within_targets": {
                "trace": traces["trace_ms"] <= TRACE_TARGET_MS,
                "call_overhead": calls["function_overhead_us"] <= CALL_TARGET_US,
            },
            "tensorflow": tensorflow,
        },
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
