"""The user's line of the statement being staged.

A backend builds its control flow through library code (`jax.lax`, the
graph runtime) whose frames are not the user's: the line of each statement
is recorded when it starts, and errors raised deeper name it.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any

from runtime.source_locations import (
    INTERNAL_PATHS,
    SourceLocation,
    user_frame,
    user_location,
)


class _Lines(threading.local):
    def __init__(self) -> None:
        self.stack: list[SourceLocation | None] = []


_LINES = _Lines()


def staged(impl: Callable[..., Any]) -> Callable[..., Any]:
    """`impl` (a backend's statement operator), recording the user's line
    that called it for the statement's duration."""

    def run(*args: Any, **kwargs: Any) -> Any:
        _LINES.stack.append(user_location(2))
        try:
            return impl(*args, **kwargs)
        finally:
            _LINES.stack.pop()

    return run


def depth() -> int:
    """How many backend statements are being staged, one inside another."""
    return len(_LINES.stack)


def current(skip: int = 2) -> SourceLocation | None:
    """The line of the innermost statement being staged; outside one, the
    first user frame from `skip` frames up."""
    if _LINES.stack and _LINES.stack[-1] is not None:
        return _LINES.stack[-1]
    return user_location(skip + 1)


def foreign_file(filename: str) -> bool:
    """Whether `filename` belongs to this library or an installed package
    (JAX's `lax` internals) rather than the user's code."""
    return (
        filename.startswith(INTERNAL_PATHS)
        or "site-packages" in filename
        or "dist-packages" in filename
    )


def at(where: SourceLocation | None) -> str:
    """`' at file:line'`, or nothing."""
    return f" at {where}" if where is not None else ""


def deepest_user_line(error: BaseException) -> SourceLocation | None:
    """The last line of the user's code `error`'s traceback went through."""
    found = None
    tb = error.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if not foreign_file(code.co_filename):
            found = SourceLocation(code.co_filename, tb.tb_lineno)
        tb = tb.tb_next
    return found


# The names the compiler gives the functions it generates (`Namer` bases;
# `loop_else`/`loop_returned`: the `if`s jump lowering writes after a loop).
GENERATED_FUNCTIONS = re.compile(
    r"(if_body|else_body|loop_body|loop_test|extra_test|loop_else|loop_returned)"
    r"(_\d+)?"
)


def user_function(fn: Callable[..., Any]) -> str | None:
    """The name of the user's function `fn` (a converted body, branch or
    test the compiler generated) is nested in, or None if unknown."""
    qualname = getattr(fn, "__qualname__", None)
    if not isinstance(qualname, str):
        return None
    parts = [p for p in qualname.split(".") if p != "<locals>"]
    while parts and (
        GENERATED_FUNCTIONS.fullmatch(parts[-1]) or parts[-1] == "<lambda>"
    ):
        parts.pop()
    return parts[-1] if parts else None


def statement_here() -> str:
    """`' at file:line in 'f''`: the statement being staged and the user's
    function it is in (a generated body's frame is skipped)."""
    where = current()
    if where is None:
        return ""
    frame = user_frame(2)
    while frame is not None and (
        foreign_file(frame.f_code.co_filename)
        or GENERATED_FUNCTIONS.fullmatch(frame.f_code.co_name)
    ):
        frame = frame.f_back
    name = frame.f_code.co_name if frame is not None else None
    return f" at {where}" + (f" in {name!r}" if name not in (None, "<module>") else "")
