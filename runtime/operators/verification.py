"""Checks on converted control flow and their messages (STYLE 6, 11).

Every message names the user's variable and says how to fix the problem;
tests pin the text.
"""

from __future__ import annotations


def raise_condition_became_tensor(names: tuple[str, ...]) -> None:
    """A Python loop's condition turned into a graph tensor mid-loop."""
    what = ", ".join(repr(n) for n in names) or "its variables"
    raise TypeError(
        "the condition of this loop was a Python value when the loop started "
        f"but became a graph tensor after an iteration (it depends on {what}); "
        "convert those variables to tensors before the loop so the whole loop "
        "becomes a graph loop"
    )
