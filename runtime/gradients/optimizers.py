"""Optimizers: apply gradients to variables (`rt.optimizers`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from runtime.ops.math import multiply
from runtime.ops.state import Variable

__all__ = ["SGD"]


class SGD:
    """Plain gradient descent: `v -= learning_rate * g` (`rt.optimizers.SGD`).

    Works eagerly and inside a `Function` (the updates are variable writes,
    run on every call).
    """

    def __init__(self, learning_rate: Any = 0.01) -> None:
        self.learning_rate = learning_rate

    def apply_gradients(self, grads_and_vars: Iterable[tuple[Any, Any]]) -> None:
        """Updates each variable by its gradient; pairs with a None gradient
        are skipped (a variable the loss does not depend on)."""

        pairs = list(grads_and_vars)
        if not pairs:
            raise ValueError("apply_gradients got no (gradient, variable) pairs")
        for g, v in pairs:
            if not isinstance(v, Variable):
                raise TypeError(
                    f"apply_gradients takes (gradient, Variable) pairs, got a "
                    f"{type(v).__name__} where the Variable should be"
                )
            if g is None:
                continue
            rate = self.learning_rate
            v.assign_sub(multiply(g, rate) if not callable(rate) else g * rate())
