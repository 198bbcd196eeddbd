"""`assert` as a function, so a graph tensor condition becomes a graph assert;
and which `try` statements of converted code handle which exceptions."""

from __future__ import annotations

# Own references: a user's `builtins.len = spy` does not see our calls.
from builtins import type
from collections.abc import Callable, Mapping
from typing import Any

from runtime.context import STATE
from runtime.operators.dispatch import TABLES

_ASSERT = TABLES["assert_stmt"]


def assert_stmt(cond: Any, message: Callable[[], Any] | None = None) -> None:
    """Raises AssertionError unless `cond` holds.

    Plain-Python equivalent:

        assert cond, message()

    The message is a function so that, as in Python, it is evaluated only when
    the assertion fails. Like `assert`, nothing is checked under `python -O`.
    """
    impl = _ASSERT[type(cond)]
    if impl is not None and impl(cond, message) is not NotImplemented:
        return
    if __debug__ and not cond:
        if message is None:
            raise AssertionError
        raise AssertionError(message())


# (user's file, line) -> for each `try` whose body holds the line, innermost
# first: (its line, the names of the exception classes its handlers catch,
# or None for a handler that may catch anything).
_HANDLERS: dict[tuple[str, int], tuple[tuple[int, frozenset[str] | None], ...]] = {}


# (user's file, line of a `finally` block that does not jump) -> the `try`'s
# line and the first and last lines of what the block runs after.
_FINALLY: dict[tuple[str, int], tuple[int, int, int]] = {}


def register_handlers(
    filename: str,
    lines: Mapping[int, tuple[tuple[int, frozenset[str] | None], ...]],
    finally_lines: Mapping[int, tuple[int, int, int]] | None = None,
) -> None:
    """Records the `try` statements around lines of a converted function,
    and its `finally` blocks (the compiler calls it; see `handling_try`,
    `replaced_by_finally`)."""
    for line, tries in lines.items():
        _HANDLERS[(filename, line)] = tries
    for line, entry in (finally_lines or {}).items():
        _FINALLY[(filename, line)] = entry


def staged_a_raise(location: Any) -> None:
    """Notes that the program being staged may raise when it runs at
    `location` (a `SourceLocation`, or None), for `replaced_by_finally`."""
    if location is not None and STATE.staged_raises is not None:
        STATE.staged_raises.append((location.filename, location.lineno))


def replaced_by_finally(
    location: Any, staged: list[tuple[str, int]] | None = None
) -> str | None:
    """`file:line` of a point the program being staged may raise at, in
    what a `finally` block holding `location` runs after, or None: an
    exception raised at `location` replaces that one in Python, while the
    staged program raises the first (it cannot run the block's check
    first). `staged`: those points, if not the converted call's now."""
    if staged is None:
        staged = STATE.staged_raises
    if location is None or not staged:
        return None
    entry = _FINALLY.get((location.filename, location.lineno))
    if entry is None:
        return None
    _, first, last = entry
    for filename, line in staged:
        if filename == location.filename and first <= line <= last:
            return f"{filename}:{line}"
    return None


def handling_try(location: Any, error: BaseException) -> str | None:
    """`file:line` of a `try` of the user's code around `location` (a
    `SourceLocation`, or None) whose handlers may catch `error`, or None."""
    if location is None:
        return None
    tries = _HANDLERS.get((location.filename, location.lineno), ())
    names = {cls.__name__ for cls in type(error).__mro__}
    for line, caught in tries:
        if caught is None or caught & names:
            return f"{location.filename}:{line}"
    return None
