"""Builtins whose meaning changes for graph tensors: print, range, len, int, float.

Converted code calls `ag__.print_(...)` where the user wrote `print(...)`.
With no backend's value among the arguments each one *is* the builtin,
except `print` while a backend that stages every print is active (JAX:
`dispatch.UNCLAIMED`).
"""

from __future__ import annotations

import builtins

# Own references: a user's `builtins.len = spy` does not see our calls.
from builtins import len, type
from typing import Any

from runtime.context import STATE
from runtime.operators.dispatch import TABLES, UNCLAIMED

_PRINT = TABLES["print_"]
_PRINT_UNCLAIMED = UNCLAIMED["print_"]
_RANGE = TABLES["range_"]
_LEN = TABLES["len_"]
_INT = TABLES["int_"]
_FLOAT = TABLES["float_"]


def _claimed(table: dict[type, Any], args: tuple[Any, ...]) -> Any:
    for arg in args:
        impl = table[type(arg)]
        if impl is not None:
            return impl
    return None


def print_(*args: Any, **kwargs: Any) -> None:
    """`print(*args, **kwargs)`, or what a backend makes of it.

    The graph backend claims none (as in TensorFlow, a Python `print` runs
    while tracing; `rt.print` is the op that prints on every run). The JAX
    backend, while JAX traces, stages every print to run when the compiled
    function runs, on the path taken (`UNCLAIMED`: also one whose
    arguments hold no tracer).

    `sys.stdout` is looked up when the print runs, as `print` does. Inside a
    trial trace (`context.trial_trace`: a backend tracing a body once more
    only to learn its types) it prints nothing, so tracing prints what the
    user's code prints once.
    """
    if STATE.trials:
        return
    impl = _claimed(_PRINT, args)
    if impl is not None and impl(*args, **kwargs) is not NotImplemented:
        return
    for impl in _PRINT_UNCLAIMED:
        if impl(*args, **kwargs) is not NotImplemented:
            return
    builtins.print(*args, **kwargs)


def range_(*args: Any, **kwargs: Any) -> Any:
    """`range(*args)`; with a graph tensor argument, a graph range."""
    impl = None if kwargs else _claimed(_RANGE, args)
    if impl is not None:
        result = impl(*args)
        if result is not NotImplemented:
            return result
    return builtins.range(*args, **kwargs)


STEP_ZERO = "range() arg 3 must not be zero"


def check_range_args(args: tuple[Any, ...], kind: str, where: str) -> None:
    """Python's TypeError for a `range()` argument that is no integer: a
    float, or a `kind` (`"graph"`, `"JAX"`) value of a float dtype, which
    a backend's range would take; `where` is `' at file:line'`."""
    for arg in args:
        dtype = getattr(arg, "dtype", None)
        dtype = getattr(dtype, "np_dtype", dtype)  # a graph tensor's DType
        kind_of = getattr(dtype, "kind", "i")
        if type(arg) is float or kind_of not in "iub":
            name = type(arg).__name__ if dtype is None else f"{kind} {dtype}"
            raise TypeError(
                f"'float' object cannot be interpreted as an integer: range() "
                f"of a {name} value{where}; give it an int (int(x) rounds a "
                "traced value toward zero)"
            )


def len_(*args: Any, **kwargs: Any) -> Any:
    """`len(value)`; for a graph tensor of unknown length, a graph op.

    Wrong arguments raise exactly what `len` raises.
    """
    impl = _LEN[type(args[0])] if len(args) == 1 and not kwargs else None
    if impl is not None:
        result = impl(*args)
        if result is not NotImplemented:
            return result
    return builtins.len(*args, **kwargs)


def int_(value: Any = 0, *args: Any, **kwargs: Any) -> Any:
    """`int(value, *args, **kwargs)`; for a graph tensor, a cast to int32."""
    impl = _INT[type(value)]
    if impl is not None:
        result = impl(value, *args, **kwargs)
        if result is not NotImplemented:
            return result
    return builtins.int(value, *args, **kwargs)


def float_(*args: Any, **kwargs: Any) -> Any:
    """`float(value)`; for a graph tensor, a cast to float32.

    Wrong arguments raise exactly what `float` raises.
    """
    impl = _FLOAT[type(args[0])] if len(args) == 1 and not kwargs else None
    if impl is not None:
        result = impl(*args)
        if result is not NotImplemented:
            return result
    return builtins.float(*args, **kwargs)
