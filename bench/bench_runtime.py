"""Runtime speed against hand-written NumPy, measured in the same run.

Workloads (each as a graph run by `runtime.executor`, as eager ops, and as
plain NumPy):

* `power`: `x ** 100` for a 10x10 int32 matrix by repeated matmul; the graph
  once unrolled (a Python loop while building: 100 MatMul nodes) and once
  with a tensor trip count (`rt.while_loop`).
* `dense`: a batch of 60 28x28 images -> flatten -> 128 relu -> 10.
* `tanh_loop_5` / `tanh_loop_100k`: `while reduce_sum(x) > 1: x = tanh(x)`
  on 5 floats (uniform in [0, 1)) and on 100,000 floats (the same 5 values
  followed by zeros, so both run the same number of iterations).

Rounds are interleaved (every variant once per round, in turn) and each
figure is the median over rounds of the time per call. Prints a table and
writes `bench/out/runtime.json`. Never asserts timings.

Usage: `python bench/bench_runtime.py [--rounds N] [--quick]`
"""

from __future__ import annotations

import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # before NumPy loads

import argparse
import json
import pathlib
import platform
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import runtime as rt  # noqa: E402
from bench._timing import RESULTS_DIR, compare  # noqa: E402
from runtime import executor  # noqa: E402

RESULTS = RESULTS_DIR / "runtime.json"


# -- workloads -------------------------------------------------------------------


def power_numpy(x: np.ndarray, n: int) -> np.ndarray:
    result = np.eye(10, dtype=np.int32)
    for _ in range(n):
        result = np.matmul(x, result)
    return result


def power_eager(x: Any, n: int) -> Any:
    result = rt.eye(10, dtype=rt.int32)
    for _ in range(n):
        result = rt.matmul(x, result)
    return result


def compile_power_unrolled(n: int) -> Callable[[list[Any]], list[Any]]:
    g = rt.Graph("power_unrolled")
    with g.as_default():
        x = g.placeholder(rt.int32, (10, 10), "x")
        result = rt.eye(10, dtype=rt.int32)
        for _ in range(n):
            result = rt.matmul(x, result)
    return executor.compile(g, [x], [result])


def compile_power_while() -> Callable[[list[Any]], list[Any]]:
    g = rt.Graph("power_while")
    with g.as_default():
        x = g.placeholder(rt.int32, (10, 10), "x")
        n = g.placeholder(rt.int32, (), "n")
        _, result = rt.while_loop(
            lambda i, r: i < n,
            lambda i, r: (i + 1, rt.matmul(x, r)),
            (0, rt.eye(10, dtype=rt.int32)),
        )
    return executor.compile(g, [x, n], [result])


def dense_numpy(images: np.ndarray, w1, b1, w2, b2) -> np.ndarray:
    hidden = np.maximum(images.reshape(images.shape[0], -1) @ w1 + b1, 0)
    return hidden @ w2 + b2


def dense_runtime(images: Any, w1, b1, w2, b2) -> Any:
    hidden = rt.relu(rt.matmul(rt.reshape(images, [-1, 784]), w1) + b1)
    return rt.matmul(hidden, w2) + b2


def compile_dense(weights: list[np.ndarray]) -> Callable[[list[Any]], list[Any]]:
    g = rt.Graph("dense")
    with g.as_default():
        images = g.placeholder(rt.float32, (None, 28, 28), "images")
        out = dense_runtime(images, *weights)
    return executor.compile(g, [images], [out])


def tanh_numpy(x: np.ndarray) -> np.ndarray:
    while np.sum(x) > 1:
        x = np.tanh(x)
    return x


def tanh_eager(x: Any) -> Any:
    while rt.reduce_sum(x) > 1:
        x = rt.tanh(x)
    return x


def compile_tanh(size: int) -> Callable[[list[Any]], list[Any]]:
    g = rt.Graph("tanh_loop")
    with g.as_default():
        x = g.placeholder(rt.float32, (size,), "x")
        (out,) = rt.while_loop(
            lambda x: rt.reduce_sum(x) > 1, lambda x: rt.tanh(x), [x]
        )
    return executor.compile(g, [x], [out])


# -- measurement ------------------------------------------------------------------


def check_same(name: str, results: dict[str, Any]) -> None:
    """The variants of a workload must agree (a bench of wrong code is moot)."""
    reference = np.asarray(results["numpy"])
    for variant, value in results.items():
        value = np.asarray(getattr(value, "numpy", lambda v=value: v)())
        if not np.allclose(value, reference, rtol=1e-4, atol=1e-5):
            raise SystemExit(f"{name}: {variant} disagrees with NumPy")


def workloads() -> dict[str, dict[str, Callable[[], Any]]]:
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2, size=(10, 10)).astype(np.int32)
    x_t = rt.constant(x)
    unrolled = compile_power_unrolled(100)
    looped = compile_power_while()
    n = np.int32(100)

    images = rng.random((60, 28, 28), dtype=np.float32)
    weights = [
        (rng.standard_normal((784, 128)) * 0.05).astype(np.float32),
        np.zeros(128, np.float32),
        (rng.standard_normal((128, 10)) * 0.1).astype(np.float32),
        np.zeros(10, np.float32),
    ]
    weights_t = [rt.constant(w) for w in weights]
    images_t = rt.constant(images)
    dense = compile_dense(weights)

    small = rng.random(5, dtype=np.float32)
    large = np.zeros(100_000, np.float32)
    large[:5] = small
    tanh_small, tanh_large = compile_tanh(5), compile_tanh(100_000)
    small_t, large_t = rt.constant(small), rt.constant(large)

    return {
        "power": {
            "numpy": lambda: power_numpy(x, 100),
            "eager": lambda: power_eager(x_t, 100),
            "graph_unrolled": lambda: unrolled([x])[0],
            "graph_while_loop": lambda: looped([x, n])[0],
        },
        "dense": {
            "numpy": lambda: dense_numpy(images, *weights),
            "eager": lambda: dense_runtime(images_t, *weights_t),
            "graph": lambda: dense([images])[0],
        },
        "tanh_loop_5": {
            "numpy": lambda: tanh_numpy(small),
            "eager": lambda: tanh_eager(small_t),
            "graph": lambda: tanh_small([small])[0],
        },
        "tanh_loop_100k": {
            "numpy": lambda: tanh_numpy(large),
            "eager": lambda: tanh_eager(large_t),
            "graph": lambda: tanh_large([large])[0],
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="few short rounds")
    args = parser.parse_args()
    rounds, target = (5, 0.01) if args.quick else (args.rounds, 0.05)

    report: dict[str, Any] = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "machine": platform.machine(),
        "rounds": rounds,
        "cpus": os.cpu_count(),
        # Other processes on the machine slow every variant alike; the ratios
        # (measured in interleaved rounds) are the figures to read.
        "load_average_at_start": round(os.getloadavg()[0], 2),
        "workloads": {},
    }
    print(f"{'workload':<16}{'variant':<18}{'per call':>12}{'vs numpy':>10}")
    for name, variants in workloads().items():
        check_same(name, {k: fn() for k, fn in variants.items()})
        timings = compare(variants, rounds=rounds, min_sample_s=target)
        medians = {variant: t.median_s for variant, t in timings.items()}
        base = medians["numpy"]
        entry = {}
        for variant, seconds in medians.items():
            ratio = seconds / base
            entry[variant] = {"seconds": seconds, "ratio_to_numpy": round(ratio, 3)}
            print(f"{name:<16}{variant:<18}{seconds * 1e6:>10.1f}us{ratio:>9.2f}x")
        report["workloads"][name] = entry
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
