"""The checks of `cond` and `while_loop`, and how their messages name things.

Messages name the user's variables when the caller passes `names` (parallel
to the top-level outputs / loop variables, or to their flattened leaves),
and count positions otherwise (`output 0`, `loop variable 1`):

    >>> leaf_names((1, (2, 3)), [(0,), (1, 0), (1, 1)], ["a", "b"], "output")
    ["'a'", "'b[0]'", "'b[1]'"]
    >>> leaf_names((1, 2), [(0,), (1,)], None, "output")
    ['output 0', 'output 1']

A name that is a description rather than a variable (converted code's own
state, such as "the function's return value") is printed as it is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from runtime import dtypes, nest
from runtime.shapes import format_shape
from runtime.tensor import SymbolicTensor, stands_for_tensor

__all__ = [
    "check_body_structure",
    "check_predicate",
    "check_same_structure",
    "convertible",
    "describe",
    "is_typed",
    "kind",
    "leaf_names",
    "less_specific",
    "quote",
]


_VARIABLE = re.compile(r"[A-Za-z_]\w*(\[.*\])?")


def leaf_names(
    structure: Any, paths: list[tuple[Any, ...]], names: Sequence[str] | None, what: str
) -> list[str]:
    """How messages refer to each flattened leaf."""
    if names:
        names = list(names)
        top = structure if isinstance(structure, (list, tuple)) else None
        if top is not None and len(names) == len(top):
            return [
                quote(names[p[0]] + "".join(f"[{k!r}]" for k in p[1:]))
                if p
                else quote(names[0])
                for p in paths
            ]
        if len(names) == len(paths):
            return [quote(n) for n in names]
        if len(names) == 1:  # one value, itself a structure
            return [quote(names[0] + "".join(f"[{k!r}]" for k in p)) for p in paths]
    return [f"{what} {i}" for i in range(len(paths))]


def quote(name: str) -> str:
    """A variable's name in a message: quoted (`'x'`, `'b[0]'`); an item or
    attribute as the user wrote it, which may have quotes of its own
    (`d['a']`); a description of what a value is ("the function's return
    value") as it is.

    >>> quote("x"), quote("b[0]"), quote("d['a']"), quote("the loop's value")
    ("'x'", "'b[0]'", "d['a']", "the loop's value")
    """
    if "'" in name or not _VARIABLE.fullmatch(name):
        return name
    return f"'{name}'"


def kind(value: Any) -> str:
    if value is None:
        return "None"
    if type(value).__name__ == "Undefined":  # runtime.operators' unbound value
        return "unbound (deleted with `del`, or assigned on some paths only)"
    if stands_for_tensor(value):
        return "a tensor"
    return f"a {type(value).__name__}"


def is_typed(value: Any) -> bool:
    return stands_for_tensor(value) or hasattr(value, "dtype")


def convertible(value: Any) -> bool:
    if is_typed(value) or isinstance(value, (bool, int, float, str)):
        return True
    if isinstance(value, (list, tuple)):
        return all(convertible(v) for v in value)
    return False


def check_predicate(pred: SymbolicTensor, what: str) -> None:
    if pred.dtype is not dtypes.bool_:
        raise TypeError(
            f"the condition of {what} must be a bool scalar, got a {pred.dtype} tensor"
        )
    if pred.shape is not None and pred.shape != ():
        raise ValueError(
            f"the condition of {what} must be a scalar, got shape "
            f"{format_shape(pred.shape)}"
        )


def check_same_structure(a: Any, b: Any, names: Sequence[str] | None) -> None:
    try:
        nest.assert_same_structure(a, b, check_types=False, expand_composites=True)
    except (ValueError, TypeError):
        pass
    else:
        return
    if (
        names
        and isinstance(a, (list, tuple))
        and isinstance(b, (list, tuple))
        and len(a) == len(b) == len(names)
    ):
        for name, x, y in zip(names, a, b):
            try:
                nest.assert_same_structure(
                    x, y, check_types=False, expand_composites=True
                )
            except (ValueError, TypeError):
                _raise_branch_structure(name, x, y)
    if names and len(names) == 1:
        _raise_branch_structure(names[0], a, b)
    raise ValueError(
        f"the true branch returns {describe(a)} but the false branch returns "
        f"{describe(b)}; both branches must return the same structure"
    )


def _raise_branch_structure(name: str, a: Any, b: Any) -> None:
    raise ValueError(
        f"{quote(name)} is {describe(a)} in the true branch but {describe(b)} "
        "in the false branch; both branches must give it the same structure"
    )


def describe(value: Any) -> str:
    if isinstance(value, dict):
        return f"a dict with keys {sorted(map(repr, value))}"
    if isinstance(value, (list, tuple)):
        n = len(value)
        return f"a {type(value).__name__} of {n} item{'' if n == 1 else 's'}"
    return kind(value)


def check_body_structure(
    structure: Any, result: Any, names: Sequence[str] | None
) -> None:
    try:
        nest.assert_same_structure(
            structure, result, check_types=False, expand_composites=True
        )
    except (ValueError, TypeError):
        pass
    else:
        return
    if isinstance(result, (list, tuple)) and len(result) != len(structure):
        named = f" ({', '.join(map(quote, names))})" if names else ""
        raise ValueError(
            f"the loop body returned {len(result)} values for {len(structure)} loop "
            f"variables{named}"
        )
    if names and len(names) == len(structure) and isinstance(result, (list, tuple)):
        for name, before, after in zip(names, structure, result):
            try:
                nest.assert_same_structure(
                    before, after, check_types=False, expand_composites=True
                )
            except (ValueError, TypeError):
                raise ValueError(
                    f"{_loop_variable(name)} is {describe(before)} before the loop "
                    "but "
                    f"{describe(after)} after one iteration; it must keep the same "
                    "structure"
                ) from None
    raise ValueError(
        f"the loop body returns {describe(result)} but the loop variables are "
        f"{describe(structure)}; it must return the same structure"
    )


def _loop_variable(name: str) -> str:
    quoted = quote(name)
    return f"loop variable {quoted}" if quoted.startswith(("'", '"')) else quoted


def less_specific(shape: Any, than: Any) -> bool:
    if than is None:
        return False
    if shape is None:
        return True
    return any(t is not None and s is None for s, t in zip(shape, than))
