"""The JAX backend: converted control flow on JAX tracers lowers to `jax.lax`.

Registers `jax.core.Tracer` (every transformation's tracer class, through
the dispatch tables' class-hierarchy lookup) for the operators, so that under
`jax.jit`, `jax.vmap`, `jax.grad` and their compositions:

- `if` on a traced scalar is `lax.cond`; `a if c else b`, `and`, `or` too
  (the right operand runs only inside its branch); `not` is `logical_not`;
- `while` with a traced test is `lax.while_loop` (rotated, carrying the
  test's value, when it has places whose writes by the test must be kept);
- `for` over a traced array is `lax.scan`, over `range(n)` with a traced `n`
  `lax.fori_loop`; with `break`/`return`, a fixed-length `for` is a `scan`
  whose steps after the `break` pass the state through (`lax.cond`: reverse
  mode works), and one of traced length a `lax.while_loop`;
- a `for` over a Python `range` whose state becomes traced is staged as one
  `lax.fori_loop` with static bounds (a `scan`, so reverse mode works), or is
  unrolled, with a warning naming the line, when the body needs the index as
  a Python int.

A tracer whose value is known (JVP tracers under an eager `jax.grad`) is
declined (`NotImplemented`): the statement runs as Python.

State travels as dicts keyed by the user's names, so JAX's own messages
("the output of body_fun at path ['total'] ...") name the variable; errors
raised while building a `lax` op get the user's `file:line` as a note.
Values that are not arrays (None, strings, functions, objects) are carried
by Python and must come out of a loop or `if` unchanged.

Imported lazily (see `dispatch.register_lazy_backend`): `import runtime`
never imports JAX.
"""

from __future__ import annotations

import builtins
import contextlib
import os
import sys
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from runtime import nest
from runtime.graph import user_location
from runtime.operators import dispatch
from runtime.operators import places as places_
from runtime.operators.control_flow import as_state, state_names, unpack_state
from runtime.operators.places import Place
from runtime.operators.staging import conditional
from runtime.operators.staging.born import Born
from runtime.operators.staging.raising import raise_when_run
from runtime.operators.staging.where import staged
from runtime.operators.variables import (
    UnboundAfterReturn,
    UnboundUntilRun,
    UndefinedReturnValue,
    is_undefined,
)
from runtime.operators.verification import (
    add_note,
    items_kept,
    label,
    mutable_parts,
    not_on_every_path,
    raised_on_path,
    refuse_untracked,
    untyped_loop_name,
    untyped_return,
    watching_items,
)

try:  # where JAX keeps these has moved between versions
    from jax._src.core import is_concrete as _is_concrete
    from jax._src.core import trace_state_clean as _trace_state_clean
except ImportError:  # pragma: no cover - other JAX versions

    def _is_concrete(value: Any) -> bool:
        try:
            jax.core.concrete_or_error(None, value)
        except Exception:
            return False
        return True

    def _trace_state_clean() -> bool:
        return False  # unknown: converted code always runs (still correct)


Tracer = jax.core.Tracer


class UnrolledLoopWarning(UserWarning):
    """A `for` over a Python range with traced state was unrolled, not
    staged as one `lax.fori_loop`, because its body needs the index as a
    Python int."""


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
_PLACEHOLDERS = (UndefinedReturnValue, UnboundAfterReturn)


def _where() -> str:
    where = user_location(2)
    return f" at {where}" if where is not None else ""


def _declined(value: Any) -> bool:
    """A tracer whose value is known runs as Python (eager `jax.grad`)."""
    return _is_concrete(value)


# -- state: dicts keyed by the user's names --------------------------------------


def _keys(names: Sequence[str]) -> list[str]:
    """Dict keys for `names`: their labels, made unique."""
    keys: list[str] = []
    for name in names:
        key = label(name)
        while key in keys:
            key += "'"
        keys.append(key)
    return keys


def _is_arrays(value: Any) -> bool:
    """Whether `value` is a pytree (tuple, list, dict, None) of numbers or
    arrays: what a `lax` op can carry."""
    leaves = jax.tree_util.tree_leaves(value)
    return all(isinstance(leaf, _NUMBERS) for leaf in leaves)


def _split(values: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(arrays, python): the values a `lax` op carries, and the others."""
    arrays, python = {}, {}
    for key, value in values.items():
        (arrays if _is_arrays(value) else python)[key] = value
    return arrays, python


def _kind(value: Any) -> str:
    if is_undefined(value):
        return "unassigned"
    if isinstance(value, list):
        return f"a list of {len(value)} items"
    if _is_arrays(value):
        return "an array" if isinstance(value, _NUMBERS) else "arrays"
    shown = repr(value)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    return f"a {type(value).__name__} ({shown})"


def _append_error(key: str, where: str, what: str) -> TypeError:
    return TypeError(
        f"{key!r} is a Python list whose length changes in the JAX {what}{where}; "
        "a traced loop or `if` cannot grow a list (list.append runs once, while "
        "tracing). Preallocate an array (ys = jnp.zeros(n); ys = ys.at[i].set(v)) "
        "or, in a `for` over an array, collect values with jax.lax.scan outputs"
    )


def _same_kind(
    key: str, before: Any, after: Any, where: str, what: str, changes: str
) -> None:
    """Raises unless `after` can stand where `before` was in a `lax` op."""
    if _is_arrays(before) and _is_arrays(after):
        lists = isinstance(before, list) and isinstance(after, list)
        if lists and len(before) != len(after):
            raise _append_error(key, where, what)
        if jax.tree_util.tree_structure(before) == jax.tree_util.tree_structure(after):
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
    raise TypeError(
        f"{key!r} {changes} {_kind(before)} {'to' if what == 'loop' else 'and'} "
        f"{_kind(after)} in the JAX {what}{where}; a traced {what} carries "
        "arrays (and tuples, lists, dicts of them) of a fixed structure, and "
        "other values unchanged: give it one kind of value on every path"
    )


def _notes(error: BaseException, what: str, where: str, keys: Sequence[str]) -> None:
    if getattr(error, "_ag_jax_note", False):
        return
    shown = ", ".join(repr(k) for k in keys) or "none"
    add_note(error, f"while building the JAX {what}{where} (its variables: {shown})")
    error._ag_jax_note = True  # type: ignore[attr-defined]


def _predicate(cond: Any, what: str, where: str) -> Any:
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


def _weak_promotions(error: TypeError, outs: list[dict[str, Any]]) -> dict:
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
            dx, dy = jnp.result_type(x), jnp.result_type(y)
            weak = _weak(x) or _weak(y)
            dtypes.append(jnp.result_type(x, y) if dx != dy and weak else None)
        if any(d is not None for d in dtypes):
            promote[key] = dtypes
    return promote


def _weak(x: Any) -> bool:
    return isinstance(x, (bool, int, float, complex)) or bool(
        getattr(getattr(x, "aval", None), "weak_type", False)
    )


def _cast(value: Any, dtypes: list[Any] | None) -> Any:
    if not dtypes:
        return value
    leaves, tree = jax.tree_util.tree_flatten(value)
    leaves = [jnp.asarray(x, d) if d is not None else x for x, d in zip(leaves, dtypes)]
    return jax.tree_util.tree_unflatten(tree, leaves)


def _zeros_like(shapes: Any) -> Any:
    return jax.tree_util.tree_map(lambda s: jnp.zeros(s.shape, s.dtype), shapes)


def _keeping(raw: Any, shapes: Any) -> Any:
    """`shapes` (what `jax.eval_shape` gave for `raw`), except that a list
    or dict of `raw` with no traced values in it stays that object, and a
    value that is not arrays stays as it is."""
    if not _is_arrays(raw) or _untraced_container(raw):
        return raw
    if nest.is_nested(raw):
        pairs = zip(nest.children(raw), nest.children(shapes))
        return nest.rebuild(raw, [_keeping(r, s) for r, s in pairs])
    return shapes


def _zeros_keeping(value: Any) -> Any:
    """Zeros for the `ShapeDtypeStruct`s in `value` (a `_keeping` result);
    its untraced lists and dicts, and other values, as they are: a value
    never read on its path, it leaves the object unchanged, as Python."""
    if isinstance(value, jax.ShapeDtypeStruct):
        return jnp.zeros(value.shape, value.dtype)
    if nest.is_nested(value) and not _untraced_container(value):
        return nest.rebuild(value, [_zeros_keeping(c) for c in nest.children(value)])
    return value


def _staged(value: Any) -> bool:
    """Whether `value` is carried by a `lax` op as arrays (not a list or
    dict of Python values, which keeps its identity)."""
    return _is_arrays(value) and not _untraced_container(value)


def _untraced_container(value: Any) -> bool:
    """A list or dict (or a tuple holding one) with no traced values (nor
    their shapes, from a trial trace) in it."""
    leaves = jax.tree_util.tree_leaves(value)
    return bool(mutable_parts(value)) and not any(
        isinstance(leaf, (jax.core.Tracer, jax.ShapeDtypeStruct)) for leaf in leaves
    )


def _abstract(fn: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """What `fn()` gives, traced once with `jax.eval_shape`: arrays as
    `ShapeDtypeStruct`s, other values as they are. Python side effects of
    `fn` happen once more, as in a graph backend's trial trace."""
    python: dict[str, Any] = {}

    def run() -> dict[str, Any]:
        arrays, other = _split(fn())
        python.update(other)
        return arrays

    with items_kept():
        shapes = jax.eval_shape(run)
    return {**shapes, **python}


# -- exceptions on a traced path ----------------------------------------------------


_JAX_DIRS = tuple(
    os.path.dirname(m.__file__) + os.sep
    for m in (jax, sys.modules.get("jaxlib"))
    if m is not None and getattr(m, "__file__", None)
)


def _on_path(error: Exception) -> bool:
    """Whether Python raises `error` only on the path being traced (see the
    `verification.raised_on_path`); an error JAX raises about tracing (a tracer
    used as a Python int or bool, a shape mismatch) is not one."""
    if type(error).__module__.partition(".")[0] in ("jax", "jaxlib"):
        return False
    tb = error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is not None and tb.tb_frame.f_code.co_filename.startswith(_JAX_DIRS):
        return False
    return raised_on_path(error)


class _JaxBackend:
    """JAX's primitives for the staging core (`staging.backend`)."""

    kind = "JAX"
    program = "a compiled JAX function"

    def checked_read(self, flag: Any, value: Any, message: str) -> Any:
        return _checked(flag, value, message)

    def raise_at_run(self, error: Exception, message: str) -> None:
        def fail(runs: Any) -> None:
            if np.any(runs):
                try:
                    raised = type(error)(message)
                except Exception:  # an exception class with other arguments
                    raised = RuntimeError(f"{type(error).__name__}: {message}")
                raise raised

        _callback(fail)

    def on_path(self, error: Exception) -> bool:
        return _on_path(error)

    def branch_args(self, state: tuple[Any, ...]) -> tuple[Any, ...]:
        # Each branch gets its own lists: one may append to them.
        return tuple(list(v) if isinstance(v, list) else v for v in state)

    def trial(self, fn: Callable[[], list[Any]]) -> list[Any]:
        """What `fn()` gives, traced once with `jax.eval_shape`: arrays as
        `ShapeDtypeStruct`s; a list or dict with no traced values in it,
        and values that are not arrays, as they are."""
        raw: list[Any] = []

        def run() -> list[Any]:
            raw[:] = fn()
            return [v if _is_arrays(v) else None for v in raw]

        with items_kept():
            shapes = jax.eval_shape(run)
        return [_keeping(v, s) for v, s in zip(raw, shapes)]

    def zeros(self, values: list[Any]) -> list[Any]:
        return [_zeros_keeping(v) for v in values]

    def fill(self, value: Any, other: Any) -> Any:
        return _zeros_keeping(other) if _is_arrays(other) else value

    def snapshot(self, values: list[Any]) -> list[Any]:
        return nest.map_structure(lambda v: v, values)

    def keep_objects(
        self, out: list[Any], given: dict[str, list[Any]], copies: dict[str, Any]
    ) -> list[Any]:
        """A list or dict a branch gives back as it came stays that object."""
        return [
            nest.keep_shared(v, a, b, ca, cb)
            for v, a, b, ca, cb in zip(
                out, given["if"], given["else"], copies["if"], copies["else"]
            )
        ]

    def cond(self, *args: Any) -> list[Any]:
        return _cond(*args)

    def keep_refusal(self, refusal: Exception) -> None:
        # No graph keeps it: if user code catches it while tracing, the
        # compiled function raises it when run rather than run without it.
        def refuse(runs: Any) -> None:
            if np.any(runs):
                raise refusal

        _callback(refuse)


BACKEND = _JaxBackend()


def _raising_branch(
    error: Exception, other: Callable[[], dict[str, Any]], label: str
) -> dict[str, Any]:
    """A traced `if` branch that raises `error` when it runs: its outputs are
    zeros of the other branch's (if that one raises too, the `if` raises
    now: it cannot be built)."""
    sample = _abstract(other)
    raise_when_run(
        BACKEND, error, f"the {label} branch of the JAX `if`", "this run took"
    )
    return {k: _zeros_like(v) if _is_arrays(v) else v for k, v in sample.items()}


# -- if ----------------------------------------------------------------------------


def _if_stmt(
    cond: Any,
    body: Callable[..., Any],
    orelse: Callable[..., Any] | None,
    state: tuple[Any, ...],
    names: tuple[str, ...],
    places: Sequence[Place] = (),
) -> Any:
    if _declined(cond):
        return NotImplemented
    return conditional.if_stmt(BACKEND, cond, body, orelse, state, names, places)


def _cond(
    cond: Any,
    true_fn: Callable[[], list[Any]],
    false_fn: Callable[[], list[Any]],
    labels: list[str],
) -> list[Any]:
    """`lax.cond` of two branches giving one value per label: the arrays
    are its outputs, the other values must agree and pass by Python; two
    Python numbers of different types are promoted (`x = 1` in one
    branch, `x = 2.5` in the other)."""
    where = _where()
    keys = _keys(labels)
    pred = _predicate(cond, "`if`", where)
    seen: dict[str, dict[str, Any]] = {}  # each branch's outputs, as traced

    def build(promote: dict[str, Any]) -> dict[str, Any]:
        seen.clear()
        python: dict[str, dict[str, Any]] = {}

        def branch(which: str, fn: Callable[[], list[Any]]) -> Callable[[], Any]:
            other = "else" if which == "if" else "if"

            def run() -> dict[str, Any]:
                # (The else branch's condition is built only if a callback
                # needs it.)
                taken = pred if which == "if" else lambda: jnp.logical_not(pred)
                with _path(taken):
                    out = dict(zip(keys, fn()))
                seen[which] = out
                if len(seen) == 2:
                    for key in out:
                        _same_kind(key, seen[other][key], out[key], where, "`if`", "is")
                arrays, python[which] = _split(out)
                return {k: _cast(v, promote.get(k)) for k, v in arrays.items()}

            return run

        result = lax.cond(pred, branch("if", true_fn), branch("else", false_fn))
        return {**python["if"], **result}

    try:
        try:
            out = build({})
        except TypeError as error:
            promote = _weak_promotions(error, list(seen.values()))
            if not promote:
                raise
            out = build(promote)
    except (TypeError, ValueError) as error:
        _notes(error, "`if`", where, keys)
        raise
    return [out[k] for k in keys]


# -- loops ---------------------------------------------------------------------------


# -- the path: when traced code runs --------------------------------------------------


class _Path(threading.local):
    """The traced conditions under which the code being traced runs: the
    predicate of each enclosing `lax.cond` branch and loop iteration (or a
    function computing it). Under `jax.vmap` a `cond` with a batched
    predicate runs both branches, and a loop runs its body for lanes that
    have finished, so the run-time callbacks (assert, print, unbound reads)
    act only where the path holds."""

    def __init__(self) -> None:
        self.conds: list[Any] = []
        self.replaying = False  # computing a lazy condition: no callbacks


_PATH = _Path()


@contextlib.contextmanager
def _path(cond: Any) -> Iterator[None]:
    """Traces the block as running only where `cond` (a traced bool, or a
    function giving one when a callback needs it) holds."""
    _PATH.conds.append(cond)
    try:
        yield
    finally:
        _PATH.conds.pop()


def _path_mask() -> Any:
    """Where the code being traced runs (a traced bool), or True."""
    mask: Any = True
    for cond in list(_PATH.conds):
        if callable(cond):
            _PATH.replaying, was = True, _PATH.replaying
            try:
                cond = cond()
            finally:
                _PATH.replaying = was
        mask = cond if mask is True else jnp.logical_and(mask, cond)
    return mask


def _callback(fn: Callable[..., None], *args: Any) -> None:
    """`jax.debug.callback(fn, where, *args)`: `fn` gets where the path holds
    (a bool array, one per `vmap` lane) first."""
    if not _PATH.replaying:
        jax.debug.callback(fn, _path_mask(), *args)


def _checked(flag: Any, value: Any, message: str) -> Any:
    """`value`, and a run-time check that `flag` is set where it is read: the
    JAX form of Python's UnboundLocalError for a name a loop may not have
    assigned (raised by the compiled function, inside JAX's runtime error)."""

    def check(where: Any, flag: Any) -> None:
        if not np.all(np.logical_or(flag, np.logical_not(where))):
            raise UnboundLocalError(message)

    _callback(check, flag)
    return value


class _ReadFirst(Exception):
    """The body read a name that the loop assigns first, before assigning it."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


class _Loop:
    """A loop's state as one dict keyed by the user's names: the loop
    variables, then the places. What a `lax` loop carries is its arrays (and
    the flags of the names the loop assigns first); other values stay in
    Python and must come out unchanged."""

    def __init__(
        self,
        body: Callable[..., Any],
        state: tuple[Any, ...],
        names: tuple[str, ...],
        places: Sequence[Place],
        skip: int,
        where: str,
    ) -> None:
        refuse_untracked(places)
        self.body = body
        self.count = len(state)
        self.keys = _keys(names)
        self.names = dict(zip(self.keys, names))
        self.names.update((p.name, p.name) for p in places)
        self.places = places
        self.place_keys = [p.name for p in places]
        self.skip = skip
        self.where = where
        self.before = places_.read(places)
        self.init = dict(zip(self.keys, state))
        self.init.update(zip(self.place_keys, self.before))
        self.born = Born(BACKEND, {}, self.names, f"the JAX loop{where}")

    # Calling the user's functions on a state dict.

    def args(self, values: dict[str, Any]) -> list[Any]:
        places_.write(self.places, [values[k] for k in self.place_keys])
        return [values[k] for k in self.keys]

    def apply(self, items: tuple[Any, ...], values: dict[str, Any]) -> dict[str, Any]:
        args = self.args(values)
        try:
            result = as_state(self.body(*items, *args), self.count)
        except Exception as error:
            # (An unbound read tells a trial trace a loop-born name's type.)
            if isinstance(error, NameError) or not _on_path(error):
                raise
            # Python raises it in the iterations that reach it: so does the
            # compiled function; the iteration gives the state back.
            raise_when_run(BACKEND, error, "the body of the JAX loop", "this run ran")
            places_.write(self.places, [values[k] for k in self.place_keys])
            result = args
        out = dict(zip(self.keys, result))
        out.update(zip(self.place_keys, places_.read(self.places)))
        return out

    def call_test(self, test: Callable[..., Any], values: dict[str, Any]) -> Any:
        return test(*self.args(values))

    # The carried state.

    def start(self, item: Any) -> dict[str, Any]:
        """The initial carry: names first assigned in the loop (and the
        function's return value) start as zeros of the type the body gives
        them, found with `jax.eval_shape`."""
        carry, self.python = _split(self.init)
        for key, value in list(self.python.items()):
            if type(value) is UnboundUntilRun:  # an earlier loop's
                del self.python[key]
                carry[key] = value.value
                self.born.flags[key] = flag = f"{key} assigned"
                carry[flag] = value.flag
        unset = [k for k, v in self.python.items() if is_undefined(v)]
        if unset:
            sample = self._sample(carry, item)
            for key in unset:
                value, got = self.init[key], sample[key]
                if got is value:
                    continue  # assigned on no path: it stays as it is
                if not _is_arrays(got) or is_undefined(got):
                    if isinstance(value, UndefinedReturnValue):
                        raise untyped_return("JAX")
                    raise not_on_every_path(self.names[key], "JAX", self.where)
                del self.python[key]
                carry[key] = _zeros_like(got)
                if not isinstance(value, UndefinedReturnValue):
                    self.born.flags[key] = flag = f"{key} assigned"
                    carry[flag] = False
        self.carry_keys = list(carry)
        return carry

    def _sample(self, carry: dict[str, Any], item: Any) -> dict[str, Any]:
        """What the body gives for the initial carry, traced once.

        The body may read a name that only an earlier iteration assigns
        (`if i > 0: total += prev` then `prev = x[i]`): its type is then
        found as a fixed point, the first of the types of the loop's values
        (the item, the carry, then int32 and float32 scalars) that the body
        maps to itself.
        """
        guesses: dict[str, Any] = {}
        while True:
            try:
                return self._trial({**carry, **guesses}, item)
            except _ReadFirst as read:
                guess = None
                if read.key not in guesses:
                    guess = self._fixed_point(carry, item, guesses, read.key)
                if guess is None:
                    raise ValueError(
                        untyped_loop_name(self.names[read.key], "JAX", self.where)
                    ) from None
                guesses[read.key] = guess

    def _fixed_point(
        self, carry: dict[str, Any], item: Any, guesses: dict[str, Any], key: str
    ) -> Any:
        leaves = [item, *jax.tree_util.tree_leaves(carry)]
        leaves += [jnp.int32(0), jnp.float32(0)]
        tried = []
        for leaf in leaves:
            if leaf is None:
                continue
            guess = jax.ShapeDtypeStruct(jnp.shape(leaf), jnp.result_type(leaf))
            if guess in tried:
                continue
            tried.append(guess)
            try:
                out = self._trial({**carry, **guesses, key: guess}, item)[key]
            except (TypeError, ValueError, _ReadFirst):
                continue
            if (
                isinstance(out, jax.ShapeDtypeStruct)
                and out.shape == guess.shape
                and out.dtype == guess.dtype
            ):
                return guess
        return None

    def _trial(self, carry: dict[str, Any], item: Any) -> dict[str, Any]:
        def run(carry: dict[str, Any], item: Any) -> dict[str, Any]:
            items = (item,) if self.skip else ()
            try:
                return self.apply(items, {**self.init, **carry})
            except UnboundLocalError as e:
                for key, name in self.names.items():
                    if is_undefined(self.init[key]) and f"'{name}'" in str(e):
                        raise _ReadFirst(key) from None
                raise

        python: dict[str, Any] = {}

        def arrays_only(carry: dict[str, Any], item: Any) -> dict[str, Any]:
            out = run(carry, item)
            for key, value in out.items():
                if type(value) is UnboundUntilRun:  # maybe set, by an inner loop
                    out[key] = value.value
            arrays, other = _split(out)
            python.update(other)
            return arrays

        try:
            shapes = jax.eval_shape(arrays_only, carry, item)
        finally:
            places_.write(self.places, self.before)
        return {**shapes, **python}

    def _unbound(self, values: dict[str, Any], when: str) -> dict[str, Any]:
        """`values` with each name the loop assigns first as an
        `UnboundUntilRun` that checks its flag where it is read."""
        return self.born.unbound(values, when)

    def step(
        self, items: tuple[Any, ...], carry: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """One iteration: (the new carry, the user-visible outputs that a
        loop test reads)."""
        values = {**self.python, **carry}
        inputs = self._unbound(values, "in")
        # (A list the body appends to changes in place: keep its length.)
        before = {k: list(v) if isinstance(v, list) else v for k, v in carry.items()}
        out = self.apply(items, inputs)
        flags = self.born.flags
        kept = {k for k in flags if out[k] is inputs[k]}  # not assigned here
        self.born.step(carry, inputs, out, lambda: jnp.asarray(True))
        new = {}
        for key in self.carry_keys:
            if key not in kept and key not in flags.values():
                _same_kind(
                    key, before[key], out[key], self.where, "loop", "changes from"
                )
            new[key] = out[key]
        for key, value in self.python.items():
            _same_kind(key, value, out[key], self.where, "loop", "changes from")
        return new, out

    def finish(self, carry: dict[str, Any]) -> Any:
        values = self._unbound({**self.python, **carry}, "after")
        places_.write(self.places, [values[k] for k in self.place_keys])
        return unpack_state([values[k] for k in self.keys])

    def build(self, make: Callable[[], dict[str, Any]]) -> Any:
        """`make()` (which builds the `lax` loop and returns its final
        carry), with the places restored and a note on failure."""
        try:
            carry = make()
        except BaseException as error:
            places_.write(self.places, self.before)
            if isinstance(error, (TypeError, ValueError)):
                _notes(error, "loop", self.where, list(self.init))
            raise
        return self.finish(carry)


_COND = "the loop's condition"
_INDEX = "the loop's iteration"


def _max_iterations(opts: dict[str, Any] | None, where: str) -> Any:
    opts = opts or {}
    if opts.get("shape_invariants"):
        raise ValueError(
            f"autograph.set_loop_options(shape_invariants=...) in the JAX loop{where}: "
            "JAX loop variables keep their shapes; pad the values to a fixed shape"
        )
    return opts.get("maximum_iterations")


def _while_stmt(
    test: Callable[..., Any],
    body: Callable[..., Any],
    state: tuple[Any, ...],
    names: tuple[str, ...],
    first_cond: Any,
    places: Sequence[Place] = (),
    opts: dict[str, Any] | None = None,
) -> Any:
    if _declined(first_cond):
        return NotImplemented
    where = _where()
    loop = _Loop(body, state, names or state_names(test), places, 0, where)
    limit = _max_iterations(opts, where)

    # With places, the loop is rotated: the test's value is carried,
    # starting from the one the test has given already, and the body
    # computes the next, so what the test writes (a call that sets a
    # nonlocal) is carried too. Without, the test is traced again as the
    # loop's condition: XLA compiles that form faster.
    rotate = bool(places)

    def make() -> dict[str, Any]:
        carry = loop.start(None)
        if rotate:
            carry[_COND] = _predicate(first_cond, "`while` loop", where)
        if limit is not None:
            carry[_INDEX] = jnp.asarray(0)

        def cond_fun(c: dict[str, Any]) -> Any:
            if rotate:
                go = c[_COND]
            else:
                inner = {k: v for k, v in c.items() if k != _INDEX}
                values = loop._unbound({**loop.python, **inner}, "in")
                go = _predicate(loop.call_test(test, values), "`while` loop", where)
            if limit is None:
                return go
            return jnp.logical_and(go, c[_INDEX] < limit)

        def body_fun(c: dict[str, Any]) -> dict[str, Any]:
            inner = {k: v for k, v in c.items() if k not in (_COND, _INDEX)}
            # (Under vmap the body also runs for lanes whose loop has ended.)
            with _path(lambda: cond_fun(c)):
                new, out = loop.step((), inner)
            if rotate:
                test_value = loop.call_test(test, out)
                new[_COND] = _predicate(test_value, "`while` loop", where)
                # What the test left in the places.
                for key, value in zip(loop.place_keys, places_.read(loop.places)):
                    if key in new:
                        new[key] = value
            if limit is not None:
                new[_INDEX] = c[_INDEX] + 1
            return new

        result = lax.while_loop(cond_fun, body_fun, carry)
        result.pop(_COND, None)
        result.pop(_INDEX, None)
        return result

    return loop.build(make)


class TracedRange:
    """`range(start, stop, step)` with a traced argument: what `range(n)`
    gives in converted code when `n` is traced. A `for` over it is one
    `lax.fori_loop` (a `while_loop`, since its trip count is traced)."""

    def __init__(self, *args: Any) -> None:
        rng = slice(*args) if len(args) > 1 else slice(0, args[0])
        self.start = 0 if rng.start is None else rng.start
        self.stop = rng.stop
        self.step = 1 if rng.step is None else rng.step
        if isinstance(self.step, int) and self.step == 0:
            raise ValueError("range() arg 3 must not be zero")

    def __len__(self) -> int:
        raise TypeError(
            "len() of a range with a traced bound is traced; converted code's "
            "len(range(n)) gives it, plain len() cannot"
        )

    def length(self, exact: bool = True) -> Any:
        """The number of items, traced; with `exact=False` a trip count that
        may be negative for an empty range (a loop runs 0 times either way),
        which for `range(n)` is `n` itself."""
        start, stop, step = self.start, self.stop, self.step
        if not exact and isinstance(step, int) and step == 1:
            return stop if isinstance(start, int) and start == 0 else stop - start
        up = jnp.maximum(0, (stop - start + step - 1) // step)
        down = jnp.maximum(0, (start - stop - step - 1) // -step)
        if isinstance(step, int):
            return up if step > 0 else down
        return jnp.where(step > 0, up, down)

    def __iter__(self) -> Any:
        raise TypeError(
            "a range with a traced bound cannot be iterated in Python; use it in a "
            "`for` loop of a converted function (one lax.fori_loop), or give it "
            "Python int bounds"
        )


def _for_stmt(
    iterable: Any,
    body: Callable[..., Any],
    state: tuple[Any, ...],
    names: tuple[str, ...],
    extra_test: Callable[..., Any] | None,
    places: Sequence[Place] = (),
    opts: dict[str, Any] | None = None,
) -> Any:
    if isinstance(iterable, Tracer) and _declined(iterable):
        return NotImplemented  # a concrete array: Python iterates its rows
    # `for_stmt` hands over the rest of a range whose `break`/`return`
    # condition is a tracer: decline it if its value is known.
    if isinstance(iterable, range) and (
        extra_test is None or _declined(extra_test(*state))
    ):
        return NotImplemented
    return _for_loop(iterable, body, state, names, extra_test, places, opts)


def _for_loop(
    iterable: Any,
    body: Callable[..., Any],
    state: tuple[Any, ...],
    names: tuple[str, ...],
    extra_test: Callable[..., Any] | None,
    places: Sequence[Place],
    opts: dict[str, Any] | None,
) -> Any:
    """A `for` over a traced array, a TracedRange or a Python range as one
    `lax` loop: `scan`, `fori_loop`, or `while_loop` with `break`/`return`."""
    where = user_location(3)
    where = f" at {where}" if where is not None else ""
    loop = _Loop(body, state, names or state_names(body, 1), places, 1, where)
    limit = _max_iterations(opts, where)
    if isinstance(iterable, Tracer):
        if not iterable.shape:
            raise TypeError(
                f"the `for` loop{where} iterates over a 0-d JAX array; iterate "
                "over a 1-D or higher array, or use range(n)"
            )
        length: Any = iterable.shape[0]
        item_shape = jax.ShapeDtypeStruct(iterable.shape[1:], iterable.dtype)

        def item(i: Any) -> Any:
            return iterable[i]

    else:  # a Python range (static bounds) or a TracedRange
        start, step = iterable.start, iterable.step
        if isinstance(iterable, range):
            length = len(iterable)
        else:
            length = iterable.length(exact=False)
        item_shape = jax.ShapeDtypeStruct((), jnp.asarray(start + step).dtype)

        def item(i: Any) -> Any:
            if isinstance(start, int) and isinstance(step, int):
                return i if (start, step) == (0, 1) else start + i * step
            return start + i * step

    if extra_test is None and limit is None:

        def make() -> dict[str, Any]:
            carry = loop.start(item_shape)
            if isinstance(iterable, Tracer):
                return lax.scan(
                    lambda c, x: (loop.step((x,), c)[0], None), carry, iterable
                )[0]

            def body_fun(i: Any, c: dict[str, Any]) -> dict[str, Any]:
                # (A traced trip count is a while_loop: under vmap its body
                # also runs for lanes whose loop has ended.)
                with _path(lambda: i < length):
                    return loop.step((item(i),), c)[0]

            return lax.fori_loop(0, length, body_fun, carry)

        return loop.build(make)

    def make_while() -> dict[str, Any]:
        carry = loop.start(item_shape)

        def more(i: Any, out: dict[str, Any]) -> Any:
            go = i < length
            if limit is not None:
                go = jnp.logical_and(go, i < limit)
            if extra_test is None:
                return go
            test = _predicate(loop.call_test(extra_test, out), "`for` loop", where)
            return jnp.logical_and(test, go)

        carry[_COND] = more(0, loop._unbound({**loop.python, **carry}, "in"))
        carry[_INDEX] = jnp.asarray(0)

        def body_fun(c: dict[str, Any]) -> dict[str, Any]:
            inner = {k: v for k, v in c.items() if k not in (_COND, _INDEX)}
            i = c[_INDEX]
            with _path(c[_COND]):
                new, out = loop.step((item(i),), inner)
            new[_INDEX] = i + 1
            new[_COND] = more(i + 1, out)
            return new

        if isinstance(length, int):
            # A static trip count: a `scan` whose steps after a `break` pass
            # the state through (`lax.cond`), so reverse mode works (a
            # while_loop would stop early, but JAX cannot reverse it).
            carry = _promote_weak(carry, jax.eval_shape(body_fun, carry))

            def step(c: dict[str, Any], _: Any) -> tuple[dict[str, Any], None]:
                return lax.cond(c[_COND], body_fun, lambda c: c, c), None

            result = lax.scan(step, carry, None, length=length)[0]
        else:
            result = lax.while_loop(lambda c: c[_COND], body_fun, carry)
        result.pop(_COND)
        result.pop(_INDEX)
        return result

    return loop.build(make_while)


def _promote_weak(carry: Any, shapes: Any) -> Any:
    """`carry` with each Python number (weakly typed value) whose dtype the
    loop body changes cast to the body's dtype, as `lax.while_loop` does for
    its own carry (`total = 0` then `total += 0.5`)."""
    leaves, tree = jax.tree_util.tree_flatten(carry)
    out, out_tree = jax.tree_util.tree_flatten(shapes)
    if tree != out_tree:
        return carry  # the loop's own check names the variable
    leaves = [
        jnp.asarray(v, s.dtype) if _weak(v) and jnp.result_type(v) != s.dtype else v
        for v, s in zip(leaves, out)
    ]
    return jax.tree_util.tree_unflatten(tree, leaves)


_NEEDS_PYTHON_INT = (
    jax.errors.TracerIntegerConversionError,
    jax.errors.ConcretizationTypeError,
    jax.errors.TracerBoolConversionError,
)


def _for_range(
    iterable: range,
    body: Callable[..., Any],
    state: tuple[Any, ...],
    names: tuple[str, ...],
    extra_test: Callable[..., Any] | None,
    places: Sequence[Place] = (),
    opts: dict[str, Any] | None = None,
) -> Any:
    """The rest of a `for` over a Python range whose state has become traced:
    one `lax.fori_loop` with static bounds (a `scan`), or NotImplemented to
    unroll it, with a warning, when the body needs the index as an int."""
    if len(iterable) < 2:
        return NotImplemented  # nothing to gain
    where = user_location(2)
    try:
        return _for_loop(iterable, body, state, names, extra_test, places, opts)
    except _NEEDS_PYTHON_INT as error:
        message = (
            f"this `for` loop over range() is unrolled ({len(iterable)} iterations "
            "traced one by one) instead of staged as one lax.fori_loop: its body "
            f"needs the index as a Python int ({type(error).__name__}); index arrays, "
            "not Python lists, with it to stage the loop"
        )
        if where is not None:
            warnings.warn_explicit(
                message, UnrolledLoopWarning, where.filename, where.lineno
            )
        else:
            warnings.warn(message, UnrolledLoopWarning, stacklevel=2)
        return NotImplemented


# -- expressions and builtins --------------------------------------------------------


def _and(a: Any, b: Callable[[], Any]) -> Any:
    if _declined(a):
        return NotImplemented
    return _if_exp(a, b, lambda: a, "and")


def _or(a: Any, b: Callable[[], Any]) -> Any:
    if _declined(a):
        return NotImplemented
    return _if_exp(a, lambda: a, b, "or")


def _not(a: Any) -> Any:
    if _declined(a):
        return NotImplemented
    return jnp.logical_not(a)


def _if_exp(
    cond: Any,
    if_true: Callable[[], Any],
    if_false: Callable[[], Any],
    expr_repr: str = "",
) -> Any:
    if _declined(cond):
        return NotImplemented
    key = {
        "and": "the value of the `and`",
        "or": "the value of the `or`",
    }.get(expr_repr, "the value of the `if`/`else`")
    return _cond_value(cond, if_true, if_false, key)


def _cond_value(
    cond: Any, if_true: Callable[[], Any], if_false: Callable[[], Any], key: str
) -> Any:
    """`if_true() if cond else if_false()` as a `lax.cond` of one value."""
    where = _where()
    pred = _predicate(cond, "conditional expression", where)
    seen: dict[str, Any] = {}

    def arm(
        fn: Callable[[], Any], other: Callable[[], Any], which: str, dtypes: Any
    ) -> Callable[[], Any]:
        def run() -> Any:
            with _path(pred if which == "true" else lambda: jnp.logical_not(pred)):
                try:
                    value = fn()
                except Exception as error:
                    if not _on_path(error):
                        raise
                    label = "if" if which == "true" else "else"
                    value = _raising_branch(error, lambda: {key: other()}, label)[key]
            if isinstance(value, _PLACEHOLDERS):
                # `return retval_` where no traced path has returned: never
                # used; it takes the other arm's type.
                sample = _abstract(lambda: {key: other()})[key]
                value = _zeros_like(sample) if _is_arrays(sample) else value
            seen[which] = value
            if len(seen) == 2:
                other_value = seen["true" if which == "false" else "false"]
                _same_kind(key, other_value, value, where, "`if`", "is")
            return _cast(value, dtypes)

        return run

    def build(dtypes: Any) -> Any:
        seen.clear()
        return lax.cond(
            pred,
            arm(if_true, if_false, "true", dtypes),
            arm(if_false, if_true, "false", dtypes),
        )

    try:
        return build(None)
    except TypeError as error:
        promote = _weak_promotions(error, [{key: v} for v in seen.values()])
        if not promote:
            _notes(error, "`if`", where, [key])
            raise
        return build(promote[key])


def _assert(cond: Any, message: Callable[[], Any] | None) -> Any:
    """A traced `assert`: checked when the compiled function runs (a failure
    raises AssertionError inside JAX's runtime error)."""
    if _declined(cond):
        return NotImplemented
    where = _where()
    pred = _predicate(cond, "`assert`", where)
    text = None if message is None else message()
    traced = _is_arrays(text) and text is not None and not isinstance(text, bool)

    def check(runs: Any, ok: Any, *shown: Any) -> None:
        if not np.all(np.logical_or(ok, np.logical_not(runs))):
            detail = shown[0] if traced else text
            raise AssertionError(
                f"{detail}" if detail is not None else f"assertion failed{where}"
            )

    _callback(check, pred, *((text,) if traced else ()))
    return None


def _print(*args: Any, **kwargs: Any) -> Any:
    """`print` with a traced argument: prints when the compiled function
    runs (`jax.debug.callback`, like `jax.debug.print`), with the values."""
    if all(not isinstance(a, Tracer) or _declined(a) for a in args):
        return NotImplemented
    traced = [i for i, a in enumerate(args) if isinstance(a, Tracer)]
    shown = list(args)

    def emit(runs: Any, *values: Any) -> None:
        if not np.all(runs):
            return  # a vmap lane that does not take this path
        for i, value in zip(traced, values):
            shown[i] = value
        kw = dict(kwargs)
        if kw.get("file") is None:
            kw["file"] = sys.stdout
        builtins.print(*shown, **kw)

    _callback(emit, *(args[i] for i in traced))
    return None


def _range(*args: Any) -> Any:
    if all(not isinstance(a, Tracer) or _declined(a) for a in args):
        return NotImplemented
    return TracedRange(*args)


def _len(value: Any) -> Any:
    if isinstance(value, TracedRange):
        return value.length()
    return NotImplemented


def _int(value: Any, *args: Any, **kwargs: Any) -> Any:
    if _declined(value) or args or kwargs:
        return NotImplemented
    value = jnp.asarray(value)
    if jnp.issubdtype(value.dtype, jnp.floating):
        value = jnp.trunc(value)
    return value.astype(jnp.int32)


def _float(value: Any) -> Any:
    if _declined(value):
        return NotImplemented
    return jnp.asarray(value).astype(jnp.float32)


def _active() -> bool:
    """JAX is tracing a function (jit, grad, vmap, ...)."""
    return not _trace_state_clean()


def register() -> None:
    """Installs the JAX backend into the dispatch tables."""
    for operator, impl in (
        ("if_stmt", watching_items(_if_stmt, "`lax.cond`", 5)),
        ("while_stmt", watching_items(_while_stmt, "JAX loop")),
        ("for_stmt", watching_items(_for_stmt, "JAX loop")),
        ("for_range", watching_items(_for_range, "JAX loop")),
        ("and_", _and),
        ("or_", _or),
        ("not_", _not),
        ("if_exp", _if_exp),
        ("assert_stmt", _assert),
        ("print_", _print),
        ("range_", _range),
        ("int_", _int),
        ("float_", _float),
    ):
        dispatch.register(operator, Tracer, staged(impl))
    dispatch.register(
        "for_stmt", TracedRange, staged(watching_items(_for_stmt, "JAX loop"))
    )
    dispatch.register("len_", TracedRange, _len)
    dispatch.register_activity_check(_active)


register()
