"""The graph optimizer: the guides' workloads with and without it, vs NumPy.

Workloads, each through `autograph.function` with `optimize=True` and with
`optimize=False`, against the same computation hand-written in NumPy:

* `power_unrolled`: `x ** 100` for a 10x10 int32 matrix by repeated matmul,
  a Python loop (unrolled while tracing: 100 MatMul nodes);
* `power_while`: the same with a tensor trip count (one `while` node);
* `dense`: 60 images of 28x28 -> flatten -> 128 relu -> 10 (weights are
  `rt.Variable`s, as in a layer);
* `tanh_loop_5` / `tanh_loop_100k`: `while reduce_sum(x) > 1: x = tanh(x)`
  on 5 floats and on 100,000 floats (the same 5 values, then zeros);
* `invariant_loop`: a loop whose body recomputes values that do not change
  (`transpose(w)`, `reduce_sum(w * w)`) and multiplies by 1.0: what the
  optimizer is for (not from the guides; NumPy written the same naive way);
* `add_chain_1000`: 1,000 tiny adds in a row (`x = x + 1.0` on a 4-float
  vector): the per-op overhead of the executor, also called directly
  (`executor`, no Function call around it). Target: within 1.5x of NumPy.

Rounds are interleaved and each figure is the median time per call. Also
records graph sizes (ops, subgraphs included) and the time to trace and
optimize. Writes `bench/out/optimizer.json`; never asserts timings.

Run: `python bench/bench_optimizer.py [--rounds N] [--quick]`
"""

import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # before anything imports NumPy

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

import runtime as rt
from autograph.tracing import concrete, function
from bench._timing import compare, ratio, time_call, write_results
from runtime import executor, optimizer
from runtime.graph import Graph

CHAIN = 1000
TARGET_CHAIN_RATIO = 1.5

if optimizer.optimize_traced not in concrete._OPTIMIZERS:  # until autograph wires it
    concrete.register_graph_optimizer(optimizer.optimize_traced)


# -- workloads, as the guides write them -------------------------------------------


def power_unrolled(x):
    result = rt.eye(10, dtype=rt.int32)
    for _ in range(100):
        result = rt.matmul(x, result)
    return result


def power_while(x, n):
    result = rt.eye(10, dtype=rt.int32)
    for _ in range(n):
        result = rt.matmul(x, result)
    return result


def power_numpy(x: np.ndarray, n: int) -> np.ndarray:
    result = np.eye(10, dtype=np.int32)
    for _ in range(n):
        result = np.matmul(x, result)
    return result


class Dense:
    """flatten -> 128 relu -> 10, with its weights as variables."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.arrays = [
            (rng.standard_normal((784, 128)) * 0.05).astype(np.float32),
            np.zeros(128, np.float32),
            (rng.standard_normal((128, 10)) * 0.1).astype(np.float32),
            np.zeros(10, np.float32),
        ]
        self.w1, self.b1, self.w2, self.b2 = (rt.Variable(a) for a in self.arrays)

    def __call__(self, images):
        hidden = rt.relu(rt.matmul(rt.reshape(images, [-1, 784]), self.w1) + self.b1)
        return rt.matmul(hidden, self.w2) + self.b2

    def numpy(self, images: np.ndarray) -> np.ndarray:
        w1, b1, w2, b2 = self.arrays
        hidden = np.maximum(images.reshape(images.shape[0], -1) @ w1 + b1, 0)
        return hidden @ w2 + b2


def tanh_loop(x):
    while rt.reduce_sum(x) > 1:
        x = rt.tanh(x)
    return x


def tanh_numpy(x: np.ndarray) -> np.ndarray:
    while np.sum(x) > 1:
        x = np.tanh(x)
    return x


def invariant_loop(x, w, n):
    for _ in range(n):
        x = rt.tanh(rt.matmul(x, rt.transpose(w)) * 1.0 + rt.reduce_sum(w * w))
    return x


def invariant_loop_numpy(x: np.ndarray, w: np.ndarray, n: int) -> np.ndarray:
    for _ in range(n):
        x = np.tanh(x @ np.transpose(w) * np.float32(1.0) + np.sum(w * w))
    return x


def add_chain(x):
    for _ in range(CHAIN):
        x = x + 1.0
    return x


def add_chain_numpy(x: np.ndarray, one: np.float32) -> np.ndarray:
    for _ in range(CHAIN):
        x = x + one
    return x


# -- measuring ---------------------------------------------------------------------


def _count_ops(graph: Graph) -> int:
    total = 0
    for op in graph.get_operations():
        total += 1
        for value in op.attrs.values():
            if isinstance(value, Graph):
                total += _count_ops(value)
    return total


def _value(result: Any) -> np.ndarray:
    return np.asarray(result.numpy() if hasattr(result, "numpy") else result)


def _workload(
    fn: Callable[..., Any], args: tuple[Any, ...], reference: Callable[[], Any]
) -> dict[str, Any]:
    """Candidates for one workload, and its graph sizes and trace times."""
    function(fn, optimize=False).get_concrete_function(*args)  # converts, caches
    traced = {opt: function(fn, optimize=opt) for opt in (True, False)}
    trace_s = {
        opt: time_call(lambda f=f: f.get_concrete_function(*args))
        for opt, f in traced.items()
    }
    expected = _value(reference())
    for f in traced.values():
        if not np.allclose(_value(f(*args)), expected, rtol=1e-4, atol=1e-5):
            raise SystemExit(f"{fn.__name__}: the graph disagrees with NumPy")
    cf = traced[True].get_concrete_function(*args)
    return {
        "candidates": {
            "numpy": reference,
            "optimized": lambda: traced[True](*args),
            "unoptimized": lambda: traced[False](*args),
        },
        "ops": {
            "traced": _count_ops(cf.graph),
            "optimized": _count_ops(cf.optimized_graph),
        },
        "trace_s": {"optimized": trace_s[True], "unoptimized": trace_s[False]},
    }


def workloads() -> dict[str, dict[str, Any]]:
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2, size=(10, 10)).astype(np.int32)
    images = rng.random((60, 28, 28), dtype=np.float32)
    dense = Dense(rng)
    small = rng.random(5, dtype=np.float32)
    large = np.zeros(100_000, np.float32)
    large[:5] = small
    vector = np.zeros(4, np.float32)
    state = rng.random((8, 64), dtype=np.float32)
    w = (rng.standard_normal((64, 64)) * 0.01).astype(np.float32)
    one = np.float32(1.0)
    found = {
        "power_unrolled": _workload(
            power_unrolled, (rt.constant(x),), lambda: power_numpy(x, 100)
        ),
        "power_while": _workload(
            power_while, (rt.constant(x), rt.constant(100)), lambda: power_numpy(x, 100)
        ),
        "dense": _workload(
            dense.__call__, (rt.constant(images),), lambda: dense.numpy(images)
        ),
        "tanh_loop_5": _workload(
            tanh_loop, (rt.constant(small),), lambda: tanh_numpy(small)
        ),
        "tanh_loop_100k": _workload(
            tanh_loop, (rt.constant(large),), lambda: tanh_numpy(large)
        ),
        "invariant_loop": _workload(
            invariant_loop,
            (rt.constant(state), rt.constant(w), rt.constant(50)),
            lambda: invariant_loop_numpy(state, w, 50),
        ),
        "add_chain_1000": _workload(
            add_chain, (rt.constant(vector),), lambda: add_chain_numpy(vector, one)
        ),
    }
    # The executor alone on the chain: no Function call, no argument checks.
    chain = function(add_chain).get_concrete_function(rt.constant(vector))
    compiled = executor.compile(chain.graph, chain.inputs, chain.outputs)
    found["add_chain_1000"]["candidates"]["executor"] = lambda: compiled([vector])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--quick", action="store_true", help="few short rounds")
    args = parser.parse_args()
    rounds, sample_s = (5, 0.005) if args.quick else (args.rounds, 0.02)
    report: dict[str, Any] = {"numpy": np.__version__, "rounds": rounds}
    results: dict[str, Any] = {}
    print(f"{'workload':<16}{'candidate':<13}{'per call':>12}{'vs numpy':>10}")
    for name, work in workloads().items():
        timings = compare(work["candidates"], rounds=rounds, min_sample_s=sample_s)
        entry: dict[str, Any] = {
            "ops": work["ops"],
            "trace_and_optimize_s": work["trace_s"],
        }
        for candidate, timing in timings.items():
            r = ratio(timings, candidate, "numpy")
            entry[candidate] = {"median_s": timing.median_s, "vs_numpy": round(r, 3)}
            micros = timing.median_s * 1e6
            print(f"{name:<16}{candidate:<13}{micros:>10.1f}us{r:>9.2f}x")
        entry["optimized_vs_unoptimized"] = round(
            ratio(timings, "optimized", "unoptimized"), 3
        )
        results[name] = entry
    chain = results["add_chain_1000"]
    per_op = {
        key: (chain[key]["median_s"] - chain["numpy"]["median_s"]) / CHAIN
        for key in ("executor", "optimized")
    }
    report["add_chain_overhead_per_op_s"] = per_op
    report["add_chain_target_ratio"] = TARGET_CHAIN_RATIO
    report["workloads"] = results
    path = write_results("optimizer", report)
    print(f"per-op overhead over NumPy: {per_op['executor'] * 1e9:.0f} ns (executor)")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
