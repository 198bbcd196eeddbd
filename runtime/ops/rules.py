"""Shape/dtype rules shared by the ops, and static values of graph tensors.

A rule takes the op's input tensors (eager or symbolic: only `.dtype` and
`.shape` are read, plus `static_value` for shape-like inputs) and its attrs,
and returns one (dtype, shape) per output. Rules raise TypeError for wrong
dtypes and InvalidArgumentError for shapes that can never work.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from runtime import dtypes
from runtime.errors import InvalidArgumentError
from runtime.op_registry import convert_to_tensor
from runtime.shapes import Shape, broadcast_all, format_shape, normalize_axis
from runtime.tensor import EagerTensor, SymbolicTensor

__all__ = [
    "elementwise",
    "no_outputs",
    "static_shape_value",
    "static_value",
    "unary",
]

Spec = tuple[dtypes.DType, Shape]
Rule = Callable[[Sequence[Any], dict[str, Any]], list[Spec]]


def elementwise(name: str, result: str = "same") -> Rule:
    """Broadcasting n-ary rule; `result` is "same", "bool" or "truediv"."""

    def rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[Spec]:
        shape = broadcast_all([t.shape for t in inputs], name)
        dtype = inputs[0].dtype
        if result == "bool":
            dtype = dtypes.bool_
        elif result == "truediv" and dtype.is_integer:
            dtype = dtypes.float64
        return [(dtype, shape)]

    return rule


def unary(out: dtypes.DType | None = None) -> Rule:
    """Rule of an op whose one output has its input's shape."""

    def rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[Spec]:
        return [(out or inputs[0].dtype, inputs[0].shape)]

    return rule


def fixed(*specs: Spec) -> Rule:
    """Rule of an op whose outputs never vary."""

    def rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[Spec]:
        return list(specs)

    return rule


def no_outputs(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[Spec]:
    """Rule of an op with no outputs (print, assert)."""
    return []


def require_rank(t: Any, at_least: int, op: str, what: str = "input") -> None:
    """InvalidArgumentError unless the static rank is unknown or >= at_least."""
    if t.shape is not None and len(t.shape) < at_least:
        raise InvalidArgumentError(
            f"{what} must have rank >= {at_least}, got shape {format_shape(t.shape)}",
            op,
        )


def normalize_axes(axis: Any, rank: int, op: str) -> tuple[int, ...]:
    """Axis attr (None, int or tuple) as sorted non-negative ints."""
    if axis is None:
        return tuple(range(rank))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    return tuple(sorted({normalize_axis(a, rank, op) for a in axes}))


def static_value(t: Any) -> np.ndarray | None:
    """The value of `t` if it is known while building the graph, else None."""
    if type(t) is EagerTensor:
        return np.asarray(t.numpy_value)
    if type(t) is not SymbolicTensor:
        return None
    op = t.op
    if op.type == "Const":
        return np.asarray(op.attrs["value"])
    if op.type == "Identity":
        return static_value(op.inputs[0])
    if op.type == "Shape":
        shape = op.inputs[0].shape
        if shape is not None and None not in shape:
            return np.array(shape, dtype=np.int32)
    if op.type == "Size":
        shape = op.inputs[0].shape
        if shape is not None and None not in shape:
            return np.array(int(np.prod(shape, dtype=np.int64)), dtype=np.int32)
    if op.type == "Pack":
        parts = [static_value(x) for x in op.inputs]
        if all(p is not None for p in parts):
            return np.stack(parts, axis=op.attrs["axis"])
    if op.type == "Cast":
        inner = static_value(op.inputs[0])
        if inner is not None:
            return inner.astype(op.attrs["dtype"].np_dtype)
    return None


def static_shape_value(t: Any) -> Shape:
    """A 1-D int tensor used as a shape, with None for unknown entries.

    Handles `rt.stack([rt.shape(x)[0], 3])`-style partially known shapes and
    -1 (becomes None). None if not even the length is known.
    """
    value = static_value(t)
    if value is not None:
        return tuple(None if int(d) < 0 else int(d) for d in np.reshape(value, (-1,)))
    if type(t) is SymbolicTensor and t.op.type == "Pack":
        dims: list[int | None] = []
        for part in t.op.inputs:
            v = static_value(part)
            dims.append(None if v is None or int(v) < 0 else int(v))
        return tuple(dims)
    if t.shape is not None and len(t.shape) == 1 and t.shape[0] is not None:
        return (None,) * t.shape[0]
    return None


def shape_input(shape_value: Any) -> Any:
    """A shape argument as an int32 tensor (Python lists stay cheap eagerly)."""
    if isinstance(shape_value, (EagerTensor, SymbolicTensor)):
        return shape_value
    if isinstance(shape_value, (int, np.integer)):
        shape_value = [shape_value]
    return convert_to_tensor(shape_value, dtype_hint=dtypes.int32)


def static_int(t: Any) -> int | None:
    """A scalar integer known while building the graph, else None."""
    value = static_value(t)
    return None if value is None else int(value)
