"""Ops that gradients are made of: one NumPy kernel each.

    >>> import runtime as rt
    >>> from runtime.ops import grad_ops
    >>> grad_ops.unbroadcast(rt.ones((2, 3)), rt.zeros((3,))).numpy()
    array([2., 2., 2.], dtype=float32)

The gradient functions declared beside the forward kernels
(`@op_registry.gradient("Add")` in `runtime.ops.math`, ...) build their
results from ordinary ops plus these: summing a broadcast gradient back to
an operand's shape, spreading a reduction's gradient, splitting a concat's,
scattering a gather's, and the gradients of `TensorArray`
handles (a `ListValue` of gradients, None for "zero"). Each takes the
forward operand it needs as an input, so shapes unknown while tracing are
read at run time. They have no gradients themselves (no higher order).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from runtime import dtypes
from runtime.op_registry import OpDef, apply, gradient, register
from runtime.ops import rules
from runtime.ops.tensor_array import ListValue
from runtime.tensor import Tensor

__all__ = [
    "DIFFERENTIABLE",
    "concat_grad",
    "gather_grad",
    "needs_gradient",
    "pad_grad",
    "reduce_grad",
    "stop_gradient",
    "unbroadcast",
    "unpack_grad",
    "wanting_gradients",
]

# The dtypes gradients flow through: floats, and list handles (variant).
DIFFERENTIABLE = dtypes.FLOATING | {dtypes.variant}


class _Walks(threading.local):
    # While `backprop` runs on this thread: the ids of the tensors that depend
    # on a watched source, so gradient functions skip operands no gradient is
    # wanted for (innermost walk last).
    needed: list[set[int]]

    def __init__(self) -> None:
        self.needed = []


_WALKS = _Walks()


def needs_gradient(t: Any) -> bool:
    """Whether a gradient for operand `t` of the op being differentiated can
    reach a source: a floating tensor that depends on a watched one.

    Here, below the op modules, so that their gradient functions can ask it;
    `runtime.gradients.tape.backprop` says what is watched
    (`wanting_gradients`)."""
    if not isinstance(t, Tensor) or t.dtype not in DIFFERENTIABLE:
        return False
    needed = _WALKS.needed
    return not needed or id(t) in needed[-1]


@contextlib.contextmanager
def wanting_gradients(watched: set[int] | None) -> Iterator[None]:
    """While the block runs, `needs_gradient` is true only for the tensors
    whose ids are in `watched` (a tape's: those that depend on a source);
    None leaves it as it is."""
    if watched is None:
        yield
        return
    needed = _WALKS.needed
    needed.append(watched)
    try:
        yield
    finally:
        needed.pop()


def _like(index: int, dtype_from: int = 0) -> Any:
    """Rule: the shape of input `index`, the dtype of input `dtype_from`."""

    def rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
        return [(inputs[dtype_from].dtype, inputs[index].shape)]

    return rule


def _unbroadcast_kernel(g: Any, x: Any) -> Any:
    shape = np.shape(x)
    g = np.asarray(g)
    if g.shape == shape:
        return g
    extra = g.ndim - len(shape)
    axes = tuple(range(extra)) + tuple(
        i + extra for i, d in enumerate(shape) if d == 1 and g.shape[i + extra] != 1
    )
    total = np.sum(g, axis=axes, keepdims=True) if axes else g
    return np.reshape(total, shape)


_UNBROADCAST = register(OpDef("UnbroadcastGrad", _like(1), _unbroadcast_kernel))


def unbroadcast(g: Any, x: Any) -> Any:
    """`g` summed over the dimensions that broadcasting added to `x`."""
    if (
        isinstance(g, Tensor)
        and isinstance(x, Tensor)
        and g.shape is not None
        and g.shape == x.shape
        and None not in g.shape
    ):
        return g
    return apply(_UNBROADCAST, (g, x))


def _reduce_grad_kernel(
    g: Any, x: Any, z: Any, axis: Any, keepdims: bool, mode: str
) -> Any:
    x = np.asarray(x)
    shape = x.shape
    axes = range(x.ndim) if axis is None else {a % x.ndim for a in axis}
    if not keepdims:  # the reduced axes back, as 1s (a reshape: same order)
        kept = [1 if i in axes else d for i, d in enumerate(shape)]
        g = np.reshape(g, kept)
        z = np.reshape(z, kept)
    if mode == "sum":
        return np.broadcast_to(g, shape).astype(x.dtype)
    if mode == "mean":
        count = 1
        for a in axes:
            count *= shape[a]
        return np.broadcast_to(g / max(count, 1), shape).astype(x.dtype)
    axes = tuple(axes)
    if mode == "prod":
        return (g * z / x).astype(x.dtype)
    hits = x == z  # max / min: split among the tied elements
    share = hits / np.sum(hits, axis=axes, keepdims=True)
    return (g * share).astype(x.dtype)


_REDUCE_GRAD = register(OpDef("ReduceGrad", _like(1), _reduce_grad_kernel))


def reduce_grad(g: Any, x: Any, z: Any, attrs: dict[str, Any], mode: str) -> Any:
    """The gradient of a reduction `z` of `x` (attrs `axis`, `keepdims`)."""
    return apply(_REDUCE_GRAD, (g, x, z), {**attrs, "mode": mode})


def _split_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
    return [(inputs[0].dtype, t.shape) for t in inputs[1:]]


def _concat_grad_kernel(g: Any, *values: Any, axis: int) -> Any:
    sizes = np.cumsum([np.shape(v)[axis] for v in values])[:-1]
    return tuple(np.split(g, sizes, axis=axis))


_CONCAT_GRAD = register(
    OpDef("ConcatGrad", _split_rule, _concat_grad_kernel, num_outputs=-1)
)


def concat_grad(g: Any, values: Sequence[Any], axis: int) -> tuple[Any, ...]:
    """`g` split into pieces shaped like `values` along `axis`."""
    return apply(_CONCAT_GRAD, (g, *values), {"axis": axis})


def _unpack_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
    return [(inputs[0].dtype, t.shape) for t in inputs[1:]]


def _unpack_kernel(g: Any, *values: Any, axis: int) -> Any:
    return tuple(np.take(g, i, axis=axis) for i in range(len(values)))


_UNPACK_GRAD = register(
    OpDef("UnpackGrad", _unpack_rule, _unpack_kernel, num_outputs=-1)
)


def unpack_grad(g: Any, values: Sequence[Any], axis: int) -> tuple[Any, ...]:
    """The slices of `g` along `axis`, one per stacked value."""
    return apply(_UNPACK_GRAD, (g, *values), {"axis": axis})


def _gather_grad_kernel(g: Any, params: Any, indices: Any, axis: int) -> Any:
    out = np.zeros(np.shape(params), dtype=np.asarray(g).dtype)
    key = (slice(None),) * axis + (np.asarray(indices),)
    np.add.at(out, key, g)
    return out


_GATHER_GRAD = register(OpDef("GatherGrad", _like(1), _gather_grad_kernel))


def gather_grad(g: Any, params: Any, indices: Any, axis: int) -> Any:
    """`g` added into zeros shaped like `params` at `indices` (repeats add up)."""
    return apply(_GATHER_GRAD, (g, params, indices), {"axis": axis})


def _pad_grad_kernel(g: Any, paddings: Any) -> Any:
    key = tuple(slice(a, np.shape(g)[i] - b) for i, (a, b) in enumerate(paddings))
    return np.asarray(g)[key]


def _pad_grad_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
    g = inputs[0]
    if g.shape is None:
        return [(g.dtype, None)]
    dims = tuple(
        None if d is None else d - a - b
        for d, (a, b) in zip(g.shape, attrs["paddings"])
    )
    return [(g.dtype, dims)]


_PAD_GRAD = register(OpDef("PadGrad", _pad_grad_rule, _pad_grad_kernel))


def pad_grad(g: Any, paddings: Any) -> Any:
    """The part of `g` that is not padding."""
    return apply(_PAD_GRAD, (g,), {"paddings": paddings})


# -- stop_gradient ---------------------------------------------------------------

_STOP = register(OpDef("StopGradient", rules.unary(), lambda x: x))


@gradient("StopGradient")
def _stop_grad(op: Any, grads: Sequence[Any]) -> list[Any]:
    return [None]


def stop_gradient(x: Any, name: str | None = None) -> Any:
    """`x`, through which no gradient flows (`rt.stop_gradient`)."""
    return apply(_STOP, (x,), {}, name)


# -- TensorArray handles: their gradients are ListValues of gradients ------------


def _variant(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
    return [(dtypes.variant, ())]


def _empty() -> ListValue:
    return ListValue([], 0, True, None)


def _ta_grad_add(a: ListValue, b: ListValue) -> ListValue:
    n = max(a.length, b.length)
    items = []
    for i in range(n):
        x = a.items[i] if i < a.length else None
        y = b.items[i] if i < b.length else None
        items.append(x if y is None else y if x is None else x + y)
    return ListValue(items, n, True, None)


def _ta_grad_at(g: Any, index: Any, handle: ListValue) -> ListValue:
    i = int(index)
    items: list[Any] = [None] * max(handle.length, i + 1)
    items[i] = g
    return ListValue(items, len(items), True, None)


def _ta_grad_read(gh: ListValue, index: Any, like: Any) -> Any:
    i = int(index)
    item = gh.items[i] if i < gh.length else None
    return np.zeros_like(like) if item is None else item


def _ta_grad_clear(gh: ListValue, index: Any) -> ListValue:
    i = int(index)
    if i >= gh.length:
        return gh
    items = gh.items[: gh.length]
    items[i] = None
    return ListValue(items, gh.length, True, None)


def _ta_grad_unstack(g: Any) -> ListValue:
    items = list(np.asarray(g))
    return ListValue(items, len(items), True, None)


def _ta_grad_stack(gh: ListValue, value: Any) -> Any:
    value = np.asarray(value)
    out = np.zeros_like(value)
    for i in range(min(gh.length, len(value))):
        if gh.items[i] is not None:
            out[i] = gh.items[i]
    return out


register(OpDef("TensorArrayGradZeros", _variant, _empty))
register(OpDef("TensorArrayGradAdd", _variant, _ta_grad_add))
register(OpDef("TensorArrayGradAt", _variant, _ta_grad_at))
register(OpDef("TensorArrayGradRead", _like(2, 2), _ta_grad_read))
register(OpDef("TensorArrayGradClear", _variant, _ta_grad_clear))
register(OpDef("TensorArrayGradUnstack", _variant, _ta_grad_unstack))
register(OpDef("TensorArrayGradStack", _like(1, 1), _ta_grad_stack))


def zeros_for(t: Any) -> Any:
    """A zero gradient for `t`: zeros of its shape, an empty list for a handle."""
    if t.dtype is dtypes.variant:
        return apply("TensorArrayGradZeros", ())
    # By op name: the op modules (creation, math) are above this one.
    return apply("ZerosLike", (t,), {"dtype": None})


def add_grads(a: Any, b: Any) -> Any:
    """`a + b` for gradients (lists of gradients for TensorArray handles)."""
    if a is None:
        return b
    if b is None:
        return a
    if a.dtype is dtypes.variant:
        return apply("TensorArrayGradAdd", (a, b))
    return apply("Add", (a, b))
