"""List `append`/`pop` in loops, as functions that return the list.

Inside a loop, `items.append(x)` becomes `items = ag__.list_append(items, x)`
so that the list is loop state; a graph loop turns it into a TensorArray,
whose `append` returns a new array. On a Python list both are the method.
"""

from __future__ import annotations

# Own references: a user's `builtins.len = spy` does not see our calls.
from builtins import type
from typing import Any

from runtime.operators.dispatch import TABLES

_APPEND = TABLES["list_append"]
_POP = TABLES["list_pop"]


def list_append(target: Any, value: Any) -> Any:
    """`target.append(value)`, returning `target` (or the new TensorArray)."""
    impl = _APPEND[type(target)]
    if impl is not None:
        result = impl(target, value)
        if result is not NotImplemented:
            return result
    target.append(value)
    return target


def list_pop(target: Any, *index: Any) -> tuple[Any, Any]:
    """`target.pop(*index)`, returning `(target, popped_value)`."""
    impl = _POP[type(target)]
    if impl is not None:
        result = impl(target, *index)
        if result is not NotImplemented:
            return result
    value = target.pop(*index)
    return target, value
