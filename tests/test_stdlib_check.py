"""The standard-library harness (`make stdlib`) without the `test` package:
what it converts in a module, and its message when the package is missing;
its pytest runner (`make thirdparty`) on a package made here."""

from __future__ import annotations

import functools
import importlib
import json
import os
import subprocess
import sys
import types
from pathlib import Path

import autograph
from autograph.impl import api, transpiler
from stdlib_check import run
from stdlib_check.convert import ModuleConverter, Tally

SOURCE = """
import functools


def plain(x):
    if x > 0:
        return x
    return -x


def gen(n):
    yield n


class Shape:
    table = {}

    def area(self, x):
        return plain(x) * 2

    @staticmethod
    def static(x):
        return plain(x) + 1

    @classmethod
    def klass(cls, x):
        return plain(x) + 2

    @property
    def prop(self):
        return 3

    @functools.cached_property
    def cached(self):
        return 4

    class Inner:
        def method(self):
            return 5


Shape.table["area"] = Shape.area
DISPATCH = {"plain": plain}
"""


def _module(tmp_path, monkeypatch, name):
    path = tmp_path / f"{name}.py"
    path.write_text(SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module(name)
    monkeypatch.delitem(sys.modules, name)  # after the test
    return module


def test_every_function_the_module_defines_is_converted(tmp_path, monkeypatch):
    module = _module(tmp_path, monkeypatch, "harness_subject")
    tally = Tally()
    ModuleConverter([module], tally).run()
    converted = [
        module.plain,
        module.DISPATCH["plain"],
        module.Shape.__dict__["area"],
        module.Shape.table["area"],
        module.Shape.__dict__["static"].__func__,
        module.Shape.__dict__["klass"].__func__,
        module.Shape.__dict__["prop"].fget,
        module.Shape.__dict__["cached"].func,
        module.Shape.Inner.__dict__["method"],
    ]
    assert all(transpiler.is_converted_code(f.__code__) for f in converted)
    assert tally.converted == 7  # `area` once, wherever it is held
    assert tally.not_converted == {"generator": ["harness_subject.gen"]}
    shape = module.Shape()
    with api.always_run_converted():
        assert (shape.area(-2), shape.static(-2), module.Shape.klass(-2)) == (4, 3, 4)
        assert (shape.prop, shape.cached, module.Shape.Inner().method()) == (3, 4, 5)


def test_a_function_that_cannot_be_converted_is_counted_as_refused(
    tmp_path, monkeypatch
):
    module = _module(tmp_path, monkeypatch, "harness_subject_2")
    namespace: dict = {}
    exec("def made(x):\n    return x\n", namespace)  # no source
    module.made = types.FunctionType(
        namespace["made"].__code__, module.__dict__, "made"
    )
    tally = Tally()
    ModuleConverter([module], tally).run()
    assert tally.refused == {
        "its source code is not available": ["harness_subject_2.made"]
    }
    assert autograph.to_graph(module.made) is module.made  # marked: runs as is


def test_without_the_test_package_it_says_so_and_stops(monkeypatch, capsys):
    monkeypatch.setattr(run, "has_test_package", lambda: False)
    assert run.main([]) == 2
    assert "needs CPython's `test` package" in capsys.readouterr().err


def test_the_module_list_is_long_enough():
    from stdlib_check.modules import ENTRIES

    assert len(ENTRIES) >= 25
    assert len({e.name for e in ENTRIES}) == len(ENTRIES)
    assert functools.reduce(set.union, ({*e.tests} for e in ENTRIES)) >= {
        "test.test_argparse"
    }


_PACKAGE_MODULE = """
def total(xs):
    out = 0
    for x in xs:
        if x < 0:
            break
        out += x
    return out
"""

_PACKAGE_TEST = """
from harness_package.algo import total


def test_total():
    assert total([1, 2, -1, 5]) == 3


def test_fails_anyway():
    assert total([]) == 1
"""


def test_the_pytest_runner_converts_a_package_and_keeps_each_outcome(tmp_path):
    package = tmp_path / "harness_package"
    (package / "tests").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "algo.py").write_text(_PACKAGE_MODULE)
    (package / "tests" / "__init__.py").write_text("")
    (package / "tests" / "test_algo.py").write_text(_PACKAGE_TEST)
    out = tmp_path / "out.json"
    root = Path(run.__file__).resolve().parent.parent
    subprocess.run(
        [
            sys.executable,
            "-m",
            "stdlib_check.worker",
            "converted",
            str(out),
            "harness_package.*",
            "harness_package/tests/test_algo.py",
            "pytest",
        ],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{root}"},
        check=True,
        capture_output=True,
    )
    report = json.loads(out.read_text())
    assert report["functions"]["converted"] == 1  # `total`; the tests are not
    outcomes = report["outcomes"]
    name = "harness_package/tests/test_algo.py::"
    assert outcomes[name + "test_total"] == ["pass", ""]
    assert outcomes[name + "test_fails_anyway"][0] == "fail"


def test_networkx_dispatchers_call_the_converted_algorithm(tmp_path, monkeypatch):
    module = _module(tmp_path, monkeypatch, "harness_subject_3")

    class Dispatcher:  # networkx.utils.backends._dispatchable
        orig_func = module.plain

    backends = types.ModuleType("networkx.utils.backends")
    backends._registered_algorithms = {"plain": Dispatcher}
    monkeypatch.setitem(sys.modules, "networkx.utils.backends", backends)
    ModuleConverter([module], Tally()).run()
    assert transpiler.is_converted_code(Dispatcher.orig_func.__code__)


def test_a_third_party_package_not_installed_is_skipped_saying_so(
    tmp_path, monkeypatch, capsys
):
    from stdlib_check.modules import Entry

    missing = Entry(("no_such_package_here.*",), ("tests",), "pytest")
    monkeypatch.setattr(run, "THIRD_PARTY", (missing,))
    out = tmp_path / "third_party.json"
    assert run.main(["--third-party", "--out", str(out)]) == 0
    assert "no_such_package_here.*: not installed, skipped" in capsys.readouterr().err
    assert json.loads(out.read_text()) == []
