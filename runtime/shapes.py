"""Static shapes: tuples whose entries are ints or None (unknown size).

A shape of None means "unknown rank". These helpers are what the ops' shape
rules are written in.

    >>> broadcast((None, 3), (1, 3), "Add")
    (None, 3)
    >>> merge((2, 3), (2, 4))
    (2, None)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from runtime.errors import InvalidArgumentError

__all__ = [
    "Shape",
    "as_shape",
    "broadcast",
    "format_shape",
    "is_compatible",
    "is_fully_defined",
    "merge",
    "num_elements",
]

Shape = tuple[int | None, ...] | None


def as_shape(value: Any) -> Shape:
    """Normalizes a shape given as None, an int, or an iterable of ints/None."""
    if value is None:
        return None
    if isinstance(value, int):
        return (int(value),)
    dims: list[int | None] = []
    for d in value:
        if d is None or d == -1:
            dims.append(None)
        else:
            dim = int(d)
            if dim < 0:
                raise ValueError(f"dimensions must be >= 0 or None, got {dim}")
            dims.append(dim)
    return tuple(dims)


def format_shape(shape: Shape) -> str:
    """`(None, 3)`, `()`, `(5,)`, or `<unknown>` for an unknown rank."""
    if shape is None:
        return "<unknown>"
    return repr(tuple(shape))


def is_fully_defined(shape: Shape) -> bool:
    """True when the rank and every dimension are known."""
    return shape is not None and None not in shape


def num_elements(shape: Shape) -> int | None:
    """The element count, or None when any dimension is unknown."""
    if not is_fully_defined(shape):
        return None
    n = 1
    for d in shape:  # type: ignore[union-attr]
        n *= d  # type: ignore[operator]
    return n


def is_compatible(expected: Shape, actual: Shape) -> bool:
    """True when `actual` fits `expected` (None matches anything)."""
    if expected is None or actual is None:
        return True
    if len(expected) != len(actual):
        return False
    return all(e is None or a is None or e == a for e, a in zip(expected, actual))


def merge(a: Shape, b: Shape) -> Shape:
    """The most specific shape both `a` and `b` fit (unequal dims -> None)."""
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b))


def broadcast(a: Shape, b: Shape, op_type: str) -> Shape:
    """The NumPy broadcast of two static shapes.

    Raises:
        InvalidArgumentError: When known dimensions cannot broadcast.
    """
    if a is None or b is None:
        return None
    n = max(len(a), len(b))
    pa = (1,) * (n - len(a)) + tuple(a)
    pb = (1,) * (n - len(b)) + tuple(b)
    out: list[int | None] = []
    for x, y in zip(pa, pb):
        if x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif x is None:
            out.append(y)
        elif y is None or x == y:
            out.append(x)
        else:
            raise InvalidArgumentError(
                f"Incompatible shapes: {format_shape(a)} vs. {format_shape(b)}",
                op_type,
            )
    return tuple(out)


def broadcast_all(shapes: Iterable[Shape], op_type: str) -> Shape:
    """`broadcast` folded over several shapes."""
    result: Shape = ()
    for s in shapes:
        result = broadcast(result, s, op_type)
    return result


def normalize_axis(axis: int, rank: int, op_type: str) -> int:
    """A non-negative axis; raises InvalidArgumentError if out of range."""
    if not -rank <= axis < rank:
        raise InvalidArgumentError(
            f"axis {axis} is out of range for a tensor of rank {rank}", op_type
        )
    return axis % rank if rank else 0
