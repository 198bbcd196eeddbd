"""Creating tensors: constant, fill, zeros, ones, zeros_like, ones_like, eye,
range.

    >>> import runtime as rt
    >>> rt.range(1, 10, 3).numpy()
    array([1, 4, 7], dtype=int32)
    >>> rt.fill([2], 0.5).numpy()
    array([0.5, 0.5], dtype=float32)

Shapes given as Python lists become int32 tensor inputs (`Fill`'s dims), so
they may also be graph values; their static value gives the static shape.
"""

from __future__ import annotations

import math as _math
from collections.abc import Sequence
from typing import Any

import numpy as np

from runtime import dtypes
from runtime.context import STATE
from runtime.errors import InvalidArgumentError
from runtime.op_registry import OpDef, apply, convert_to_tensor, gradient, register
from runtime.ops import rules
from runtime.ops.array import cast, reshape
from runtime.shapes import format_shape
from runtime.tensor import (
    EagerTensor,
    Tensor,
    TensorLike,
    as_numpy,
    contains_tensor,
)

__all__ = [
    "constant",
    "eye",
    "fill",
    "ones",
    "ones_like",
    "range",
    "zeros",
    "zeros_like",
]

_NO_ATTRS: dict[str, Any] = {}


def constant(
    value: TensorLike,
    dtype: dtypes.DType | str | None = None,
    shape: Sequence[int] | None = None,
    name: str | None = None,
) -> Tensor:
    """A tensor holding `value` (eager, or a `Const` node while tracing).

    Python floats become float32, ints int32, bools bool, strs string; NumPy
    arrays keep their dtype unless `dtype` is given (then they are cast).
    """
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    if isinstance(value, Tensor) or (
        isinstance(value, (list, tuple)) and contains_tensor(value)
    ):
        tensor = convert_to_tensor(value)
        if dtype is not None and tensor.dtype is not dtype:
            tensor = cast(tensor, dtype)
        return tensor if shape is None else reshape(tensor, shape)
    array = as_numpy(value, dtype, cast=True)
    if shape is not None:
        shape = tuple(shape)
        if array.size == 1:
            array = np.full(shape, array.reshape(()), dtype=array.dtype)
        else:
            array = np.reshape(array, shape)
    graph = STATE.graph
    if graph is None:
        return EagerTensor(array)
    return graph.constant(array, name)


def _fill_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
    dims, value = inputs
    if value.shape is not None and len(value.shape) != 0:
        raise InvalidArgumentError(
            f"value must be a scalar, got shape {format_shape(value.shape)}", "Fill"
        )
    return [(value.dtype, rules.static_shape_value(dims))]


def _fill_kernel(dims: Any, value: Any) -> Any:
    if np.any(np.asarray(dims) < 0):
        raise InvalidArgumentError(f"dims must be non-negative, got {list(dims)}")
    return np.full(dims, value, dtype=value.dtype)


_FILL = register(OpDef("Fill", _fill_rule, _fill_kernel))


def fill(dims: Any, value: TensorLike, name: str | None = None) -> Tensor:
    """A tensor of shape `dims` with every element `value`."""
    return apply(_FILL, (rules.shape_input(dims), value), _NO_ATTRS, name)


def zeros(
    shape: Any, dtype: dtypes.DType | str = dtypes.float32, name: str | None = None
) -> Tensor:
    """A tensor of `shape` filled with 0."""
    dtype = dtypes.as_dtype(dtype)
    zero = (
        dtype.np_dtype.type(0) if dtype is not dtypes.string else np.array("", object)
    )
    return apply(
        _FILL, (rules.shape_input(shape), EagerTensor(zero)), _NO_ATTRS, name or "zeros"
    )


def ones(
    shape: Any, dtype: dtypes.DType | str = dtypes.float32, name: str | None = None
) -> Tensor:
    """A tensor of `shape` filled with 1."""
    dtype = dtypes.as_dtype(dtype)
    one = EagerTensor(dtype.np_dtype.type(1))
    return apply(_FILL, (rules.shape_input(shape), one), _NO_ATTRS, name or "ones")


def _like_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
    return [(attrs["dtype"] or inputs[0].dtype, inputs[0].shape)]


def _like_kernel(fill_value: int) -> Any:
    def kernel(x: Any, dtype: dtypes.DType | None) -> Any:
        np_dtype = x.dtype if dtype is None else dtype.np_dtype
        return np.full(np.shape(x), fill_value, dtype=np_dtype)

    return kernel


_ZEROS_LIKE = register(OpDef("ZerosLike", _like_rule, _like_kernel(0)))
_ONES_LIKE = register(OpDef("OnesLike", _like_rule, _like_kernel(1)))


def zeros_like(
    x: TensorLike, dtype: dtypes.DType | str | None = None, name: str | None = None
) -> Tensor:
    """Zeros with the shape (and, unless given, the dtype) of `x`."""
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    return apply(_ZEROS_LIKE, (x,), {"dtype": dtype}, name)


def ones_like(
    x: TensorLike, dtype: dtypes.DType | str | None = None, name: str | None = None
) -> Tensor:
    """Ones with the shape (and, unless given, the dtype) of `x`."""
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    return apply(_ONES_LIKE, (x,), {"dtype": dtype}, name)


_EYE = register(
    OpDef(
        "Eye",
        lambda inputs, attrs: [
            (attrs["dtype"], (attrs["num_rows"], attrs["num_columns"]))
        ],
        lambda num_rows, num_columns, dtype: np.eye(
            num_rows, num_columns, dtype=dtype.np_dtype
        ),
    )
)


def eye(
    num_rows: int,
    num_columns: int | None = None,
    dtype: dtypes.DType | str = dtypes.float32,
    name: str | None = None,
) -> Tensor:
    """The identity matrix (ones on the diagonal); sizes must be static."""
    rows = int(num_rows)
    cols = rows if num_columns is None else int(num_columns)
    attrs = {"num_rows": rows, "num_columns": cols, "dtype": dtypes.as_dtype(dtype)}
    return apply(_EYE, (), attrs, name)


def _range_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
    for t in inputs:
        if t.shape is not None and len(t.shape) != 0:
            raise InvalidArgumentError(
                f"start, limit and delta must be scalars, got shape "
                f"{format_shape(t.shape)}",
                "Range",
            )
    values = [rules.static_value(t) for t in inputs]
    length = None
    if all(v is not None for v in values):
        start, limit, delta = (v.item() for v in values)  # type: ignore[union-attr]
        if delta == 0:
            raise InvalidArgumentError("Requires delta != 0", "Range")
        length = max(0, _math.ceil((limit - start) / delta))
    return [(inputs[0].dtype, (length,))]


def _range_kernel(start: Any, limit: Any, delta: Any) -> Any:
    if delta == 0:
        raise InvalidArgumentError("Requires delta != 0")
    return np.arange(start, limit, delta, dtype=start.dtype)


_RANGE = register(
    OpDef("Range", _range_rule, _range_kernel, unify=3, allowed=dtypes.NUMERIC)
)


def range(
    start: TensorLike,
    limit: TensorLike | None = None,
    delta: TensorLike = 1,
    dtype: dtypes.DType | str | None = None,
    name: str | None = None,
) -> Tensor:
    """`[start, start + delta, ...]` up to (excluding) `limit`, like Python's.

    With one argument it is the limit (`rt.range(5)` is 0..4).
    """
    if limit is None:
        start, limit = 0, start
    args: list[Any] = [start, limit, delta]
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
        args = [cast(a, dtype) for a in args]
    return apply(_RANGE, args, _NO_ATTRS, name)


def _no_gradient_to_the_template(op: Any, grads: Sequence[Any]) -> list[Any]:
    # zeros_like / ones_like depend on their input's shape only.
    return [None]


for _name in ("ZerosLike", "OnesLike"):
    gradient(_name)(_no_gradient_to_the_template)
