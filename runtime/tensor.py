"""Tensors: eager ones hold a NumPy value, symbolic ones name a graph output.

    >>> import runtime as rt
    >>> rt.constant([1.0, 2.0])
    <rt.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>

Two concrete classes, so that dispatch can be done by type:
`EagerTensor` (a value computed now) and `SymbolicTensor` (output `index` of an
`Operation` in a `Graph`, known only by dtype and static shape). Python
operators (`+`, `@`, `[]`, ...) are installed on `Tensor` by
`runtime.ops.overloads`.

This module is the value layer: it knows no graph and no op. It also holds
the public conversion registry (`register_tensor_conversion`, for objects
that stand for a tensor) and `as_numpy` (Python values as NumPy values);
`convert_to_tensor`, which may add a node or stack a list with the `Pack`
op, is the op registry's (`runtime.op_registry`, exported as
`rt.convert_to_tensor`).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from runtime import dtypes, formatted, misuse
from runtime.shapes import Shape, as_shape, format_shape, is_compatible

if TYPE_CHECKING:
    from runtime.graph import Graph, Operation

__all__ = [
    "CONVERSIONS",
    "EagerTensor",
    "NeedsValueError",
    "Reference",
    "SymbolicTensor",
    "Tensor",
    "TensorLike",
    "as_numpy",
    "contains_tensor",
    "conversion_for",
    "dtype_error",
    "is_symbolic",
    "is_tensor",
    "is_weak",
    "register_tensor_conversion",
    "stands_for_tensor",
]

# Anything an op accepts as an operand: a tensor, a Variable, a Python scalar,
# a nested list, or a NumPy array.
TensorLike = Any

_FROM_NUMPY = dtypes.FROM_NUMPY
_INT32 = np.iinfo(np.int32)


class Tensor:
    """A multi-dimensional array of one dtype: eager or symbolic.

    A tensor is unhashable, as in TensorFlow 2: its `==` is elementwise, so
    a hash by identity would make `t in {2, 5}` or `d[t]` silently miss
    (most of all for a graph tensor, whose value is not known while
    tracing). Hashing one raises TypeError; `t.ref()` is the key to use for
    the tensor itself (equal and hashed by identity; `.deref()` gives the
    tensor back).
    """

    __slots__ = ()
    # NumPy defers binary operators (`ndarray + tensor`) to our reflected ones.
    __array_priority__ = 100

    def __hash__(self) -> int:
        raise TypeError(UNHASHABLE)

    def ref(self) -> Reference:
        """A hashable reference to this tensor (TensorFlow's `ref()`): a set
        member or a dict key that is equal to another reference only if
        both are to the same tensor; `.deref()` returns the tensor."""
        return Reference(self)

    @property
    def dtype(self) -> dtypes.DType:
        """The element type."""
        raise NotImplementedError

    @property
    def shape(self) -> Shape:
        """A tuple of ints and None (unknown size); None for an unknown rank."""
        raise NotImplementedError

    @property
    def ndim(self) -> int | None:
        """The rank, or None when unknown."""
        shape = self.shape
        return None if shape is None else len(shape)

    def get_shape(self) -> Shape:
        """Same as `.shape` (TensorFlow spelling)."""
        return self.shape

    def set_shape(self, shape: Any) -> None:
        """Refines the static shape (TensorFlow's `set_shape`): a symbolic
        tensor's unknown sizes and rank take those of `shape`; an eager
        tensor's shape is only checked.

        Raises:
            ValueError: `shape` is incompatible with the tensor's shape.
        """
        own, new = self.shape, as_shape(shape)
        if not is_compatible(own, new):
            raise ValueError(
                f"shapes {format_shape(own)} and {format_shape(new)} are "
                "incompatible: set_shape can only fill in unknown sizes"
            )
        if type(self) is SymbolicTensor and new is not None:
            pairs = zip(own or new, new)
            self._shape = tuple(a if a is not None else b for a, b in pairs)

    def __copy__(self) -> Tensor:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Tensor:
        # Tensors are immutable values: copies may share them.
        return self


class EagerTensor(Tensor):
    """A tensor whose value is known: a NumPy array or NumPy scalar.

    `numpy_value` is that value (what `numpy()` returns); the runtime's and
    the tracer's hot paths read the attribute rather than call the method.
    """

    __slots__ = ("numpy_value",)

    def __init__(self, value: Any) -> None:
        self.numpy_value = value

    @property
    def dtype(self) -> dtypes.DType:
        return _FROM_NUMPY[self.numpy_value.dtype]

    @property
    def shape(self) -> tuple[int, ...]:
        return self.numpy_value.shape

    @property
    def ndim(self) -> int:
        return self.numpy_value.ndim

    @property
    def name(self) -> str:
        raise AttributeError("Tensor.name is undefined for eager tensors")

    def numpy(self) -> Any:
        """The value as a NumPy array (a NumPy scalar for rank 0)."""
        return self.numpy_value

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        return np.asarray(self.numpy_value, dtype=dtype)

    def __bool__(self) -> bool:
        return bool(self.numpy_value)

    def __index__(self) -> int:
        if self.numpy_value.dtype.kind not in "iu":
            raise TypeError(
                f"only integer scalar tensors can be used as an index, "
                f"got dtype {self.dtype}"
            )
        return int(self.numpy_value)

    def __int__(self) -> int:
        return int(self.numpy_value)

    def __float__(self) -> float:
        return float(self.numpy_value)

    def __len__(self) -> int:
        if not self.numpy_value.ndim:
            raise TypeError("len() of a scalar tensor")
        return len(self.numpy_value)

    def __iter__(self) -> Iterator[EagerTensor]:
        if not self.numpy_value.ndim:
            raise TypeError("iteration over a 0-d tensor")
        return (EagerTensor(v) for v in self.numpy_value)

    def __format__(self, spec: str) -> str:
        if not self.numpy_value.ndim:
            return format(self.numpy_value.item(), spec)
        return format(str(self), spec)

    def __repr__(self) -> str:
        value = self.numpy_value
        if self.dtype is dtypes.variant or value.ndim:
            text = repr(value)
        else:
            scalar = np.asarray(value)[()]  # a NumPy scalar: str() is `6.0`
            text = repr(scalar) if value.dtype.kind == "O" else str(scalar)
        shape = format_shape(self.shape)
        return f"<rt.Tensor: shape={shape}, dtype={self.dtype}, numpy={text}>"

    def __str__(self) -> str:
        return (
            f"rt.Tensor({np.asarray(self.numpy_value)}, "
            f"shape={format_shape(self.shape)}, dtype={self.dtype})"
        )


class SymbolicTensor(Tensor):
    """Output `index` of an `Operation` in a `Graph`: a value known at run time.

    Its `dtype` and static `shape` (None for unknown sizes) are known while the
    graph is built; using it where Python needs a concrete value (`bool()`,
    `iter()`, `len()` of an unknown first dimension) raises TypeError.

    `weak`: an int a graph loop carries for a Python int (a counter `n = 0`),
    or what an op gives of such ints and Python numbers (`n + 1`): an op
    with a float tensor casts it to that float, as Python's arithmetic (and
    JAX's weak types) gives `total / n` (`op_registry._cast_weak_ints`).
    """

    __slots__ = ("_dtype", "_index", "_op", "_shape", "weak")

    def __init__(self, op: Operation, index: int, dtype: dtypes.DType, shape: Shape):
        self._op = op
        self._index = index
        self._dtype = dtype
        self._shape = shape
        self.weak = False

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def shape(self) -> Shape:
        return self._shape

    @property
    def op(self) -> Operation:
        """The operation that produces this tensor."""
        return self._op

    @property
    def graph(self) -> Graph:
        """The graph this tensor belongs to."""
        return self._op.graph

    @property
    def value_index(self) -> int:
        """Which output of `op` this is."""
        return self._index

    @property
    def name(self) -> str:
        """`"op_name:index"`."""
        return f"{self._op.name}:{self._index}"

    def __bool__(self) -> bool:
        raise TypeError(
            misuse.explain(
                "bool",
                f"using the symbolic tensor {self.name!r} as a Python bool is not "
                "allowed: its value is only known when the graph runs. Convert the "
                "function with autograph (autograph.function or autograph.to_graph) "
                "so that `if`/`while` on it become graph ops, or use rt.cond / "
                "rt.while_loop",
            )
        )

    def __index__(self) -> int:
        raise NeedsValueError(
            misuse.used_as_number(
                "int", f"the symbolic tensor {self.name!r}", value=self
            ),
            "int",
        )

    def __float__(self) -> float:
        # `float(t)` in code autograph does not convert, `math.sqrt(t)`,
        # `"%.3f" % t`: Python asks for a number the graph only has later.
        raise NeedsValueError(
            misuse.used_as_number(
                "float", f"the symbolic tensor {self.name!r}", value=self
            ),
            "float",
        )

    def __hash__(self) -> int:
        raise NeedsValueError(UNHASHABLE, "hash")

    def __len__(self) -> int:
        shape = self._shape
        if shape is None or not shape or shape[0] is None:
            raise TypeError(
                f"len() of the symbolic tensor {self.name!r} with shape "
                f"{format_shape(shape)} is not known while tracing; use "
                "rt.shape(x)[0] or rt.size(x)"
            )
        return shape[0]

    def __iter__(self) -> Iterator[Any]:
        raise TypeError(
            misuse.explain(
                "iter",
                f"iterating over the symbolic tensor {self.name!r} is not allowed "
                "in Python; convert the function with autograph so that `for` on "
                "it becomes a graph loop, or use rt.while_loop",
            )
        )

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        # (`np.exp(t)`, a NumPy array indexed with `t`.)
        raise NeedsValueError(
            f"the symbolic tensor {self.name!r} has no NumPy value while tracing",
            "array",
        )

    def __repr__(self) -> str:
        text = (
            f"<rt.Tensor {self.name!r} shape={format_shape(self._shape)} "
            f"dtype={self._dtype}>"
        )
        formatted.note(text, self, "repr")
        return text

    def __format__(self, spec: str) -> str:
        # `str()` and an f-string's `{x}` give the repr, noted so that a
        # message staged to raise when the graph runs shows the value
        # (`runtime.formatted`). A format spec needs a value.
        if spec:
            fix = "rt.print(value), which formats it itself"
            raise formatted.unsupported_spec(spec, "graph", repr(self), fix)
        return str(self)

    __str__ = __repr__


# TensorFlow's words, so that code written for it reads the same.
UNHASHABLE = "Tensor is unhashable. Instead, use tensor.ref() as the key."


class NeedsValueError(TypeError):
    """A symbolic tensor used where Python needs its value: `use` is
    "int" (`__index__`: a list index, `math.factorial(t)`), "array"
    (`__array__`: `np.exp(t)`, a NumPy array indexed with it), "float"
    (`__float__`: `math.sqrt(t)`, `"%f" % t`) or "hash" (a set member, a
    dict key). A mark that the error is about tracing, not about
    the program (`runtime.operators.staging.python_value`)."""

    def __init__(self, message: str, use: str) -> None:
        super().__init__(message)
        self.use = use


class Reference:
    """A tensor as a set member or dict key (`Tensor.ref()`): equal and
    hashed by the tensor's identity."""

    __slots__ = ("_tensor",)

    def __init__(self, tensor: Tensor) -> None:
        self._tensor = tensor

    def deref(self) -> Tensor:
        """The tensor this refers to."""
        return self._tensor

    def __eq__(self, other: object) -> bool:
        return type(other) is Reference and other._tensor is self._tensor

    def __hash__(self) -> int:
        return id(self._tensor)

    def __repr__(self) -> str:
        return f"<Reference wrapping {self._tensor!r}>"


def is_tensor(value: Any) -> bool:
    """True for eager and symbolic tensors."""
    return isinstance(value, Tensor)


def is_symbolic(value: Any) -> bool:
    """True for a graph tensor (a `SymbolicTensor`)."""
    return type(value) is SymbolicTensor


def is_weak(value: Any) -> bool:
    """True for a weak graph tensor (`SymbolicTensor.weak`: one that stands
    for a Python number)."""
    return type(value) is SymbolicTensor and value.weak


# type -> fn(value, dtype) -> Tensor; lets `Variable` (and other objects that
# stand for a tensor) take part in conversion without a circular import. Read
# by the op registry's hot paths (`type(x) in CONVERSIONS`); written only by
# `register_tensor_conversion`.
CONVERSIONS: dict[type, Callable[[Any, dtypes.DType | None], Tensor]] = {}


def register_tensor_conversion(
    cls: type, fn: Callable[[Any, dtypes.DType | None], Tensor]
) -> None:
    """Makes `rt.convert_to_tensor` (and every op's operand conversion)
    turn instances of `cls` into `fn(value, dtype)`."""
    CONVERSIONS[cls] = fn


def stands_for_tensor(value: Any) -> bool:
    """True for a tensor or an object registered to convert to one (a
    `Variable`, a `TensorShape`): what ops take as a tensor operand."""
    return isinstance(value, Tensor) or type(value) in CONVERSIONS


def conversion_for(value: Any) -> Callable[[Any, dtypes.DType | None], Tensor] | None:
    """The registered conversion for `type(value)`, if any."""
    return CONVERSIONS.get(type(value))


def dtype_error(value: Tensor, dtype: dtypes.DType) -> TypeError:
    """The error for a tensor of the wrong dtype (with the cast that fixes it)."""
    return TypeError(
        f"expected a {dtype} tensor but got a {value.dtype} tensor; use "
        f"rt.cast(x, rt.{dtype}) to convert it"
    )


def contains_tensor(value: Any) -> bool:
    """True if the list or tuple `value` holds a tensor at any depth."""
    for v in value:
        if stands_for_tensor(v):
            return True
        if isinstance(v, (list, tuple)) and contains_tensor(v):
            return True
    return False


def as_numpy(
    value: Any,
    dtype: dtypes.DType | None = None,
    dtype_hint: dtypes.DType | None = None,
    *,
    cast: bool = False,
) -> Any:
    """Converts a Python or NumPy value to a NumPy array of a runtime dtype.

    Python values take `dtype`, else `dtype_hint` when they fit it, else the
    default dtypes (float32, int32 or int64 if too large, bool, string). NumPy
    arrays keep their dtype; asking for another raises TypeError unless `cast`.

    Raises:
        TypeError: For values that don't fit `dtype` (1.5 as int32, an int
            out of range) or that have no runtime dtype.
    """
    if isinstance(value, (np.ndarray, np.generic)):
        return _from_numpy(value, dtype, cast)
    if isinstance(value, EagerTensor):
        return _from_numpy(value.numpy_value, dtype, cast)
    target = dtype or dtype_hint
    if isinstance(value, (bool, numbers.Number, str)):
        if target is not None:
            converted = _scalar_as(value, target, strict=dtype is not None)
            if converted is not None:
                return converted
        return _scalar_default(value)
    if isinstance(value, (list, tuple)):
        return _sequence_value(value, dtype, dtype_hint)
    if isinstance(value, dtypes.DType):
        raise TypeError(f"cannot convert the dtype {value!r} to a tensor")
    if value is None:
        raise TypeError("cannot convert None to a tensor")
    raise TypeError(f"cannot convert {type(value).__name__} {value!r} to a tensor")


def _from_numpy(value: Any, dtype: dtypes.DType | None, cast: bool) -> Any:
    if value.dtype.kind in "US":
        value = np.asarray(value).astype(object)
    current = dtypes.from_numpy(value.dtype)
    if dtype is None or dtype is current:
        return value
    if cast:
        if (dtype is dtypes.string) != (current is dtypes.string):
            raise TypeError(f"cannot cast a {current} value to {dtype}")
        return np.asarray(value).astype(dtype.np_dtype)
    if isinstance(value, np.generic):
        # NumPy scalars behave like Python scalars: they adopt the dtype.
        converted = _scalar_as(value.item(), dtype, strict=True)
        if converted is not None:
            return converted
    raise TypeError(
        f"expected a {dtype} value but got a NumPy {current} value; use "
        f"rt.cast(x, rt.{dtype}) or .astype to convert it"
    )


def _scalar_default(value: Any) -> Any:
    if isinstance(value, bool):
        return np.bool_(value)
    if isinstance(value, str):
        return np.array(value, dtype=object)
    if isinstance(value, numbers.Integral):
        value = int(value)
        if _INT32.min <= value <= _INT32.max:
            return np.int32(value)
        try:
            return np.int64(value)
        except OverflowError:
            raise TypeError(f"the int {value} does not fit in int64") from None
    if isinstance(value, numbers.Real):
        return np.float32(value)
    raise TypeError(f"cannot convert {type(value).__name__} {value!r} to a tensor")


def _scalar_as(value: Any, dtype: dtypes.DType, *, strict: bool) -> Any:
    """`value` as a NumPy scalar of `dtype`; None (or TypeError if strict)."""
    kind = dtype.np_dtype.kind
    ok = False
    is_bool = isinstance(value, (bool, np.bool_))
    if kind == "b":
        ok = is_bool
    elif kind == "i":
        ok = isinstance(value, numbers.Integral) and not is_bool
    elif kind == "f":
        ok = isinstance(value, numbers.Real) and not is_bool
    elif dtype is dtypes.string:
        ok = isinstance(value, str)
    if ok:
        try:
            if dtype is dtypes.string:
                return np.array(value, dtype=object)
            return dtype.np_dtype.type(value)
        except OverflowError:
            if strict:
                raise TypeError(
                    f"the value {value!r} does not fit in {dtype}"
                ) from None
            return None
    if strict:
        raise TypeError(
            f"cannot convert {value!r} to a {dtype} tensor; use rt.cast to convert "
            "explicitly"
        )
    return None


def packs_as(inferred: dtypes.DType, target: dtypes.DType) -> bool:
    """Whether a list whose items are `inferred` converts to a `target`
    tensor when an op wants that dtype (integers to any integer or float
    dtype, numbers to float): the one rule of eager lists and of lists of
    graph tensors (stacked, each item cast)."""
    kind = target.np_dtype.kind
    return (
        (kind == "f" and inferred.is_numeric)
        or (kind == "i" and inferred.is_integer)
        or (kind == "b" and inferred is dtypes.bool_)
        or (target is dtypes.string and inferred is dtypes.string)
    )


def _sequence_value(
    value: Any, dtype: dtypes.DType | None, dtype_hint: dtypes.DType | None
) -> np.ndarray:
    try:
        array = np.array(value)
    except ValueError as e:
        raise ValueError(f"cannot convert {value!r} to a tensor: {e}") from None
    kind = array.dtype.kind
    if kind in "USO":
        if kind == "O" and not all(isinstance(v, str) for v in array.flat):
            raise TypeError(f"cannot convert {value!r} to a tensor")
        array = array.astype(object)
        inferred = dtypes.string
    elif kind == "b":
        inferred = dtypes.bool_
    elif kind in "iu":
        inferred = dtypes.int32
        if array.size and (array.min() < _INT32.min or array.max() > _INT32.max):
            inferred = dtypes.int64
    elif kind == "f":
        inferred = dtypes.float32
    else:
        raise TypeError(f"cannot convert {value!r} to a tensor")
    target = dtype or dtype_hint
    if array.size == 0 and target is not None:
        # No elements: nothing to check, `[]` fits any dtype.
        return array.astype(target.np_dtype)
    if target is not None and target is not inferred:
        if packs_as(inferred, target):
            return array.astype(target.np_dtype)
        if dtype is not None:
            raise TypeError(f"cannot convert {value!r} to a {dtype} tensor")
    return array.astype(inferred.np_dtype)
