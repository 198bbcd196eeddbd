"""Builtins whose meaning changes for graph tensors: print, range, len, int,
float, min, max, and enumerate and zip as a `for` loop's iterable.

Converted code calls `ag__.print_(...)` where the user wrote `print(...)`,
and `ag__.enumerate_(...)`/`ag__.zip_(...)` where `enumerate(...)`/`zip(...)`
is what a `for` statement iterates. With no backend's value among the
arguments each one *is* the builtin (it returns the builtin's own object),
except `print` while a backend that stages every print is active (JAX:
`dispatch.UNCLAIMED`).
"""

from __future__ import annotations

import builtins

# Own references: a user's `builtins.len = spy` does not see our calls.
from builtins import (
    all,
    any,
    getattr,
    isinstance,
    iter,
    len,
    next,
    type,
)
from collections.abc import Callable, Iterator
from typing import Any

from runtime.context import STATE
from runtime.operators import dispatch
from runtime.operators.control_flow import has_rows
from runtime.operators.dispatch import TABLES, UNCLAIMED
from runtime.operators.logical import if_exp

_PRINT = TABLES["print_"]
_PRINT_UNCLAIMED = UNCLAIMED["print_"]
_RANGE = TABLES["range_"]
_LEN = TABLES["len_"]
_INT = TABLES["int_"]
_FLOAT = TABLES["float_"]
_IF_EXP = TABLES["if_exp"]
_FOR = TABLES["for_stmt"]


def _claimed(table: dict[type, Any], args: tuple[Any, ...]) -> Any:
    for arg in args:
        impl = table[type(arg)]
        if impl is not None:
            return impl
    return None


def print_(*args: Any, **kwargs: Any) -> None:
    """`print(*args, **kwargs)`, or what a backend makes of it.

    The graph backend claims none (as in TensorFlow, a Python `print` runs
    while tracing; `rt.print` is the op that prints on every run). The JAX
    backend, while JAX traces, stages every print to run when the compiled
    function runs, on the path taken (`UNCLAIMED`: also one whose
    arguments hold no tracer).

    `sys.stdout` is looked up when the print runs, as `print` does. Inside a
    trial trace (`context.trial_trace`: a backend tracing a body once more
    only to learn its types) it prints nothing, so tracing prints what the
    user's code prints once.
    """
    if STATE.trials:
        return
    impl = _claimed(_PRINT, args)
    if impl is not None and impl(*args, **kwargs) is not NotImplemented:
        return
    for impl in _PRINT_UNCLAIMED:
        if impl(*args, **kwargs) is not NotImplemented:
            return
    builtins.print(*args, **kwargs)


def range_(*args: Any, **kwargs: Any) -> Any:
    """`range(*args)`; with a graph tensor argument, a graph range."""
    impl = None if kwargs else _claimed(_RANGE, args)
    if impl is not None:
        result = impl(*args)
        if result is not NotImplemented:
            return result
    return builtins.range(*args, **kwargs)


STEP_ZERO = "range() arg 3 must not be zero"


def check_range_args(args: tuple[Any, ...], kind: str, where: str) -> None:
    """Python's TypeError for a `range()` argument that is no integer: a
    float, or a `kind` (`"graph"`, `"JAX"`) value of a float dtype, which
    a backend's range would take; `where` is `' at file:line'`."""
    for arg in args:
        dtype = getattr(arg, "dtype", None)
        dtype = getattr(dtype, "np_dtype", dtype)  # a graph tensor's DType
        kind_of = getattr(dtype, "kind", "i")
        if type(arg) is float or kind_of not in "iub":
            name = type(arg).__name__ if dtype is None else f"{kind} {dtype}"
            raise TypeError(
                f"'float' object cannot be interpreted as an integer: range() "
                f"of a {name} value{where}; give it an int (int(x) rounds a "
                "traced value toward zero)"
            )


def len_(*args: Any, **kwargs: Any) -> Any:
    """`len(value)`; for a graph tensor of unknown length, a graph op.

    Wrong arguments raise exactly what `len` raises.
    """
    impl = _LEN[type(args[0])] if len(args) == 1 and not kwargs else None
    if impl is not None:
        result = impl(*args)
        if result is not NotImplemented:
            return result
    return builtins.len(*args, **kwargs)


def int_(value: Any = 0, *args: Any, **kwargs: Any) -> Any:
    """`int(value, *args, **kwargs)`; for a graph tensor, a cast to int32."""
    impl = _INT[type(value)]
    if impl is not None:
        result = impl(value, *args, **kwargs)
        if result is not NotImplemented:
            return result
    return builtins.int(value, *args, **kwargs)


def float_(*args: Any, **kwargs: Any) -> Any:
    """`float(value)`; for a graph tensor, a cast to float32.

    Wrong arguments raise exactly what `float` raises.
    """
    impl = _FLOAT[type(args[0])] if len(args) == 1 and not kwargs else None
    if impl is not None:
        result = impl(*args)
        if result is not NotImplemented:
            return result
    return builtins.float(*args, **kwargs)


def max_(*args: Any, **kwargs: Any) -> Any:
    """`max(*args, **kwargs)`; of two or more scalars, one of them a value a
    backend stages (a graph tensor, a JAX tracer), Python's own rule made
    staged: `b if b > a else a`, argument by argument (the first of equal
    values; a NaN first stays, as in Python).

    Anything else (an iterable, `key=`, `default=`, an array of more than
    one element) is the builtin's, which refuses a staged value as
    Python's `bool` does, saying what to write (`rt.maximum`).
    """
    return _extreme(builtins.max, _greater, args, kwargs)


def min_(*args: Any, **kwargs: Any) -> Any:
    """`min(*args, **kwargs)`: as `max_`, with `b if b < a else a`."""
    return _extreme(builtins.min, _less, args, kwargs)


def _greater(b: Any, a: Any) -> Any:
    return b > a


def _less(b: Any, a: Any) -> Any:
    return b < a


def _extreme(
    builtin: Callable[..., Any],
    replaces: Callable[[Any, Any], Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> Any:
    if kwargs or len(args) < 2 or _claimed(_IF_EXP, args) is None:
        return builtin(*args, **kwargs)
    if not all(getattr(a, "shape", ()) == () for a in args):
        return builtin(*args, **kwargs)  # (Python compares arrays as bools)
    label = f"{builtin.__name__}(...)"
    result = args[0]
    for arg in args[1:]:
        result = if_exp(
            replaces(arg, result),
            lambda arg=arg: arg,
            lambda result=result: result,
            label,
        )
    return result


class Rows:
    """`enumerate(xs, start)` or `zip(xs, ys, ...)` as a `for` loop's iterable
    where an argument is a value a backend loops over (a traced array, a
    graph tensor): the backend loops over the rows of the arrays at once, as
    one loop, with `enumerate`'s counter as an array of indices.

    Plain-Python equivalent (what `iter` gives: a backend that declines the
    loop leaves it to Python, which iterates the builtin's own object, made
    here and only then):

        iter(builtin(*args, **kwargs))

    Attributes:
        columns: The arrays (or `Rows`, for `enumerate(zip(xs, ys))`) whose
            rows make an item, in order.
        start: `enumerate`'s first index; None for `zip`.
        strict: A `zip(..., strict=True)` is among them: the arrays' lengths
            must be equal (where they differ, Python raises ValueError where
            the shortest ends, which no staged loop does).
    """

    __slots__ = ("_args", "_builtin", "_kwargs", "columns", "start", "strict")

    def __init__(
        self,
        builtin: type,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        columns: tuple[Any, ...],
        start: int | None = None,
    ) -> None:
        self._builtin, self._args, self._kwargs = builtin, args, kwargs
        self.columns, self.start = columns, start
        self.strict = kwargs.get("strict", False) or any(
            isinstance(c, Rows) and c.strict for c in columns
        )

    def __iter__(self) -> Iterator[Any]:
        return iter(self._builtin(*self._args, **self._kwargs))

    def arrays(self) -> list[Any]:
        """The arrays whose rows make the items, depth first."""
        out = []
        for column in self.columns:
            out.extend(column.arrays() if isinstance(column, Rows) else [column])
        return out

    def rest(self, drawn: int) -> Rows | None:
        """The rows after the first `drawn`: what is left of a Python loop
        over them (`control_flow.rest_of`), or None where an argument cannot
        be cut (an iterator)."""
        columns = []
        for column in self.columns:
            if isinstance(column, Rows):
                column = column.rest(drawn)
            elif isinstance(column, (list, tuple, range)) or has_rows(column):
                column = column[drawn:]
            else:
                column = None
            if column is None:
                return None
            columns.append(column)
        if self.start is None:
            return Rows(self._builtin, tuple(columns), self._kwargs, tuple(columns))
        start = self.start + drawn
        return Rows(self._builtin, (columns[0], start), {}, tuple(columns), start)

    def items(self, arrays: Iterator[Any], counter: Callable[[int], Any]) -> Any:
        """The structure of an item over a backend's `arrays` (one per array
        of `arrays()`, in its order) and its `counter(start)` (the indices
        an `enumerate` gives): `(indices, column)` for `enumerate`,
        `(column, ...)` for `zip`."""
        columns = tuple(
            c.items(arrays, counter) if isinstance(c, Rows) else next(arrays)
            for c in self.columns
        )
        return columns if self.start is None else (counter(self.start), *columns)


def _rows_of(value: Any) -> bool:
    """Whether a backend loops over `value` (the `for_stmt` table claims it),
    or may loop over the rest of its rows (an array: a NumPy array, a
    backend's concrete array) once the loop's `break` becomes its value."""
    return _FOR[type(value)] is not None or has_rows(value)


def enumerate_(*args: Any, **kwargs: Any) -> Any:
    """`enumerate(iterable, start=0)` as a `for` loop's iterable: the
    builtin's object, or `Rows` when `iterable` is a value a backend loops
    over (a traced array) and `start` a Python int, so that the backend
    makes the loop one loop over the indices and rows."""
    if len(args) + len(kwargs) <= 2 and len(args) >= 1 and kwargs.keys() <= {"start"}:
        start = args[1] if len(args) == 2 else kwargs.get("start", 0)
        if type(start) is int and _rows_of(args[0]):
            return Rows(builtins.enumerate, args, kwargs, (args[0],), start)
    return builtins.enumerate(*args, **kwargs)


def zip_(*args: Any, **kwargs: Any) -> Any:
    """`zip(*iterables, strict=False)` as a `for` loop's iterable: the
    builtin's object, or `Rows` when an argument is a value a backend loops
    over (a traced array), so that the backend makes the loop one loop over
    the arrays' rows (it declines arguments it cannot stage)."""
    plain = kwargs.keys() <= {"strict"} and type(kwargs.get("strict", False)) is bool
    if plain and any(_rows_of(arg) for arg in args):
        return Rows(builtins.zip, args, kwargs, args)
    return builtins.zip(*args, **kwargs)


def _for_rows(rows: Rows, *args: Any, **kwargs: Any) -> Any:
    """A `for` over `Rows`: the loop of the backend of its first array a
    backend loops over, or, where that one declines (the graph backend's
    tensors beside a dataset), of the next one."""
    tried = []
    for value in rows.arrays():
        impl = _FOR[type(value)]
        if impl is not None and impl not in tried:
            tried.append(impl)
            result = impl(rows, *args, **kwargs)
            if result is not NotImplemented:
                return result
    return NotImplemented


dispatch.register("for_stmt", Rows, _for_rows)
