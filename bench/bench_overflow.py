"""The cost of the integer wrap-around check in graph loops.

The executor checks each int32/int64 `Add`/`Sub` and int32 `Mul` it runs
inside a graph loop (`runtime/overflow.py`). This bench times graph loops
made of such ops with the check on and off (`overflow.ENABLED`), compiled
from the same traced graph:

* `collatz_int32`: the README's `collatz_steps(27)` (111 iterations of a
  `cond` with `//`, `*`, `+`): scalar ops, where the check costs most
  relative to the op.
* `sum_int32_scalar`: `for i in rt.range(1000): s += i` (two checked adds
  per iteration: the sum and the loop counter).
* `sum_int32_1000`: the same with `s` a 1000-element vector.

Prints a table and writes `bench/results/overflow.json`. Never asserts.

Usage: `python bench/bench_overflow.py [--rounds N]`
"""

from __future__ import annotations

import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # before NumPy loads

import argparse
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import autograph  # noqa: E402
import runtime as rt  # noqa: E402
from bench._timing import compare, environment, write_results  # noqa: E402
from runtime import executor, overflow  # noqa: E402


def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def running_sum(s):
    for i in rt.range(1000):
        s += i
    return s


WORKLOADS = {
    "collatz_int32": (collatz_steps, rt.constant(27)),
    "sum_int32_scalar": (running_sum, rt.constant(0)),
    "sum_int32_1000": (running_sum, rt.zeros([1000], rt.int32)),
}


def compiled(fn, arg, check: bool):
    """The traced, optimized graph of `fn` compiled with or without the check."""
    concrete = autograph.function(fn).get_concrete_function(arg)
    overflow.ENABLED[0] = check
    try:
        plan = executor.compile(
            concrete.optimized_graph, concrete.inputs, concrete.outputs
        )
    finally:
        overflow.ENABLED[0] = True
    value = arg.numpy()
    return lambda: plan([value])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=21)
    args = parser.parse_args()
    figures = {}
    print(f"{'workload':<18} {'checked us':>11} {'unchecked us':>13} {'cost':>7}")
    for name, (fn, arg) in WORKLOADS.items():
        timings = compare(
            {"checked": compiled(fn, arg, True), "unchecked": compiled(fn, arg, False)},
            rounds=args.rounds,
        )
        checked = timings["checked"].median_s * 1e6
        unchecked = timings["unchecked"].median_s * 1e6
        cost = checked / unchecked - 1
        figures[name] = {
            "checked_us": round(checked, 2),
            "unchecked_us": round(unchecked, 2),
            "cost": round(cost, 4),
        }
        print(f"{name:<18} {checked:>11.1f} {unchecked:>13.1f} {cost:>+7.1%}")
    path = write_results("overflow", {"workloads": figures, "env": environment()})
    print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
