"""JAX values in converted control flow: what a `lax` op carries (arrays,
and pytrees of them) and what passes by Python; the checks and messages
about them; whether an error was raised on the traced path."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from runtime import control_flow_checks as checks
from runtime import nest
from runtime.context import trial_trace
from runtime.control_flow_checks import quote
from runtime.operators.staging import where as where_
from runtime.operators.staging.aliasing import items_kept, mutable_parts
from runtime.operators.variables import (
    UnboundAfterReturn,
    UndefinedReturnValue,
    is_undefined,
)
from runtime.operators.verification import (
    add_note,
    label,
    raised_on_path,
)

try:  # where JAX keeps these has moved between versions
    from jax._src.core import is_concrete as _is_concrete
    from jax._src.core import trace_state_clean as trace_state_clean
except ImportError:  # pragma: no cover - other JAX versions

    def _is_concrete(value: Any) -> bool:
        try:
            jax.core.concrete_or_error(None, value)
        except Exception:
            return False
        return True

    def trace_state_clean() -> bool:
        return False  # unknown: converted code always runs (still correct)


Tracer = jax.core.Tracer


# (ShapeDtypeStructs stand for arrays in what `jax.eval_shape` gives.)
_NUMBERS = (
    bool,
    int,
    float,
    complex,
    np.ndarray,
    np.generic,
    jax.Array,
    jax.ShapeDtypeStruct,
)


PLACEHOLDERS = (UndefinedReturnValue, UnboundAfterReturn)


def where_now() -> str:
    """`' at file:line'` of the statement being staged (never a JAX frame)."""
    return where_.at(where_.current(3))


def declined(value: Any) -> bool:
    """A tracer whose value is known runs as Python (eager `jax.grad`)."""
    return _is_concrete(value)


def state_keys(names: Sequence[str]) -> list[str]:
    """Dict keys for `names`: their labels, made unique."""
    keys: list[str] = []
    for name in names:
        key = label(name)
        while key in keys:
            key += "'"
        keys.append(key)
    return keys


def is_arrays(value: Any) -> bool:
    """Whether `value` is a pytree (tuple, list, dict, None) of numbers or
    arrays, or a tuple (a NamedTuple) of those beside strings: what a `lax`
    op can carry (the strings in its structure, `pack`)."""
    leaves = jax.tree_util.tree_leaves(value)
    if all(isinstance(leaf, _NUMBERS) for leaf in leaves):
        return True
    return isinstance(value, tuple) and all(
        is_static(item) or is_arrays(item) for item in value
    )


def is_numbers(value: Any) -> bool:
    """Whether `value` is a pytree of numbers or arrays only (no strings)."""
    leaves = jax.tree_util.tree_leaves(value)
    return all(isinstance(leaf, _NUMBERS) for leaf in leaves)


# Values a tuple carried by a `lax` op may hold beside its arrays: they are
# part of its structure, so they must come out equal (as the graph's `cond`
# and `while` carry other values only where they come out unchanged).
_STATIC = (str, bytes)


def is_static(leaf: Any) -> bool:
    """Whether a pytree leaf is a string of a carried tuple's structure:
    it has no shape nor dtype, so it passes every rebuild of a value from
    shapes and dtypes unchanged (`map_arrays`, `array_leaves`)."""
    return isinstance(leaf, _STATIC)


def map_arrays(fn: Callable[[Any], Any], *trees: Any) -> Any:
    """`jax.tree_util.tree_map(fn, *trees)` over the array leaves: a string
    (`is_static`) stays as it is in the first tree."""
    return jax.tree_util.tree_map(
        lambda leaf, *rest: leaf if is_static(leaf) else fn(leaf, *rest), *trees
    )


def array_leaves(value: Any) -> list[Any]:
    """The leaves of `value` that are arrays or numbers: its strings left out."""
    return [leaf for leaf in jax.tree_util.tree_leaves(value) if not is_static(leaf)]


class _Static:
    """A string in a carried tuple, as a pytree node with no leaves whose
    structure (the aux data JAX compares) is the string."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


jax.tree_util.register_pytree_node(
    _Static, lambda s: ((), s.value), lambda value, _: _Static(value)
)


def pack(value: Any) -> Any:
    """`value` with each string in a tuple a `_Static`: what a `lax` op
    carries (lists and dicts with no strings in tuples stay the objects)."""
    return _rebuild(value, lambda leaf: _Static(leaf) if is_static(leaf) else leaf)


def unpack(value: Any) -> Any:
    """The inverse of `pack`."""
    return _rebuild(
        value, lambda leaf: leaf.value if isinstance(leaf, _Static) else leaf
    )


def _rebuild(value: Any, leaf: Callable[[Any], Any]) -> Any:
    if type(value) is dict:
        items = {k: _rebuild(v, leaf) for k, v in value.items()}
        same = all(items[k] is v for k, v in value.items())
        return value if same else items
    if type(value) is list or isinstance(value, tuple):
        children = [_rebuild(v, leaf) for v in value]
        if all(c is v for c, v in zip(children, value)):
            return value
        if type(value) is list:
            return children
        if hasattr(value, "_fields"):  # a NamedTuple
            return type(value)(*children)
        return type(value)(children)
    return leaf(value)


def packed(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` as a `lax` op calls it: its arguments unpacked, its result packed."""
    return lambda *args: pack(fn(*unpack(args)))


def split_values(values: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(arrays, python): the values a `lax` op carries, and the others."""
    arrays, python = {}, {}
    for key, value in values.items():
        (arrays if is_arrays(value) else python)[key] = value
    return arrays, python


def kind_of(value: Any) -> str:
    """How messages name a value's kind ('an array', 'a str (\'pos\')')."""
    if is_undefined(value):
        return "unassigned"
    if value is None:  # (an empty pytree, but no array): as the graph says it
        return checks.kind(value)
    if isinstance(value, (list, tuple, dict)):
        return checks.describe(value)
    if is_arrays(value):
        if isinstance(value, _NUMBERS):
            return "an array"
        # (A pytree node of the user's: a registered dataclass, a NamedTuple.)
        return f"a {type(value).__name__}" if _is_node(value) else "arrays"
    shown = repr(value)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    return f"a {type(value).__name__} ({shown})"


def _is_node(value: Any) -> bool:
    """Whether `value` is itself a pytree node (not a leaf, not None)."""
    return jax.tree_util.tree_structure(value).node_data() is not None


def _structure_difference(a: Any, b: Any, in_a: str, in_b: str) -> str:
    """Where two pytrees' structures first differ below lists, tuples and
    dicts (`checks.difference` shows those), for a message: a node's type,
    or its static data (what JAX keeps out of the arrays: a dataclass's meta
    fields, a custom node's aux data), `' (a Opt has static data (0.1,) in
    one branch but (0.05,) in the other)'`; nothing where none is found."""

    def name(data: Any) -> str:
        return "a leaf" if data is None else f"a {data[0].__name__}"

    def walk(ta: Any, tb: Any) -> str:
        da, db = ta.node_data(), tb.node_data()
        if da is None and db is None:
            return ""
        if da is None or db is None or da[0] is not db[0]:
            return f" ({name(da)} {in_a} but {name(db)} {in_b})"
        try:
            same = bool(da[1] == db[1])
        except Exception:  # (an array as static data)
            same = da[1] is db[1]
        if not same:
            return (
                f" ({name(da)} has static data {da[1]!r} {in_a} but {db[1]!r} {in_b})"
            )
        for ca, cb in zip(ta.children(), tb.children()):
            found = walk(ca, cb)
            if found:
                return found
        return ""

    structure = jax.tree_util.tree_structure
    return walk(structure(pack(a)), structure(pack(b)))


def _append_error(key: str, where: str, what: str) -> TypeError:
    return TypeError(
        f"{key!r} is a Python list whose length changes in the JAX {what}{where}; "
        "a traced loop or `if` cannot grow a list (list.append runs once, while "
        "tracing). Preallocate an array (ys = jnp.zeros(n); ys = ys.at[i].set(v)) "
        "or, in a `for` over an array, collect values with jax.lax.scan outputs"
    )


def same_kind(
    key: str, before: Any, after: Any, where: str, what: str, changes: str
) -> None:
    """Raises unless `after` can stand where `before` was in a `lax` op."""
    if is_arrays(before) and is_arrays(after):
        lists = isinstance(before, list) and isinstance(after, list)
        if lists and len(before) != len(after):
            raise _append_error(key, where, what)
        structure = jax.tree_util.tree_structure
        if structure(pack(before)) == structure(pack(after)):
            return
    elif after is before or (
        type(after) is type(before)
        and isinstance(after, (str, bytes, type(None)))
        and after == before
    ):
        return
    elif (
        type(after) is type(before)
        and is_undefined(after)
        and after.symbol_name == before.symbol_name
    ):
        return  # unbound on both paths (e.g. each made by `after_return`)
    places = ("before the loop", "after an iteration")
    if what != "loop":
        places = ("in one branch", "in the other")
    detail = checks.difference(before, after, *places, leaf=kind_of)
    if not detail and is_arrays(before) and kind_of(before) == kind_of(after):
        # (Pytrees the kinds do not tell apart: a dataclass's meta fields.)
        detail = _structure_difference(before, after, *places)
    if what == "loop":
        # 'x' changes from an array to a str ('a') in the JAX loop at f.py:3
        change = f"{changes} {kind_of(before)} to {kind_of(after)}{detail} in"
    else:
        # the function's return value is an array on one path and None on
        # the other, in the JAX `if` at f.py:3
        change = (
            f"{changes} {kind_of(before)} on one path and {kind_of(after)} on the "
            f"other{detail}, in"
        )
    shown = quote(re.sub(r"^(\w+)'+$", r"\1", key))  # (a name made unique: x'')
    raise TypeError(
        f"{shown} {change} the JAX {what}{where}; a traced {what} carries arrays "
        "(and tuples, lists, dicts of them) of a fixed structure, and other "
        "values unchanged: give it one kind of value on every path"
    )


def refuse_big_ints(
    error: BaseException, what: str, where: str, outs: Sequence[dict[str, Any]]
) -> None:
    """Where `error` is JAX's OverflowError for a Python int its default
    integer type cannot hold ("Python int 3000000000 too large to convert to
    int32": no name, no line), raises it naming the variable of `outs` (the
    values a `what` statement carries, by key) that holds one, and the line."""
    if not isinstance(error, OverflowError):
        return
    dtype = jax.dtypes.canonicalize_dtype(np.int64)
    info = np.iinfo(dtype)
    for out in outs:
        for key, value in out.items():
            for leaf in jax.tree_util.tree_leaves(value):
                if type(leaf) is int and not info.min <= leaf <= info.max:
                    shown = quote(re.sub(r"^(\w+)'+$", r"\1", key))
                    raise OverflowError(
                        f"{shown} is the Python int {leaf} in the JAX {what}{where}, "
                        f"which carries it as an array of JAX's default int type, "
                        f"{dtype}, too small to hold it: enable 64-bit types "
                        "(jax.config.update('jax_enable_x64', True)), or give it "
                        "a value that fits (a float)"
                    ) from error


def add_notes(error: BaseException, what: str, where: str, keys: Sequence[str]) -> None:
    if getattr(error, "_ag_jax_note", False):
        return
    # (A name a statement carries twice, as a value and as a place, has a
    # key made unique with primes: the user's name is shown once.)
    shown = ", ".join(repr(k) for k in dict.fromkeys(k.rstrip("'") for k in keys))
    shown = shown or "none"
    add_note(error, f"while building the JAX {what}{where} (its variables: {shown})")
    error._ag_jax_note = True  # type: ignore[attr-defined]


def predicate(cond: Any, what: str, where: str) -> Any:
    """`cond` as a scalar bool array, as Python's truth test reads it."""
    cond = jnp.asarray(cond)
    if cond.size != 1:
        raise TypeError(
            f"the condition of the {what}{where} is a JAX array of shape "
            f"{cond.shape}; a condition must be a scalar: reduce it (jnp.any, "
            "jnp.all), or use jnp.where to choose elementwise"
        )
    if cond.shape:
        cond = cond.reshape(())
    return cond if cond.dtype == jnp.bool_ else cond != 0


def weak_promotions(error: TypeError, outs: list[dict[str, Any]]) -> dict:
    """The dtypes that make two branches' outputs agree where they differ only
    by a Python number's (weak) type: `x = 1` in one branch, `x = 2.5` in the
    other. Empty when there is nothing to promote."""
    if len(outs) != 2 or "dtype" not in str(error):
        return {}
    promote = {}
    for key in outs[0].keys() & outs[1].keys():
        a, b = outs[0][key], outs[1][key]
        try:
            la, lb = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)
        except Exception:
            continue
        if len(la) != len(lb):
            continue
        dtypes = []
        for x, y in zip(la, lb):
            if is_static(x) or is_static(y) or not (_typed(x) and _typed(y)):
                dtypes.append(None)
                continue
            dx, dy = jnp.result_type(x), jnp.result_type(y)
            weak = is_weak(x) or is_weak(y)
            dtypes.append(jnp.result_type(x, y) if dx != dy and weak else None)
        if any(d is not None for d in dtypes):
            promote[key] = dtypes
    return promote


def _typed(x: Any) -> bool:
    """Whether `x` has a dtype (not an undefined value: a `return` not
    taken gives one in both branches)."""
    try:
        jnp.result_type(x)
    except TypeError:
        return False
    return True


def is_weak(x: Any) -> bool:
    return isinstance(x, (bool, int, float, complex)) or bool(
        getattr(getattr(x, "aval", None), "weak_type", False)
    )


def cast_to(value: Any, dtypes: list[Any] | None) -> Any:
    if not dtypes:
        return value
    leaves, tree = jax.tree_util.tree_flatten(value)
    leaves = [jnp.asarray(x, d) if d is not None else x for x, d in zip(leaves, dtypes)]
    return jax.tree_util.tree_unflatten(tree, leaves)


def zeros_of_shapes(shapes: Any) -> Any:
    """Zeros for the `ShapeDtypeStruct`s in `shapes`; a string as it is."""
    return map_arrays(lambda s: jnp.zeros(s.shape, s.dtype), shapes)


def keeping(raw: Any, shapes: Any) -> Any:
    """`shapes` (what `jax.eval_shape` gave for `raw`), except that a list
    or dict of `raw` with no traced values in it stays that object, and a
    value that is not arrays stays as it is."""
    if not is_arrays(raw) or _untraced_container(raw):
        return raw
    if nest.is_nested(raw):
        pairs = zip(nest.children(raw), nest.children(shapes))
        return nest.rebuild(raw, [keeping(r, s) for r, s in pairs])
    return shapes


def zeros_keeping(value: Any) -> Any:
    """Zeros for the `ShapeDtypeStruct`s in `value` (a `keeping` result);
    its untraced lists and dicts, and other values, as they are: a value
    never read on its path, it leaves the object unchanged, as Python."""
    if isinstance(value, jax.ShapeDtypeStruct):
        return jnp.zeros(value.shape, value.dtype)
    if nest.is_nested(value) and not _untraced_container(value):
        return nest.rebuild(value, [zeros_keeping(c) for c in nest.children(value)])
    return value


def _staged(value: Any) -> bool:
    """Whether `value` is carried by a `lax` op as arrays (not a list or
    dict of Python values, which keeps its identity)."""
    return is_arrays(value) and not _untraced_container(value)


def _untraced_container(value: Any) -> bool:
    """A list or dict (or a tuple holding one) with no traced values (nor
    their shapes, from a trial trace) in it."""
    leaves = jax.tree_util.tree_leaves(value)
    return bool(mutable_parts(value)) and not any(
        isinstance(leaf, (jax.core.Tracer, jax.ShapeDtypeStruct)) for leaf in leaves
    )


def trial_shapes(fn: Callable[..., Any], *args: Any) -> Any:
    """`jax.eval_shape(fn, *args)` as a trial trace: the user's `print` is
    silent in it (`context.trial_trace`), as in every backend's trial."""
    with trial_trace():
        return unpack(jax.eval_shape(packed(fn), *pack(args)))


def abstract(fn: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """What `fn()` gives, traced once with `jax.eval_shape`: arrays as
    `ShapeDtypeStruct`s, other values as they are. Python side effects of
    `fn` happen once more, as in a graph backend's trial trace."""
    python: dict[str, Any] = {}

    def run() -> dict[str, Any]:
        arrays, other = split_values(fn())
        python.update(other)
        return arrays

    with items_kept():
        shapes = trial_shapes(run)
    return {**shapes, **python}


_JAX_DIRS = tuple(
    os.path.dirname(m.__file__) + os.sep
    for m in (jax, sys.modules.get("jaxlib"))
    if m is not None and getattr(m, "__file__", None)
)


def raised_on_traced_path(error: Exception) -> bool:
    """Whether Python raises `error` only on the path being traced (see the
    `verification.raised_on_path`); an error JAX raises about tracing (a tracer
    used as a Python int or bool, a shape mismatch) is not one, except an
    index a static shape shows is out of bounds (`l[0]` of an empty array
    under `if l.size > 0`): it fails where the path runs."""
    if isinstance(error, IndexError):
        return raised_on_path(error)
    if type(error).__module__.partition(".")[0] in ("jax", "jaxlib"):
        return False
    tb = error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is not None and tb.tb_frame.f_code.co_filename.startswith(_JAX_DIRS):
        return False
    return raised_on_path(error)
