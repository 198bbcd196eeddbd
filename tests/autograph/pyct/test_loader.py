"""Tests for autograph.pyct.loader: closures, globals and positions."""

from __future__ import annotations

import ast
import traceback
import types

import pytest

from autograph.pyct import loader, parser

_GLOBAL_HITS = 0


def make_counter():
    count = 0

    def bump(step):
        nonlocal count
        count += step
        return count

    def read():
        return count

    return bump, read


def hit_global():
    global _GLOBAL_HITS
    _GLOBAL_HITS += 1
    return _GLOBAL_HITS


def divide(x):
    return 1 / x


scale = lambda x: factor * x  # noqa: F821


def _factory_module(node: ast.AST, name: str, free_vars: list[str]) -> ast.Module:
    """Wraps a parsed def (or lambda) as the lead's converter does."""
    if isinstance(node, ast.Lambda):
        body = [ast.Assign(targets=[ast.Name(name, ast.Store())], value=node)]
    else:
        body = [node]
    # def factory(ops, *free_vars): <body>; return <name>  (no positions)
    factory = ast.FunctionDef(
        name="factory",
        args=ast.arguments(
            posonlyargs=[],
            args=[ast.arg(p) for p in ["ops", *free_vars]],
            kwonlyargs=[],
            kw_defaults=[],
            defaults=[],
        ),
        body=[*body, ast.Return(ast.Name(name, ast.Load()))],
        decorator_list=[],
        **({"type_params": []} if "type_params" in ast.FunctionDef._fields else {}),
    )
    return ast.Module(body=[factory], type_ignores=[])


def _load(function, closure_values=None, **overrides):
    parsed = parser.parse_entity(function)
    code = function.__code__
    free_vars = list(code.co_freevars)
    cells = dict(zip(free_vars, function.__closure__ or ()))
    kwargs = {
        "filename": parsed.filename,
        "entity_name": function.__name__,
        "leading": ["ops"],
        "free_vars": free_vars,
        "globals_": function.__globals__,
        "closure_values": {"ops": None, **cells, **(closure_values or {})},
    }
    kwargs.update(overrides)
    module = _factory_module(parsed.node, kwargs["entity_name"], free_vars)
    return loader.load_function(module, **kwargs)


def test_a_nonlocal_write_through_the_loaded_function_is_seen_by_the_original():
    bump, read = make_counter()
    loaded = _load(bump)
    assert loaded(5) == 5
    assert read() == 5
    assert bump(1) == 6
    assert loaded(1) == 7


def test_the_loaded_function_shares_the_users_module_globals():
    global _GLOBAL_HITS
    _GLOBAL_HITS = 0
    loaded = _load(hit_global)
    assert loaded() == 1
    assert hit_global() == 2
    assert _GLOBAL_HITS == 2
    assert loaded.__globals__ is globals()
    assert "ops" not in globals()


def test_a_plain_closure_value_is_put_into_a_new_cell():
    loaded = _load(make_counter()[0], closure_values={"count": 10})
    assert loaded(1) == 11
    assert isinstance(loaded.__closure__[0], types.CellType)


def test_a_leading_parameter_is_a_closure_variable_of_the_loaded_function():
    module = parser.parse_source(
        "def factory(ops):\n    def f(x):\n        return ops.twice(x)\n    return f\n"
    )
    ops = types.SimpleNamespace(twice=lambda x: 2 * x)
    loaded = loader.load_function(
        module,
        filename="<ag>",
        entity_name="f",
        leading=["ops"],
        free_vars=[],
        globals_={},
        closure_values={"ops": ops},
    )
    assert loaded(4) == 8
    assert loaded.__code__.co_freevars == ("ops",)


def test_a_traceback_through_the_loaded_function_shows_the_users_file_and_line():
    loaded = _load(divide)
    with pytest.raises(ZeroDivisionError) as caught:
        loaded(0)
    frame = traceback.extract_tb(caught.value.__traceback__)[-1]
    assert frame.filename == divide.__code__.co_filename
    assert frame.lineno == divide.__code__.co_firstlineno + 1
    assert frame.line == "return 1 / x"


def test_a_lambda_assigned_in_the_factory_is_loaded():
    loaded = _load(scale, entity_name="scale", closure_values={})
    with pytest.raises(NameError):
        loaded(2)
    assert loaded.__name__ == "<lambda>"
    loaded.__globals__["factor"] = 3
    try:
        assert loaded(2) == 6
    finally:
        del loaded.__globals__["factor"]


def test_the_loaded_function_has_no_defaults_of_its_own():
    def with_default(x, y=2):
        return x + y

    loaded = _load(with_default)
    assert loaded.__defaults__ is None
    loaded.__defaults__ = with_default.__defaults__
    assert loaded(1) == 3


def test_a_free_variable_without_a_closure_value_is_rejected():
    bump, _ = make_counter()
    module = _factory_module(parser.parse_entity(bump).node, "bump", ["count"])
    with pytest.raises(ValueError) as caught:
        loader.load_function(
            module,
            filename="<x>",
            entity_name="bump",
            leading=["ops"],
            free_vars=["count"],
            globals_={},
            closure_values={},
        )
    assert str(caught.value) == (
        "no closure value for free variable(s) ['count'] of 'bump'"
    )


def test_a_factory_with_other_parameters_is_rejected():
    module = parser.parse_source("def factory(x):\n    def f():\n        pass\n")
    with pytest.raises(ValueError) as caught:
        loader.load_function(
            module,
            filename="<x>",
            entity_name="f",
            leading=["ops"],
            free_vars=[],
            globals_={},
            closure_values={},
        )
    assert str(caught.value) == "factory 'factory' takes ['x'], expected ['ops']"


def test_a_missing_inner_function_is_rejected():
    module = parser.parse_source("def factory(ops):\n    return None\n")
    with pytest.raises(ValueError) as caught:
        loader.load_function(
            module,
            filename="<x>",
            entity_name="f",
            leading=["ops"],
            free_vars=[],
            globals_={},
            closure_values={},
        )
    assert str(caught.value) == (
        "expected one function 'f' in the factory 'factory', found 0"
    )


def test_load_module_runs_a_module_in_a_fresh_namespace():
    namespace = loader.load_module(
        parser.parse_source("def f():\n    return len('ab')\ny = f()"), "<mod>"
    )
    assert namespace["y"] == 2
    assert namespace["f"].__code__.co_filename == "<mod>"
