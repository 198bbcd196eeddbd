"""`and`, `or`, `not` and conditional expressions as functions.

The right operand of `and`/`or` and both arms of a conditional expression
arrive as functions, so they are evaluated only when Python would:

    >>> and_(0, lambda: 1 / 0)
    0
    >>> or_(0, lambda: 'right')
    'right'
    >>> if_exp(True, lambda: 'yes', lambda: 1 / 0)
    'yes'
"""

from __future__ import annotations

import operator

# Own references: a user's `builtins.len = spy` does not see our calls.
from builtins import type
from collections.abc import Callable, Sequence
from typing import Any

from runtime.operators.control_flow import if_stmt
from runtime.operators.dispatch import TABLES
from runtime.operators.places import Place

_AND = TABLES["and_"]
_OR = TABLES["or_"]
_NOT = TABLES["not_"]
_IF_EXP = TABLES["if_exp"]


def and_(a: Any, b: Callable[[], Any], *, places: Sequence[Place] = ()) -> Any:
    """`a and b()`; a graph tensor `a` gives a graph op evaluating b lazily.

    `places` are variables `b` may change where they live (a call of a
    nested function that writes a `nonlocal`): a backend carries them, as
    `if_stmt` does.
    """
    impl = _AND[type(a)]
    if impl is not None:
        if places:
            return if_stmt(a, b, lambda: a, (), ("the value of `and`",), places=places)
        result = impl(a, b)
        if result is not NotImplemented:  # else the backend declined `a`
            return result
    return a and b()


def or_(a: Any, b: Callable[[], Any], *, places: Sequence[Place] = ()) -> Any:
    """`a or b()`; a graph tensor `a` gives a graph op evaluating b lazily.
    `places` as for `and_`."""
    impl = _OR[type(a)]
    if impl is not None:
        if places:
            return if_stmt(a, lambda: a, b, (), ("the value of `or`",), places=places)
        result = impl(a, b)
        if result is not NotImplemented:
            return result
    return a or b()


_COMPARISONS: dict[str, Callable[[Any, Any], Any]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
    "in": lambda a, b: a in b,
    "not in": lambda a, b: a not in b,
    "is": operator.is_,
    "is not": operator.is_not,
}


def compare_chain(left: Any, *parts: Any, places: Sequence[Place] = ()) -> Any:
    """`left op1 b op2 c ...`: each operand evaluated once, left to right,
    and only while the comparisons so far hold (Python's chain).

    `parts` alternate an operator's symbol and its right operand as a
    function: `compare_chain(0, '<', lambda: x + y, '<=', lambda: 9)`. On a
    backend's value the rest of the chain is the lazy operand of `and_`.

        >>> compare_chain(1, '<', lambda: 2, '<', lambda: 1 / 0)
        Traceback (most recent call last):
        ...
        ZeroDivisionError: division by zero
        >>> compare_chain(3, '<', lambda: 2, '<', lambda: 1 / 0)
        False
    """
    symbol, right, *rest = parts
    right = right()
    result = _COMPARISONS[symbol](left, right)
    if not rest:
        return result
    return and_(
        result, lambda: compare_chain(right, *rest, places=places), places=places
    )


def not_(a: Any) -> Any:
    """`not a`; a graph tensor gives `logical_not`."""
    impl = _NOT[type(a)]
    if impl is not None:
        result = impl(a)
        if result is not NotImplemented:
            return result
    return not a


def if_exp(
    cond: Any,
    if_true: Callable[[], Any],
    if_false: Callable[[], Any],
    expr_repr: str = "",
    *,
    places: Sequence[Place] = (),
) -> Any:
    """`if_true() if cond else if_false()`; a graph tensor gives a graph cond.

    Args:
        cond: The condition.
        if_true: The value when true, as a function.
        if_false: The value when false, as a function.
        expr_repr: The user's source of the expression, for error messages.
        places: Variables the arms may change where they live (see `and_`).
    """
    impl = _IF_EXP[type(cond)]
    if impl is not None:
        if places:
            name = "the value of the conditional expression"
            return if_stmt(cond, if_true, if_false, (), (name,), places=places)
        result = impl(cond, if_true, if_false, expr_repr)
        if result is not NotImplemented:
            return result
    return if_true() if cond else if_false()
