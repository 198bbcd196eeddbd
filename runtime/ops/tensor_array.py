"""TensorArray: a list of same-shaped tensors that graph loops can grow.

    >>> import runtime as rt
    >>> ta = rt.TensorArray(rt.int32, size=0, dynamic_size=True)
    >>> for i in range(3):
    ...     ta = ta.write(i, i * i)
    >>> ta.stack().numpy()
    array([0, 1, 4], dtype=int32)

It is functional: `write` returns a new TensorArray (the old one is
unchanged), so it can be a `while_loop` loop variable. The state lives in one
scalar tensor of the internal dtype `variant` (the *handle*); as a loop
variable the TensorArray is flattened to that handle (see `runtime.nest`).
Appending at the end is O(1): a handle value shares its item list with the
next one while no other handle has written past it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from runtime import dtypes
from runtime.errors import InvalidArgumentError
from runtime.op_registry import OpDef, apply, convert_to_tensor, gradient, register
from runtime.ops import array, rules
from runtime.shapes import Shape, as_shape, format_shape, is_compatible
from runtime.source_locations import user_location
from runtime.tensor import Tensor, TensorLike

__all__ = ["TensorArray"]


class ListValue:
    """The run-time value of a TensorArray handle.

    Only `items[:length]` belong to this value; `items` may be shared with
    values that have appended past `length`.
    """

    __slots__ = ("dynamic", "element_shape", "items", "length")
    dtype = dtypes.variant
    shape = ()
    ndim = 0

    def __init__(
        self, items: list[Any], length: int, dynamic: bool, element_shape: Shape
    ) -> None:
        self.items = items
        self.length = length
        self.dynamic = dynamic
        self.element_shape = element_shape

    def __repr__(self) -> str:
        return f"<TensorArray value: {self.length} elements>"


def _variant(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
    return [(dtypes.variant, ())]


def _check_index(t: Any, op: str) -> None:
    if t.dtype not in dtypes.INTEGER or (t.shape is not None and t.shape != ()):
        raise TypeError(
            f"{op}: the index must be an int scalar, got a {t.dtype} "
            f"tensor of shape {format_shape(t.shape)}"
        )


def _new_kernel(
    size: Any, dtype: dtypes.DType, dynamic_size: bool, element_shape: Shape
) -> Any:
    n = int(size)
    if n < 0:
        raise InvalidArgumentError(f"TensorArray size must be >= 0, got {n}")
    return ListValue([None] * n, n, dynamic_size, element_shape)


def _write_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
    _check_index(inputs[1], "TensorArrayWriteV3")
    if inputs[2].dtype is not attrs["dtype"]:
        raise TypeError(
            f"cannot write a {inputs[2].dtype} value to a TensorArray of "
            f"{attrs['dtype']}; use rt.cast"
        )
    return _variant(inputs, attrs)


def _write_kernel(
    handle: ListValue, index: Any, value: Any, dtype: dtypes.DType
) -> Any:
    i, n, items = int(index), handle.length, handle.items
    if i < 0 or (i >= n and not handle.dynamic):
        raise InvalidArgumentError(
            f"Tried to write to index {i} but array is not resizeable and size is: {n}"
            if i >= 0
            else f"Tried to write to negative index {i}"
        )
    shape = handle.element_shape
    value_shape = np.shape(value)
    if shape is not None and not is_compatible(shape, value_shape):
        raise InvalidArgumentError(
            f"Could not write to TensorArray index {i} because the value shape is "
            f"{format_shape(value_shape)}, which is incompatible with the "
            f"TensorArray's element shape {format_shape(shape)}"
        )
    if shape is None or None in shape:
        shape = value_shape
    if i == n and len(items) == n:
        items.append(value)
        return ListValue(items, n + 1, handle.dynamic, shape)
    new = items[:n]
    if i >= n:
        new.extend([None] * (i + 1 - n))
    new[i] = value
    return ListValue(new, len(new), handle.dynamic, shape)


def _read_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
    _check_index(inputs[1], "TensorArrayReadV3")
    return [(attrs["dtype"], attrs["element_shape"])]


def _read_kernel(
    handle: ListValue, index: Any, dtype: dtypes.DType, element_shape: Shape
) -> Any:
    i, n = int(index), handle.length
    if not 0 <= i < n:
        raise InvalidArgumentError(
            f"Tried to read from index {i} but array size is: {n}"
        )
    value = handle.items[i]
    if value is None:
        shape = handle.element_shape or element_shape
        if shape is None or None in shape:
            raise InvalidArgumentError(
                f"Could not read from TensorArray index {i} because it has not yet "
                "been written to"
            )
        return np.zeros(shape, dtype.np_dtype)
    return value


def _stack_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
    element = attrs["element_shape"]
    shape = None if element is None else (attrs["num_elements"], *element)
    return [(attrs["dtype"], shape)]


def _stack_kernel(
    handle: ListValue,
    dtype: dtypes.DType,
    element_shape: Shape,
    num_elements: int | None,
) -> Any:
    items = handle.items[: handle.length]
    shape = handle.element_shape or element_shape
    if any(v is None for v in items):
        if shape is None or None in shape:
            raise InvalidArgumentError(
                "cannot stack a TensorArray with unwritten elements of unknown shape"
            )
        zero = np.zeros(shape, dtype.np_dtype)
        items = [zero if v is None else v for v in items]
    if not items:
        return np.zeros((0, *(d or 0 for d in (shape or ()))), dtype.np_dtype)
    return np.stack(items)


def _unstack_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
    if inputs[1].dtype is not attrs["dtype"]:
        raise TypeError(
            f"cannot unstack a {inputs[1].dtype} tensor into a TensorArray of "
            f"{attrs['dtype']}"
        )
    rules.require_rank(inputs[1], 1, "TensorArrayScatterV3", "value")
    return _variant(inputs, attrs)


def _unstack_kernel(handle: ListValue, value: Any, dtype: dtypes.DType) -> Any:
    items = list(value)
    return ListValue(items, len(items), handle.dynamic, np.shape(value)[1:])


_NEW = register(
    OpDef("TensorArrayV3", _variant, _new_kernel, default_name="tensor_array")
)
_WRITE = register(
    OpDef(
        "TensorArrayWriteV3",
        _write_rule,
        _write_kernel,
        default_name="tensor_array_write",
    )
)
_READ = register(
    OpDef(
        "TensorArrayReadV3", _read_rule, _read_kernel, default_name="tensor_array_read"
    )
)
_STACK = register(
    OpDef(
        "TensorArrayGatherV3",
        _stack_rule,
        _stack_kernel,
        default_name="tensor_array_stack",
    )
)
_SIZE = register(
    OpDef(
        "TensorArraySizeV3",
        rules.fixed((dtypes.int32, ())),
        lambda handle: np.int32(handle.length),
        default_name="tensor_array_size",
    )
)
_UNSTACK = register(
    OpDef(
        "TensorArrayScatterV3",
        _unstack_rule,
        _unstack_kernel,
        default_name="tensor_array_unstack",
    )
)


class TensorArray:
    """A functional list of tensors of one dtype (and one element shape).

    Args:
        dtype: The dtype of every element.
        size: The initial number of elements (may be a tensor).
        dynamic_size: Whether writes past the end grow it.
        element_shape: The elements' static shape, if known; otherwise it is
            inferred from the first write.
    """

    def __init__(
        self,
        dtype: dtypes.DType | str,
        size: TensorLike = 0,
        dynamic_size: bool = False,
        element_shape: Any = None,
        *,
        clear_after_read: bool | None = None,
        infer_shape: bool = True,
        name: str | None = None,
        _handle: Tensor | None = None,
    ) -> None:
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._element_shape = as_shape(element_shape)
        self._num_elements: int | None = None
        if _handle is None:
            size_tensor = convert_to_tensor(size, dtype_hint=dtypes.int32)
            self._num_elements = None if dynamic_size else rules.static_int(size_tensor)
            attrs = {
                "dtype": self._dtype,
                "dynamic_size": self._dynamic_size,
                "element_shape": self._element_shape,
            }
            _handle = apply(_NEW, (size_tensor,), attrs, name)
        self.handle = _handle

    @property
    def dtype(self) -> dtypes.DType:
        """The elements' dtype."""
        return self._dtype

    @property
    def element_shape(self) -> Shape:
        """The elements' static shape (None if not known yet)."""
        return self._element_shape

    @property
    def dynamic_size(self) -> bool:
        """Whether writes past the end grow the array."""
        return self._dynamic_size

    # The name of the Python list a graph loop carries as this array (set by
    # the loop), for messages.
    _list_name: str | None = None

    # Not iterable by Python (`__getitem__` would make `iter` read past the
    # end without end): converted code's `for v in array` is a graph loop.
    __iter__ = None

    def _with(
        self, handle: Tensor, element_shape: Shape, num: int | None
    ) -> TensorArray:
        ta = TensorArray.__new__(TensorArray)
        ta._dtype = self._dtype
        ta._dynamic_size = self._dynamic_size
        ta._element_shape = element_shape
        ta._num_elements = num
        ta._list_name = self._list_name
        ta.handle = handle
        return ta

    def __getitem__(self, index: TensorLike) -> Tensor:
        """`array[i]`: `read(i)`, counted from the end for a negative `i`, as
        for the list a graph loop carries as this array."""
        if isinstance(index, (int, np.integer)) and not isinstance(index, bool):
            return self.read(self.size() + index if index < 0 else index)
        index_tensor = None if isinstance(index, slice) else convert_to_tensor(index)
        if index_tensor is None or not (
            index_tensor.dtype.is_integer and index_tensor.shape == ()
        ):
            raise self._refusal("slicing" if index_tensor is None else "indexing")
        size = self.size()
        return self.read(
            array.where(index_tensor < 0, index_tensor + size, index_tensor)
        )

    def _refusal(self, what: str) -> TypeError:
        """What `array[...]` says for an index it does not take."""
        name = self._list_name
        where = user_location()
        at = "" if where is None else f" at {where}"
        if name is None:
            return TypeError(
                f"{what} a TensorArray{at} is not supported (only an integer "
                "scalar index reads an element); use rt.stack(array) instead"
            )
        return TypeError(
            f"{what} the list {name!r}{at} is not supported: a graph loop appended "
            f"to it, so it is an rt.TensorArray after the loop; "
            f"{'slice' if what == 'slicing' else 'index'} rt.stack({name}) instead"
        )

    def _return_advice(self) -> str:
        """What a message says to write where this array is returned as the
        list it stands for (or given where a list is expected)."""
        name = self._list_name
        named = f", {name!r}," if name else ""
        stacked = f"rt.stack({name})" if name else "rt.stack(the list)"
        return (
            f" (a list appended to in a graph loop{named} is carried as an "
            f"rt.TensorArray: return {stacked} for one tensor, on every path, "
            "or carry a tensor instead of the list)"
        )

    def write(
        self, index: TensorLike, value: TensorLike, name: str | None = None
    ) -> TensorArray:
        """A new TensorArray with `value` at `index`."""
        value = convert_to_tensor(value, dtype_hint=self._dtype)
        if value.dtype is not self._dtype:
            raise TypeError(
                f"cannot write a {value.dtype} value to a TensorArray of "
                f"{self._dtype}; use rt.cast"
            )
        index = convert_to_tensor(index, dtype_hint=dtypes.int32)
        shape = self._element_shape
        if (
            shape is not None
            and value.shape is not None
            and not is_compatible(shape, value.shape)
        ):
            raise ValueError(
                f"cannot write a value of shape {format_shape(value.shape)} to a "
                f"TensorArray of elements of shape {format_shape(shape)}"
            )
        if shape is None:
            shape = value.shape
        elif value.shape is not None:
            shape = tuple(b if a is None else a for a, b in zip(shape, value.shape))
        handle = apply(
            _WRITE, (self.handle, index, value), {"dtype": self._dtype}, name
        )
        return self._with(handle, shape, self._num_elements)

    def read(self, index: TensorLike, name: str | None = None) -> Tensor:
        """The element at `index`."""
        index = convert_to_tensor(index, dtype_hint=dtypes.int32)
        attrs = {"dtype": self._dtype, "element_shape": self._element_shape}
        return apply(_READ, (self.handle, index), attrs, name)

    def stack(self, name: str | None = None) -> Tensor:
        """All elements stacked along a new first dimension."""
        attrs = {
            "dtype": self._dtype,
            "element_shape": self._element_shape,
            "num_elements": self._num_elements,
        }
        return apply(_STACK, (self.handle,), attrs, name)

    _rt_stack = stack

    def size(self, name: str | None = None) -> Tensor:
        """The number of elements, as an int32 scalar."""
        return apply(_SIZE, (self.handle,), {}, name)

    def unstack(self, value: TensorLike, name: str | None = None) -> TensorArray:
        """A new TensorArray holding the rows of `value`."""
        value = convert_to_tensor(value, dtype_hint=self._dtype)
        handle = apply(_UNSTACK, (self.handle, value), {"dtype": self._dtype}, name)
        shape = None if value.shape is None else tuple(value.shape[1:])
        num = None if value.shape is None else value.shape[0]
        return self._with(handle, shape, num)

    # Composite protocol (runtime.nest): flattened to its handle.
    def _rt_components(self) -> list[Tensor]:
        return [self.handle]

    def _rt_from_components(self, components: Sequence[Any]) -> TensorArray:
        return self._with(components[0], self._element_shape, self._num_elements)

    def __repr__(self) -> str:
        return (
            f"<rt.TensorArray dtype={self._dtype} element_shape="
            f"{format_shape(self._element_shape)} handle={self.handle!r}>"
        )


# -- gradients: a handle's gradient is a ListValue of element gradients ----------


@gradient("TensorArrayWriteV3")
def _write_grad(op: Any, grads: Sequence[Any]) -> list[Any]:
    (gh,) = grads
    _, index, value = op.inputs
    g_value = apply("TensorArrayGradRead", (gh, index, value))
    return [apply("TensorArrayGradClear", (gh, index)), None, g_value]


@gradient("TensorArrayReadV3")
def _read_grad(op: Any, grads: Sequence[Any]) -> list[Any]:
    handle, index = op.inputs
    return [apply("TensorArrayGradAt", (grads[0], index, handle)), None]


@gradient("TensorArrayGatherV3")
def _stack_grad(op: Any, grads: Sequence[Any]) -> list[Any]:
    return [apply("TensorArrayGradUnstack", (grads[0],))]


@gradient("TensorArrayScatterV3")
def _unstack_grad(op: Any, grads: Sequence[Any]) -> list[Any]:
    (gh,) = grads
    _, value = op.inputs
    return [None, apply("TensorArrayGradStack", (gh, value))]


@gradient("TensorArrayV3")
def _new_grad(op: Any, grads: Sequence[Any]) -> list[Any]:
    return [None]
