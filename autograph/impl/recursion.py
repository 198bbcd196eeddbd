"""The recursion limit while converted code is forced to run or traced.

A converted call costs a few frames where Python's costs one (the
operators, the functions of converted statements, `converted_call`), so a
recursion depth Python reaches would overflow converted. While any
`always_run_converted` block is open, or a `Function` traces (the converted
code runs then), the interpreter's limit is `FACTOR`
times the user's, and `sys.getrecursionlimit` / `sys.setrecursionlimit`
show and set the user's limit (code that sizes its work by the limit, or
lowers it to test a RecursionError, sees what it sees in Python).

Why 10: a user's call nested in an `elif` chain inside a loop costs 15-20
frames converted; the C stack bounds it from above (on an 8 MiB stack,
converted code that recurses through loops crashes past ~16000 frames).
"""

from __future__ import annotations

import sys
import threading

# Own references: a user's `builtins.len = spy` does not see our calls.
from builtins import isinstance
from typing import Any

FACTOR = 10

_lock = threading.Lock()
_real_get = sys.getrecursionlimit
_real_set = sys.setrecursionlimit
_state = {"users": 0, "limit": 0}


def _get_user_limit() -> int:
    """`sys.getrecursionlimit()` as the user's code sees it."""
    return _state["limit"]


def _set_user_limit(limit: Any) -> None:
    """`sys.setrecursionlimit(limit)` as the user's code means it."""
    if not isinstance(limit, int) or limit < 1:
        _real_set(limit)  # raises what Python raises
    _real_set(limit * FACTOR)
    _state["limit"] = limit


_get_user_limit.__name__ = "getrecursionlimit"
_set_user_limit.__name__ = "setrecursionlimit"


def deeper(step: int) -> None:
    """`step` +1 on entering an `always_run_converted` block or a trace, -1
    on leaving:
    the first entry scales the limit, the last exit puts back the user's."""
    with _lock:
        _state["users"] += step
        if step > 0 and _state["users"] == 1:
            _state["limit"] = _real_get()
            _real_set(_state["limit"] * FACTOR)
            sys.getrecursionlimit = _get_user_limit
            sys.setrecursionlimit = _set_user_limit
        elif step < 0 and _state["users"] == 0:
            sys.getrecursionlimit = _real_get
            sys.setrecursionlimit = _real_set
            _real_set(_state["limit"])
