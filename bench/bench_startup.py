"""Start-up: `import autograph` and one CLI call, each in a fresh interpreter.

`import autograph` loads neither the runtime nor NumPy (issue 24; goal: at
most 0.15 s), and the CLI prints converted code without them (issue 23;
goal: a few times a bare `python -c pass`). Each candidate is one new
interpreter, timed from start to exit, in interleaved rounds; the figures
are medians, with ratios to `python -c pass` of the same run and the time
each adds to it (the import goal is judged on that). `import
autograph, runtime` is what `import autograph` cost before the runtime
loaded lazily.

Run: ``python bench/bench_startup.py [--rounds N]`` (or ``make bench``).
Writes ``bench/out/startup.json``. Never asserts on timings.
"""

import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # before anything imports NumPy

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._timing import compare, ratio, write_results  # noqa: E402

IMPORT_GOAL_S = 0.15
DEMO = "examples/demo.py"

COMMANDS = {
    "python -c pass": ["-c", "pass"],
    "import autograph": ["-c", "import autograph"],
    "import autograph, runtime": ["-c", "import autograph, runtime"],
    "cli: demo.py::relu": ["-m", "autograph", f"{DEMO}::relu"],
    "cli: demo.py (4 functions)": ["-m", "autograph", DEMO],
}


def _run(argv: list[str]) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    subprocess.run(
        [sys.executable, *argv],
        cwd=ROOT,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )


def main() -> None:
    """Times each command, prints a table, writes the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    timings = compare(
        {name: (lambda argv=argv: _run(argv)) for name, argv in COMMANDS.items()},
        rounds=args.rounds,
        min_sample_s=0.0,
    )
    print(
        f"{'command (a fresh interpreter)':32} {'median':>9} {'vs pass':>8} "
        f"{'added':>9}"
    )
    results = {}
    pass_s = timings["python -c pass"].median_s
    for name in COMMANDS:
        seconds = timings[name].median_s
        times_pass = ratio(timings, name, "python -c pass")
        results[name] = {
            "median_s": seconds,
            "vs_python_pass": times_pass,
            "added_s": seconds - pass_s,
        }
        print(
            f"{name:32} {seconds * 1e3:7.1f}ms {times_pass:7.2f}x "
            f"{(seconds - pass_s) * 1e3:7.1f}ms"
        )
    # The goal is for the import itself: what it adds to a bare interpreter.
    import_s = results["import autograph"]["added_s"]
    print(
        f"import autograph adds {import_s:.3f} s to python -c pass (goal <= "
        f"{IMPORT_GOAL_S} s: {'met' if import_s <= IMPORT_GOAL_S else 'missed'})"
    )
    path = write_results(
        "startup",
        {
            "rounds": args.rounds,
            "import_goal_s": IMPORT_GOAL_S,
            "import_goal_met": import_s <= IMPORT_GOAL_S,
            "commands": results,
        },
    )
    print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
