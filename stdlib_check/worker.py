"""One run of CPython tests, in a process of its own: plain or converted.

    python -m stdlib_check.worker MODE OUT.json MODULES TESTS [RUNNER]

MODE is `plain` (the modules as they are) or `converted` (every function of
MODULES converted, `autograph.api.always_run_converted()` forced while the
tests run); MODULES and TESTS are comma-separated. RUNNER is `unittest`
(TESTS: modules of CPython's `test` package) or `pytest` (TESTS: paths
below the directory MODULES' first package is installed in). Writes the
outcome of every test (and, converted, what conversion made of each
function) to OUT.json.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import sys
import time
import traceback
import unittest
import warnings
from typing import Any


class Outcomes(unittest.TestResult):
    """Every test's outcome: pass, fail, error, skip, xfail, xpass."""

    def __init__(self) -> None:
        super().__init__()
        self.outcomes: dict[str, tuple[str, str]] = {}

    def _set(self, test: Any, status: str, err: Any = None) -> None:
        key = test.id()
        previous = self.outcomes.get(key)
        if previous is not None and previous[0] in ("fail", "error"):
            return  # a failed subtest fails the test
        detail = ""
        if err is not None:
            lines = traceback.format_exception_only(err[0], err[1])
            detail = lines[-1].strip()[:300] if lines else ""
        self.outcomes[key] = (status, detail)

    def addSuccess(self, test: Any) -> None:
        self._set(test, "pass")

    def addFailure(self, test: Any, err: Any) -> None:
        self._set(test, "fail", err)

    def addError(self, test: Any, err: Any) -> None:
        self._set(test, "error", err)

    def addSkip(self, test: Any, reason: str) -> None:
        self._set(test, "skip")

    def addExpectedFailure(self, test: Any, err: Any) -> None:
        self._set(test, "xfail")

    def addUnexpectedSuccess(self, test: Any) -> None:
        self._set(test, "xpass")

    def addSubTest(self, test: Any, subtest: Any, err: Any) -> None:
        if err is not None:
            failed = issubclass(err[0], test.failureException)
            self._set(test, "fail" if failed else "error", err)


class PytestOutcomes:
    """A pytest plugin keeping every test's outcome as `Outcomes` does."""

    def __init__(self) -> None:
        self.outcomes: dict[str, tuple[str, str]] = {}

    def pytest_runtest_logreport(self, report: Any) -> None:
        previous = self.outcomes.get(report.nodeid)
        if previous is not None and previous[0] in ("fail", "error"):
            return  # a failed setup or teardown fails the test
        if report.when == "call" or report.outcome != "passed":
            if report.outcome == "passed":
                status = "xpass" if hasattr(report, "wasxfail") else "pass"
            elif report.outcome == "skipped":
                status = "xfail" if hasattr(report, "wasxfail") else "skip"
            else:
                status = "fail" if report.when == "call" else "error"
            detail = ""
            if report.outcome == "failed":
                lines = str(report.longrepr).strip().splitlines()
                detail = lines[-1][:300] if lines else ""
            self.outcomes[report.nodeid] = (status, detail)


def _pytest_run(names: list[str], tests: list[str]) -> dict[str, tuple[str, str]]:
    import pytest

    top = importlib.import_module(names[0].split(".")[0])
    site = os.path.dirname(os.path.dirname(top.__file__))
    plugin = PytestOutcomes()
    pytest.main(
        [
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            "--rootdir",  # (node ids name the package's test files)
            site,
            *(os.path.join(site, t) for t in tests),
        ],
        plugins=[plugin],
    )
    return plugin.outcomes


def _unittest_run(tests: list[str]) -> dict[str, tuple[str, str]]:
    result = Outcomes()
    suite = unittest.TestSuite(
        unittest.defaultTestLoader.loadTestsFromName(t) for t in tests
    )
    suite.run(result)
    return result.outcomes


def main(argv: list[str]) -> int:
    mode, out, modules, tests, *rest = argv
    runner = rest[0] if rest else "unittest"
    report: dict[str, Any] = {"mode": mode}
    from stdlib_check.convert import expand

    names = expand(modules.split(","))
    if mode == "converted":
        from autograph.impl import api, libraries
        from stdlib_check.convert import ModuleConverter, Tally

        libraries.CONVERTED_LIBRARY_MODULES.update(names)
        warnings.simplefilter("ignore", api.ConversionWarning)
        tally = Tally()
        start = time.perf_counter()
        ModuleConverter([importlib.import_module(n) for n in names], tally).run()
        report["conversion_s"] = round(time.perf_counter() - start, 2)
        report["functions"] = tally.as_json()
    else:
        for name in names:
            importlib.import_module(name)
    start = time.perf_counter()
    run = (
        functools.partial(_pytest_run, names, tests.split(","))
        if runner == "pytest"
        else functools.partial(_unittest_run, tests.split(","))
    )
    if mode == "converted":
        with api.always_run_converted():
            outcomes = run()
    else:
        outcomes = run()
    report["tests_s"] = round(time.perf_counter() - start, 2)
    report["outcomes"] = outcomes
    with open(out, "w") as f:
        json.dump(report, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
