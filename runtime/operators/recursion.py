"""Refusing recursion whose depth depends on a backend's value.

A function that calls itself inside the branch of a graph `if` (or a loop
body) is traced again inside that branch, which calls it again: the depth
Python would stop at depends on a tensor, so tracing never ends (a bare
`RecursionError` after hundreds of frames). Each backend statement being
traced is noted with the user's code that built it (`entered`); the same
code entered `LIMIT` times, one inside another, is refused with a TypeError
naming the function and the line of the recursive call. (Recursion that a
Python value ends, as `depth - 1` with a Python int, stops well before.)
"""

from __future__ import annotations

import threading
import types
from collections.abc import Callable
from typing import Any

from runtime.graph import keep_refusal
from runtime.source_locations import INTERNAL_PATHS, SourceLocation, user_frame

__all__ = ["LIMIT", "enter", "exit", "guarded"]

LIMIT = 24
"""How many times the same code may build a statement inside its own branch."""

_WHAT = {
    "if_stmt": "{kind} `if`",
    # (An `if` whose branches both return is converted to one.)
    "if_exp": "{kind} `if` or conditional expression",
    "and_": "{kind} `and`",
    "or_": "{kind} `or`",
}
_TENSOR = {"graph": "graph tensor", "JAX": "traced JAX value"}


class _Stack(threading.local):
    def __init__(self) -> None:
        self.codes: dict[types.CodeType, int] = {}


_STACK = _Stack()


def enter(operator: str, kind: str = "graph") -> Any:
    """Notes that the user's code calling `operator` (the first frame
    outside this library) is building it, and returns a token for `exit`;
    refuses the LIMIT-th such statement of the same code inside itself
    (`kind` names the backend: "graph", "JAX")."""
    frame = user_frame(2)
    code = frame.f_code if frame is not None else None
    codes = _STACK.codes
    depth = codes.get(code, 0)
    if depth >= LIMIT and frame is not None:
        _refuse(frame, operator, kind)
    codes[code] = depth + 1
    return code


def exit(token: Any) -> None:
    """The statement `enter` noted (its token) is built."""
    codes = _STACK.codes
    depth = codes[token] - 1
    if depth:
        codes[token] = depth
    else:
        del codes[token]


def guarded(
    impl: Callable[..., Any], operator: str, kind: str = "graph"
) -> Callable[..., Any]:
    """A backend's `operator` (`if_exp`, `and_`, `or_`) between `enter` and
    `exit`."""

    def run(*args: Any, **kwargs: Any) -> Any:
        token = enter(operator, kind)
        try:
            return impl(*args, **kwargs)
        finally:
            exit(token)

    return run


def _refuse(frame: types.FrameType, operator: str, kind: str) -> None:
    """Raises the TypeError for recursion through `operator` built by `frame`."""
    # The user's function: the outermost of the functions the statement's
    # code is nested in (converted code defines branches as nested functions).
    outer = frame
    while outer.f_back is not None and outer.f_code in outer.f_back.f_code.co_consts:
        outer = outer.f_back
    call = outer.f_back
    while call is not None and call.f_code.co_filename.startswith(INTERNAL_PATHS):
        call = call.f_back
    at = (
        f" (the call at {SourceLocation(call.f_code.co_filename, call.f_lineno)})"
        if call is not None
        else ""
    )
    what = _WHAT.get(operator, "{kind} loop").format(kind=kind)
    tensor = _TENSOR.get(kind, f"{kind} value")
    where = SourceLocation(frame.f_code.co_filename, frame.f_lineno)
    error = TypeError(
        f"{outer.f_code.co_name!r} calls itself{at} inside a {what} at {where}, "
        f"{LIMIT} calls deep while tracing: how deep it recurses depends on a "
        f"{tensor}, so tracing it would never end; write the recursion as a "
        f"loop (a `while` on the {tensor}), or end it with a Python value"
    )
    keep_refusal(error, ours=True)
    raise error
