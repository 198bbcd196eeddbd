"""TensorSpec: the dtype and (partial) shape an input must have.

    >>> import runtime as rt
    >>> spec = rt.TensorSpec([None, 3], rt.float32)
    >>> spec.is_compatible_with(rt.zeros([5, 3]))
    True
    >>> spec.is_compatible_with(rt.TensorSpec([2, 4]))
    False

`shape=None` matches any rank; a None dimension matches any size.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from runtime import dtypes
from runtime.shapes import Shape, as_shape, format_shape, is_compatible

__all__ = ["TensorSpec"]


@dataclasses.dataclass(frozen=True)
class TensorSpec:
    """Describes a tensor: frozen and hashable, usable as a cache key.

    Attributes:
        shape: A tuple of ints/None, or None for any rank.
        dtype: The element type.
        name: An optional name (an argument name, for messages).
    """

    shape: Shape
    dtype: dtypes.DType = dtypes.float32
    name: str | None = None

    def __init__(
        self,
        shape: Any,
        dtype: dtypes.DType | str = dtypes.float32,
        name: str | None = None,
    ) -> None:
        object.__setattr__(self, "shape", as_shape(shape))
        object.__setattr__(self, "dtype", dtypes.as_dtype(dtype))
        object.__setattr__(self, "name", name)

    @classmethod
    def from_tensor(cls, tensor: Any, name: str | None = None) -> TensorSpec:
        """The spec of `tensor` (eager or symbolic)."""
        return cls(tensor.shape, tensor.dtype, name)

    def is_compatible_with(self, other: Any) -> bool:
        """True if `other` (tensor, Variable, or spec) fits this spec."""
        dtype = getattr(other, "dtype", None)
        if dtype is not None and not isinstance(dtype, dtypes.DType):
            try:
                dtype = dtypes.as_dtype(dtype)
            except TypeError:
                return False
        if dtype is not self.dtype:
            return False
        return is_compatible(self.shape, getattr(other, "shape", None))

    def __repr__(self) -> str:
        name = "" if self.name is None else f", name={self.name!r}"
        return (
            f"TensorSpec(shape={format_shape(self.shape)}, dtype={self.dtype!r}{name})"
        )
