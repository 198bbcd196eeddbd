"""Static shapes: tuples whose entries are ints or None (unknown size).

A shape of None means "unknown rank". These helpers are what the ops' shape
rules are written in. `TensorShape` is the same thing as an object for users
(`rt.TensorShape`); every function taking a shape takes either.

    >>> broadcast((None, 3), (1, 3), "Add")
    (None, 3)
    >>> merge((2, 3), (2, 4))
    (2, None)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from runtime.errors import InvalidArgumentError

__all__ = [
    "Shape",
    "TensorShape",
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
    if isinstance(value, TensorShape):
        return value.dims
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


class TensorShape:
    """A static shape: a rank and dimensions, each an int or None (unknown).

    >>> shape = TensorShape([None, 3])
    >>> shape.rank, shape.as_list()
    (2, [None, 3])
    >>> shape.is_compatible_with((5, 3)), shape.is_compatible_with([5, 4])
    (True, False)
    >>> TensorShape(None).rank is None
    True
    """

    __slots__ = ("_dims",)

    def __init__(self, dims: Any) -> None:
        """Builds a shape from None (unknown rank), an iterable of ints/None,
        another TensorShape, or an int (a 1-D shape of that size)."""
        self._dims: Shape = as_shape(dims)

    @property
    def rank(self) -> int | None:
        """The number of dimensions, or None when unknown."""
        return None if self._dims is None else len(self._dims)

    @property
    def dims(self) -> tuple[int | None, ...] | None:
        """The dimensions as a tuple, or None for an unknown rank."""
        return self._dims

    def as_list(self) -> list[int | None]:
        """The dimensions as a list.

        Raises:
            ValueError: The rank is unknown.
        """
        if self._dims is None:
            raise ValueError("as_list() is not defined on a shape of unknown rank")
        return list(self._dims)

    def is_fully_defined(self) -> bool:
        """Whether the rank and every dimension are known."""
        return self._dims is not None and None not in self._dims

    def is_compatible_with(self, other: Any) -> bool:
        """Whether some tensor could have both shapes (None matches anything).

        `other` is a TensorShape, a tuple/list of ints and None, or None.
        """
        return is_compatible(self._dims, as_shape(other))

    def __len__(self) -> int:
        if self._dims is None:
            raise ValueError("len() of a shape of unknown rank")
        return len(self._dims)

    def __iter__(self) -> Iterator[int | None]:
        if self._dims is None:
            raise ValueError("cannot iterate over a shape of unknown rank")
        return iter(self._dims)

    def __getitem__(self, key: int | slice) -> Any:
        if self._dims is None:
            raise ValueError("cannot index a shape of unknown rank")
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, TensorShape):
            return self._dims == other._dims
        if isinstance(other, (tuple, list)):
            return self._dims == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._dims)

    def __repr__(self) -> str:
        dims = None if self._dims is None else list(self._dims)
        return f"TensorShape({dims!r})"

    def __str__(self) -> str:
        return format_shape(self._dims)
