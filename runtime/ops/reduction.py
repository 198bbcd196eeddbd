"""Reductions over axes: sum, mean, max, min, prod, all, any, argmax.

    >>> import runtime as rt
    >>> rt.reduce_sum([[1, 2], [3, 4]], axis=0).numpy()
    array([4, 6], dtype=int32)
    >>> rt.reduce_mean([[1.0, 2.0]], keepdims=True).numpy()
    array([[1.5]], dtype=float32)

`axis` is None (all axes), an int, or a sequence of ints, and must be known
while tracing. Results keep the input's dtype, as in TensorFlow (the mean of
ints is an int, truncated toward zero).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from runtime import dtypes
from runtime.op_registry import OpDef, apply, gradient, register
from runtime.ops import rules
from runtime.ops.grad_ops import reduce_grad
from runtime.shapes import normalize_axis
from runtime.tensor import EagerTensor, SymbolicTensor, Tensor, TensorLike

__all__ = [
    "argmax",
    "argmin",
    "reduce_all",
    "reduce_any",
    "reduce_max",
    "reduce_mean",
    "reduce_min",
    "reduce_prod",
    "reduce_sum",
]


def _reduce_rule(name: str, out: dtypes.DType | None = None) -> rules.Rule:
    def rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
        x = inputs[0]
        dtype = out or x.dtype
        if x.shape is None:
            return [(dtype, None)]
        axes = rules.normalize_axes(attrs["axis"], len(x.shape), name)
        if attrs["keepdims"]:
            shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
        else:
            shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
        return [(dtype, shape)]

    return rule


# Reductions pass their arguments positionally: (array, axis, dtype, out,
# keepdims). The dtype keeps int32 sums int32 (NumPy would widen them).
_ADD_REDUCE = np.add.reduce
_MULTIPLY_REDUCE = np.multiply.reduce


def _sum(x: Any, axis: Any, keepdims: bool) -> Any:
    return _ADD_REDUCE(x, axis, x.dtype, None, keepdims)


def _prod(x: Any, axis: Any, keepdims: bool) -> Any:
    return _MULTIPLY_REDUCE(x, axis, x.dtype, None, keepdims)


def _max(x: Any, axis: Any, keepdims: bool) -> Any:
    return np.maximum.reduce(x, axis=axis, keepdims=keepdims)


def _min(x: Any, axis: Any, keepdims: bool) -> Any:
    return np.minimum.reduce(x, axis=axis, keepdims=keepdims)


def _all(x: Any, axis: Any, keepdims: bool) -> Any:
    return np.logical_and.reduce(x, axis=axis, keepdims=keepdims)


def _any(x: Any, axis: Any, keepdims: bool) -> Any:
    return np.logical_or.reduce(x, axis=axis, keepdims=keepdims)


def _mean(x: Any, axis: Any, keepdims: bool) -> Any:
    if x.dtype.kind == "f":
        return np.mean(x, axis=axis, keepdims=keepdims, dtype=x.dtype)
    total = np.add.reduce(x, axis=axis, dtype=np.int64, keepdims=keepdims)
    count = max(np.size(x) // max(np.size(total), 1), 1)
    return np.trunc(total / count).astype(x.dtype)


def _register(
    name: str, kernel: Callable[..., Any], allowed: frozenset[dtypes.DType]
) -> OpDef:
    return register(
        OpDef(
            name,
            _reduce_rule(name),
            kernel,
            unify=1,
            allowed=allowed,
            default_name="reduce_" + name.lower(),
        )
    )


_SUM = _register("Sum", _sum, dtypes.NUMERIC)
_PROD = _register("Prod", _prod, dtypes.NUMERIC)
_MEAN = _register("Mean", _mean, dtypes.NUMERIC)
_MAX = _register("Max", _max, dtypes.NUMERIC)
_MIN = _register("Min", _min, dtypes.NUMERIC)
_ALL = _register("All", _all, frozenset({dtypes.bool_}))
_ANY = _register("Any", _any, frozenset({dtypes.bool_}))


def _axis_attr(axis: Any) -> int | tuple[int, ...] | None:
    """The static axis attr: None, or a tuple of ints."""
    if axis is None:
        return None
    if isinstance(axis, SymbolicTensor):
        value = rules.static_value(axis)
        if value is None:
            raise TypeError(
                f"the reduction axis {axis.name!r} must be known while tracing"
            )
        axis = value
    if isinstance(axis, EagerTensor):
        axis = axis.numpy()
    if np.ndim(axis) == 0:
        return (int(axis),)
    return tuple(int(a) for a in np.reshape(axis, -1))


def _reduce(
    op: OpDef, x: TensorLike, axis: Any, keepdims: bool, name: str | None
) -> Tensor:
    if axis is None and not keepdims:
        attrs = _ALL_AXES  # the common case, without building a dict
    else:
        attrs = {"axis": _axis_attr(axis), "keepdims": bool(keepdims)}
    return apply(op, (x,), attrs, name)


_ALL_AXES: dict[str, Any] = {"axis": None, "keepdims": False}


def reduce_sum(
    x: TensorLike, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """The sum over `axis` (all axes when None)."""
    return _reduce(_SUM, x, axis, keepdims, name)


def reduce_prod(
    x: TensorLike, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """The product over `axis` (all axes when None)."""
    return _reduce(_PROD, x, axis, keepdims, name)


def reduce_mean(
    x: TensorLike, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """The mean over `axis` (all axes when None), in the input's dtype."""
    return _reduce(_MEAN, x, axis, keepdims, name)


def reduce_max(
    x: TensorLike, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """The maximum over `axis` (all axes when None)."""
    return _reduce(_MAX, x, axis, keepdims, name)


def reduce_min(
    x: TensorLike, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """The minimum over `axis` (all axes when None)."""
    return _reduce(_MIN, x, axis, keepdims, name)


def reduce_all(
    x: TensorLike, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """Logical and over `axis` of a bool tensor."""
    return _reduce(_ALL, x, axis, keepdims, name)


def reduce_any(
    x: TensorLike, axis: Any = None, keepdims: bool = False, name: str | None = None
) -> Tensor:
    """Logical or over `axis` of a bool tensor."""
    return _reduce(_ANY, x, axis, keepdims, name)


def _arg_rule(name: str) -> rules.Rule:
    def rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
        x = inputs[0]
        out = attrs["output_type"]
        if x.shape is None:
            return [(out, None)]
        rules.require_rank(x, 1, name)
        axis = normalize_axis(attrs["axis"], len(x.shape), name)
        return [(out, tuple(d for i, d in enumerate(x.shape) if i != axis))]

    return rule


def _argmax(x: Any, axis: int, output_type: dtypes.DType) -> Any:
    return np.argmax(x, axis=axis).astype(output_type.np_dtype)


def _argmin(x: Any, axis: int, output_type: dtypes.DType) -> Any:
    return np.argmin(x, axis=axis).astype(output_type.np_dtype)


_ARGMAX = register(
    OpDef("ArgMax", _arg_rule("ArgMax"), _argmax, unify=1, allowed=dtypes.NUMERIC)
)
_ARGMIN = register(
    OpDef("ArgMin", _arg_rule("ArgMin"), _argmin, unify=1, allowed=dtypes.NUMERIC)
)


def argmax(
    x: TensorLike,
    axis: int = 0,
    output_type: dtypes.DType = dtypes.int64,
    name: str | None = None,
) -> Tensor:
    """The index of the largest value along `axis` (first one on ties)."""
    attrs = {"axis": int(axis), "output_type": dtypes.as_dtype(output_type)}
    return apply(_ARGMAX, (x,), attrs, name)


def argmin(
    x: TensorLike,
    axis: int = 0,
    output_type: dtypes.DType = dtypes.int64,
    name: str | None = None,
) -> Tensor:
    """The index of the smallest value along `axis` (first one on ties)."""
    attrs = {"axis": int(axis), "output_type": dtypes.as_dtype(output_type)}
    return apply(_ARGMIN, (x,), attrs, name)


# -- gradients (declared in the op table, `runtime.gradients` runs them) ---------


def _reduction_gradient(name: str, mode: str) -> None:
    def grad(op: Any, grads: Sequence[Any]) -> list[Any]:

        x = op.inputs[0]
        return [reduce_grad(grads[0], x, op.outputs[0], op.attrs, mode)]

    gradient(name)(grad)


for _name, _mode in (
    ("Sum", "sum"),
    ("Mean", "mean"),
    ("Max", "max"),
    ("Min", "min"),
    ("Prod", "prod"),
):
    _reduction_gradient(_name, _mode)
