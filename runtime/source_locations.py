"""Where user code is: the frames outside this library, and errors it raised.

Bottom layer of the runtime (it imports only `context` and `errors`): graph
building records the user's line of each op (`user_location`), eager kernels
name it in their errors, and the `ag__` operators ask whether an error came
from the user's code (`raised_by_user`) or is one of ours that a graph being
built must keep (`keep_refusal`). `runtime.graph` re-exports these names.

    >>> from runtime.source_locations import SourceLocation
    >>> str(SourceLocation("model.py", 12))
    'model.py:12'
"""

from __future__ import annotations

import dataclasses
import os
import sys
import types

# Own references: a user's `builtins.len = spy` does not see our calls.
from builtins import any, isinstance
from collections.abc import Callable
from typing import Any

from runtime import context
from runtime.errors import OpError

__all__ = [
    "INTERNAL_PATHS",
    "SourceLocation",
    "keep_refusal",
    "raised_by_user",
    "refusals_from_here",
    "user_frame",
    "user_location",
]


@dataclasses.dataclass(frozen=True)
class SourceLocation:
    """Where user code created an op."""

    filename: str
    lineno: int

    def __str__(self) -> str:
        return f"{self.filename}:{self.lineno}"


_RUNTIME_DIR = os.path.dirname(os.path.abspath(__file__))
# Frames from files under these are the library's, never reported as user code.
INTERNAL_PATHS = (
    _RUNTIME_DIR + os.sep,
    os.path.join(os.path.dirname(_RUNTIME_DIR), "autograph") + os.sep,
    "<autograph dispatcher>",  # (autograph.impl.api's wrappers of converted code)
)


def _user_code(filename: str, lineno: int) -> SourceLocation | None:
    """The user's location of a line, or None if it is the library's."""
    if not filename.startswith(INTERNAL_PATHS):
        return SourceLocation(filename, lineno)
    return None


def user_location(skip: int = 1) -> SourceLocation | None:
    """The first stack frame outside the `runtime`/`autograph` packages."""
    frame = user_frame(skip + 1)
    return (
        None
        if frame is None
        else SourceLocation(frame.f_code.co_filename, frame.f_lineno)
    )


def user_frame(skip: int = 1) -> types.FrameType | None:
    """The first stack frame outside the `runtime`/`autograph` packages,
    from `skip` frames up (1: the caller's)."""
    frame: types.FrameType | None = sys._getframe(skip)
    while frame is not None:
        if not frame.f_code.co_filename.startswith(INTERNAL_PATHS):
            return frame
        frame = frame.f_back
    return None


def _raising_frame(error: BaseException) -> tuple[str, int] | None:
    tb = error.__traceback__
    if tb is None:
        return None
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_code.co_filename, tb.tb_lineno


def raised_by_user(error: BaseException) -> SourceLocation | None:
    """Where user code raised `error` (a `raise`, or an operation of its own
    such as `d[k]`), or None if the library or another package raised it."""
    frame = _raising_frame(error)
    return None if frame is None else _user_code(*frame)


# What Python raises on a path of the program, which converted code may
# raise and catch as the original does.
_PATH_ERRORS = (NameError, LookupError, ArithmeticError, StopIteration, OpError)


def is_refusal(error: BaseException) -> bool:
    """Whether this library raised `error` because it cannot build what
    the user's code asks (not the user's code, Python on a path, or
    another package such as NumPy or JAX, whose errors the user's code
    may handle)."""
    if isinstance(error, _PATH_ERRORS):
        return False
    frame = _raising_frame(error)
    if frame is None or _user_code(*frame) is not None:
        return False
    return frame[0].startswith(INTERNAL_PATHS)


def keep_refusal(error: Exception, *, ours: bool = False) -> None:
    """Records `error` on the graph being built (see `Graph.refusals`) if
    this library raised it because it cannot build what the user's code
    asks: user code may catch it while tracing (`except Exception`, or a
    `return` in `finally`), which must not leave a half-built graph that
    runs. Errors the user's code raised, or Python raises on a path (an
    unbound read: `NameError`, `KeyError`, ...), are left alone; `ours`
    says the caller is about to raise `error` itself."""
    graph = _keeper()
    if graph is None or isinstance(error, _PATH_ERRORS):
        return
    if not ours and not is_refusal(error):
        return
    if not any(e is error for e in graph.refusals):
        graph.refusals.append(error)


def _keeper() -> Any:
    """The graph that keeps the refusals of the graph being built: the
    outermost, or the innermost isolated (scratch) one."""
    graph = context.STATE.graph
    while graph is not None and graph.outer_graph is not None and not graph.isolated:
        graph = graph.outer_graph
    return graph


def refusals_from_here() -> Callable[[], None]:
    """A function that forgets the refusals kept from now on: for a
    statement built one way whose failure its caller recovers from by
    building it another way (the first attempt's refusals are not the
    program's)."""
    graph = _keeper()
    count = len(graph.refusals) if graph is not None else 0

    def forget() -> None:
        if graph is not None:
            del graph.refusals[count:]

    return forget
