"""A JAX loop's state as one dict keyed by the user's names: the carry, the
names the loop assigns first (found by a trial trace), one iteration."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp

from runtime import control_flow_checks as checks
from runtime.operators import places as places_
from runtime.operators.backends.jax import BACKEND
from runtime.operators.backends.jax_values import (
    add_notes,
    array_leaves,
    is_arrays,
    raised_on_traced_path,
    refuse_big_ints,
    same_kind,
    split_values,
    state_keys,
    trial_shapes,
    zeros_of_shapes,
)
from runtime.operators.control_flow import as_state, unpack_state
from runtime.operators.places import Place
from runtime.operators.staging import born
from runtime.operators.staging import where as where_
from runtime.operators.staging.aliasing import refuse_lost_aliases
from runtime.operators.staging.born import Born
from runtime.operators.staging.python_value import refuse_in_loop
from runtime.operators.staging.raising import raise_when_run
from runtime.operators.variables import (
    UnboundUntilRun,
    UndefinedReturnValue,
    is_undefined,
)
from runtime.operators.verification import (
    not_carried_out_of_loop,
    not_on_every_path,
    refuse_grown_lists,
    refuse_loop_places,
    untyped_loop_name,
    untyped_return,
)

# Where a loop's values are, in messages (`aliasing.refuse_lost_aliases`).
_BEFORE = "before a JAX loop"
_IN_BODY = "in the body of a JAX loop"


class _ReadFirst(Exception):
    """The body read a name that the loop assigns first, before assigning it."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


class LoopState:
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
        refuse_loop_places(places, "JAX")
        self.body = body
        self.count = len(state)
        self.keys = state_keys(names)
        self.names = dict(zip(self.keys, names))
        # (A place named as a loop variable, the items of a deque the loop
        # also rebinds, `q = ag__.list_append(q, v)`: a key of its own.)
        self.place_keys = [
            f"{p.name} (its items)" if p.name in self.names else p.name for p in places
        ]
        self.names.update((k, p.name) for k, p in zip(self.place_keys, places))
        self.places = places
        self.skip = skip
        self.where = where
        self.before = places_.read(places)
        self.init = dict(zip(self.keys, state))
        self.init.update(zip(self.place_keys, self.before))
        self.born = Born(BACKEND, {}, self.names, where)
        self.body_out: dict[str, Any] | None = None  # the last traced iteration's

    # Calling the user's functions on a state dict.

    def args(self, values: dict[str, Any]) -> list[Any]:
        places_.write(self.places, [values[k] for k in self.place_keys])
        return [values[k] for k in self.keys]

    def apply(self, items: tuple[Any, ...], values: dict[str, Any]) -> dict[str, Any]:
        args = self.args(values)
        try:
            result = as_state(self.body(*items, *args), self.count)
        except Exception as error:
            refuse_in_loop(error, self.body, self.skip, "JAX", self.where)
            names = self.names.values()
            if not born.staged_in_iteration(error, names, raised_on_traced_path):
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
        carry, self.python = split_values(self.init)
        for key, value in list(self.python.items()):
            if type(value) is UnboundUntilRun:  # an earlier loop's
                del self.python[key]
                carry[key] = value.value
                self.born.flags[key] = flag = f"{key} assigned"
                carry[flag] = value.flag
        unset = [k for k, v in self.python.items() if is_undefined(v)]
        if unset:
            with born.on_trial(self.init.values()):
                sample = self._sample(carry, item)
            for key in unset:
                value, got = self.init[key], sample[key]
                if got is value:
                    continue  # assigned on no path: it stays as it is
                if not is_arrays(got) or is_undefined(got):
                    if isinstance(value, UndefinedReturnValue):
                        raise untyped_return("JAX")
                    if not is_undefined(got):  # (a function defined in the body)
                        raise not_carried_out_of_loop(
                            self.names[key],
                            checks.kind(got),
                            "JAX",
                            where_.statement_here(),
                        )
                    raise not_on_every_path(self.names[key], "JAX", self.where)
                del self.python[key]
                carry[key] = zeros_of_shapes(got)
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
                if guess is not None:
                    guesses[read.key] = guess
                elif not born.read_raises_when_run(self.names[read.key]):
                    raise ValueError(
                        untyped_loop_name(self.names[read.key], "JAX", self.where)
                    ) from None

    def _fixed_point(
        self, carry: dict[str, Any], item: Any, guesses: dict[str, Any], key: str
    ) -> Any:
        # (The item's arrays: a tuple of them over `enumerate`/`zip`.)
        # (A string beside arrays in a tuple has no dtype: never a guess.)
        leaves = [*array_leaves(item), *array_leaves(carry)]
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
            except _ReadFirst as other:
                if other.key != key:
                    # Another name an earlier iteration assigns is read too:
                    # `_sample` finds its type next (as the graph's trial).
                    return guess
                continue
            except (TypeError, ValueError):
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
            arrays, other = split_values(out)
            python.update(other)
            return arrays

        return {**self.trial(arrays_only, carry, item), **python}

    def trial(self, fn: Callable[..., Any], *args: Any) -> Any:
        """`trial_shapes(fn, *args)` with the places left as they were: the
        carry may hold a place's container (`return xs` in the body, so
        `retval_` holds the list `xs`), and a trial's tracers written into it
        would leak into the loop."""
        try:
            return trial_shapes(fn, *args)
        finally:
            places_.write(self.places, self.before)

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
        self.body_out = out  # (for `aliasing.refuse_lost_aliases`)
        flags = self.born.flags
        kept = {k for k in flags if out[k] is inputs[k]}  # not assigned here
        self.born.step(carry, inputs, out, lambda: jnp.asarray(True))
        new = {}
        for key in self.carry_keys:
            if key not in kept and out[key] is not carry.get(key):
                # (`gl = gl + [v]`: the graph's rule and message.)
                refuse_grown_lists(
                    [self.names.get(key, key)],
                    [before[key]],
                    [out[key]],
                    "JAX",
                    self.where,
                )
            if key not in kept and key not in flags.values():
                same_kind(
                    key, before[key], out[key], self.where, "loop", "changes from"
                )
            new[key] = out[key]
        for key, value in self.python.items():
            same_kind(key, value, out[key], self.where, "loop", "changes from")
        return new, out

    def finish(self, carry: dict[str, Any], ran: bool = False) -> Any:
        """The loop's results from its final `carry`; `ran`: the loop surely
        ran an iteration (`Born.unbound`)."""
        values = self.born.unbound({**self.python, **carry}, "after", ran)
        # (Places too: a name a `try` body's loop writes is a cell.)
        keys = [*self.keys, *self.place_keys]
        result = [values[k] for k in keys]
        given = {_BEFORE: [self.init[k] for k in keys]}
        if self.body_out is not None:
            given[_IN_BODY] = [self.body_out[k] for k in keys]
        names = [self.names[k] for k in keys]
        refuse_lost_aliases(names, given, result, _BEFORE, BACKEND.program)
        places_.write_results(self.places, [values[k] for k in self.place_keys])
        return unpack_state(result[: len(self.keys)])

    def build(self, make: Callable[[], dict[str, Any]], ran: bool = False) -> Any:
        """`make()` (which builds the `lax` loop and returns its final
        carry), with the places restored and a note on failure; `ran`: its
        static trip count is at least one and nothing ends it early."""
        try:
            carry = make()
        except BaseException as error:
            places_.write(self.places, self.before)
            if isinstance(error, (TypeError, ValueError)):
                add_notes(error, "loop", self.where, list(self.init))
            outs = [self.init, self.body_out or {}]
            refuse_big_ints(error, "loop", self.where, outs)
            raise
        return self.finish(carry, ran)
