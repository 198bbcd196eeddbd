"""A NumPy array a staged loop carries that its body changes with `+=`.

In Python, `a += 1` on a NumPy array changes the array in place: every other
name for it (`b = a`, a view's base, the caller's argument) sees the change.
A staged loop carries a NumPy array its body assigns as a tensor (a graph
placeholder, a JAX tracer), on which `+=` only rebinds the name: the array
would silently keep its values. The body's own code says which targets it
changes so (`a += c`, `lst[0] += c`, `s.w += c`): the compiler writes an
augmented assignment as an in-place operator followed by a store, in the
body and in the statements' bodies nested in it, which take the same names.

    >>> def loop_body(i, a):
    ...     a += 1.0
    ...     b = b + 1.0
    ...     return a
    >>> [(t.kind, t.target, t.op) for t in augmented(loop_body)]
    [('name', 'a', '+=')]

`refusal` makes the TypeError for the loop variables and places holding a
NumPy array that the body so changes; `mutations.tracked` raises it when the
backend's body starts on something else than the array itself (the toy
backend's Python loops change the array as Python does).
"""

from __future__ import annotations

import ast
import dis
import inspect
import linecache
import types
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from runtime.control_flow_checks import quote
from runtime.operators import places as places_
from runtime.operators.staging.where import GENERATED_FUNCTIONS

__all__ = ["Augmented", "Refusal", "augmented", "refusal"]


class Augmented(NamedTuple):
    """One augmented assignment in a body: `kind` "name", "attr" or "item";
    `target` the name, or the target's text (None where the source is not
    at hand); `op` as written ("+="); `where` its "file:line" (or None)."""

    kind: str
    target: str | None
    op: str
    where: str | None


# (Between the operator and the store: the stack shuffles of `x[k] += v`.)
_SHUFFLES = frozenset(("SWAP", "COPY", "ROT_TWO", "ROT_THREE", "NOP", "CACHE"))
_NAME_STORES = frozenset(("STORE_FAST", "STORE_DEREF", "STORE_NAME", "STORE_GLOBAL"))
# Python 3.10 names each in-place operator.
_INPLACE_310 = {
    "INPLACE_ADD": "+=",
    "INPLACE_SUBTRACT": "-=",
    "INPLACE_MULTIPLY": "*=",
    "INPLACE_TRUE_DIVIDE": "/=",
    "INPLACE_FLOOR_DIVIDE": "//=",
    "INPLACE_MODULO": "%=",
    "INPLACE_POWER": "**=",
    "INPLACE_MATRIX_MULTIPLY": "@=",
    "INPLACE_LSHIFT": "<<=",
    "INPLACE_RSHIFT": ">>=",
    "INPLACE_AND": "&=",
    "INPLACE_OR": "|=",
    "INPLACE_XOR": "^=",
}


def augmented(body: Callable[..., Any]) -> list[Augmented]:
    """The augmented assignments of `body` and of the statement bodies the
    compiler generated inside it (not of the user's nested functions)."""
    code = getattr(inspect.unwrap(body), "__code__", None)
    found: list[Augmented] = []
    stack = [code] if isinstance(code, types.CodeType) else []
    while stack:
        code = stack.pop()
        found.extend(_in_code(code))
        nested = [c for c in code.co_consts if isinstance(c, types.CodeType)]
        stack.extend(c for c in nested if GENERATED_FUNCTIONS.fullmatch(c.co_name))
    return found


def _in_code(code: types.CodeType) -> list[Augmented]:
    found = []
    op = None
    for ins in dis.get_instructions(code):
        if ins.opname == "BINARY_OP" and ins.argrepr.endswith("="):
            op = ins.argrepr
            continue
        if ins.opname in _INPLACE_310:
            op = _INPLACE_310[ins.opname]
            continue
        if op is None or ins.opname in _SHUFFLES:
            continue
        line = getattr(ins, "positions", None)
        lineno = line.lineno if line is not None else None
        where = f"{code.co_filename}:{lineno}" if lineno else None
        if ins.opname in _NAME_STORES:
            found.append(Augmented("name", ins.argval, op, where))
        elif ins.opname in ("STORE_ATTR", "STORE_SUBSCR"):
            kind = "attr" if ins.opname == "STORE_ATTR" else "item"
            found.append(Augmented(kind, _text(code, line), op, where))
        op = None
    return found


def _text(code: types.CodeType, at: Any) -> str | None:
    """The source text a store's positions span (`lst[0]`, `s.w`), or None."""
    if at is None or at.lineno is None or at.lineno != at.end_lineno:
        return None
    line = linecache.getline(code.co_filename, at.lineno).encode()
    if not line or at.col_offset is None or at.end_col_offset is None:
        return None
    return _normal(line[at.col_offset : at.end_col_offset].decode(errors="replace"))


def _normal(text: str) -> str | None:
    try:
        return ast.unparse(ast.parse(text.strip(), mode="eval"))
    except SyntaxError:
        return None


class Refusal(NamedTuple):
    """A loop's refusal (`error`) and the array it is about: the loop
    variable's at `position`, or the value of `place`."""

    array: np.ndarray
    position: int
    place: places_.Place | None
    error: TypeError


def refusal(
    body: Callable[..., Any],
    state: Sequence[Any],
    names: Sequence[str],
    places: Sequence[places_.Place],
    backend: str,
    at: str,
) -> Refusal | None:
    """The refusal of a loop whose body changes with an augmented assignment
    a NumPy array the loop carries (a loop variable's, or a place's value,
    as the loop starts), or None. `at`: `' at file:line in 'f''`."""
    arrays = {i: v for i, v in enumerate(state) if isinstance(v, np.ndarray)}
    held = {}
    for j, place in enumerate(places):
        if not isinstance(place, places_.Untracked):
            value = place.get()
            if isinstance(value, np.ndarray):
                held[j] = value
    if not arrays and not held:
        return None
    changes = augmented(body)
    for i in arrays:
        name = names[i] if i < len(names) else None
        hit = next((c for c in changes if c.kind == "name" and c.target == name), None)
        if hit is not None:
            error = _refuse(name, hit, backend, at)
            return Refusal(arrays[i], i, None, error)
    for j in held:
        text = _normal(places[j].name)
        for change in changes:
            if change.kind == "name" and change.target != text:
                continue
            if change.kind != "name" and change.target not in (None, text):
                continue
            error = _refuse(places[j].name, change, backend, at)
            return Refusal(held[j], -1, places[j], error)
    return None


def _refuse(name: str, change: Augmented, backend: str, at: str) -> TypeError:
    op = change.op
    by = f" at {change.where}" if change.where else ""
    tensor = "jnp.asarray" if backend == "JAX" else "rt.constant"
    return TypeError(
        f"the NumPy array {quote(name)} is changed in place by `{name} {op} ...`"
        f"{by} in the body of the {backend} loop{at}: the loop carries it as a "
        f"traced value, on which `{op}` only rebinds the name, so the array (and "
        f"every other name for it) would keep its values; write `{name} = {name} "
        f"{op[:-1]} ...` to carry a new value (the array is then not changed), or "
        f"make it a tensor before the loop (`{name} = {tensor}({name})`)"
    )
