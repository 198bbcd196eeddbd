"""JAX loops: `while` is `lax.while_loop`; `for` over a traced array (or
`enumerate`/`zip` of arrays: a tuple of arrays) is `lax.scan`, over a range
`lax.fori_loop`, with `break`/`return` a `scan` or `while_loop` that carries
the condition."""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import warnings
import weakref
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from runtime.operators import control_flow
from runtime.operators import places as places_
from runtime.operators.backends.jax import tentative, traced_path
from runtime.operators.backends.jax_loop_state import LoopState
from runtime.operators.backends.jax_values import (
    Tracer,
    declined,
    is_weak,
    pack,
    packed,
    predicate,
    unpack,
    where_now,
)
from runtime.operators.control_flow import as_state, state_names, unpack_state
from runtime.operators.py_builtins import Rows
from runtime.operators.staging import where as where_
from runtime.operators.staging.operators import Loop
from runtime.operators.staging.python_value import needs_python_value


class UnrolledLoopWarning(UserWarning):
    """A `for` over a Python range with traced state was unrolled, not
    staged as one `lax.fori_loop`, because its body needs the index as a
    Python int."""


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


def build_while(statement: Loop) -> Any:
    """A `while` loop as one `lax.while_loop`."""
    test, first_cond, places, opts = (
        statement.test,
        statement.first_cond,
        statement.places,
        statement.opts,
    )
    where = where_now()
    loop = LoopState(statement.body, statement.state, statement.names, places, 0, where)
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
            carry[_COND] = predicate(first_cond, "`while` loop", where)
        if limit is not None:
            carry[_INDEX] = jnp.asarray(0)

        def cond_fun(c: dict[str, Any]) -> Any:
            if rotate:
                go = c[_COND]
            else:
                inner = {k: v for k, v in c.items() if k != _INDEX}
                values = loop._unbound({**loop.python, **inner}, "in")
                go = predicate(loop.call_test(test, values), "`while` loop", where)
            if limit is None:
                return go
            return jnp.logical_and(go, c[_INDEX] < limit)

        def body_fun(c: dict[str, Any]) -> dict[str, Any]:
            inner = {k: v for k, v in c.items() if k not in (_COND, _INDEX)}
            # (Under vmap the body also runs for lanes whose loop has ended.)
            with traced_path(lambda: cond_fun(c)):
                new, out = loop.step((), inner)
            if rotate:
                test_value = loop.call_test(test, out)
                new[_COND] = predicate(test_value, "`while` loop", where)
                # What the test left in the places.
                for key, value in zip(loop.place_keys, places_.read(loop.places)):
                    if key in new:
                        new[key] = value
            if limit is not None:
                new[_INDEX] = c[_INDEX] + 1
            return new

        # (XLA's compiler crashes on a loop it can prove runs no iteration
        # whose body has a run-time check, a callback: `while a < a:`. The
        # barrier hides the initial values from that proof.)
        def run(carry: dict[str, Any]) -> dict[str, Any]:
            carry = lax.optimization_barrier(pack(carry))
            return unpack(lax.while_loop(packed(cond_fun), packed(body_fun), carry))

        result = _widened(run, carry, lambda c: loop.trial(body_fun, c))
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


def build_for(statement: Loop) -> Any:
    """A `for` loop over a traced array, `enumerate`/`zip` of arrays, or a
    range as one `lax` loop; or the rest of a Python loop over a range or an
    array's rows (a concrete one: its length is known) whose `break` or
    `return` has become traced."""
    iterable = statement.iterable
    if isinstance(iterable, Tracer) and declined(iterable):
        return NotImplemented  # a concrete array: Python iterates its rows
    if isinstance(iterable, TracedRange):
        return _for_loop(statement)
    # (`for_stmt` hands over the rest of a Python loop whose `break`/`return`
    # condition is a tracer: decline it if its value is known.)
    traced_test = statement.test is not None and not declined(
        statement.test(*statement.state)
    )
    if isinstance(iterable, Rows):
        rows = _rows(iterable, where_now(), concrete=traced_test)
        if rows is None:
            return NotImplemented  # Python iterates the builtin's object
        # (Python's loop over the builtin's object runs it where the staged
        # form cannot: its body indexes a list by the index, appends.)
        staged = dataclasses.replace(statement, iterable=rows)
        what = f"over {_rows_call(iterable)} of arrays"
        if traced_test:
            return _rest_unrolled(staged, what, iterable)
        length = len(jax.tree_util.tree_leaves(rows)[0])
        return _staged_or_unrolled(staged, what, length, "lax.scan")
    if isinstance(iterable, range):
        if not traced_test:
            return NotImplemented
        return _rest_unrolled(statement, "over range()", iterable)
    what = "over an array"
    if not isinstance(iterable, Tracer):  # (the rest of a concrete array)
        if not traced_test:
            return NotImplemented
        staged = dataclasses.replace(statement, iterable=jnp.asarray(iterable))
        return _rest_unrolled(staged, what, iterable)
    _refuse_0d(iterable, where_now())
    if traced_test:  # (a `return` before the loop has become traced)
        return _rest_unrolled(statement, what, iterable)
    # (Python's loop over the array's rows, of a static number, runs it where
    # the staged form cannot: its body appends to a list, indexes one.)
    return _staged_or_unrolled(statement, what, iterable.shape[0], "lax.scan")


# The bodies of the loops unrolled because they need the index as a Python
# value (`_staged_or_unrolled`): the rest of one after a traced `break` is
# unrolled too, without trying to stage it again.
_UNROLLED: weakref.WeakSet[Any] = weakref.WeakSet()


def _rest_unrolled(statement: Loop, what_loop: str, items: Any) -> Any:
    """The rest of a `for` loop (over a range, an array's rows, `enumerate`/
    `zip` of arrays: `what_loop`) whose `break` or `return` has become
    traced: one `lax` loop, or, where its body needs its items as Python
    values, each item of `items` (Python's iterable: the range, the array,
    the builtin's object) unrolled under a `lax.cond` on the loop's traced
    condition (their number is known)."""
    if not _known_unrolled(statement.body):
        tracked = _tracked(statement)
        before = places_.read(tracked)
        try:
            with tentative():
                return _for_loop(statement)
        except (TypeError, ValueError) as error:
            what = needs_python_value(error)
            if what is None:
                raise
            places_.write(tracked, before)
            _warn_unrolled(
                f"the rest of this `for` loop {what_loop} after its traced "
                f"`break` or `return` is unrolled ({_length(statement.iterable)} "
                "iterations, each under a lax.cond on the loop's condition) "
                f"instead of staged as one lax loop: {_needs_index(what)}"
            )
    body, test, state = statement.body, statement.test, statement.state
    count = len(state)
    for item in items:
        cond = test(*state)
        if isinstance(cond, bool) and not cond:
            break

        def step(*values: Any, item: Any = item) -> Any:
            return body(item, *values)

        result = control_flow.if_stmt(
            cond,
            step,
            None,
            state,
            statement.names or state_names(body, 1),
            places=statement.places,
        )
        state = as_state(result, count)
    return unpack_state(state)


def _length(iterable: Any) -> int:
    """The number of items of a range, an array, or a tuple of arrays."""
    if isinstance(iterable, range):
        return len(iterable)
    return int(jax.tree_util.tree_leaves(iterable)[0].shape[0])


def _needs_index(what: str) -> str:
    """Why a loop is unrolled: its body needs the index as `what`."""
    return (
        f"its body needs the index as {what}; index arrays, not Python lists or "
        "dicts, with it to stage the loop"
    )


def _known_unrolled(body: Any) -> bool:
    try:
        return inspect.unwrap(body) in _UNROLLED
    except TypeError:  # (not weakly referenceable)
        return False


def _warn_unrolled(message: str) -> None:
    where = where_.current()
    if where is not None:
        warnings.warn_explicit(
            message, UnrolledLoopWarning, where.filename, where.lineno
        )
    else:
        warnings.warn(message, UnrolledLoopWarning, stacklevel=3)


def _for_loop(statement: Loop) -> Any:
    """A `for` over a traced array, a TracedRange or a Python range as one
    `lax` loop: `scan`, `fori_loop`, or `while_loop` with `break`/`return`."""
    iterable, extra_test = statement.iterable, statement.test
    where = where_now()
    loop = LoopState(
        statement.body, statement.state, statement.names, statement.places, 1, where
    )
    limit = _max_iterations(statement.opts, where)
    arrays = not isinstance(iterable, (range, TracedRange))
    if arrays:  # a traced array, or a tuple of them (`_rows`)
        leaves = jax.tree_util.tree_leaves(iterable)
        if isinstance(iterable, Tracer):
            _refuse_0d(iterable, where)
        length: Any = leaves[0].shape[0]
        item_shape = jax.tree_util.tree_map(
            lambda a: jax.ShapeDtypeStruct(a.shape[1:], a.dtype), iterable
        )

        def item(i: Any) -> Any:
            # (Over no rows the body is traced for its types only: zeros.)
            return jax.tree_util.tree_map(
                lambda a: a[i] if length else jnp.zeros(a.shape[1:], a.dtype),
                iterable,
            )

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
            if arrays:
                step = packed(lambda c, x: loop.step((x,), c)[0])

                def scan(carry: dict[str, Any]) -> dict[str, Any]:
                    body = lambda c, x: (step(c, x), None)
                    return unpack(lax.scan(body, pack(carry), iterable)[0])

                row = jax.tree_util.tree_map(
                    lambda a: jax.ShapeDtypeStruct(a.shape[1:], a.dtype), iterable
                )
                trial = packed(lambda c, x: loop.step((x,), c)[0])
                return _widened(scan, carry, lambda c: loop.trial(trial, c, row))

            def body_fun(i: Any, c: dict[str, Any]) -> dict[str, Any]:
                # (A traced trip count is a while_loop: under vmap its body
                # also runs for lanes whose loop has ended.)
                with traced_path(lambda: i < length):
                    return loop.step((item(i),), c)[0]

            def run(carry: dict[str, Any]) -> dict[str, Any]:
                return unpack(lax.fori_loop(0, length, packed(body_fun), pack(carry)))

            index = jnp.asarray(0)
            return _widened(run, carry, lambda c: loop.trial(body_fun, index, c))

        # (A static trip count of at least one runs an iteration for sure.)
        return loop.build(make, ran=isinstance(length, int) and length > 0)

    def make_while() -> dict[str, Any]:
        carry = loop.start(item_shape)

        def more(i: Any, out: dict[str, Any]) -> Any:
            go = i < length
            if limit is not None:
                go = jnp.logical_and(go, i < limit)
            if extra_test is None:
                return go
            test = predicate(loop.call_test(extra_test, out), "`for` loop", where)
            return jnp.logical_and(test, go)

        carry[_COND] = more(0, loop._unbound({**loop.python, **carry}, "in"))
        carry[_INDEX] = jnp.asarray(0)

        def body_fun(c: dict[str, Any]) -> dict[str, Any]:
            inner = {k: v for k, v in c.items() if k not in (_COND, _INDEX)}
            i = c[_INDEX]
            with traced_path(c[_COND]):
                new, out = loop.step((item(i),), inner)
            new[_INDEX] = i + 1
            new[_COND] = more(i + 1, out)
            return new

        if isinstance(length, int):
            # A static trip count: a `scan` whose steps after a `break` pass
            # the state through (`lax.cond`), so reverse mode works (a
            # while_loop would stop early, but JAX cannot reverse it).
            carry = _settled(carry, lambda c: loop.trial(body_fun, c))

            def step(c: dict[str, Any], _: Any) -> tuple[dict[str, Any], None]:
                return lax.cond(c[_COND], packed(body_fun), lambda c: c, c), None

            def run(carry: dict[str, Any]) -> dict[str, Any]:
                return unpack(lax.scan(step, pack(carry), None, length=length)[0])

        else:

            def run(carry: dict[str, Any]) -> dict[str, Any]:
                more = lambda c: c[_COND]
                return unpack(lax.while_loop(more, packed(body_fun), pack(carry)))

        result = _widened(run, carry, lambda c: loop.trial(body_fun, c))
        result.pop(_COND)
        result.pop(_INDEX)
        return result

    return loop.build(make_while)


def _refuse_0d(array: Any, where: str) -> None:
    if not array.shape:
        raise TypeError(
            f"the `for` loop{where} iterates over a 0-d JAX array; iterate "
            "over a 1-D or higher array, or use range(n)"
        )


def _rows(rows: Rows, where: str, concrete: bool = False) -> Any:
    """The arrays of `enumerate(...)`/`zip(...)` over arrays as one tuple of
    arrays of one length, whose rows are the loop's items: `(indices, xs)`,
    `(xs, ys)`, cut to the shortest as `zip` stops there; or None where
    Python runs the loop (an argument no array, all tracers' values known
    unless `concrete` (the rest of a Python loop over concrete arrays whose
    `break` became traced), a `strict` zip of arrays of unequal lengths)."""
    arrays = rows.arrays()
    if not all(isinstance(a, (Tracer, jax.Array, np.ndarray)) for a in arrays):
        return None  # (a list's items would become arrays)
    if not concrete and all(declined(a) for a in arrays if isinstance(a, Tracer)):
        return None  # known values (an eager `jax.grad`): Python's loop
    for array in arrays:
        _refuse_0d(array, where)
    lengths = {a.shape[0] for a in arrays}
    if rows.strict and len(lengths) > 1:
        return None  # Python raises ValueError where the shortest ends
    n = min(lengths)
    cut = iter([jnp.asarray(a)[:n] for a in arrays])
    return rows.items(cut, lambda start: jnp.arange(start, start + n))


def _promote_weak(carry: Any, shapes: Any) -> Any:
    """`carry` with each Python number (weakly typed value) whose dtype the
    loop body changes cast to the body's dtype, as `lax.while_loop` does for
    its own carry (`total = 0` then `total += 0.5`); `carry` itself where
    there is none."""
    leaves, tree = jax.tree_util.tree_flatten(carry)
    out, out_tree = jax.tree_util.tree_flatten(shapes)
    if tree != out_tree:
        return carry  # the loop's own check names the variable
    promoted = [
        jnp.asarray(v, s.dtype) if is_weak(v) and jnp.result_type(v) != s.dtype else v
        for v, s in zip(leaves, out)
    ]
    if all(a is b for a, b in zip(promoted, leaves)):
        return carry
    return jax.tree_util.tree_unflatten(tree, promoted)


def _widened(
    run: Callable[[dict[str, Any]], Any],
    carry: dict[str, Any],
    trial: Callable[[dict[str, Any]], Any],
) -> Any:
    """`run(carry)`; where `lax` refuses the carry's types because the body
    widens a Python number through another one (`s = s + prev; prev = i /
    2`, both 0: `lax` promotes each weak number once, from one trace), `run`
    again with the numbers promoted as often as the body (`trial`: its
    output's shapes for a carry) widens them, as Python's arithmetic does."""
    try:
        return run(carry)
    except TypeError as error:
        if "carry input and carry output must have equal types" not in str(error):
            raise
        settled = _settled(carry, trial)
        if settled is carry:
            raise
    return run(settled)


def _settled(carry: dict[str, Any], trial: Callable[[dict[str, Any]], Any]) -> Any:
    """`carry` with its Python numbers promoted (`_promote_weak`) to the
    types the body gives them, again until it gives each its own."""
    while (promoted := _promote_weak(carry, trial(carry))) is not carry:
        carry = promoted
    return carry


def _tracked(statement: Loop) -> list[places_.Place]:
    """The places a staged loop could carry: an item whose key changes
    (`out[i] = v`, `places.Untracked`) has no value to read before the loop;
    staging refuses it, and Python's range loop, unrolled, assigns it."""
    return [p for p in statement.places if not isinstance(p, places_.Untracked)]


def _concrete(statement: Loop) -> bool:
    """Whether every tracer in the loop's state and places has a known value
    (an eager `jax.grad`): the loop then runs as Python, as API.md says."""
    values = [*statement.state, *places_.read(_tracked(statement))]
    tracers = [v for v in jax.tree_util.tree_leaves(values) if isinstance(v, Tracer)]
    return all(declined(t) for t in tracers)


def build_for_range(statement: Loop) -> Any:
    """The rest of a `for` over a Python range whose state has become traced:
    one `lax.fori_loop` with static bounds (a `scan`), or NotImplemented to
    unroll it, with a warning, when the body needs the index as an int or
    staged breaks a rule the Python loop does not (a list appended to under
    `if i % 2 == 0`): Python's range loop is Python's, unrolled."""
    iterable = statement.iterable
    if len(iterable) < 2 or _concrete(statement):
        return NotImplemented  # nothing to gain, or Python runs it
    what, length = "over range()", len(iterable)
    return _staged_or_unrolled(statement, what, length, "lax.fori_loop")


def _rows_call(rows: Rows) -> str:
    """`enumerate()`, `zip()`, `enumerate(zip())`: what the user called."""
    inner = next((c for c in rows.columns if isinstance(c, Rows)), None)
    name = "zip" if rows.start is None else "enumerate"
    return f"{name}({'' if inner is None else _rows_call(inner)})"


def _staged_or_unrolled(statement: Loop, what_loop: str, length: int, op: str) -> Any:
    """`statement` staged as one `lax` loop, or NotImplemented (Python's loop
    runs it, unrolled, with a warning naming the line) where its body needs
    the index as a Python value or staged it breaks a rule the Python loop
    does not (a list appended to)."""
    tracked = _tracked(statement)
    before = places_.read(tracked)
    try:
        with tentative():
            return _for_loop(statement)
    except (TypeError, ValueError) as error:
        # (The staged form may have stored its results, tracers of the
        # failed loop, before it was refused: Python's loop starts afresh.)
        places_.write(tracked, before)
        what = needs_python_value(error)  # (as a Python int, a hashable...)
        if what is not None:
            why = _needs_index(what)
            with contextlib.suppress(TypeError):  # (not weakly referenceable)
                _UNROLLED.add(inspect.unwrap(statement.body))
        else:  # a rule a staged body breaks that Python's loop does not
            why = f"staged, its body is refused: {str(error).splitlines()[0]}"
        _warn_unrolled(
            f"this `for` loop {what_loop} is unrolled ({length} iterations traced "
            f"one by one) instead of staged as one {op}: {why}"
        )
        return NotImplemented
