"""Exceptions from converted code, shown with the user's frames first.

Converted code is compiled under the user's file and lines, so its frames
already read as the user's (`File "model.py", line 12, in relu` with the
source text). Between them run autograph's plumbing: the operators that
converted code calls (`runtime/operators`: dispatch, state passing,
`converted_call`) and the API wrappers (`autograph/impl`). `with_user_frames`
drops those frames from an exception's traceback, and from the tracebacks of
the exceptions chained to it, so that a user reads only their own code (and
the runtime's ops, whose frames say what failed). The rules are
`autograph.impl.tracebacks.filter_traceback`'s, including its switch
`AUTOGRAPH_TRACEBACK_FILTERING=0`.

The wrapper that runs converted code re-raises with it, in its own frame, so
that no extra frame is added:

    try:
        return converted(*args, **kwargs)
    except Exception as error:
        raise error_rewriting.with_user_frames(error)

(A context manager or a helper that raises would add its own frame, and
`contextlib`'s, in front of the user's.)

Example:
    >>> def internal_free(error):
    ...     return [f.name for f in traceback.extract_tb(error.__traceback__)]
    >>> import traceback
    >>> try:
    ...     1 / 0
    ... except ZeroDivisionError as error:
    ...     internal_free(with_user_frames(error))
    ['<module>']
"""

from __future__ import annotations

# Own references: a user's `builtins.len = spy` does not see our calls.
from builtins import id, set
from typing import TypeVar

from autograph.impl import tracebacks

__all__ = ["with_user_frames"]

E = TypeVar("E", bound=BaseException)


def with_user_frames(error: E) -> E:
    """Drops autograph's internal frames from `error`'s traceback, in place.

    Also from the tracebacks of the exceptions in its `__cause__` and
    `__context__` chain. Frames outside autograph's plumbing are all kept, and
    a traceback made only of internal frames (an error in autograph itself) is
    left whole.

    Args:
        error: The exception being handled.

    Returns:
        `error` itself, ready for `raise`.
    """
    seen: set[int] = set()
    pending: list[BaseException | None] = [error]
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        current.with_traceback(tracebacks.filter_traceback(current.__traceback__))
        pending += [current.__cause__, current.__context__]
    return error
