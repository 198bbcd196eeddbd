"""Indexing and slicing: `x[1:, ..., rt.newaxis, i]`.

    >>> import runtime as rt
    >>> x = rt.reshape(rt.range(6), [2, 3])
    >>> x[-1, ::2].numpy()
    array([3, 5], dtype=int32)
    >>> x[:, rt.newaxis, 0].shape
    (2, 1)

One op, `StridedSlice`: input 0 is the tensor, the others are the scalar
integer tensors used in the key. The `spec` attr describes the key, item by
item: `("index", i)`, `("slice", start, stop, step)`, `("newaxis",)`,
`("ellipsis",)`, where a bound is an int, None, or `"$k"` for input k.
As in TensorFlow, only ints, slices, `...`, `rt.newaxis` and scalar integer
tensors are valid in a key (no lists or boolean masks).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from runtime import dtypes
from runtime.errors import InvalidArgumentError
from runtime.op_registry import OpDef, apply, convert_to_tensor, gradient, register
from runtime.ops import rules
from runtime.shapes import format_shape
from runtime.tensor import (
    EagerTensor,
    Tensor,
    TensorLike,
    stands_for_tensor,
)

__all__ = ["getitem", "newaxis"]

newaxis = None


def _ref_value(ref: Any, inputs: Sequence[Any]) -> tuple[bool, Any]:
    """(is static, value) of a spec bound given the op's inputs."""
    if isinstance(ref, str):
        value = rules.static_value(inputs[int(ref[1:])])
        return (value is not None, None if value is None else int(value))
    return True, ref


def _expand(spec: Sequence[tuple[Any, ...]], rank: int) -> list[tuple[Any, ...]]:
    consuming = sum(1 for item in spec if item[0] in ("index", "slice"))
    if consuming > rank:
        raise InvalidArgumentError(
            f"too many indices: {consuming} for a tensor of rank {rank}", "StridedSlice"
        )
    full = ("slice", None, None, None)
    out: list[tuple[Any, ...]] = []
    seen_ellipsis = False
    for item in spec:
        if item[0] == "ellipsis":
            out.extend([full] * (rank - consuming))
            seen_ellipsis = True
        else:
            out.append(item)
    if not seen_ellipsis:
        out.extend([full] * (rank - consuming))
    return out


def _slice_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
    x = inputs[0]
    for t in inputs[1:]:
        if t.dtype not in dtypes.INTEGER or (t.shape is not None and t.shape != ()):
            raise TypeError(
                "only scalar int32/int64 tensors can be used in an index, got a "
                f"{t.dtype} tensor of shape {format_shape(t.shape)}"
            )
    if x.shape is None:
        return [(x.dtype, None)]
    out: list[int | None] = []
    dim = 0
    for item in _expand(attrs["spec"], len(x.shape)):
        kind = item[0]
        if kind == "newaxis":
            out.append(1)
            continue
        size = x.shape[dim]
        dim += 1
        if kind == "index":
            static, value = _ref_value(item[1], inputs)
            if static and size is not None and not -size <= value < size:
                raise InvalidArgumentError(
                    f"index {value} is out of bounds for a dimension of size {size}",
                    "StridedSlice",
                )
            continue
        bounds = [_ref_value(b, inputs) for b in item[1:]]
        if bounds[2] == (True, 0):
            raise InvalidArgumentError("slice step cannot be zero", "StridedSlice")
        if size is None or not all(static for static, _ in bounds):
            out.append(None)
        else:
            start, stop, step = (value for _, value in bounds)
            out.append(len(range(*slice(start, stop, step).indices(size))))
    return [(x.dtype, tuple(out))]


def build_key(spec: Sequence[tuple[Any, ...]], parts: Sequence[Any]) -> tuple[Any, ...]:
    def value(ref: Any) -> Any:
        return parts[int(ref[1:]) - 1] if isinstance(ref, str) else ref

    key: list[Any] = []
    for item in spec:
        kind = item[0]
        if kind == "index":
            key.append(value(item[1]))
        elif kind == "slice":
            key.append(slice(value(item[1]), value(item[2]), value(item[3])))
        elif kind == "newaxis":
            key.append(None)
        else:
            key.append(Ellipsis)
    return tuple(key)


def _slice_kernel(x: Any, *parts: Any, spec: Sequence[tuple[Any, ...]]) -> Any:
    return x[build_key(spec, parts)]


def _bind(attrs: dict[str, Any]) -> Any:
    spec = attrs["spec"]
    if not any(isinstance(b, str) for item in spec for b in item[1:]):
        key = build_key(spec, ())
        return lambda x: x[key]
    return lambda x, *parts: x[build_key(spec, parts)]


_STRIDED_SLICE = register(OpDef("StridedSlice", _slice_rule, _slice_kernel, bind=_bind))


def getitem(x: TensorLike, key: Any) -> Tensor:
    """`x[key]`: what `Tensor.__getitem__` calls."""
    if not isinstance(key, tuple):
        key = (key,)
    parts: list[Any] = [x]
    spec: list[tuple[Any, ...]] = []

    def bound(b: Any) -> Any:
        if b is None:
            return None
        if isinstance(b, (bool, np.bool_)):
            raise TypeError(f"booleans are not valid indices, got {b!r}")
        if isinstance(b, (int, np.integer)):
            return int(b)
        if stands_for_tensor(b):
            t = convert_to_tensor(b)
            if isinstance(t, EagerTensor):
                return t.__index__()
            parts.append(t)
            return f"${len(parts) - 1}"
        raise TypeError(
            "only integers, slices, `...`, rt.newaxis and scalar integer tensors "
            f"are valid indices, got {b!r}"
        )

    ellipses = 0
    for k in key:
        if k is None:
            spec.append(("newaxis",))
        elif k is Ellipsis:
            ellipses += 1
            spec.append(("ellipsis",))
        elif isinstance(k, slice):
            spec.append(("slice", bound(k.start), bound(k.stop), bound(k.step)))
        else:
            spec.append(("index", bound(k)))
    if ellipses > 1:
        raise InvalidArgumentError("an index can only have one `...`", "StridedSlice")
    return apply(_STRIDED_SLICE, parts, {"spec": tuple(spec)}, "strided_slice")


def _slice_grad_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
    return [(inputs[0].dtype, inputs[1].shape)]


def _slice_grad_kernel(g: Any, x: Any, *parts: Any, spec: Any) -> Any:
    out = np.zeros(np.shape(x), dtype=np.asarray(g).dtype)
    np.add.at(out, build_key(spec, parts), g)
    return out


# A gradient kernel (see `runtime.ops.grad_ops`), here beside the key it reads.
_SLICE_GRAD = register(OpDef("StridedSliceGrad", _slice_grad_rule, _slice_grad_kernel))


def slice_grad(g: Any, x: Any, parts: Sequence[Any], spec: Any) -> Any:
    """`g` written into zeros shaped like `x` where the slice `spec` took it."""
    return apply(_SLICE_GRAD, (g, x, *parts), {"spec": spec})


@gradient("StridedSlice")
def _strided_slice_grad(op: Any, grads: Sequence[Any]) -> list[Any]:

    x, *parts = op.inputs
    g = slice_grad(grads[0], x, parts, op.attrs["spec"])
    return [g, *([None] * len(parts))]
