"""Shape ops: reshape, transpose, concat, stack, gather, where, pad, cast, ...

    >>> import runtime as rt
    >>> rt.reshape(rt.range(6), [2, -1]).numpy()
    array([[0, 1, 2],
           [3, 4, 5]], dtype=int32)
    >>> rt.gather([10, 20, 30], [2, 0]).numpy()
    array([30, 10], dtype=int32)

Shape-like arguments (`reshape`'s shape) are int32 tensor inputs, so they
may depend on graph values; their static value is used for shape inference
when it is known. The creation ops live in `runtime.ops.creation`.
"""

from __future__ import annotations

import math as _math
from collections.abc import Sequence
from typing import Any

import numpy as np

from runtime import dtypes
from runtime.errors import InvalidArgumentError
from runtime.op_registry import OpDef, apply, convert_to_tensor, gradient, register
from runtime.ops import rules
from runtime.ops.grad_ops import (
    concat_grad,
    gather_grad,
    needs_gradient,
    pad_grad,
    unbroadcast,
    unpack_grad,
)
from runtime.shapes import Shape, broadcast_all, format_shape, normalize_axis
from runtime.shapes import num_elements as _num_elements
from runtime.tensor import (
    Tensor,
    TensorLike,
)

_NO_ATTRS: dict[str, Any] = {}
_INT = dtypes.INTEGER


def _identity(x: Any) -> Any:
    return x


def _fixed_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
    return [(attrs["dtype"], attrs["shape"])]


def _const_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
    return [(attrs["dtype"], tuple(np.shape(attrs["value"])))]


# The executor handles these itself (kernel None).
register(OpDef("Placeholder", _fixed_rule, None))
register(OpDef("Const", _const_rule, None))
_IDENTITY = register(OpDef("Identity", rules.unary(), _identity))


def identity(x: TensorLike, name: str | None = None) -> Tensor:
    """`x` itself, as a new node while tracing."""
    return apply(_IDENTITY, (x,), _NO_ATTRS, name)


# -- cast, shape, size ----------------------------------------------------------


def _cast_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
    src, dst = inputs[0].dtype, attrs["dtype"]
    if (src is dtypes.string) != (dst is dtypes.string):
        raise TypeError(f"Cast: cannot cast {src} to {dst}")
    return [(dst, inputs[0].shape)]


def _cast_kernel(x: Any, dtype: dtypes.DType) -> Any:
    return x.astype(dtype.np_dtype)


def _cast_check(x: Any, dtype: dtypes.DType) -> None:
    if (x.dtype.kind == "O") != (dtype is dtypes.string):
        raise TypeError(f"Cast: cannot cast {dtypes.from_numpy(x.dtype)} to {dtype}")


_CAST = register(OpDef("Cast", _cast_rule, _cast_kernel, eager_check=_cast_check))


def cast(x: TensorLike, dtype: dtypes.DType | str, name: str | None = None) -> Tensor:
    """`x` converted to `dtype` (floats to ints truncate toward zero)."""
    dtype = dtypes.as_dtype(dtype)
    x = convert_to_tensor(x, dtype_hint=dtype)
    if x.dtype is dtype:
        return x
    return apply(_CAST, (x,), {"dtype": dtype}, name)


_SHAPE = register(
    OpDef(
        "Shape",
        lambda inputs, attrs: [
            (dtypes.int32, None if inputs[0].shape is None else (len(inputs[0].shape),))
        ],
        lambda x: np.array(np.shape(x), dtype=np.int32),
    )
)
_SIZE = register(
    OpDef(
        "Size",
        rules.fixed((dtypes.int32, ())),
        lambda x: np.int32(np.size(x)),
    )
)


def shape(x: TensorLike, name: str | None = None) -> Tensor:
    """The shape of `x` as a 1-D int32 tensor (known at run time)."""
    return apply(_SHAPE, (x,), _NO_ATTRS, name)


def size(x: TensorLike, name: str | None = None) -> Tensor:
    """The number of elements of `x` as an int32 scalar."""
    return apply(_SIZE, (x,), _NO_ATTRS, name)


# -- reshape, transpose, expand_dims, squeeze -------------------------------------


def _reshape_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
    x, target = inputs
    if target.dtype not in _INT:
        raise TypeError(
            f"Reshape: the shape must be int32 or int64, got {target.dtype}"
        )
    dims = rules.static_shape_value(target)
    if dims is None:
        return [(x.dtype, None)]
    value = rules.static_value(target)
    unknown = [i for i, d in enumerate(dims) if d is None]
    total = _num_elements(x.shape)
    known = _math.prod(d for d in dims if d is not None)
    explicit_minus = value is not None and int(np.sum(np.reshape(value, -1) < 0))
    if explicit_minus and explicit_minus > 1:
        raise InvalidArgumentError(
            "only one dimension of the shape may be -1", "Reshape"
        )
    if total is not None and len(unknown) == 1 and explicit_minus:
        if known == 0 or total % known:
            raise InvalidArgumentError(
                f"Input to reshape is a tensor with {total} values, but the requested "
                f"shape {format_shape(dims)} cannot hold them",
                "Reshape",
            )
        dims = tuple(total // known if d is None else d for d in dims)
    if total is not None and not unknown and total != known:
        raise InvalidArgumentError(
            f"Input to reshape is a tensor with {total} values, but the requested "
            f"shape {format_shape(dims)} has {known}",
            "Reshape",
        )
    return [(x.dtype, dims)]


_RESHAPE = register(OpDef("Reshape", _reshape_rule, np.reshape))


def reshape(x: TensorLike, shape: Any, name: str | None = None) -> Tensor:
    """`x` with a new shape of the same size; one dimension may be -1."""
    return apply(_RESHAPE, (x, rules.shape_input(shape)), _NO_ATTRS, name)


def _transpose_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
    x, perm = inputs[0], attrs["perm"]
    if x.shape is None:
        return [(x.dtype, None)]
    rank = len(x.shape)
    if perm is None:
        return [(x.dtype, tuple(reversed(x.shape)))]
    if sorted(p % rank if rank else p for p in perm) != list(range(rank)):
        raise InvalidArgumentError(
            f"perm {list(perm)} is not a permutation of the {rank} dimensions",
            "Transpose",
        )
    return [(x.dtype, tuple(x.shape[p] for p in perm))]


_TRANSPOSE = register(
    OpDef("Transpose", _transpose_rule, lambda x, perm: np.transpose(x, perm))
)


def transpose(
    x: TensorLike, perm: Sequence[int] | None = None, name: str | None = None
) -> Tensor:
    """`x` with its dimensions permuted (reversed when `perm` is None)."""
    perm = None if perm is None else tuple(int(p) for p in perm)
    return apply(_TRANSPOSE, (x,), {"perm": perm}, name)


def _expand_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
    x = inputs[0]
    if x.shape is None:
        return [(x.dtype, None)]
    axis = normalize_axis(attrs["axis"], len(x.shape) + 1, "ExpandDims")
    return [(x.dtype, (*x.shape[:axis], 1, *x.shape[axis:]))]


_EXPAND = register(
    OpDef("ExpandDims", _expand_rule, lambda x, axis: np.expand_dims(x, axis))
)


def expand_dims(x: TensorLike, axis: int, name: str | None = None) -> Tensor:
    """`x` with a new dimension of size 1 at `axis`."""
    return apply(_EXPAND, (x,), {"axis": int(axis)}, name)


def _squeeze_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
    x, axis = inputs[0], attrs["axis"]
    if x.shape is None:
        return [(x.dtype, None)]
    if axis is None:
        if None in x.shape:
            return [(x.dtype, None)]
        return [(x.dtype, tuple(d for d in x.shape if d != 1))]
    axes = rules.normalize_axes(axis, len(x.shape), "Squeeze")
    for a in axes:
        if x.shape[a] not in (1, None):
            raise InvalidArgumentError(
                f"cannot squeeze dimension {a} of size {x.shape[a]}", "Squeeze"
            )
    return [(x.dtype, tuple(d for i, d in enumerate(x.shape) if i not in axes))]


_SQUEEZE = register(
    OpDef("Squeeze", _squeeze_rule, lambda x, axis: np.squeeze(x, axis))
)


def squeeze(x: TensorLike, axis: Any = None, name: str | None = None) -> Tensor:
    """`x` without its size-1 dimensions (or only those in `axis`)."""
    if axis is not None:
        axis = (int(axis),) if isinstance(axis, (int, np.integer)) else tuple(axis)
    return apply(_SQUEEZE, (x,), {"axis": axis}, name)


# -- concat, stack ---------------------------------------------------------------


def _concat_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
    shapes = [t.shape for t in inputs if t.shape is not None]
    if not shapes:
        return [(inputs[0].dtype, None)]
    rank = len(shapes[0])
    if rank == 0:
        raise InvalidArgumentError(
            "cannot concatenate scalars; use rt.stack", "ConcatV2"
        )
    axis = normalize_axis(attrs["axis"], rank, "ConcatV2")
    out: list[int | None] = list(shapes[0])
    out[axis] = 0
    for i, t in enumerate(inputs):
        s = t.shape
        if s is None:
            out[axis] = None
            continue
        if len(s) != rank:
            raise InvalidArgumentError(
                f"all inputs must have the same rank: shape[0] = "
                f"{format_shape(shapes[0])} vs. shape[{i}] = {format_shape(s)}",
                "ConcatV2",
            )
        for d in range(rank):
            if d == axis:
                out[d] = None if out[d] is None or s[d] is None else out[d] + s[d]
            elif out[d] is None:
                out[d] = s[d]
            elif s[d] is not None and s[d] != out[d]:
                raise InvalidArgumentError(
                    f"Dimension {d} in both shapes must be equal: shape[0] = "
                    f"{format_shape(shapes[0])} vs. shape[{i}] = {format_shape(s)}",
                    "ConcatV2",
                )
    return [(inputs[0].dtype, tuple(out))]


_CONCAT = register(
    OpDef(
        "ConcatV2",
        _concat_rule,
        lambda *values, axis: np.concatenate(values, axis=axis),
        unify=-1,
        default_name="concat",
    )
)


def concat(values: Sequence[TensorLike], axis: int, name: str | None = None) -> Tensor:
    """`values` joined along an existing dimension `axis`."""
    return apply(_CONCAT, list(values), {"axis": int(axis)}, name)


def _pack_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
    merged: Shape = None
    for i, t in enumerate(inputs):
        s = t.shape
        if s is None:
            continue
        if merged is None:
            merged = s
            continue
        if len(s) != len(merged) or any(
            a is not None and b is not None and a != b for a, b in zip(merged, s)
        ):
            raise InvalidArgumentError(
                f"Shapes of all inputs must match: values[0].shape = "
                f"{format_shape(inputs[0].shape)} != values[{i}].shape = "
                f"{format_shape(s)}",
                "Pack",
            )
        merged = tuple(b if a is None else a for a, b in zip(merged, s))
    if merged is None:
        return [(inputs[0].dtype, None)]
    axis = normalize_axis(attrs["axis"], len(merged) + 1, "Pack")
    return [(inputs[0].dtype, (*merged[:axis], len(inputs), *merged[axis:]))]


_PACK = register(
    OpDef(
        "Pack",
        _pack_rule,
        lambda *values, axis: np.stack(values, axis=axis),
        unify=-1,
        default_name="stack",
    )
)


def stack(values: Any, axis: int = 0, name: str | None = None) -> Tensor:
    """`values` joined along a new dimension `axis`; also stacks a TensorArray."""
    if hasattr(values, "_rt_stack"):
        return values._rt_stack(name)
    if not len(values):
        raise ValueError("rt.stack needs at least one value")
    return apply(_PACK, list(values), {"axis": int(axis)}, name)


# -- gather, where, pad -----------------------------------------------------------


def _gather_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
    params, indices = inputs
    if indices.dtype not in _INT:
        raise TypeError(
            f"GatherV2: indices must be int32 or int64, got {indices.dtype}"
        )
    if params.shape is None or indices.shape is None:
        return [(params.dtype, None)]
    rules.require_rank(params, 1, "GatherV2", "params")
    axis = normalize_axis(attrs["axis"], len(params.shape), "GatherV2")
    # Index ranges are checked by the kernel, when the op runs: an unused
    # out-of-range gather in a graph must not fail (non-strict execution).
    out = (*params.shape[:axis], *indices.shape, *params.shape[axis + 1 :])
    return [(params.dtype, out)]


def _check_indices(indices: Any, size_: int) -> None:
    if np.size(indices):
        low, high = np.min(indices), np.max(indices)
        if low < 0 or high >= size_:
            bad = low if low < 0 else high
            raise InvalidArgumentError(
                f"indices contain {bad}, which is not in [0, {size_})"
            )


def _gather_kernel(params: Any, indices: Any, axis: int) -> Any:
    if not np.ndim(params):
        raise InvalidArgumentError("params must be at least 1-D")
    _check_indices(indices, params.shape[axis])
    return np.take(params, indices, axis=axis)


_GATHER = register(
    OpDef("GatherV2", _gather_rule, _gather_kernel, default_name="gather")
)


def gather(
    params: TensorLike, indices: TensorLike, axis: int = 0, name: str | None = None
) -> Tensor:
    """Slices of `params` along `axis` at `indices` (each in [0, size))."""
    indices = convert_to_tensor(indices, dtype_hint=dtypes.int32)
    return apply(_GATHER, (params, indices), {"axis": int(axis)}, name)


def _select_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
    cond, x, y = inputs
    if cond.dtype is not dtypes.bool_:
        raise TypeError(f"SelectV2: the condition must be bool, got {cond.dtype}")
    return [(x.dtype, broadcast_all([cond.shape, x.shape, y.shape], "SelectV2"))]


_SELECT = register(
    OpDef("SelectV2", _select_rule, np.where, unify=(1, 2), default_name="where")
)


def _where_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
    cond = inputs[0]
    if cond.dtype is not dtypes.bool_:
        raise TypeError(f"Where: the condition must be bool, got {cond.dtype}")
    rank = None if cond.shape is None else len(cond.shape)
    return [(dtypes.int64, (None, rank))]


_WHERE = register(
    OpDef("Where", _where_rule, lambda c: np.argwhere(c).astype(np.int64))
)


def where(
    condition: TensorLike,
    x: TensorLike | None = None,
    y: TensorLike | None = None,
    name: str | None = None,
) -> Tensor:
    """`x` where `condition` else `y` (broadcasting); with neither, the int64
    coordinates of the true elements, shape (num_true, rank)."""
    condition = convert_to_tensor(condition, dtype_hint=dtypes.bool_)
    if x is None and y is None:
        return apply(_WHERE, (condition,), _NO_ATTRS, name)
    if x is None or y is None:
        raise ValueError("rt.where needs both x and y, or neither")
    return apply(_SELECT, (condition, x, y), _NO_ATTRS, name)


def _pad_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
    x, paddings = inputs[0], attrs["paddings"]
    if x.shape is None:
        return [(x.dtype, None)]
    if len(paddings) != len(x.shape):
        raise InvalidArgumentError(
            f"paddings must have one (before, after) pair per dimension: got "
            f"{len(paddings)} for shape {format_shape(x.shape)}",
            "PadV2",
        )
    if any(a < 0 or b < 0 for a, b in paddings):
        raise InvalidArgumentError("paddings must be non-negative", "PadV2")
    dims = tuple(
        None if d is None else d + a + b for d, (a, b) in zip(x.shape, paddings)
    )
    return [(x.dtype, dims)]


_PAD = register(
    OpDef(
        "PadV2",
        _pad_rule,
        lambda x, c, paddings: np.pad(x, paddings, constant_values=c),
        unify=2,
        default_name="pad",
    )
)


def pad(
    tensor: TensorLike,
    paddings: Any,
    mode: str = "CONSTANT",
    constant_values: Any = 0,
    name: str | None = None,
) -> Tensor:
    """`tensor` padded with `constant_values`; `paddings[i]` = (before, after)."""
    if mode.upper() != "CONSTANT":
        raise ValueError(f"rt.pad supports mode='CONSTANT' only, got {mode!r}")
    value = rules.static_value(convert_to_tensor(paddings, dtype_hint=dtypes.int32))
    if value is None:
        raise TypeError("rt.pad needs paddings known while tracing")
    pairs = tuple((int(a), int(b)) for a, b in np.reshape(value, (-1, 2)))
    return apply(_PAD, (tensor, constant_values), {"paddings": pairs}, name)


__all__ = [
    "cast",
    "concat",
    "expand_dims",
    "gather",
    "identity",
    "pad",
    "reshape",
    "shape",
    "size",
    "squeeze",
    "stack",
    "transpose",
    "where",
]

# -- gradients (declared in the op table, `runtime.gradients` runs them) ---------


@gradient("Identity")
def _identity_grad(op: Any, grads: Sequence[Any]) -> list[Any]:
    return [grads[0]]


@gradient("Cast")
def _cast_grad(op: Any, grads: Sequence[Any]) -> list[Any]:
    (x,) = op.inputs
    return [cast(grads[0], x.dtype) if needs_gradient(x) else None]


def _reshaped_like(op: Any, grads: Sequence[Any]) -> list[Any]:
    x = op.inputs[0]
    return [reshape(grads[0], shape(x)), *([None] * (len(op.inputs) - 1))]


for _name in ("Reshape", "ExpandDims", "Squeeze"):
    gradient(_name)(_reshaped_like)


@gradient("Transpose")
def _transpose_grad(op: Any, grads: Sequence[Any]) -> list[Any]:
    perm = op.attrs["perm"]
    inverse = None if perm is None else [int(i) for i in np.argsort(perm)]
    return [transpose(grads[0], inverse)]


@gradient("ConcatV2")
def _concat_grad(op: Any, grads: Sequence[Any]) -> list[Any]:

    values = op.inputs
    axis = op.attrs["axis"]
    if axis < 0:
        rank = op.outputs[0].ndim
        if rank is None:
            raise ValueError("the gradient of concat needs a known rank")
        axis += rank
    pieces = concat_grad(grads[0], values, axis)
    pieces = pieces if isinstance(pieces, tuple) else (pieces,)
    return [p if needs_gradient(v) else None for p, v in zip(pieces, values)]


@gradient("Pack")
def _pack_grad(op: Any, grads: Sequence[Any]) -> list[Any]:

    axis = op.attrs["axis"]
    if axis < 0:
        axis += op.outputs[0].ndim
    pieces = unpack_grad(grads[0], op.inputs, axis)
    pieces = pieces if isinstance(pieces, tuple) else (pieces,)
    return [p if needs_gradient(v) else None for p, v in zip(pieces, op.inputs)]


@gradient("GatherV2")
def _gather_grad(op: Any, grads: Sequence[Any]) -> list[Any]:

    params, indices = op.inputs
    return [gather_grad(grads[0], params, indices, op.attrs["axis"]), None]


@gradient("SelectV2")
def _select_grad(op: Any, grads: Sequence[Any]) -> list[Any]:

    (g,) = grads
    condition, x, y = op.inputs
    return [
        None,
        unbroadcast(where(condition, g, 0), x) if needs_gradient(x) else None,
        unbroadcast(where(condition, 0, g), y) if needs_gradient(y) else None,
    ]


@gradient("PadV2")
def _pad_grad(op: Any, grads: Sequence[Any]) -> list[Any]:

    return [pad_grad(grads[0], op.attrs["paddings"]), None]
