"""`rt.nn`: the neural-network ops the guides use.

    >>> import runtime as rt
    >>> rt.nn.relu(rt.constant([-1.0, 2.0]))
    <rt.Tensor: shape=(2,), dtype=float32, numpy=array([0., 2.], dtype=float32)>
    >>> rt.nn.softmax(rt.constant([0.0, 0.0]))
    <rt.Tensor: shape=(2,), dtype=float32, numpy=array([0.5, 0.5], dtype=float32)>

Each is built from the math ops, so it runs eagerly and in graphs and has
a gradient.
"""

from __future__ import annotations

from typing import Any

from runtime.op_registry import convert_to_tensor
from runtime.ops import random
from runtime.ops.array import cast, shape
from runtime.ops.math import divide, exp, greater_equal, multiply, relu, subtract
from runtime.ops.reduction import reduce_max, reduce_sum
from runtime.tensor import Tensor, TensorLike

__all__ = ["dropout", "relu", "softmax"]


def softmax(logits: TensorLike, axis: int = -1, name: str | None = None) -> Tensor:
    """`exp(x) / sum(exp(x))` along `axis` (the maximum subtracted first)."""
    logits = convert_to_tensor(logits)
    shifted = subtract(logits, reduce_max(logits, axis=axis, keepdims=True))
    e = exp(shifted)
    return divide(e, reduce_sum(e, axis=axis, keepdims=True), name=name)


def dropout(
    x: TensorLike, rate: float, seed: int | None = None, name: str | None = None
) -> Tensor:
    """Zeros each element with probability `rate`, scales the rest by
    `1 / (1 - rate)` (a new draw each time it runs, also in a graph).

    Raises:
        ValueError: `rate` is not in [0, 1).
    """
    rate = float(rate)
    if not 0.0 <= rate < 1.0:
        raise ValueError(f"rt.nn.dropout: rate must be in [0, 1), got {rate}")
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise TypeError(f"rt.nn.dropout needs a floating tensor, got {x.dtype}")
    keep = greater_equal(random.uniform(_shape_of(x), dtype=x.dtype, seed=seed), rate)
    scaled = multiply(x, 1.0 / (1.0 - rate))
    return multiply(scaled, cast(keep, x.dtype), name=name)


def _shape_of(x: Tensor) -> Any:
    """The static shape where it is known, else the shape at run time."""
    if x.shape is not None and None not in x.shape:
        return x.shape
    return shape(x)
