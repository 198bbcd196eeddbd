"""Python-mode overhead: converted code vs the original on plain Python values.

Converted code routes every ``if``, loop and call through ``ag__`` operators
that decide, at run time, that the values are plain Python and run the
statement as Python. This bench measures what that costs on four small
workloads and reports the ratio converted/original (target: at most 2x).

Run: ``python bench/bench_overhead.py`` (or ``make bench``). Writes
``bench/out/overhead.json``. Never asserts on timings.
"""

import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # before anything imports NumPy

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import autograph
from autograph.impl.api import always_run_converted
from bench._timing import compare, ratio, write_results

TARGET_RATIO = 2.0


def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def sum_even(n):
    total = 0
    for i in range(n):
        if i % 2 == 0:
            total += i
    return total


def sum_with_break_continue(n):
    total = 0
    for i in range(n):
        if i % 3 == 0:
            continue
        if total > 10 * n:
            break
        total += i
    return total


def scale(v):
    return 2 * v + 1


def sum_of_helper_calls(n):
    total = 0
    for i in range(n):
        total += scale(i)
    return total


WORKLOADS = {
    "collatz_steps(97)": (collatz_steps, 97),
    "sum_even(200)": (sum_even, 200),
    "sum_with_break_continue(200)": (sum_with_break_continue, 200),
    "sum_of_helper_calls(200)": (sum_of_helper_calls, 200),
}


def measure(fn, arg) -> dict[str, float | bool]:
    """Times ``fn(arg)`` against its converted version.

    Args:
        fn: A workload function of this module.
        arg: Its argument.

    Returns:
        Median microseconds of both, their ratio, and whether it meets the
        target.
    """
    converted = autograph.to_graph(fn)
    # What `to_graph` runs while no graph is being built is the original
    # (every operator would reduce to it); the converted code itself runs
    # whenever a backend is active. Both are timed.
    converted_code = converted.__ag_converted__
    with always_run_converted():
        same = converted(arg) == fn(arg)
    if not same or converted(arg) != fn(arg):
        raise SystemExit(f"{fn.__name__}: the converted result differs")
    timings = compare(
        {
            "original": lambda: fn(arg),
            "converted": lambda: converted(arg),
            "converted_code": lambda: converted_code(arg),
        }
    )
    overhead = ratio(timings, "converted", "original")
    return {
        "original_us": timings["original"].median_s * 1e6,
        "converted_us": timings["converted"].median_s * 1e6,
        "ratio": overhead,
        "within_target": overhead <= TARGET_RATIO,
        "converted_code_us": timings["converted_code"].median_s * 1e6,
        "converted_code_ratio": ratio(timings, "converted_code", "original"),
    }


def main() -> None:
    """Times every workload, prints a table, writes the JSON."""
    results = {}
    print(
        f"{'workload':32} {'original':>12} {'to_graph(f)':>12} {'ratio':>7}"
        f" {'converted code':>15} {'ratio':>7}"
    )
    for name, (fn, arg) in WORKLOADS.items():
        row = results[name] = measure(fn, arg)
        print(
            f"{name:32} {row['original_us']:10.1f}us"
            f" {row['converted_us']:10.1f}us {row['ratio']:6.2f}x"
            f" {row['converted_code_us']:13.1f}us {row['converted_code_ratio']:6.2f}x"
        )
    path = write_results(
        "overhead", {"target_ratio": TARGET_RATIO, "workloads": results}
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
