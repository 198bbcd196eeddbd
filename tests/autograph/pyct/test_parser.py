"""Tests for autograph.pyct.parser: sources, lambdas and original positions."""

from __future__ import annotations

import ast
import functools
import inspect
import linecache
import sys
import textwrap
import types

import pytest

from autograph.errors import ConversionError
from autograph.pyct import parser

# --- sample entities (their positions in this file are what is checked) ------


def plain(x, y):
    total = x + y
    if total > 0:
        return total * 2
    return -total


def _identity_decorator(fn):
    return fn


@_identity_decorator
@functools.lru_cache(maxsize=None)  # noqa: UP033 (the decorator text is the point)
def decorated(n):
    return n + 1


def make_nested(k):
    def nested(x):
        return k * x

    return nested


class Shapes:
    def method(self, x):
        text = """first
second line, indented less than the def"""
        return x, text

    @staticmethod
    def static(x):
        return x

    @classmethod
    def klass(cls, x):
        return cls, x


async def asynchronous(x):
    return x


inc = lambda x: x + 1
pair = [lambda a: a, lambda b: b * 2]
twins = [lambda v: v, lambda v: v]
look_alike = [lambda v: v + c, lambda v: v + d]  # noqa: F821


def _keep(*args, **kwargs):
    return kwargs


# The lambda's line, `    0, key=...)`, does not parse on its own.
held = _keep(
    0, key=lambda item: item * 10)  # fmt: skip
curried = lambda x: lambda y: x + y
wide = ("é", lambda x: x)


# --- helpers ---


def _text_at(filename: str, node: ast.AST) -> str:
    """The file's text under ``node``'s positions (UTF-8 byte columns)."""
    lines = [line.encode() for line in linecache.getlines(filename)]
    chunk = lines[node.lineno - 1 : node.end_lineno]
    chunk[-1] = chunk[-1][: node.end_col_offset]
    chunk[0] = chunk[0][node.col_offset :]
    return b"".join(chunk).decode()


def _assert_names_sit_at_their_file_positions(parsed: parser.ParsedEntity) -> None:
    names = [n for n in ast.walk(parsed.node) if isinstance(n, ast.Name)]
    assert names
    for name in names:
        assert _text_at(parsed.filename, name) == name.id


def _compile_alone(parsed: parser.ParsedEntity):
    module = ast.Module(body=[parsed.node], type_ignores=[])
    code = compile(module, parsed.filename, "exec")
    (inner,) = [c for c in code.co_consts if isinstance(c, types.CodeType)]
    return inner


# --- functions ---


def test_a_function_parses_to_its_def_at_its_line():
    parsed = parser.parse_entity(plain)
    assert isinstance(parsed.node, ast.FunctionDef)
    assert parsed.node.name == "plain"
    assert parsed.filename == plain.__code__.co_filename
    assert parsed.lineno == parsed.node.lineno == plain.__code__.co_firstlineno
    assert parsed.col_offset == 0
    assert parsed.source.startswith("def plain(x, y):\n    total = x + y\n")


def test_compiling_the_tree_gives_the_original_instruction_positions():
    parsed = parser.parse_entity(plain)
    code = _compile_alone(parsed)
    assert list(code.co_lines()) == list(plain.__code__.co_lines())
    if sys.version_info >= (3, 11):
        assert list(code.co_positions()) == list(plain.__code__.co_positions())


def test_every_name_sits_at_its_position_in_the_file():
    for entity in (plain, decorated.__wrapped__, Shapes.method, make_nested(2)):
        _assert_names_sit_at_their_file_positions(parser.parse_entity(entity))


def test_decorators_are_stripped_but_the_def_keeps_its_line():
    parsed = parser.parse_entity(decorated.__wrapped__)
    assert parsed.node.decorator_list == []
    assert parsed.source.startswith("@_identity_decorator\n@functools.lru_cache")
    assert parsed.lineno == decorated.__wrapped__.__code__.co_firstlineno
    assert parsed.node.lineno == parsed.lineno + 2
    assert _text_at(parsed.filename, parsed.node.body[0]) == "return n + 1"


def test_a_nested_function_keeps_its_indented_columns():
    nested = make_nested(3)
    parsed = parser.parse_entity(nested)
    assert parsed.node.name == "nested"
    assert parsed.col_offset == 4
    assert parsed.node.col_offset == 4
    assert parsed.source == "def nested(x):\n    return k * x\n"
    assert _text_at(parsed.filename, parsed.node.body[0]) == "return k * x"


@pytest.mark.parametrize(
    "entity",
    [Shapes.method, Shapes().method, Shapes.static, Shapes.klass],
    ids=["unbound", "bound", "staticmethod", "classmethod"],
)
def test_methods_parse_to_their_own_def(entity):
    parsed = parser.parse_entity(entity)
    assert parsed.node.name == entity.__name__
    assert parsed.col_offset == 4
    _assert_names_sit_at_their_file_positions(parsed)


def test_a_string_indented_less_than_its_method_keeps_its_value():
    parsed = parser.parse_entity(Shapes.method)
    constant = parsed.node.body[0].value
    assert constant.value == "first\nsecond line, indented less than the def"
    assert "\nsecond line, indented less than the def" in parsed.source


def test_an_async_function_parses_to_an_async_def():
    parsed = parser.parse_entity(asynchronous)
    assert isinstance(parsed.node, ast.AsyncFunctionDef)


# --- lambdas ---


def test_a_lambda_parses_to_its_lambda_node_and_text():
    parsed = parser.parse_entity(inc)
    assert isinstance(parsed.node, ast.Lambda)
    assert parsed.source == "lambda x: x + 1"
    assert parsed.lineno == inc.__code__.co_firstlineno
    assert parsed.col_offset == len("inc = ")
    _assert_names_sit_at_their_file_positions(parsed)


def test_two_lambdas_on_one_line_with_different_parameters_are_told_apart():
    first, second = (parser.parse_entity(fn) for fn in pair)
    assert first.source == "lambda a: a"
    assert second.source == "lambda b: b * 2"


# Column positions in code objects: 3.11+, unless -X no_debug_ranges.
_HAS_COLUMNS = hasattr(inc.__code__, "co_positions") and all(
    None not in span for span in inc.__code__.co_positions()
)


@pytest.mark.skipif(not _HAS_COLUMNS, reason="needs instruction columns")
def test_identical_lambdas_on_one_line_are_told_apart_by_position():
    first, second = (parser.parse_entity(fn) for fn in twins)
    assert first.source == second.source == "lambda v: v"
    assert first.col_offset < second.col_offset


def test_identical_lambdas_on_one_line_are_refused_without_positions(monkeypatch):
    monkeypatch.setattr(parser, "_code_positions", lambda code: set())
    with pytest.raises(ConversionError) as caught:
        parser.parse_entity(twins[0])
    message = str(caught.value)
    assert message.startswith(
        "cannot convert '<lambda>': the lambda is ambiguous: 2 lambdas on this "
        "line look alike; define it on its own line or use a def\n"
    )
    assert "twins = [lambda v: v, lambda v: v]" in message


def test_lambdas_with_the_same_parameters_are_told_apart_by_names_without_positions(
    monkeypatch,
):
    monkeypatch.setattr(parser, "_code_positions", lambda code: set())
    parsed = parser.parse_entity(look_alike[1])
    assert parsed.source == "lambda v: v + d"


def test_a_lambda_inside_a_multiline_expression_is_found():
    parsed = parser.parse_entity(held["key"])
    assert parsed.source == "lambda item: item * 10"
    _assert_names_sit_at_their_file_positions(parsed)


def test_nested_lambdas_each_parse_to_their_own_node():
    outer = parser.parse_entity(curried)
    inner = parser.parse_entity(curried(1))
    assert outer.source == "lambda x: lambda y: x + y"
    assert inner.source == "lambda y: x + y"


def test_lambda_columns_are_utf8_bytes_like_ast():
    parsed = parser.parse_entity(wide[1])
    assert parsed.source == "lambda x: x"
    assert parsed.col_offset == len('wide = ("é", '.encode())


# --- sources registered in linecache (IPython/Jupyter cells) -------------------


def _run_cell(source: str, filename: str) -> dict:
    """Runs ``source`` as IPython does: registered in linecache, then compiled."""
    lines = source.splitlines(keepends=True)
    linecache.cache[filename] = (len(source), None, lines, filename)
    namespace: dict = {}
    exec(compile(source, filename, "exec"), namespace)
    return namespace


def test_a_function_from_a_notebook_cell_parses_with_the_cells_positions():
    filename = "<ipython-input-3-0123456789ab>"
    cell = "import math\n\n\ndef area(r):\n    return math.pi * r**2\n"
    try:
        namespace = _run_cell(cell, filename)
        parsed = parser.parse_entity(namespace["area"])
        square = parser.parse_entity(
            _run_cell("sq = lambda v: v * v\n", filename)["sq"]
        )
    finally:
        linecache.cache.pop(filename, None)
    assert parsed.filename == filename
    assert parsed.lineno == 4
    assert parsed.node.body[0].lineno == 5
    assert square.source == "lambda v: v * v"


def test_a_comment_indented_less_than_its_method_does_not_break_parsing():
    filename = "<ipython-input-4-comment>"
    cell = "class C:\n    def m(self):\n# legal, and defeats dedent\n        return 1\n"
    try:
        parsed = parser.parse_entity(_run_cell(cell, filename)["C"].m)
    finally:
        linecache.cache.pop(filename, None)
    assert parsed.source == "def m(self):\n# legal, and defeats dedent\n    return 1\n"
    assert (parsed.node.body[0].lineno, parsed.node.body[0].col_offset) == (4, 8)


def test_a_function_whose_source_is_gone_is_refused_with_its_name():
    namespace: dict = {}
    exec(compile("def ghost():\n    pass\n", "<nowhere>", "exec"), namespace)
    with pytest.raises(ConversionError) as caught:
        parser.parse_entity(namespace["ghost"])
    assert str(caught.value) == (
        "cannot convert 'ghost': its source code is not available (could not get "
        "source code): a function typed into the plain python prompt, or made by "
        "exec/eval without a linecache entry, cannot be converted; put it in a "
        "file, an IPython session or a notebook cell\n"
        '  File "<nowhere>", line 1, in ghost'
    )


def test_a_builtin_is_refused_because_it_has_no_python_source():
    with pytest.raises(ConversionError) as caught:
        parser.parse_entity(len)
    assert str(caught.value) == (
        "cannot convert 'len': it is a built-in (written in C), which has no "
        "Python source"
    )


def test_an_object_that_is_not_a_function_is_refused():
    with pytest.raises(ConversionError) as caught:
        parser.parse_entity(functools.partial(plain, 1))
    assert str(caught.value).endswith(
        "only Python functions and methods can be converted, got partial"
    )


def test_a_c_level_wrapper_is_refused_with_a_pointer_to_what_it_wraps():
    with pytest.raises(ConversionError) as caught:
        parser.parse_entity(decorated)
    assert str(caught.value) == (
        "cannot convert 'decorated': only Python functions and methods can be "
        "converted, got a _lru_cache_wrapper wrapper; convert the function it "
        "wraps (its __wrapped__)"
    )


def test_a_source_that_no_longer_defines_the_function_is_refused():
    filename = "<edited-cell>"
    try:
        namespace = _run_cell("def before():\n    return 1\n", filename)
        linecache.cache[filename] = (9, None, ["def after():\n", "    return 1\n"], "")
        with pytest.raises(ConversionError, match="does not define 'before'"):
            parser.parse_entity(namespace["before"])
    finally:
        linecache.cache.pop(filename, None)


# The block of a definition is found by indentation, checked by parsing, and
# found again with inspect's tokenizer when that check fails.
_TRICKY_CELL = """\
import math


def black_style(
    x,
    y,
):
    return x + y
# a comment between definitions


def string_at_column_zero(x):
    return x + len('''
not code
''')


def bracket_at_column_zero(x):
    return [
        x,
1]


class Holder:
    def method(self, x):
        def inner(y):
            return y * 2

        return inner(x)

    other = 1


def last(x):
    if x:
        pass
    # trailing comment inside

"""


@pytest.mark.parametrize(
    "name, call, expected",
    [
        ("black_style", (1, 2), 3),
        ("string_at_column_zero", (1,), 11),
        ("bracket_at_column_zero", (5,), [5, 1]),
        ("method", (None, 4), 8),
        ("last", (0,), None),
    ],
)
def test_a_definitions_block_is_found_whatever_its_layout(name, call, expected):
    filename = "<tricky-cell>"
    try:
        namespace = _run_cell(_TRICKY_CELL, filename)
        function = namespace.get(name) or getattr(namespace["Holder"], name)
        parsed = parser.parse_entity(function)
        lines = _TRICKY_CELL.splitlines(keepends=True)
        start = function.__code__.co_firstlineno - 1
        block = inspect.getblock(lines[start:])
        while block[-1].strip()[:1] in ("", "#"):
            block = block[:-1]
        assert parsed.source == textwrap.dedent("".join(block))
        module = ast.Module(body=[parsed.node], type_ignores=[])
        scope: dict = {"math": __import__("math")}
        exec(compile(module, filename, "exec"), scope)
        assert scope[name](*call) == expected
    finally:
        linecache.cache.pop(filename, None)


def test_the_block_of_every_sample_function_is_inspects_block():
    from tests.samples import ALL_SAMPLES

    for sample in ALL_SAMPLES:
        function = inspect.unwrap(sample.fn)
        while isinstance(function, functools.partial):
            function = function.func
        function = getattr(function, "__func__", function)
        if function.__name__ == "<lambda>":
            continue
        lines, start = inspect.findsource(function)
        expected = inspect.getblock(lines[start:])
        while expected[-1].strip()[:1] in ("", "#"):
            expected = expected[:-1]
        found = parser._def_block(lines, start, function.__code__)
        assert found == expected, sample.id


def test_a_truncated_source_is_refused_as_unparsable():
    filename = "<truncated-cell>"
    try:
        namespace = _run_cell(
            "def cut(x):\n    return (x +\n            1)\n", filename
        )
        linecache.cache[filename] = (
            9,
            None,
            ["def cut(x):\n", "    return (x +\n"],
            "",
        )
        with pytest.raises(ConversionError, match="its source does not parse"):
            parser.parse_entity(namespace["cut"])
    finally:
        linecache.cache.pop(filename, None)


# --- parse_source and unparse ---


def test_parse_source_keeps_positions_as_given():
    module = parser.parse_source("\n\nx = 1\n", filename="m.py")
    assert isinstance(module, ast.Module)
    assert module.body[0].lineno == 3


def test_unparse_accepts_a_node_or_a_list_of_statements():
    module = parser.parse_source("if a:\n  b = 1\nc = (d,)\n")
    assert parser.unparse(module) == "if a:\n    b = 1\nc = (d,)"
    assert parser.unparse(module.body) == parser.unparse(module)
    assert parser.unparse(module.body[1].value) == "(d,)"
    assert parser.unparse([module.body[1].value, module.body[0].test]) == "(d,)\na"


def test_unparse_does_not_touch_the_tree_and_is_deterministic():
    module = parser.parse_source("def f(x):\n    return x\n")
    before = ast.dump(module)
    texts = {parser.unparse(module) for _ in range(3)}
    assert texts == {"def f(x):\n    return x"}
    assert ast.dump(module) == before


def test_a_parsed_function_round_trips_through_unparse():
    source = parser.unparse(parser.parse_entity(plain).node)
    assert ast.dump(ast.parse(source)) == ast.dump(
        ast.parse(textwrap.dedent(parser.parse_entity(plain).source))
    )


def test_a_file_edited_after_import_is_refused_rather_than_converted(tmp_path):
    path = tmp_path / "edited_after_import.py"
    path.write_text("def inc(x):\n    return x + 1\n")
    namespace: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    path.write_text("def inc(x):\n    return x * 999\n")  # same lines, new code
    linecache.checkcache(str(path))
    try:
        with pytest.raises(ConversionError) as caught:
            parser.parse_entity(namespace["inc"])
    finally:
        linecache.cache.pop(str(path), None)
    assert str(caught.value) == (
        "cannot convert 'inc': the source of 'inc' in its file is not the code it "
        "runs (was the file changed after it was imported?); reload the module or "
        "restart, then convert it\n"
        f'  File "{path}", line 1, in inc\n'
        "    def inc(x):"
    )


def test_a_file_edited_and_reloaded_converts_its_new_code(tmp_path):
    # linecache read the file for a first conversion; the user then edits
    # it and runs it again (a module reload, a notebook's autoreload).
    path = tmp_path / "edited_and_reloaded.py"
    path.write_text("def inc(x):\n    return x + 1\n")
    first: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), first)
    try:
        assert "x + 1" in parser.parse_entity(first["inc"]).source
        path.write_text("def inc(x):\n    return x * 999\n")
        second: dict = {}
        exec(compile(path.read_text(), str(path), "exec"), second)
        assert "x * 999" in parser.parse_entity(second["inc"]).source
    finally:
        linecache.cache.pop(str(path), None)


def test_a_lambda_edited_after_import_is_refused_rather_than_converted(tmp_path):
    path = tmp_path / "edited_lambda.py"
    path.write_text("inc = lambda x: x + 1\n")
    namespace: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    path.write_text("inc = lambda x: x * 9\n")  # same span, new code
    linecache.checkcache(str(path))
    try:
        with pytest.raises(ConversionError) as caught:
            parser.parse_entity(namespace["inc"])
    finally:
        linecache.cache.pop(str(path), None)
    assert str(caught.value).startswith(
        "cannot convert '<lambda>': the source of the lambda in its file is not "
        "the code it runs (was the file changed after it was imported?)"
    )


_UNEDITED_CELL = """\
from __future__ import annotations

import math
from fractions import Fraction


def outer(k):
    scale = 2

    def closure(x: int) -> int:
        return math.floor(x * scale * k) + Fraction.from_float(0.5).numerator

    return closure


class Account:
    def __init__(self):
        self.__balance = 0

    def deposit(self, amount):
        self.__balance += amount
        return super().__repr__() and self.__balance

    def helper(self):
        def inner():
            return self.__balance
        return inner


def scaled(k):
    return lambda v: math.floor(v * k)


def shadowing(Fraction, math):
    # Locals named as the module's imports: CPython compiles `Fraction.
    # append(...)` as an attribute load, not a method call, looking at the
    # module's imports whatever the name is here (sympy: a parameter `S`).
    Fraction.append(math)
    return lambda: math.copy()
"""


def test_unedited_functions_of_every_kind_compile_to_their_own_code(tmp_path):
    filename = "<unedited-cell>"
    try:
        namespace = _run_cell(_UNEDITED_CELL, filename)
        account = namespace["Account"]()
        for fn in (
            namespace["outer"],
            namespace["outer"](3),  # a closure, annotations of the future
            account.deposit,  # private names, super()
            account.helper(),  # nested in a method
            namespace["Account"].__init__,
            namespace["scaled"],  # a lambda in a function
            namespace["scaled"](2),  # a lambda
            namespace["shadowing"],  # locals named as imports
            namespace["shadowing"]([], {}),  # a free variable named so
        ):
            assert parser.parse_entity(fn).node is not None
    finally:
        linecache.cache.pop(filename, None)
