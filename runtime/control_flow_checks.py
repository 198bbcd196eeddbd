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
from runtime.errors import DTypeMismatch
from runtime.shapes import format_shape, is_compatible, merge
from runtime.tensor import SymbolicTensor, stands_for_tensor

__all__ = [
    "check_body_output",
    "check_body_structure",
    "check_body_value",
    "check_both_branches_set",
    "check_branch_dtypes",
    "check_cond_outputs",
    "check_fits_invariant",
    "check_graph_built",
    "check_invariant_count",
    "check_loop_init",
    "check_maximum_iterations",
    "check_predicate",
    "check_same_structure",
    "convertible",
    "describe",
    "difference",
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
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


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
    detail = difference(a, b, "in the true branch", "in the false branch")
    advice = _tensor_array_advice(a) or _tensor_array_advice(b)
    raise ValueError(
        f"{quote(name)} is {describe(a)} in the true branch but {describe(b)} "
        f"in the false branch{detail}; both branches must give it the same "
        f"structure{advice}"
    )


def _tensor_array_advice(value: Any) -> str:
    """What to write where `value` holds a TensorArray that stands for a list
    (a graph loop carries a list it appends to as one, which a branch that
    returns it from inside the loop cannot give as a list); else ''."""
    advice = getattr(value, "_return_advice", None)
    if callable(advice):
        return advice()
    children = _children(value) or []
    return next((a for _, c in children if (a := _tensor_array_advice(c))), "")


def difference(a: Any, b: Any, in_a: str, in_b: str, leaf: Any = None) -> str:
    """Where two values of one kind differ in structure, for a message:
    `' (item [1] is a tuple of 2 items <in_a> but a tensor <in_b>)'` (`in_a`:
    "in the true branch", "before the loop"),
    or nothing where they differ at the top (the message says how) or do
    not differ. `leaf` describes a value that is no container (`kind`)."""
    path, x, y = _first_difference(a, b, ())
    if not path:
        return ""
    at = "".join(f"[{k!r}]" for k in path)
    show = leaf or kind
    return f" (item {at} is {_part(x, show)} {in_a} but {_part(y, show)} {in_b})"


def _part(value: Any, leaf: Any) -> str:
    if isinstance(value, (str, bytes)):
        return repr(value)
    if isinstance(value, (dict, list, tuple)):
        return describe(value)
    return leaf(value)


def _children(value: Any) -> list[tuple[Any, Any]] | None:
    if isinstance(value, dict):
        return list(value.items())
    if isinstance(value, (list, tuple)):
        return list(enumerate(value))
    return None


def _first_difference(a: Any, b: Any, path: tuple[Any, ...]) -> tuple[Any, ...]:
    """(path, a's part, b's part) where `a` and `b` first differ: in their
    containers' types, lengths or keys, or in a string; ((), a, b) if
    nowhere below the top."""
    ca, cb = _children(a), _children(b)
    if ca is None and cb is None:
        if isinstance(a, (str, bytes)) or isinstance(b, (str, bytes)):
            return (path, a, b) if not (type(a) is type(b) and a == b) else ((), a, b)
        return ((), a, b)
    if ca is None or cb is None or type(a) is not type(b):
        return (path, a, b)
    if [k for k, _ in ca] != [k for k, _ in cb]:
        return (path, a, b)
    for (k, x), (_, y) in zip(ca, cb):
        found = _first_difference(x, y, (*path, k))
        if found[0]:
            return found
    return ((), a, b)


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
    if nest.same_structure(structure, result):
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
                # (API.md: a loop variable that changes structure: TypeError.)
                raise TypeError(
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


def check_graph_built(pred: SymbolicTensor, graph: Any) -> None:
    """`rt.cond` on a graph tensor needs a graph being built (`graph`)."""
    if graph is None:
        raise TypeError(
            f"the condition {pred.name!r} is a graph tensor but no graph is being built"
        )


def check_both_branches_set(a: Any, b: Any, label: str) -> None:
    """A cond output is None in both branches or in neither."""
    if a is None or b is None:
        raise ValueError(
            f"{label} is {kind(a)} in the true branch but "
            f"{kind(b)} in the false branch; give it a value in both branches"
        )


def check_cond_outputs(a: Any, b: Any, label: str) -> None:
    """Both branches' values of a cond output can be tensors."""
    for value, branch in ((a, "true"), (b, "false")):
        if not convertible(value):
            raise TypeError(
                f"{label} is {kind(value)} in the {branch} branch, which "
                "cannot be the result of a graph cond"
            )


def check_branch_dtypes(a: SymbolicTensor, b: SymbolicTensor, label: str) -> None:
    """Both branches give a cond output one dtype."""
    if a.dtype is not b.dtype:
        raise DTypeMismatch(
            f"{label} has dtype {a.dtype} in the true branch but {b.dtype} in the "
            "false branch; cast one of them so they match"
        )


def check_invariant_count(shape_invariants: Sequence[Any] | None, count: int) -> None:
    """One shape invariant per (flattened) loop variable, if any are given."""
    if shape_invariants is not None and len(shape_invariants) != count:
        raise ValueError(
            f"shape_invariants has {len(shape_invariants)} entries for {count} "
            "loop variables (flattened)"
        )


def check_fits_invariant(init: SymbolicTensor, shape: Any, label: str) -> None:
    """A loop variable's initial value fits its shape invariant."""
    if not is_compatible(shape, init.shape):
        raise ValueError(
            f"{label} has shape {format_shape(init.shape)}, which does not fit its "
            f"shape invariant {format_shape(shape)}"
        )


def check_maximum_iterations(limit: SymbolicTensor) -> None:
    """`maximum_iterations` is an integer tensor."""
    if limit.dtype not in dtypes.INTEGER:
        raise TypeError(f"maximum_iterations must be an integer, got {limit.dtype}")


def check_loop_init(value: Any, label: str) -> None:
    """A loop variable's value before the loop can be a tensor."""
    if value is None and label.startswith(_RETURN_VALUE):
        # (A `return` inside the loop gives None there: the loop carries what
        # it returns, as tensors.)
        raise ValueError(
            f"{label} is None where a `return` inside a graph loop gives it: the "
            "loop carries what a `return` inside it gives, as tensors; return a "
            "tensor there (e.g. rt.constant(0)), or `break` and return None "
            "after the loop"
        )
    if value is None:
        raise ValueError(
            f"{label} is None before the loop; give it a tensor value before the loop"
        )
    if not convertible(value):
        raise TypeError(
            f"{label} is {kind(value)}, which cannot be a graph loop variable"
        )


def check_body_value(value: Any, label: str) -> None:
    """A loop variable's value after the body can be a tensor."""
    if value is None:
        raise ValueError(f"{label} is None after one iteration; it must stay a tensor")
    if not convertible(value):
        raise TypeError(
            f"{label} is {kind(value)} after one iteration, which cannot be a "
            "graph loop variable"
        )


def check_body_output(
    out: SymbolicTensor, init: SymbolicTensor, shape: Any, label: str
) -> None:
    """A loop variable keeps its dtype, and its shape (or fits `shape`, its
    invariant), across the body."""
    if out.dtype is not init.dtype:
        raise DTypeMismatch(
            f"{label} changed dtype from {init.dtype} to {out.dtype} after one "
            "iteration; cast it before the loop"
        )
    if not is_compatible(shape, out.shape) or less_specific(out.shape, shape):
        merged = merge(shape, out.shape)
        invariant = "None" if merged is None else format_shape(merged)
        var = _as_written(label)
        if label.startswith(_RETURN_VALUE):
            raise ValueError(
                f"{label} changed shape from {format_shape(shape)} to "
                f"{format_shape(out.shape)} after one iteration: a `return` inside "
                "a graph loop gives a value the loop carries, which keeps one "
                "shape; return a value of that shape in every iteration, or keep "
                "it in a variable (autograph.set_loop_options(shape_invariants="
                f"[(variable, {invariant})]) first in the loop body lets its shape "
                "change), `break`, and return it after the loop"
            )
        raise ValueError(
            f"{label} changed shape from {format_shape(shape)} to "
            f"{format_shape(out.shape)} after one iteration; keep its shape the same "
            "in every iteration, or allow the change (None for a size that "
            "changes): call autograph.set_loop_options(shape_invariants="
            f"[({var}, {invariant})]) first in the loop body, or pass "
            "shape_invariants to rt.while_loop"
        )


_RETURN_VALUE = "the function's return value"
"""How a loop variable's label names what converted code returns."""


def _as_written(label: str) -> str:
    """The variable of a loop variable's label as the user writes it in code
    (`x`, `d['k']`), or "variable" for a description."""
    name = label.removeprefix("loop variable ")
    if name.startswith("'") and name.endswith("'"):
        return name[1:-1]
    return "variable" if name.startswith(("the ", "loop variable")) else name
