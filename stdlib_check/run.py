"""`make stdlib`: converts pure-Python standard-library modules and runs
CPython's own tests on them, converted and not (see README.md); with
`--third-party` (`make thirdparty`), the installed third-party packages of
`modules.THIRD_PARTY` against their own tests.

    python -m stdlib_check.run [--third-party] [--only argparse,textwrap] [--jobs N]

Per module it reports the functions converted / refused (with reasons) /
not converted (generators, async), the tests run, and every test that
passes unconverted and fails converted. Exit status 1 when any test goes
from pass to fail or conversion crashed, 2 when the interpreter has no
`test` package.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from stdlib_check.modules import ENTRIES, THIRD_PARTY, Entry

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results"
PASSING = ("pass", "xfail", "skip")


def has_test_package() -> bool:
    """Whether this interpreter has CPython's `test` package."""
    try:
        import test.support  # noqa: F401
    except ImportError:
        return False
    return True


def _installed(entry: Entry) -> bool:
    """Whether the package of `entry`'s first module is installed."""
    return importlib.util.find_spec(entry.modules[0].split(".")[0]) is not None


def _worker(entry: Entry, mode: str, timeout: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.json")
        log = os.path.join(tmp, "log.txt")
        command = [
            sys.executable,
            # Frozen modules (posixpath, ntpath, genericpath, ...) have no
            # source to convert; unfrozen, they load from their files.
            "-X",
            "frozen_modules=off",
            "-m",
            "stdlib_check.worker",
            mode,
            out,
            ",".join(entry.modules),
            ",".join(entry.tests),
            entry.runner,
        ]
        env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}
        with open(log, "w") as log_file:
            try:
                code = subprocess.run(
                    command,
                    cwd=tmp,
                    env=env,
                    stdout=log_file,
                    stderr=subprocess.STDOUT,
                    timeout=timeout,
                    check=False,
                ).returncode
            except subprocess.TimeoutExpired:
                code = "timeout"
        if code == 0 and os.path.exists(out):
            with open(out) as f:
                return json.load(f)
        with open(log) as f:
            tail = f.read()[-2000:]
        return {"mode": mode, "failed": f"exit {code}", "log_tail": tail}


def check_entry(entry: Entry, timeout: float) -> dict[str, Any]:
    """Runs `entry`'s tests plain and converted and compares them."""
    plain = _worker(entry, "plain", timeout)
    converted = _worker(entry, "converted", timeout)
    result: dict[str, Any] = {
        "modules": list(entry.modules),
        "tests": list(entry.tests),
    }
    for run in (plain, converted):
        if "failed" in run:
            result[f"{run['mode']}_failed"] = run["failed"]
            result[f"{run['mode']}_log_tail"] = run["log_tail"]
    if "failed" in plain or "failed" in converted:
        return result
    before, after = plain["outcomes"], converted["outcomes"]
    result["functions"] = converted["functions"]
    result["tests_run"] = len(before)
    result["passing_plain"] = sum(v[0] in PASSING for v in before.values())
    result["passing_converted"] = sum(v[0] in PASSING for v in after.values())
    result["pass_to_fail"] = {
        test: after.get(test, ("missing", ""))
        for test, (status, _) in sorted(before.items())
        if status in PASSING and after.get(test, ("missing",))[0] not in PASSING
    }
    result["fail_to_pass"] = sorted(
        test
        for test, (status, _) in before.items()
        if status not in PASSING and after.get(test, ("",))[0] in PASSING
    )
    result["seconds"] = {
        "plain": plain["tests_s"],
        "converted": converted["tests_s"],
        "conversion": converted["conversion_s"],
    }
    return result


def _line(result: dict[str, Any]) -> str:
    name = result["modules"][0]
    if "functions" not in result:
        why = result.get("converted_failed") or result.get("plain_failed")
        return f"{name:18} RUN FAILED ({why})"
    fns = result["functions"]
    refused = sum(len(v) for v in fns["refused"].values())
    skipped = sum(len(v) for v in fns["not_converted"].values())
    return (
        f"{name:18} functions {fns['converted']:4} converted {refused:3} refused "
        f"{skipped:3} not converted | tests {result['tests_run']:5} "
        f"passing {result['passing_plain']:5} -> {result['passing_converted']:5} "
        f"| pass->fail {len(result['pass_to_fail']):3} "
        f"| crashes {len(fns['crashes'])}"
    )


def report(results: list[dict[str, Any]]) -> tuple[str, bool]:
    """The text report and whether everything held."""
    lines = ["== per module"]
    lines += [_line(r) for r in results]
    done = [r for r in results if "functions" in r]
    reasons: collections.Counter[str] = collections.Counter()
    skipped: collections.Counter[str] = collections.Counter()
    crashes: list[str] = []
    for r in done:
        for reason, names in r["functions"]["refused"].items():
            reasons[reason] += len(names)
        for reason, names in r["functions"]["not_converted"].items():
            skipped[reason] += len(names)
        crashes += r["functions"]["crashes"]
    total = {
        "modules": len(results),
        "functions converted": sum(r["functions"]["converted"] for r in done),
        "functions refused": sum(reasons.values()),
        "functions not converted": sum(skipped.values()),
        "tests run": sum(r["tests_run"] for r in done),
        "tests passing unconverted": sum(r["passing_plain"] for r in done),
        "tests passing converted": sum(r["passing_converted"] for r in done),
        "pass->fail": sum(len(r["pass_to_fail"]) for r in done),
        "compiler crashes": len(crashes),
        "runs failed": len(results) - len(done),
    }
    lines.append("== totals")
    lines += [f"{k:26} {v}" for k, v in total.items()]
    lines.append("== refused, by reason")
    lines += [f"{n:5}  {reason}" for reason, n in reasons.most_common()]
    lines.append("== not converted")
    lines += [f"{n:5}  {reason}" for reason, n in skipped.most_common()]
    if crashes:
        lines.append("== compiler crashes")
        lines += crashes
    lines.append("== pass -> fail")
    for r in done:
        for test, (status, detail) in r["pass_to_fail"].items():
            lines.append(f"{test}: {status}: {detail}")
    for r in results:
        if "functions" not in r:
            lines.append(f"== run failed: {r['modules'][0]}")
            for mode in ("plain", "converted"):
                if f"{mode}_failed" in r:
                    lines.append(f"-- {mode}: {r[f'{mode}_failed']}")
                    lines.append(r[f"{mode}_log_tail"])
    held = total["pass->fail"] == 0 and not crashes and total["runs failed"] == 0
    return "\n".join(lines), held


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="comma-separated entry names (first module)")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--out")
    parser.add_argument(
        "--third-party",
        action="store_true",
        help="the third-party packages (those installed) against their tests",
    )
    args = parser.parse_args(argv)
    out = Path(
        args.out
        or RESULTS / ("third_party.json" if args.third_party else "latest.json")
    )
    if args.third_party:
        entries = [e for e in THIRD_PARTY if _installed(e)]
        for missing in set(THIRD_PARTY) - set(entries):
            print(f"{missing.name}: not installed, skipped", file=sys.stderr)
    elif not has_test_package():
        print(
            "make stdlib needs CPython's `test` package, which this interpreter "
            f"({sys.executable}) does not have. On Debian/Ubuntu install "
            "libpython3.X-testsuite for your Python 3.X, or use a python.org or "
            "pyenv build, which include it.",
            file=sys.stderr,
        )
        return 2
    else:
        entries = list(ENTRIES)
    if args.only:
        wanted = set(args.only.split(","))
        entries = [e for e in entries if e.name in wanted]
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        futures = [pool.submit(check_entry, e, args.timeout) for e in entries]
        results = []
        for entry, future in zip(entries, futures):
            results.append(future.result())
            print(_line(results[-1]), file=sys.stderr, flush=True)
            del entry
    text, held = report(results)
    print(text)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    return 0 if held else 1


if __name__ == "__main__":
    sys.exit(main())
