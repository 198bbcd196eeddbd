"""Element types of tensors and their NumPy counterparts.

    >>> import runtime as rt
    >>> rt.float32, rt.as_dtype("int32"), rt.as_dtype(float)
    (rt.float32, rt.int32, rt.float32)

Python values get TensorFlow's default dtypes (float -> float32, int -> int32,
bool -> bool, str -> string); NumPy arrays keep theirs. Strings are stored as
NumPy object arrays of `str`. `variant` is internal: the dtype of a
TensorArray's handle, whose value is an opaque Python object.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

__all__ = [
    "DType",
    "as_dtype",
    "bool_",
    "float32",
    "float64",
    "from_numpy",
    "int32",
    "int64",
    "string",
    "variant",
]


@dataclasses.dataclass(frozen=True, eq=False)
class DType:
    """One element type. Instances are singletons: compare them with `is`/`==`.

    Attributes:
        name: The TensorFlow-style name (`"float32"`).
        np_dtype: The NumPy dtype its values are stored as.
    """

    name: str
    np_dtype: np.dtype

    @property
    def is_floating(self) -> bool:
        """True for float32 and float64."""
        return self.np_dtype.kind == "f"

    @property
    def is_integer(self) -> bool:
        """True for int32 and int64."""
        return self.np_dtype.kind == "i"

    @property
    def is_numeric(self) -> bool:
        """True for the integer and floating dtypes."""
        return self.np_dtype.kind in "if"

    @property
    def as_numpy_dtype(self) -> type:
        """The NumPy scalar type (`np.float32`), as in TensorFlow."""
        return self.np_dtype.type

    def __repr__(self) -> str:
        return f"rt.{self.name}"

    def __str__(self) -> str:
        return self.name

    def __reduce__(self) -> str:
        # Pickles as a reference to the module-level singleton.
        return _PICKLE_NAMES[self.name]


float32 = DType("float32", np.dtype(np.float32))
float64 = DType("float64", np.dtype(np.float64))
int32 = DType("int32", np.dtype(np.int32))
int64 = DType("int64", np.dtype(np.int64))
bool_ = DType("bool", np.dtype(np.bool_))
string = DType("string", np.dtype(object))
variant = DType("variant", np.dtype(object))

ALL: tuple[DType, ...] = (float32, float64, int32, int64, bool_, string)
NUMERIC: frozenset[DType] = frozenset({float32, float64, int32, int64})
FLOATING: frozenset[DType] = frozenset({float32, float64})
INTEGER: frozenset[DType] = frozenset({int32, int64})

_PICKLE_NAMES = {d.name: d.name for d in (*ALL, variant)}
_PICKLE_NAMES["bool"] = "bool_"
_BY_NAME: dict[str, DType] = {d.name: d for d in (*ALL, variant)}

# Keyed by what a stored value's `.dtype` returns: a NumPy dtype, or the
# `variant` DType itself for TensorArray handles.
FROM_NUMPY: dict[Any, DType] = {d.np_dtype: d for d in ALL}
FROM_NUMPY[variant] = variant
_FROM_PYTHON: dict[type, DType] = {float: float32, int: int32, bool: bool_, str: string}


def from_numpy(np_dtype: Any) -> DType:
    """The DType of values stored with NumPy dtype `np_dtype`.

    Raises:
        TypeError: For NumPy dtypes the runtime has no counterpart for.
    """
    dtype = FROM_NUMPY.get(np_dtype)
    if dtype is not None:
        return dtype
    kind = np.dtype(np_dtype).kind
    if kind in "USO":
        return string
    raise TypeError(
        f"unsupported NumPy dtype {np.dtype(np_dtype)}; the runtime supports "
        + ", ".join(d.name for d in ALL)
    )


def as_dtype(value: Any) -> DType:
    """Converts a DType, a name, a NumPy dtype or a Python type to a DType.

    Raises:
        TypeError: When `value` names no supported dtype.
    """
    if isinstance(value, DType):
        return value
    if isinstance(value, str):
        if value in _BY_NAME:
            return _BY_NAME[value]
        raise TypeError(f"unknown dtype name {value!r}")
    if isinstance(value, type) and value in _FROM_PYTHON:
        return _FROM_PYTHON[value]
    try:
        np_dtype = np.dtype(value)
    except TypeError:
        raise TypeError(f"cannot interpret {value!r} as a dtype") from None
    return from_numpy(np_dtype)
