"""Frames as the user's code sees them: converted code adds some.

A converted function runs its statements' bodies in functions of their own
(`if_body`, `loop_body`, thunks), called by the operators, and calls other
converted functions through `converted_call`. Code that counts frames sees
them. `warn_` is `warnings.warn` and `getframe_` is `sys._getframe` for
converted code: they count `stacklevel` / `depth` over the user's frames
only, so the warning names (and the frame returned is) the one Python's
would. The frame `getframe_` returns is a `UserFrame`: its `f_back` walks
the user's frames only, so code that walks callers itself (gettext's
`_as_int`, a logger's caller search) sees the frames Python would.

Two kinds of frames are not the user's own: plumbing (the operators, the
compiler's wrappers), never a frame of the user's; and functions generated
from a user's function, which stand for that function's frame (and show its
lines). The compiler tells which are which with `set_frame_kinds` (runtime
must not import it); the operators' frames are always plumbing.
"""

from __future__ import annotations

import logging
import os
import sys
import types
import warnings
from builtins import frozenset, getattr, hasattr, isinstance, range  # (issue 21)
from collections.abc import Callable
from typing import Any

LOGGER_METHODS = frozenset(
    getattr(cls, name)
    for cls in (logging.Logger, logging.LoggerAdapter)
    for name in (
        "debug",
        "info",
        "warning",
        "warn",
        "error",
        "exception",
        "log",
        "critical",
        "fatal",
    )
    if hasattr(cls, name)
)
"""The logging methods that find their caller's frame: `log_` calls them."""
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
    warnings.warn(message, category, _users_stacklevel(stacklevel), source, **kwargs)


def log_(method: Any, /, *args: Any, stacklevel: Any = 1, **kwargs: Any) -> Any:
    """A logger's `debug`/`info`/.../`log` (bound `method`), with
    `stacklevel` counted over the user's frames, so the record's file, line
    and function are the caller's Python's would name (`logging` skips only
    its own frames, and counts the other frames it passes)."""
    return method(*args, stacklevel=_users_stacklevel(stacklevel), **kwargs)


def _users_stacklevel(stacklevel: Any) -> Any:
    """`stacklevel` as `warn_` or `log_` (called by converted_call for the
    user's call) pass it on: Python's level counted over the user's frames,
    plus the two frames they and converted_call add (`warnings` and
    `logging` count those too)."""
    if not isinstance(stacklevel, int) or stacklevel < 1:
        return stacklevel  # what Python makes of it
    # Frame 0: this function; 1: warn_/log_; 2: converted_call; 3: the user's.
    caller = sys._getframe(3)
    distance = user_frame_distance(caller, stacklevel)
    if distance is None:  # past the top, as Python's would be
        distance = _depth(caller)
    return distance + 3


def _depth(frame: types.FrameType | None) -> int:
    depth = 0
    while frame is not None:
        depth += 1
        frame = frame.f_back
    return depth


class UserFrame:
    """A frame as the user's code sees it: one frame per call of the user's.

    Converted code runs statement bodies in functions of their own, called
    by the operators; a real frame's `f_back` shows them. This stands for
    the frame of the user's function (`f_code`, `f_locals`, `f_globals` are
    that frame's) at the line it is at (`f_lineno`, from the innermost
    frame standing for it), and its `f_back` is its caller's `UserFrame`,
    past those frames. It passes `isinstance(f, types.FrameType)`, so
    `inspect` and `traceback` take it; other attributes are the frame's.

        >>> here = sys._getframe()
        >>> isinstance(UserFrame(here, here), types.FrameType)
        True
    """

    __slots__ = ("_frame", "_line")

    def __init__(self, frame: types.FrameType, line: types.FrameType) -> None:
        object.__setattr__(self, "_frame", frame)
        object.__setattr__(self, "_line", line)

    @property  # type: ignore[misc]
    def __class__(self) -> type:  # isinstance(f, types.FrameType)
        return types.FrameType

    @property
    def f_back(self) -> UserFrame | None:
        """The caller's frame, as Python would have it."""
        return _user_frame(self._frame.f_back)

    @property
    def f_lineno(self) -> int:
        """The line the user's function is at."""
        return self._line.f_lineno

    def clear(self) -> None:
        """`frame.clear()`."""
        self._frame.clear()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._frame, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._frame, name, value)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, UserFrame):
            other = other._frame
        return self._frame is other

    def __hash__(self) -> int:
        return hash(self._frame)

    def __repr__(self) -> str:
        code = self._frame.f_code
        return (
            f"<frame at {id(self._frame):#x}, file {code.co_filename!r}, "
            f"line {self.f_lineno}, code {code.co_name}>"
        )


def _user_frame(frame: types.FrameType | None) -> UserFrame | None:
    """The `UserFrame` of the first user's function at or above `frame`."""
    while frame is not None and _is_plumbing(frame):
        frame = frame.f_back
    line = frame
    while frame is not None and not _is_users(frame):
        frame = frame.f_back
    if frame is None or line is None:
        return None
    return UserFrame(frame, line)


def getframe_(depth: Any = 0) -> types.FrameType:
    """`sys._getframe(depth)`, with `depth` counted over the user's frames;
    the frame is a `UserFrame`, whose callers are the user's frames too."""
    if not isinstance(depth, int):
        return sys._getframe(depth)  # raises what Python raises
    # Frame 0: this function; 1: converted_call; 2: the user's call.
    frame = sys._getframe(2)
    distance = user_frame_distance(frame, depth + 1) if depth > 0 else 0
    if distance is None:
        raise ValueError("call stack is not deep enough")
    for _ in range(distance):
        frame = frame.f_back
    found = _user_frame(frame)
    assert found is not None  # `frame` is on the stack, past the plumbing
    if found._line is found._frame and _only_users_above(found._frame):
        # The frame itself, where its callers are the user's own frames:
        # code that compares frames by identity (`inspect.stack()`) sees it.
        return found._frame
    return found  # type: ignore[return-value]


def _only_users_above(frame: types.FrameType) -> bool:
    """Whether every frame above `frame` is one of the user's own."""
    current = frame.f_back
    while current is not None:
        if not _is_users(current):
            return False
        current = current.f_back
    return True
