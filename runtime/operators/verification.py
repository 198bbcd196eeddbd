"""Checks on converted control flow and their messages (STYLE 6, 11).

Every message names the user's variable and says how to fix the problem;
tests pin the text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# What converted code's own state variables stand for, by the Namer's base
# names (a clash with a user's name gets a suffix: `retval__1`, `break__2`).
# (The `for` item `itr` is a loop function's parameter, never state.)
_GENERATED = tuple(
    (re.compile(rf"{base}(_\d+)?"), what)
    for base, what in (
        ("retval_", "the function's return value"),
        ("do_return", "whether the function has returned"),
        ("break_", "the loop's `break` condition"),
        ("continue_", "the loop's `continue` condition"),
    )
)


def label(name: str) -> str:
    """How messages name a state variable: the user's name, or what a
    generated one stands for.

        >>> label("total"), label("retval_")
        ('total', "the function's return value")

    A description is not an identifier, so messages print it unquoted.
    """
    for pattern, what in _GENERATED:
        if pattern.fullmatch(name):
            return what
    return name


def labels(names: Sequence[str]) -> list[str]:
    """`label` of each name."""
    return [label(n) for n in names]


def is_generated(name: str) -> bool:
    """Whether `name` is one of converted code's own variables."""
    return label(name) != name


def raise_python_loop_tensor_condition(loop: str, names: tuple[str, ...]) -> None:
    """A loop running as Python got a graph-tensor condition."""
    state = ", ".join(repr(n) for n in names if not is_generated(n)) or "none"
    if loop == "for":
        raise TypeError(
            "this `for` loop iterates over a Python value, so it runs as Python "
            "(unrolled while tracing), but its `break` or `return` depends on a graph "
            f"tensor (loop variables: {state}); iterate over a tensor, e.g. "
            "rt.range(n), to make it one graph loop"
        )
    raise TypeError(
        "this `while` loop started with a Python condition, so it runs as Python, "
        "but its condition became a graph tensor after an iteration (loop "
        f"variables: {state}); make those variables tensors before the loop so "
        "it becomes one graph loop"
    )
