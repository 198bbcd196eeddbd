"""Tests for autograph.impl.tracebacks."""

from __future__ import annotations

import os
import sys
import traceback

import pytest

from autograph.impl import tracebacks


def _plumbing(directory: str, name: str):
    """A function whose code lives (by its filename) in ``directory``."""
    namespace: dict = {}
    source = f"def {name}(fn, *args):\n    return fn(*args)\n"
    exec(compile(source, os.path.join(directory, "plumbing.py"), "exec"), namespace)
    return namespace[name]


def _operators_dir() -> str:
    return tracebacks.internal_dirs()[2]


def user_body(x):
    return 1 / x


def _raise_through(*layers):
    """Calls ``user_body(0)`` through ``layers`` (outermost first); returns tb."""
    call = user_body
    for layer in reversed(layers):
        call = (lambda inner, outer: lambda x: outer(inner, x))(call, layer)
    try:
        call(0)
    except ZeroDivisionError:
        return sys.exc_info()[2]
    raise AssertionError("expected ZeroDivisionError")


def _names(tb) -> list[str]:
    return [frame.name for frame in traceback.extract_tb(tb)]


def test_internal_dirs_are_impl_pyct_and_runtime_operators():
    impl, pyct, operators = tracebacks.internal_dirs()
    root = os.path.dirname(os.path.dirname(os.path.abspath(tracebacks.__file__)))
    assert impl == os.path.join(root, "impl")
    assert pyct == os.path.join(root, "pyct")
    assert operators.endswith(os.path.join("runtime", "operators"))


def test_dispatch_frames_are_dropped_and_the_users_frames_kept():
    dispatch = _plumbing(_operators_dir(), "if_stmt")
    api = _plumbing(tracebacks.internal_dirs()[0], "converted_call")
    tb = _raise_through(api, dispatch)
    assert "if_stmt" in _names(tb)
    names = _names(tracebacks.filter_traceback(tb))
    assert "if_stmt" not in names
    assert "converted_call" not in names
    assert names[-1] == "user_body"
    assert names[0] == "_raise_through"


def test_frames_of_the_runtimes_own_ops_are_kept():
    runtime_dir = os.path.dirname(_operators_dir())
    op = _plumbing(os.path.join(runtime_dir, "ops"), "divide_op")
    names = _names(tracebacks.filter_traceback(_raise_through(op)))
    assert "divide_op" in names


def test_the_original_traceback_is_left_unchanged():
    tb = _raise_through(_plumbing(_operators_dir(), "for_stmt"))
    before = _names(tb)
    tracebacks.filter_traceback(tb)
    assert _names(tb) == before


def test_a_traceback_with_nothing_to_drop_is_returned_as_it_is():
    tb = _raise_through()
    assert tracebacks.filter_traceback(tb) is tb


def test_a_traceback_of_only_internal_frames_is_returned_as_it_is():
    dispatch = _plumbing(_operators_dir(), "while_stmt")
    try:
        dispatch(dispatch, int, "not a number")
    except ValueError:
        tb = sys.exc_info()[2].tb_next  # drop this test's own frame
    assert tracebacks.filter_traceback(tb) is tb


def test_filtering_can_be_switched_off(monkeypatch):
    monkeypatch.setenv("AUTOGRAPH_TRACEBACK_FILTERING", "0")
    tb = _raise_through(_plumbing(_operators_dir(), "if_stmt"))
    assert tracebacks.filter_traceback(tb) is tb


def test_none_filters_to_none():
    assert tracebacks.filter_traceback(None) is None


def test_a_reraised_filtered_exception_prints_the_users_frames():
    tb = _raise_through(_plumbing(_operators_dir(), "if_stmt"))
    error = ZeroDivisionError("division by zero")
    with pytest.raises(ZeroDivisionError) as caught:
        raise error.with_traceback(tracebacks.filter_traceback(tb))
    text = "".join(traceback.format_exception(caught.value))
    assert "plumbing.py" not in text
    assert "return 1 / x" in text
