"""An error raised by a converted statement names the line Python names:
the innermost frame of the user's file in its traceback is at the same
line, for every kind of statement the compiler rewrites (an `assert` named
the `def` line: its call had no position)."""

from __future__ import annotations

import traceback

import pytest

import autograph
from autograph.impl import api


def _assert(x):
    y = x + 1
    assert y > 0, "y must be positive"
    return y


def _assert_bare(x):
    y = x + 1
    assert y > 0
    return y


def _raise_in_branch(x):
    if x < 0:
        raise ValueError("negative")
    return x


def _in_elif(x):
    if x > 10:
        return 1
    elif x < 0:
        return [][x]
    return 0


def _in_while(x):
    i = 0
    while i < 3:
        i += 1
        if x < 0:
            x = x + {}["missing"]
    return i


def _in_for_else(x):
    for i in range(2):
        if i > 5:
            break
    else:
        x = x / 0 if x < 0 else x
    return x


def _in_conditional_expression(x):
    y = 1 if x > 0 else int("nope")
    return y


def _in_boolean_operator(x):
    return x > 0 or int("nope")


def _after_return_in_try(x):
    try:
        if x > 0:
            return x
    finally:
        pass
    return None + x


def _in_with(x):
    import contextlib

    with contextlib.nullcontext():
        if x < 0:
            x = None + 1
    return x


def _in_comprehension(x):
    return [v / x for v in range(2)]


def _del_missing(x):
    d = {}
    if x < 0:
        del d["k"]
    return d


def _augmented(x):
    total = 0
    for _ in range(1):
        total += None if x < 0 else 1
    return total


def _augmented_after_del_in_loop(x):
    for y in range(1):
        k = 2
        while k > 0:
            k -= 1
            y += x
            del y
    return 0


def _return_after_a_loop_that_returns(x):
    for i in range(0):  # noqa: B007 - read after the loop
        return x
    return i  # unbound here: the loop ran no iteration


def _in_an_elif_comparison(x):
    if x > 0 and x > 1:
        y = x
    elif y < y <= y:  # y is unbound here
        y = 1
    return y


def _pop_statement_in_loop(x):
    # `ys.pop()` becomes `ys = ag__.list_pop(ys)[0]`, which cleanup folds
    # into the loop body's `return`: it named the `for` line.
    ys = [x]
    for _ in range(3):
        ys.pop()
    return ys


def _pop_at_index_in_while(x):
    ys = [x]
    i = 0
    while i < 3:
        i += 1
        ys.pop(x)
    return ys


def _append_then_pop_into_name(x):
    ys = []
    for _ in range(2):
        ys.append(x)
        last = ys.pop(2)
    return last


_CASES = [
    _pop_statement_in_loop,
    _pop_at_index_in_while,
    _append_then_pop_into_name,
    _augmented_after_del_in_loop,
    _return_after_a_loop_that_returns,
    _in_an_elif_comparison,
    _assert,
    _assert_bare,
    _raise_in_branch,
    _in_elif,
    _in_while,
    _in_for_else,
    _in_conditional_expression,
    _in_boolean_operator,
    _after_return_in_try,
    _in_with,
    _in_comprehension,
    _del_missing,
    _augmented,
]


def _user_line(fn, converted):
    runner = autograph.to_graph(fn) if converted else fn
    arg = 0 if fn is _in_comprehension else -1
    try:
        with api.always_run_converted():
            runner(arg)
    except Exception as e:  # any error: its line is the point
        frames = [
            f for f in traceback.extract_tb(e.__traceback__) if f.filename == __file__
        ]
        return type(e), frames[-1].lineno, frames[-1].line
    pytest.fail(f"{fn.__name__} raised nothing")


@pytest.mark.parametrize("fn", _CASES, ids=lambda f: f.__name__.strip("_"))
def test_an_error_in_a_converted_statement_names_its_line(fn):
    assert _user_line(fn, converted=True) == _user_line(fn, converted=False)
