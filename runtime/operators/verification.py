"""Checks on converted control flow and their messages (STYLE 6, 11).

Every message names the user's variable and says how to fix the problem;
tests pin the text.
"""

from __future__ import annotations


def raise_python_loop_tensor_condition(loop: str, names: tuple[str, ...]) -> None:
    """A loop running as Python got a graph-tensor condition."""
    state = ", ".join(repr(n) for n in names if not n.startswith("itr")) or "none"
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
