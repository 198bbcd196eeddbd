"""Reverse-mode gradients: `rt.GradientTape`, `rt.stop_gradient`, optimizers.

    >>> import runtime as rt
    >>> x = rt.constant(3.0)
    >>> with rt.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = x * x
    >>> tape.gradient(y, x)
    <rt.Tensor: shape=(), dtype=float32, numpy=6.0>

A tape records the ops whose inputs it watches, eagerly (`op_registry.apply`
tells it) and while a graph is built (`Graph.create_op` tells it, so a tape
inside a `Function` records graph ops and `gradient` adds the backward ops
to the same graph). Each op's gradient is declared beside its kernel
(`@op_registry.gradient("Mul")`); `If` and `While` get theirs here
(`control_flow`), and a `Function` called under a tape replays its graph op
by op (`replay`), so it is differentiated as if its ops had run eagerly.
"""

from runtime.gradients import control_flow as _control_flow
from runtime.gradients.optimizers import SGD
from runtime.gradients.replay import replay
from runtime.gradients.tape import GradientTape, backprop
from runtime.ops.grad_ops import stop_gradient

del _control_flow

__all__ = ["SGD", "GradientTape", "backprop", "replay", "stop_gradient"]
