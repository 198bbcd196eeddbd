"""`converted_call`: calls from converted code into other functions.

The compiler (`autograph`) decides which functions are converted; `runtime`
must not import it, so the compiler installs its decision here at import
time with `set_converter`. Without one, every call runs as it is.

A builtin reached as a value (`fn = range; fn(n)`, or passed as an argument)
goes to the same operator as the builtin named directly, so it means the same
on graph tensors:

    >>> fn = len
    >>> converted_call(fn, [1, 2, 3])
    3
"""

from __future__ import annotations

import builtins
import sys
import types
import warnings
from builtins import id  # own reference (issue 21)
from collections.abc import Callable
from typing import Any

from runtime.operators import frames, py_builtins
from runtime.operators.verification import unset_reaches_library

_converter: Callable[[Any], Any] | None = None
_METHOD = types.MethodType
_LOGGER_METHODS = frames.LOGGER_METHODS

# Builtins that converted code routes through an operator when named
# directly (autograph's OVERLOADED_BUILTINS), by identity.
_BUILTIN_OPERATORS: dict[Any, Callable[..., Any]] = {
    builtins.print: py_builtins.print_,
    builtins.range: py_builtins.range_,
    builtins.len: py_builtins.len_,
    builtins.int: py_builtins.int_,
    builtins.float: py_builtins.float_,
    builtins.max: py_builtins.max_,
    builtins.min: py_builtins.min_,
    # Count `stacklevel` / `depth` over the user's frames:
    warnings.warn: frames.warn_,
    sys._getframe: frames.getframe_,
}


_OPERATORS_BY_ID = {id(f): operator for f, operator in _BUILTIN_OPERATORS.items()}


def operator_of(f: Any) -> Callable[..., Any] | None:
    """The operator converted code calls for builtin `f` (`max`: `max_`),
    or None."""
    return _OPERATORS_BY_ID.get(id(f))


def set_converter(converter: Callable[[Any], Any] | None) -> None:
    """Installs `converter(f) -> callable to run instead of f`."""
    global _converter
    _converter = converter


def converted_call(f: Any, /, *args: Any, **kwargs: Any) -> Any:
    """Calls the converted version of `f` (or `f` itself) with the arguments.

    A builtin with an operator (`print`, `range`, `len`, `int`, `float`) is
    called through that operator, as when the user names it directly;
    `warnings.warn` and `sys._getframe` through `frames`.
    """
    # By identity: hashing `f` would run its `__hash__` (a mock records it).
    operator = _OPERATORS_BY_ID.get(id(f))
    if operator is not None:
        return operator(*args, **kwargs)
    if type(f) is _METHOD and f.__func__ in _LOGGER_METHODS:
        return frames.log_(f, *args, **kwargs)
    if _converter is None:
        return f(*args, **kwargs)
    try:
        return _converter(f)(*args, **kwargs)
    except TypeError as error:
        clear = unset_reaches_library(error, f, (args, kwargs))
        if clear is None:
            raise
        raise clear from error
