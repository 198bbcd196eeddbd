"""Frames as the user's code sees them: converted code adds some.

A converted function runs its statements' bodies in functions of their own
(`if_body`, `loop_body`, thunks), called by the operators, and calls other
converted functions through `converted_call`. Code that counts frames sees
them. `warn_` is `warnings.warn` and `getframe_` is `sys._getframe` for
converted code: they count `stacklevel` / `depth` over the user's frames
only, so the warning names (and the frame returned is) the one Python's
would. Code that walks `frame.f_back` itself still sees every frame.

Two kinds of frames are not the user's own: plumbing (the operators, the
compiler's wrappers), never a frame of the user's; and functions generated
from a user's function, which stand for that function's frame (and show its
lines). The compiler tells which are which with `set_frame_kinds` (runtime
must not import it); the operators' frames are always plumbing.
"""

from __future__ import annotations

import os
import sys
import types
import warnings
from builtins import isinstance, range  # own references (issue 21)
from collections.abc import Callable
from typing import Any

_OPERATORS = os.path.dirname(os.path.abspath(__file__)) + os.sep
_plumbing: tuple[str, ...] = (_OPERATORS,)
_generated: Callable[[types.CodeType], bool] = lambda code: False


def set_frame_kinds(
    generated: Callable[[types.CodeType], bool], plumbing: tuple[str, ...]
) -> None:
    """Installs `generated(code)`: whether `code` is a function generated
    from a user's function; and the file prefixes whose frames are plumbing
    (besides the operators')."""
    global _generated, _plumbing
    _generated = generated
    _plumbing = (_OPERATORS, *plumbing)


def _is_plumbing(frame: types.FrameType) -> bool:
    return frame.f_code.co_filename.startswith(_plumbing)


def _is_users(frame: types.FrameType) -> bool:
    """A frame of the user's own function (not generated, not plumbing)."""
    return not _is_plumbing(frame) and not _generated(frame.f_code)


def user_frame_distance(frame: types.FrameType, level: int) -> int | None:
    """How many frames up from `frame` is the frame Python's `level` names
    (1: `frame`'s function), the user's frames only counted; None when that
    is past the top of the stack.

    The frame found is the innermost one of the user's function there: a
    generated function's frame shows the line the user's function is at.
    """
    current: types.FrameType | None = frame
    distance = 0
    while level > 1:
        # Up to the user's function this frame stands for...
        while current is not None and not _is_users(current):
            current = current.f_back
            distance += 1
        if current is None:
            return None
        # ...then to its caller, past the plumbing.
        current = current.f_back
        distance += 1
        while current is not None and _is_plumbing(current):
            current = current.f_back
            distance += 1
        if current is None:
            return None
        level -= 1
    return distance


def warn_(
    message: Any,
    category: type[Warning] | None = None,
    stacklevel: int = 1,
    source: Any = None,
    **kwargs: Any,
) -> None:
    """`warnings.warn`, with `stacklevel` counted over the user's frames."""
    if isinstance(stacklevel, int) and stacklevel >= 1:
        # Frame 0: this function; 1: converted_call; 2: the user's call.
        caller = sys._getframe(2)
        distance = user_frame_distance(caller, stacklevel)
        if distance is None:  # past the top, as Python's would be
            distance = _depth(caller)
        stacklevel = distance + 3
    warnings.warn(message, category, stacklevel, source, **kwargs)


def _depth(frame: types.FrameType | None) -> int:
    depth = 0
    while frame is not None:
        depth += 1
        frame = frame.f_back
    return depth


def getframe_(depth: Any = 0) -> types.FrameType:
    """`sys._getframe(depth)`, with `depth` counted over the user's frames."""
    if not isinstance(depth, int):
        return sys._getframe(depth)  # raises what Python raises
    # Frame 0: this function; 1: converted_call; 2: the user's call.
    frame = sys._getframe(2)
    distance = user_frame_distance(frame, depth + 1) if depth > 0 else 0
    if distance is None:
        raise ValueError("call stack is not deep enough")
    for _ in range(distance):
        frame = frame.f_back
    # The user's function's own frame (its name, its locals), not the one
    # of a function generated from it.
    while not _is_users(frame) and frame.f_back is not None:
        frame = frame.f_back
    return frame
