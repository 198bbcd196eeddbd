"""Returns under a graph `if`: every path must return, and messages say where not."""

from __future__ import annotations

import pytest

import autograph
import runtime as rt
from autograph.impl.api import always_run_converted
from tests.equivalence import assert_equivalent, assert_graph_equivalent


def _inner_if_lacks_a_return(x):
    if x > 0:
        if x > 5:
            return x * 2
    else:
        return -x


def _if_branch_lacks_a_return(x):
    if x > 0:
        x = x * 2
    else:
        return -x


def _return_in_try_without_else(x):
    if x > 0:
        try:
            return x * 2
        finally:
            pass


def _message(fn, line, branch):
    where = {
        "if": "from its if branch (that path has no `return`, or returns None)",
        "else": "from its else branch (that path has no `return`, or returns None)",
        "none": "when its condition is false (it has no else branch, and no "
        "`return` follows it)",
    }[branch]
    other = "else" if branch == "if" else "if"
    return (
        f"{fn.__name__!r} returns a value from the {other} branch of the graph `if` "
        f"at {__file__}:{fn.__code__.co_firstlineno + line} but None {where}; a "
        "graph `if` needs a value of the same kind from both branches: add a "
        "`return` of such a value on that path"
    )


@pytest.mark.parametrize(
    ("fn", "line", "branch"),
    [
        (_inner_if_lacks_a_return, 2, "none"),
        (_if_branch_lacks_a_return, 1, "if"),
        (_return_in_try_without_else, 1, "none"),
    ],
    ids=["inner_if_without_else", "if_branch", "return_in_try"],
)
def test_a_path_without_return_under_a_graph_if_names_the_branch(fn, line, branch):
    with pytest.raises(ValueError) as info:
        autograph.function(fn)(rt.constant(3))
    assert str(info.value) == _message(fn, line, branch)


def _return_in_try_finally_then_more_code(x, log):
    try:
        if x > 0:
            return x * 2
        y = x + 1
    finally:
        log.append(1)
    return y


def _finally_reads_a_variable_unbound_on_the_return_path(x):
    try:
        if x > 0:
            return x
        y = 1
    finally:
        print(y)
    return y


def _return_in_nested_try_then_more_code(x, log):
    try:
        if x > 0:
            try:
                return x * 2
            finally:
                log.append("inner")
        y = x + 1
    finally:
        log.append("outer")
    return y


def _return_in_try_with_a_handler_then_more_code(x, log):
    try:
        if x > 0:
            try:
                return x * 2
            except ValueError:
                log.append("caught")
        y = x + 1
    finally:
        log.append("outer")
    return y


@pytest.mark.parametrize("x", [3, -3])
@pytest.mark.parametrize(
    "fn",
    [
        _return_in_try_finally_then_more_code,
        _return_in_try_with_a_handler_then_more_code,
    ],
    ids=["return_in_if", "handler_without_return"],
)
def test_a_return_in_try_finally_under_a_graph_if_traces(fn, x):
    assert_equivalent(fn, x, [])
    assert_graph_equivalent(fn, rt.constant(x), [])


@pytest.mark.parametrize("x", [3, -3])
def test_a_list_appended_to_on_one_path_of_a_graph_if_is_refused(x):
    # API.md, "Mutation through methods": Python appends "inner" only when
    # x > 0; a graph cannot give the list a length that depends on x.
    assert_equivalent(_return_in_nested_try_then_more_code, x, [])
    with pytest.raises(TypeError, match=r"the list 'log' is changed by the call at"):
        autograph.function(_return_in_nested_try_then_more_code)(rt.constant(x), [])


@pytest.mark.parametrize("x", [1, -1])
def test_a_finally_still_raises_on_a_variable_unbound_on_the_return_path(x):
    assert_equivalent(_finally_reads_a_variable_unbound_on_the_return_path, x)


def test_a_variable_unbound_after_a_return_goes_out_through_after_return():
    code = autograph.to_code(_return_in_try_finally_then_more_code)
    assert "return (do_return, retval_, ag__.after_return(y))" in code
    with always_run_converted():
        assert autograph.to_graph(_return_in_try_finally_then_more_code)(3, []) == 6
