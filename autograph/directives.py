"""Directives: calls that tell the compiler something about the code around them.

`set_loop_options`, called first in a loop body, sets options of the graph
loop that loop becomes. The compiler reads the call while converting (it
takes it out of the body and passes its arguments to the loop operator); the
function itself does nothing, so the unconverted code runs unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def set_loop_options(
    *,
    shape_invariants: Sequence[tuple[Any, Any]] = (),
    maximum_iterations: Any = None,
) -> None:
    """Options for the graph loop whose body this call begins.

    Called as the first statement of a `while` or `for` body in converted
    code; when that loop runs on graph tensors, it gets these options. A loop
    that runs as Python (a Python condition or iterable) ignores them, and so
    does a call anywhere else: outside converted code, or not first in a loop
    body, the function does nothing.

        def grow(n):
            x = rt.constant([1.0])
            while rt.reduce_sum(x) < n:
                autograph.set_loop_options(shape_invariants=[(x, (None,))])
                x = rt.concat([x, x], axis=0)
            return x

    Args:
        shape_invariants: `(variable, shape)` pairs: a loop variable (as it
            is when the loop starts) and the shape it may take in any
            iteration, with None for a size that changes; a shape is an
            `rt.TensorShape`, a tuple or a list.
        maximum_iterations: The most iterations the graph loop runs (an int
            or an int scalar tensor); None for no limit.
    """
    del shape_invariants, maximum_iterations  # read by the compiler, not here
