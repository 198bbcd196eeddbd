"""Tests for autograph.errors: messages rendered like Python's SyntaxError."""

from __future__ import annotations

import linecache
import pickle

import pytest

from autograph.errors import ConversionError, UnsupportedSyntaxError, error_at
from autograph.pyct import parser

_FILE = "path/to/file.py"


@pytest.fixture
def user_file():
    lines = [f"# line {i}\n" for i in range(1, 11)]
    lines += [
        "def f(x):\n",
        "    yield x\n",
        "    y = (x +\n",
        "         1)\n",
        "    s = 'é'; z = yield\n",
    ]
    linecache.cache[_FILE] = (sum(map(len, lines)), None, lines, _FILE)
    yield "".join(lines)
    linecache.cache.pop(_FILE, None)


def test_an_error_renders_the_reason_the_frame_and_a_caret_under_the_span():
    error = UnsupportedSyntaxError(
        "'yield' is not supported: generators cannot be converted (autograph/"
        "converted functions must return values)",
        function_name="f",
        filename=_FILE,
        lineno=12,
        col_offset=4,
        end_col_offset=11,
        source_line="    yield x",
    )
    assert str(error) == (
        "cannot convert 'f': 'yield' is not supported: generators cannot be "
        "converted (autograph/converted functions must return values)\n"
        '  File "path/to/file.py", line 12, in f\n'
        "    yield x\n"
        "    ^^^^^^^"
    )
    assert error.location == "path/to/file.py:12:5"


def test_an_error_with_only_a_reason_renders_one_line():
    error = ConversionError("no source")
    assert str(error) == "cannot convert: no source"
    assert error.location is None
    assert error.reason == "no source"


def test_an_error_without_a_column_shows_the_line_without_a_caret():
    error = ConversionError(
        "bad", function_name="g", filename="m.py", lineno=3, source_line="  x = 1"
    )
    assert (
        str(error)
        == "cannot convert 'g': bad\n  File \"m.py\", line 3, in g\n    x = 1"
    )
    assert error.location == "m.py:3"


def test_error_at_reads_the_span_and_the_source_line_from_the_node(user_file):
    tree = parser.parse_source(user_file, filename=_FILE)
    yield_stmt = tree.body[0].body[0]
    error = error_at(
        yield_stmt,
        "'yield' is not supported",
        function_name="f",
        filename=_FILE,
        cls=UnsupportedSyntaxError,
    )
    assert isinstance(error, UnsupportedSyntaxError)
    assert str(error) == (
        "cannot convert 'f': 'yield' is not supported\n"
        '  File "path/to/file.py", line 12, in f\n'
        "    yield x\n"
        "    ^^^^^^^"
    )


def test_a_span_over_several_lines_is_underlined_to_the_end_of_its_first(user_file):
    tree = parser.parse_source(user_file, filename=_FILE)
    value = tree.body[0].body[1].value
    error = error_at(value, "no", function_name="f", filename=_FILE)
    assert error.end_col_offset is None
    assert str(error).endswith("    y = (x +\n         ^^^")


def test_columns_in_utf8_bytes_are_shown_as_characters(user_file):
    tree = parser.parse_source(user_file, filename=_FILE)
    yield_expr = tree.body[0].body[3].value  # the `yield` after 'é'
    error = error_at(yield_expr, "no", function_name="f", filename=_FILE)
    assert str(error).endswith("    s = 'é'; z = yield\n                 ^^^^^")
    assert error.location == "path/to/file.py:15:18"


def test_an_error_survives_pickling_with_its_location():
    error = UnsupportedSyntaxError(
        "no", function_name="f", filename="m.py", lineno=2, col_offset=0
    )
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is UnsupportedSyntaxError
    assert str(copy) == str(error)
    assert copy.location == "m.py:2:1"


def test_unsupported_syntax_is_a_conversion_error():
    assert issubclass(UnsupportedSyntaxError, ConversionError)
