"""The standard-library harness (`make stdlib`) without the `test` package:
what it converts in a module, and its message when the package is missing."""

from __future__ import annotations

import functools
import importlib
import sys
import types

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
