"""The JAX backend's primitives for the staging core (`staging.backend`):
`lax.cond`, trial traces with `jax.eval_shape`, zeros, run-time checks
through `jax.debug.callback` that act only where the traced path runs."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from runtime import formatted, nest
from runtime.context import STATE
from runtime.operators.backends.jax_messages import run_texts, staged
from runtime.operators.backends.jax_messages import shown as shown_in
from runtime.operators.backends.jax_values import (
    add_notes,
    cast_to,
    is_arrays,
    keeping,
    packed,
    predicate,
    raised_on_traced_path,
    refuse_big_ints,
    same_kind,
    split_values,
    state_keys,
    trial_shapes,
    unpack,
    weak_promotions,
    where_now,
    zeros_keeping,
)
from runtime.operators.staging.aliasing import items_kept
from runtime.operators.staging.raising import as_written


class _JaxBackend:
    """JAX's primitives for the staging core (`staging.backend`)."""

    kind = "JAX"
    program = "a compiled JAX function"

    def on_path(self, error: Exception) -> bool:
        return raised_on_traced_path(error)

    def branch_args(self, state: tuple[Any, ...]) -> tuple[Any, ...]:
        # (A branch that appends to a list changes it in place: the if is
        # built again with the list as a place, `mutations.tracked`.)
        return state

    def trial(self, fn: Callable[[], list[Any]]) -> list[Any]:
        """What `fn()` gives, traced once with `jax.eval_shape`: arrays as
        `ShapeDtypeStruct`s; a list or dict with no traced values in it,
        and values that are not arrays, as they are."""
        raw: list[Any] = []

        def run() -> list[Any]:
            raw[:] = fn()
            return [v if is_arrays(v) else None for v in raw]

        with items_kept():
            shapes = trial_shapes(run)
        return [keeping(v, s) for v, s in zip(raw, shapes)]

    def zeros(self, values: list[Any]) -> list[Any]:
        return [zeros_keeping(v) for v in values]

    def fill(self, value: Any, other: Any) -> Any:
        return zeros_keeping(other) if is_arrays(other) else value

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

    def checked_read(
        self,
        flag: Any,
        value: Any,
        message: str,
        raises: type[Exception] = UnboundLocalError,
    ) -> Any:
        return _checked(flag, value, message, raises)

    def raise_at_run(self, error: Exception, message: str) -> None:
        kind = type(error)
        shown = shown_in(message)

        def fail(runs: Any, *values: Any) -> None:
            if np.any(runs):
                text = shown.fill(run_texts(values, shown))
                raise staged(as_written(kind, text))

        run_shown(fail, shown)

    def keep_refusal(self, refusal: Exception) -> None:
        # No graph keeps it: the outermost converted call raises it when it
        # returns (`autograph.impl.api`), where no user code can catch it,
        # as the graph tracer does at the end of a trace. A trial trace's
        # are thrown away with it, as a scratch graph's are.
        state = STATE
        if state.trials or state.refusals is None:
            return
        if not any(e is refusal for e in state.refusals):
            state.refusals.append(refusal)


BACKEND = _JaxBackend()


@contextlib.contextmanager
def tentative() -> Iterator[None]:
    """A block whose failure its caller recovers from (a staged range that
    falls back to unrolling): refusals kept in it are forgotten if it
    raises, so they do not end the trace when the function returns."""
    state = STATE
    count = len(state.refusals) if state.refusals is not None else 0
    try:
        yield
    except BaseException:
        if state.refusals is not None:
            del state.refusals[count:]
        raise


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
    where = where_now()
    keys = state_keys(labels)
    pred = predicate(cond, "`if`", where)
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
                with traced_path(taken):
                    out = dict(zip(keys, fn()))
                seen[which] = out
                if len(seen) == 2:
                    for key in out:
                        same_kind(key, seen[other][key], out[key], where, "`if`", "is")
                arrays, python[which] = split_values(out)
                return {k: cast_to(v, promote.get(k)) for k, v in arrays.items()}

            return run

        result = unpack(
            lax.cond(
                pred, packed(branch("if", true_fn)), packed(branch("else", false_fn))
            )
        )
        return {**python["if"], **result}

    try:
        try:
            out = build({})
        except TypeError as error:
            promote = weak_promotions(error, list(seen.values()))
            if not promote:
                raise
            out = build(promote)
    except (TypeError, ValueError) as error:
        add_notes(error, "`if`", where, keys)
        raise
    except OverflowError as error:
        refuse_big_ints(error, "`if`", where, list(seen.values()))
        raise
    return [out[k] for k in keys]


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
def traced_path(cond: Any) -> Iterator[None]:
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


def run_callback(fn: Callable[..., None], *args: Any) -> None:
    """`jax.debug.callback(fn, where, *args, ordered=True)`: `fn` gets where
    the path holds (a bool array, one per `vmap` lane) first. Ordered, so
    that the checks run in the program's order: the first raise on a path
    is the one reported, as in Python."""
    if not _PATH.replaying:
        jax.debug.callback(fn, _path_mask(), *args, ordered=True)


def run_shown(fn: Callable[..., None], shown: formatted.Shown, *args: Any) -> None:
    """`run_callback(fn, *args, *shown.values)`; with none of the values if
    JAX refuses one (a tracer of another trace): the message then shows
    their texts as traced."""
    try:
        run_callback(fn, *args, *shown.values)
    except jax.errors.UnexpectedTracerError:
        run_callback(fn, *args)


def _checked(flag: Any, value: Any, message: str, raises: type[Exception]) -> Any:
    """`value`, and a run-time check that `flag` is set where it is read: the
    JAX form of Python's UnboundLocalError (`raises`: KeyError for an item,
    AttributeError for an attribute) for what a loop may not have assigned
    (raised by the compiled function, inside JAX's runtime error)."""

    def check(where: Any, flag: Any) -> None:
        if not np.all(np.logical_or(flag, np.logical_not(where))):
            raise staged(as_written(raises, message))

    run_callback(check, flag)
    return value
