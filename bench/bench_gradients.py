"""Gradients and datasets against hand-written NumPy, in the same run.

Workloads:

* `train_step`: one training step (forward, backward, SGD update) of a
  64x784 -> 128 (tanh) -> 10 dense model with a mean-squared-error loss:
  inside an `autograph.function` (GradientTape + SGD in the graph), as an
  eager tape step, and hand-written NumPy (forward, backward, in-place
  update). Target: the Function within 1.3x of NumPy.
* `train_step_relu`: the same with relu.
* `dataset_scalars`: the sum of a `from_tensor_slices` dataset of 100,000
  float64 scalars, by `for x in ds` inside a Function, against a plain
  Python loop over the same NumPy array.
* `dataset_batches`: the same data batched 1,000 at a time (`.batch(1000)`,
  `s += reduce_sum(x)`), against NumPy's sum over the same batches.

Rounds are interleaved and each figure is the median time per call; the
ratios are against the NumPy / Python baseline of the same run. Prints a
table and writes `bench/out/gradients.json`. Never asserts timings.

Usage: `python bench/bench_gradients.py [--rounds N] [--quick]`
"""

from __future__ import annotations

import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # before NumPy loads

import argparse
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import autograph  # noqa: E402
import runtime as rt  # noqa: E402
from bench._timing import compare, ratio, write_results  # noqa: E402

LEARNING_RATE = 0.01


def _model_data() -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    params = {
        "w1": (rng.standard_normal((784, 128)) * 0.05).astype(np.float32),
        "b1": np.zeros(128, np.float32),
        "w2": (rng.standard_normal((128, 10)) * 0.05).astype(np.float32),
        "b2": np.zeros(10, np.float32),
    }
    x = rng.standard_normal((64, 784)).astype(np.float32)
    y = rng.standard_normal((64, 10)).astype(np.float32)
    return params, x, y


def numpy_step(
    p: dict[str, np.ndarray], x: np.ndarray, y: np.ndarray, activation: str = "tanh"
) -> float:
    """Forward, backward and update, by hand."""
    h = x @ p["w1"] + p["b1"]
    a = np.tanh(h) if activation == "tanh" else np.maximum(h, 0)
    out = a @ p["w2"] + p["b2"]
    diff = out - y
    loss = np.mean(diff * diff)
    d_out = diff * np.float32(2.0 / diff.size)
    d_w2 = a.T @ d_out
    d_b2 = d_out.sum(axis=0)
    d_a = d_out @ p["w2"].T
    d_h = d_a * (1 - a * a) if activation == "tanh" else d_a * (h > 0)
    d_w1 = x.T @ d_h
    d_b1 = d_h.sum(axis=0)
    lr = np.float32(LEARNING_RATE)
    p["w1"] -= lr * d_w1
    p["b1"] -= lr * d_b1
    p["w2"] -= lr * d_w2
    p["b2"] -= lr * d_b2
    return float(loss)


def make_runtime_steps(
    params: dict[str, np.ndarray], activation: str = "tanh"
) -> tuple[object, object]:
    variables = [
        rt.Variable(params[k].copy(), name=k) for k in ("w1", "b1", "w2", "b2")
    ]
    w1, b1, w2, b2 = variables
    optimizer = rt.optimizers.SGD(LEARNING_RATE)
    act = rt.tanh if activation == "tanh" else rt.relu

    def step(x: object, y: object) -> object:
        with rt.GradientTape() as tape:
            out = rt.matmul(act(rt.matmul(x, w1) + b1), w2) + b2
            loss = rt.reduce_mean(rt.square(out - y))
        grads = tape.gradient(loss, variables)
        optimizer.apply_gradients(zip(grads, variables))
        return loss

    return autograph.function(step), step


def python_sum(array: np.ndarray) -> float:
    s = 0.0
    for v in array:
        s += v
    return s


def numpy_batch_sum(array: np.ndarray, n: int) -> float:
    s = 0.0
    for i in range(0, len(array), n):
        s += array[i : i + n].sum()
    return s


@autograph.function
def dataset_sum(ds: object) -> object:
    s = rt.constant(0.0, rt.float64)
    for x in ds:
        s += x
    return s


@autograph.function
def dataset_batch_sum(ds: object) -> object:
    s = rt.constant(0.0, rt.float64)
    for x in ds:
        s += rt.reduce_sum(x)
    return s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="3 rounds, short samples")
    args = parser.parse_args()
    rounds = 3 if args.quick else args.rounds
    sample = 0.005 if args.quick else 0.05
    report: dict[str, object] = {"rounds": rounds}

    params, x_np, y_np = _model_data()
    x, y = rt.constant(x_np), rt.constant(y_np)
    for activation, suffix in (("tanh", ""), ("relu", "_relu")):
        numpy_params = {k: v.copy() for k, v in params.items()}
        function_step, _ = make_runtime_steps(params, activation)
        _, eager_only = make_runtime_steps(params, activation)
        check_fn, _ = make_runtime_steps(params, activation)
        check_np = {k: v.copy() for k, v in params.items()}
        expected = numpy_step(check_np, x_np, y_np, activation)
        assert abs(float(check_fn(x, y)) - expected) < 1e-5
        timings = compare(
            {
                "numpy": lambda p=numpy_params, a=activation: numpy_step(
                    p, x_np, y_np, a
                ),
                "function": lambda f=function_step: f(x, y),
                "eager_tape": lambda f=eager_only: f(x, y),
            },
            rounds=rounds,
            min_sample_s=sample,
        )
        report[f"train_step{suffix}"] = {
            "model": f"64x784 -> 128 {activation} -> 10, MSE, SGD",
            "target_function_vs_numpy": 1.3,
            "median_s": {k + suffix: t.median_s for k, t in timings.items()},
            "function_vs_numpy": ratio(timings, "function", "numpy"),
            "eager_tape_vs_numpy": ratio(timings, "eager_tape", "numpy"),
        }

    data = np.random.default_rng(1).standard_normal(100_000)
    scalars = rt.data.Dataset.from_tensor_slices(data)
    batches = scalars.batch(1000)
    assert abs(float(dataset_sum(scalars)) - python_sum(data)) < 1e-6
    assert abs(float(dataset_batch_sum(batches)) - numpy_batch_sum(data, 1000)) < 1e-6
    timings = compare(
        {
            "python_loop": lambda: python_sum(data),
            "function_scalars": lambda: dataset_sum(scalars),
            "numpy_batches": lambda: numpy_batch_sum(data, 1000),
            "function_batches": lambda: dataset_batch_sum(batches),
        },
        rounds=rounds,
        min_sample_s=sample,
    )
    report["dataset"] = {
        "elements": len(data),
        "batch": 1000,
        "median_s": {k: t.median_s for k, t in timings.items()},
        "scalars_vs_python_loop": ratio(timings, "function_scalars", "python_loop"),
        "batches_vs_numpy": ratio(timings, "function_batches", "numpy_batches"),
    }

    for name in ("train_step", "train_step_relu", "dataset"):
        section = report[name]
        assert isinstance(section, dict)
        print(name)
        for k, v in section["median_s"].items():
            print(f"  {k:18s} {v * 1e3:9.3f} ms")
        for k, v in section.items():
            if k.endswith(("_numpy", "_loop")):
                print(f"  {k:26s} {v:.2f}x")
    path = write_results("gradients", report)
    print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
