"""Code that walks its callers' frames sees, in converted code, the frames
Python would (issue 21, class 3: gettext's `_as_int` walks `f_back` while
the frames are its module's, to point a warning at the caller).

`sys._getframe` in converted code returns a `UserFrame`: its `f_back` skips
the operators and the functions converted statements run in."""

from __future__ import annotations

import contextlib
import inspect
import logging
import sys
import traceback
import types
import warnings

import pytest

import autograph
from autograph.impl import api


def _callers():
    """(name, line) of this function's callers up to the test, as
    `f_back` shows them."""
    frame = sys._getframe(1)
    seen = []
    while frame is not None and frame.f_globals.get("__name__") == __name__:
        if frame.f_code.co_name == "_run":
            break
        seen.append((frame.f_code.co_name, frame.f_lineno))
        frame = frame.f_back
    return seen


def _as_int(n):
    # gettext's _as_int (3.11.7+): the warning names the first frame
    # outside this module.
    frame = sys._getframe(1)
    stacklevel = 2
    while frame.f_back is not None and frame.f_globals.get("__name__") == __name__:
        if frame.f_code.co_name == "_run":
            break
        stacklevel += 1
        frame = frame.f_back
    warnings.warn("not an int", DeprecationWarning, stacklevel)
    return n


def _leaf(n, probe):
    if n > 0:
        return probe(n)  # in a branch
    return None


def _middle(n, probe):
    try:
        x = _leaf(n, probe)
    except KeyError:
        return None  # a return in a handler: the end becomes a conditional
    return x


def _outer(n, probe):
    out = None
    for _ in range(1):
        out = _middle(n, probe)
    return out


def _run(fn, *args, converted):
    with api.always_run_converted() if converted else contextlib.nullcontext():
        return (autograph.to_graph(fn) if converted else fn)(*args)


def _probe_callers(n):
    return _callers()


def test_f_back_walks_the_frames_python_has():
    expected = _run(_outer, 1, _probe_callers, converted=False)
    actual = _run(_outer, 1, _probe_callers, converted=True)
    assert [name for name, _ in expected] == [
        "_probe_callers",
        "_leaf",
        "_middle",
        "_outer",
    ]
    assert actual == expected


def test_a_warning_placed_by_walking_frames_names_the_users_caller():
    def warned(converted):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _run(_outer, 1.0, _as_int, converted=converted)
        return [
            (w.filename, w.lineno) for w in caught if w.category is DeprecationWarning
        ]

    expected = warned(False)
    assert expected and expected[0][0] == __file__
    assert warned(True) == expected


def _frame_of_caller(flag):
    if flag:
        return sys._getframe(1)
    return None


def _through_a_branch(flag):
    if flag:
        return _frame_of_caller(flag), sys._getframe(0)
    return None


def test_the_frame_is_taken_as_a_frame_by_inspect_and_traceback():
    with api.always_run_converted():
        caller, own = autograph.to_graph(_through_a_branch)(True)
    for frame in (caller, own):
        assert isinstance(frame, types.FrameType)
        assert inspect.isframe(frame)
        assert inspect.getframeinfo(frame).function == "_through_a_branch"
        assert traceback.extract_stack(frame)[-1].name == "_through_a_branch"
    assert caller == own and hash(caller) == hash(own)
    assert caller.f_code.co_name == "_through_a_branch"
    assert "_through_a_branch" in repr(caller)


@pytest.mark.parametrize("depth", [0, 1, 2])
def test_the_lines_of_the_frames_are_the_users(depth):
    def probe(n):
        frame = sys._getframe(depth)
        return frame.f_code.co_name, frame.f_lineno

    def lines(converted):
        return _run(_outer, 1, probe, converted=converted)

    assert lines(True) == lines(False)


_log = logging.getLogger("tests.user_frames")


def _log_here(message, x):
    _log.warning(message)  # at the top of the function
    if x > 0:
        _log.warning(message)  # in a branch
    for _ in range(1):
        logging.LoggerAdapter(_log, {}).warning(message)  # in a loop, adapted
    _log_for_caller(message)


def _log_for_caller(message):
    if message:
        _log.warning(message, stacklevel=2)  # names the caller


def test_a_log_record_names_the_line_python_names(caplog):
    def places(converted):
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger=_log.name):
            _run(_log_here, "m", 1, converted=converted)
        return [(r.filename, r.lineno) for r in caplog.records]

    expected = places(False)
    assert len(expected) == 4 and {f for f, _ in expected} == {"test_user_frames.py"}
    assert places(True) == expected


def _callers_frame():
    return sys._getframe(1)


def test_a_callers_frame_is_the_frame_itself_where_no_converted_code_is_above():
    # inspect.stack() compares frames by identity (CPython's test_inspect).
    with api.always_run_converted():
        found = autograph.to_graph(_callers_frame).__ag_converted__()
    assert found is sys._getframe()
    with api.always_run_converted():
        found = autograph.to_graph(_through_a_branch)(True)[0]
    assert type(found) is not types.FrameType  # a caller is converted code
