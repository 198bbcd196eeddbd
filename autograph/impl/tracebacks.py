"""Tracebacks that show the user's frames, not autograph's plumbing.

Converted code is compiled under the user's file and lines, so its frames
already read as the user's. What remains is the machinery between them: the
API wrappers (``autograph/impl/``), the toolkit (``autograph/pyct/``) and the
operators converted code calls (``runtime/operators/``: control-flow dispatch,
state passing, checks). ``filter_traceback`` drops those frames and keeps all
others, including the runtime's ops and graph code (``runtime/ops/``,
``runtime/control_flow.py``, ...), whose frames explain what failed.

A check in ``runtime/operators`` raises with a message that names the user's
variable; dropping its frame leaves the user's converted statement as the
innermost frame, which is where the user should look. If every frame is
internal (an error inside autograph itself), the traceback is returned as it
is. Set ``AUTOGRAPH_TRACEBACK_FILTERING=0`` to keep every frame when debugging
autograph.

Example:
    >>> import sys
    >>> try:
    ...     1 / 0
    ... except ZeroDivisionError:
    ...     tb = filter_traceback(sys.exc_info()[2])
    >>> tb.tb_frame.f_code.co_name
    '<module>'
"""

from __future__ import annotations

import os
import types

# Own references: a user's `builtins.len = spy` does not see our calls.
from builtins import len, reversed, tuple

import runtime.operators

__all__ = ["filter_traceback", "internal_dirs"]

_AUTOGRAPH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_ENV_SWITCH = "AUTOGRAPH_TRACEBACK_FILTERING"


def internal_dirs() -> tuple[str, ...]:
    """The absolute directories whose frames ``filter_traceback`` drops.

    Example:
        >>> [os.path.basename(path) for path in internal_dirs()]
        ['impl', 'pyct', 'operators']
    """
    return (
        os.path.join(_AUTOGRAPH, "impl"),
        os.path.join(_AUTOGRAPH, "pyct"),
        os.path.dirname(os.path.abspath(runtime.operators.__file__)),
    )


def _is_internal(filename: str, prefixes: tuple[str, ...]) -> bool:
    path = os.path.normcase(os.path.abspath(filename))
    return path.startswith(prefixes)


def filter_traceback(tb: types.TracebackType | None) -> types.TracebackType | None:
    """A copy of the chain ``tb`` without frames from ``internal_dirs()``.

    The original traceback objects are left unchanged. Use it as
    ``raise error.with_traceback(filter_traceback(error.__traceback__))``.

    Args:
        tb: The head of a traceback chain (outermost frame first), or ``None``.

    Returns:
        The head of a new chain, or ``tb`` itself when filtering is switched
        off, nothing would be dropped, or every frame is internal.

    Example:
        >>> filter_traceback(None) is None
        True
    """
    if tb is None or os.environ.get(_ENV_SWITCH, "1") == "0":
        return tb
    prefixes = tuple(os.path.normcase(path) + os.sep for path in internal_dirs())
    chain = []
    while tb is not None:
        chain.append(tb)
        tb = tb.tb_next
    kept = [
        link
        for link in chain
        if not _is_internal(link.tb_frame.f_code.co_filename, prefixes)
    ]
    if not kept or len(kept) == len(chain):
        return chain[0]
    head = None
    for link in reversed(kept):
        head = types.TracebackType(head, link.tb_frame, link.tb_lasti, link.tb_lineno)
    return head
