"""Checks on converted control flow and their messages (STYLE 6, 11).

Every message names the user's variable and says how to fix the problem;
tests pin the text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from runtime.graph import keep_refusal

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


def raise_python_loop_tensor_condition(names: tuple[str, ...]) -> None:
    """A `for` over a Python iterable other than a range (which a backend
    can continue) got a graph-tensor `break` or `return` condition."""
    state = ", ".join(repr(n) for n in names if not is_generated(n)) or "none"
    error = TypeError(
        "this `for` loop iterates over a Python value, so it runs as Python "
        "(unrolled while tracing), but its `break` or `return` depends on a graph "
        f"tensor (loop variables: {state}); iterate over a tensor, e.g. "
        "rt.range(n), to make it one graph loop"
    )
    keep_refusal(error, ours=True)  # user code may catch it while tracing
    raise error


# The names the compiler gives the functions it generates (`Namer` bases).
_HELPERS = re.compile(r"(if_body|else_body|loop_body|loop_test|extra_test)(_\d+)?")


def raise_missing_return(
    body: Callable[..., Any], branch: str, has_else: bool, kind: str = "graph"
) -> None:
    """A graph `if` ending its function returns a value in one branch only.

    Args:
        body: The if's generated true branch (it carries the if's file and
            line, and is nested in the user's function).
        branch: 'if' or 'else': the branch that returned nothing.
        has_else: Whether the `if` has an else branch.
        kind: What the `if` becomes ("graph", "JAX"), for the message.
    """
    code = body.__code__
    parts = [p for p in body.__qualname__.split(".") if p != "<locals>"][:-1]
    while len(parts) > 1 and _HELPERS.fullmatch(parts[-1]):
        parts.pop()
    function = parts[-1] if parts else "?"
    other = "else" if branch == "if" else "if"
    where = (
        f"from its {branch} branch (that path has no `return`, or returns None)"
        if branch == "if" or has_else
        else "when its condition is false (it has no else branch, and no `return` "
        "follows it)"
    )
    raise ValueError(
        f"{function!r} returns a value from the {other} branch of the {kind} `if` "
        f"at {code.co_filename}:{code.co_firstlineno} but None {where}; a {kind} "
        "`if` needs a value of the same kind from both branches: add a `return` "
        "of such a value on that path"
    )
