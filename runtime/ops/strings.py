"""String ops: `rt.strings.length` (and `+`, which is `Add`, concatenates).

    >>> import runtime as rt
    >>> rt.strings.length(rt.constant(["ab", "abc"]))
    <rt.Tensor: shape=(2,), dtype=int32, numpy=array([2, 3], dtype=int32)>

Strings are stored as NumPy object arrays of `str`; lengths count
characters (TensorFlow's `unit="UTF8_CHAR"`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime import dtypes
from runtime.op_registry import OpDef, apply, register
from runtime.ops import rules
from runtime.tensor import Tensor, TensorLike

__all__ = ["length"]

_STRING = frozenset({dtypes.string})


def _length_kernel(x: Any) -> Any:
    return np.vectorize(len, otypes=[np.int32])(x).astype(np.int32)


_LENGTH = register(
    OpDef(
        "StringLength",
        rules.unary(dtypes.int32),
        _length_kernel,
        unify=1,
        allowed=_STRING,
    )
)


def length(input: TensorLike, name: str | None = None) -> Tensor:
    """The number of characters of each string."""
    return apply(_LENGTH, (input,), {}, name)
