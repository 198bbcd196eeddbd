"""Errors point at the user's code: runtime tracebacks and conversion errors."""

from __future__ import annotations

import os
import traceback

import pytest

import autograph
import runtime.operators
from autograph.impl import error_rewriting
from autograph.impl.api import always_run_converted

OPERATORS = os.path.dirname(os.path.abspath(runtime.operators.__file__))
IMPL = os.path.dirname(os.path.abspath(error_rewriting.__file__))
HERE = os.path.abspath(__file__)


def inverse_of_zero(x):
    if x == 0:
        return 1 / x
    return x


def helper(x):
    for i in range(3):
        if i == x:
            return 1 / (x - i)
    return 0


def calls_helper(x):
    if x > 0:
        x = helper(x)
    return x


def line_of(function, text: str) -> int:
    """The file line of the first line of `function` that contains `text`."""
    lines, start = __import__("inspect").getsourcelines(function)
    return start + next(i for i, line in enumerate(lines) if text in line)


def frames(error: BaseException) -> list[traceback.FrameSummary]:
    return traceback.extract_tb(error.__traceback__)


def in_dir(frame: traceback.FrameSummary, directory: str) -> bool:
    return os.path.abspath(frame.filename).startswith(directory + os.sep)


def test_an_error_in_a_converted_branch_ends_at_the_users_line_and_source():
    with always_run_converted(), pytest.raises(ZeroDivisionError) as raised:
        autograph.to_graph(inverse_of_zero)(0)
    last = frames(raised.value)[-1]
    assert (last.filename, last.lineno) == (HERE, line_of(inverse_of_zero, "1 / x"))
    assert last.line == "return 1 / x"
    assert not any(in_dir(frame, OPERATORS) for frame in frames(raised.value))


def test_errors_in_recursively_converted_calls_show_only_user_frames_below_the_call():
    with always_run_converted(), pytest.raises(ZeroDivisionError) as raised:
        autograph.to_graph(calls_helper)(2)
    stack = frames(raised.value)
    assert not any(in_dir(frame, OPERATORS) for frame in stack)
    assert not any(in_dir(frame, IMPL) for frame in stack[2:])
    names = [frame.name for frame in stack if frame.filename == HERE]
    assert "calls_helper" in names and "helper" in names
    assert stack[-1].line == "return 1 / (x - i)"
    assert stack[-1].lineno == line_of(helper, "1 / (x - i)")


def test_the_printed_traceback_reads_as_the_users_code():
    with always_run_converted(), pytest.raises(ZeroDivisionError) as raised:
        autograph.to_graph(inverse_of_zero)(0)
    printed = "".join(traceback.format_exception(raised.value))
    assert f'File "{HERE}", line {line_of(inverse_of_zero, "1 / x")}' in printed
    assert "    return 1 / x\n" in printed
    assert OPERATORS not in printed
    assert printed.endswith("ZeroDivisionError: division by zero\n")


def test_with_user_frames_drops_operator_frames_and_keeps_the_users():
    converted = autograph.to_graph(inverse_of_zero).__ag_converted__
    with pytest.raises(ZeroDivisionError) as raised:
        converted(0)
    error = raised.value
    assert any(in_dir(frame, OPERATORS) for frame in frames(error))
    assert error_rewriting.with_user_frames(error) is error
    assert not any(in_dir(frame, OPERATORS) for frame in frames(error))
    assert frames(error)[-1].line == "return 1 / x"


def test_with_user_frames_filters_the_chained_exceptions_too():
    converted = autograph.to_graph(inverse_of_zero).__ag_converted__
    try:
        try:
            converted(0)
        except ZeroDivisionError as cause:
            raise ValueError("bad input") from cause
    except ValueError as error:
        error_rewriting.with_user_frames(error)
        cause = error.__cause__
    assert isinstance(cause, ZeroDivisionError)
    assert not any(in_dir(frame, OPERATORS) for frame in frames(cause))


def test_filtering_is_switched_off_by_the_environment_variable(monkeypatch):
    monkeypatch.setenv("AUTOGRAPH_TRACEBACK_FILTERING", "0")
    with always_run_converted(), pytest.raises(ZeroDivisionError) as raised:
        autograph.to_graph(inverse_of_zero)(0)
    assert any(in_dir(frame, OPERATORS) for frame in frames(raised.value))


# -- conversion errors render like SyntaxError ------------------------------------


def generator(n):
    for i in range(n):
        yield i * i


def uses_match(x):
    match x:
        case 0:
            return "zero"
    return "other"


def defines_a_class():
    class Point:
        pass

    return Point


def test_converting_a_generator_names_it_and_its_file_and_line():
    with pytest.raises(autograph.ConversionError) as raised:
        autograph.to_graph(generator)
    line = generator.__code__.co_firstlineno
    assert str(raised.value) == (
        "cannot convert 'generator': a generator cannot be converted; mark it with "
        "@autograph.do_not_convert\n"
        f'  File "{HERE}", line {line}, in generator'
    )


def test_a_match_statement_is_rejected_with_its_line_and_a_caret():
    with pytest.raises(autograph.ConversionError) as raised:
        autograph.to_graph(uses_match)
    line = line_of(uses_match, "match x:")
    assert str(raised.value) == (
        "cannot convert 'uses_match': 'match' statements are not supported; use "
        "if/elif (or move the match into a helper marked @autograph.do_not_convert)\n"
        f'  File "{HERE}", line {line}, in uses_match\n'
        "    match x:\n"
        "    ^^^^^^^^"
    )
    assert raised.value.location == f"{HERE}:{line}:5"


def test_a_class_inside_a_function_converts_and_its_body_runs_as_python():
    # API.md: the class body runs as Python; its methods convert when called.
    converted = autograph.to_graph(defines_a_class)
    assert converted().__name__ == "Point"
    assert "class Point:" in autograph.to_code(defines_a_class)
