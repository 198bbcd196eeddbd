"""Graph loops: `while` and `for` on graph tensors (also `enumerate`/`zip`
of tensors: a tuple of tensors) build one `while` node.

Errors name the user's variables: the names come from the parameters of the
generated loop functions, which are the loop variables' names.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Collection, Iterator, Sequence
from typing import Any

import numpy as np

from runtime import control_flow, nest
from runtime.context import STATE
from runtime.control_flow_checks import quote
from runtime.errors import DTypeMismatch
from runtime.op_registry import convert_to_tensor
from runtime.operators import places as places_
from runtime.operators import verification
from runtime.operators.backends.graph import BACKEND, TypeGuess, dry_run, staged_and
from runtime.operators.backends.graph_shapes import loop_options, relax, relax_shapes
from runtime.operators.backends.graph_trial import (
    LoopBorn,
    NeverSet,
    as_guess,
    loop_state,
    widened_numbers,
    with_flags,
    without,
)
from runtime.operators.control_flow import as_state, state_names, unpack_state
from runtime.operators.places import Place
from runtime.operators.py_builtins import Rows
from runtime.operators.staging import aliasing, born
from runtime.operators.staging import where as where_
from runtime.operators.staging.python_value import refuse_in_loop
from runtime.operators.staging.raising import raise_when_run
from runtime.operators.variables import (
    UndefinedReturnValue,
)
from runtime.operators.verification import label, labels
from runtime.ops import array as array_ops
from runtime.ops import creation
from runtime.ops import math as math_ops
from runtime.source_locations import keep_refusal, refusals_from_here
from runtime.tensor import (
    EagerTensor,
    SymbolicTensor,
    is_weak,
)


def raising_body(
    body: Callable[..., Any], skip: int, names: Collection[str] = ()
) -> Callable[..., Any]:
    """A graph loop's `body` (after `skip` leading item arguments), which
    raises when the graph runs an iteration in which Python raises: an
    error the user's code raised while it was traced becomes an Assert, and
    the iteration gives back the loop variables unchanged (never used).
    `names`: what the loop carries (`born.staged_in_iteration`)."""

    where = where_.at(where_.current())

    def run(*args: Any) -> Any:
        try:
            return body(*args)
        except Exception as error:
            refuse_in_loop(error, body, skip, "graph", where)
            if not born.staged_in_iteration(error, names, verification.raised_on_path):
                raise
            raise_when_run(BACKEND, error, "the body of the graph loop", "this run ran")
            return unpack_state(args[skip:])

    return run


def _restoring(
    places: Sequence[Place],
    build: Callable[[], Any],
    before: tuple[Any, ...] | None = None,
) -> Any:
    """`build()`; if it fails, the places get back the values they had (not
    the tensors of a half-built graph), or `before`."""
    if before is None:
        before = places_.read(places)
    try:
        return build()
    except BaseException:
        places_.write(places, before)
        raise


def _loop_with_places(
    test: Callable[..., Any] | None,
    body: Callable[..., Any],
    state: tuple[Any, ...],
    names: tuple[str, ...],
    places: Sequence[Place],
    skip: int,
) -> tuple[Any, ...]:
    """A loop's test and body over the places as more loop variables.

    Returns (test, body, state, names) to build the loop with; `skip` is
    how many leading arguments of `body` are not state (a `for` item).
    """
    k = len(state)

    def test_(*args: Any) -> Any:
        places_.write(places, args[k:])
        return test(*args[:k])

    def body_(*args: Any) -> Any:
        places_.write(places, args[skip + k :])
        result = as_state(body(*args[: skip + k]), k)
        return unpack_state((*result, *places_.read(places)))

    return (
        test_ if test is not None else None,
        body_,
        (*state, *places_.read(places)),
        (*names, *(p.name for p in places)),
    )


def while_trial(
    body: Callable[..., Any], count: int
) -> Callable[[tuple[Any, ...]], tuple[Any, ...]]:
    """A `while` loop's trial: what `body` gives for a state, traced on a
    scratch graph (`dry_run`)."""

    def trial(args: tuple[Any, ...]) -> tuple[Any, ...]:
        return as_state(dry_run(body, args), count)

    return trial


def for_trial(
    iterable: Any, body: Callable[..., Any], count: int
) -> Callable[[tuple[Any, ...]], tuple[Any, ...]]:
    """A `for` loop's trial over `iterable` (a tensor, or a tuple of them)."""

    def trial(args: tuple[Any, ...]) -> tuple[Any, ...]:
        # An item of the right type and shape, not `iterable[0]`: the iterable
        # may be empty.
        def run(*args: Any) -> Any:
            element = nest.map_structure(_item_placeholder, _tensors_of(iterable))
            return body(element, *args)

        return as_state(dry_run(run, args), count)

    return trial


def widening(
    build: Callable[[tuple[Any, ...]], Any],
    state: tuple[Any, ...],
    names: Sequence[str],
    body: Callable[..., Any],
    trial_of: Callable[[Callable[..., Any], int], Callable[..., tuple[Any, ...]]],
    places: Sequence[Place],
    skip: int = 0,
) -> Any:
    """`build(state)`; if that fails with a `DTypeMismatch` and the body makes a
    Python number of the state a wider number (`total = 0` then
    `total += x[i]` on floats), `build` again with it cast to that type
    (`widened_numbers`), as Python and the JAX backend give.

    A number the loop carries in a place (a variable of a `try` the loop is
    in, `_loop_with_places`) widens alike: the trial is `trial_of` the body
    over the state and the places (`while_trial`, `for_trial`; `skip` as
    there). Where the body refuses on that trial for another reason (a list
    the body grows), that refusal is raised: the loop cannot be built with
    whatever type the number has, so the mismatch is not the user's
    problem."""
    before = places_.read(places)
    forget = refusals_from_here()
    try:
        # (A mismatch the user's code caught while tracing, `except
        # Exception` around `acc + x`, is not retried: what its handler
        # did cannot be undone. It stays kept, and ends the trace.)
        return build(state)
    except (TypeError, ValueError) as error:
        if not _from_dtype_mismatch(error):
            raise
        _, body_, carried, carried_names = _loop_with_places(
            None, body, state, tuple(names), places, skip
        )
        staged = STATE.staged_raises  # (what the trial stages a raise at)
        raises = None if staged is None else len(staged)
        try:
            trial = trial_of(body_, len(carried))
            widened = widened_numbers(carried, carried_names, trial)
        except Exception as failed:
            if not _from_dtype_mismatch(failed, error):
                _forget_context(failed, error)
                # The mismatch the attempt kept is not the user's
                # problem; the trial's refusal (kept on its scratch
                # graph) is, even where the user's code catches it.
                forget()
                keep_refusal(failed)
                raise
            widened = None  # (no trial to learn from: the first error stands)
        finally:
            places_.write(places, before)
        if widened is None:
            raising = raises is None or len(staged) > raises
            refusal = _unwidened(error, carried, carried_names, raising)
            if refusal is None:
                raise
            forget()
            keep_refusal(refusal, ours=True)
            # (Not raised from the mismatch: a loop around this one,
            # whose trial meets it, raises it as it is.)
            raise refusal from None
        forget()  # (the refusals of the attempt: it is built again)
    k = len(state)
    places_.write(places, widened[k:])
    return _restoring(places, lambda: build(widened[:k]), before)


# `checks.check_branch_dtypes`'s refusal of one value, which it names.
_BRANCH_DTYPES = re.compile(r"(.+?) has dtype \w+ in the true branch but \w+ in the")


def _unwidened(
    error: BaseException, state: tuple[Any, ...], names: Sequence[str], raising: bool
) -> TypeError | None:
    """The refusal of an op's `DTypeMismatch` (`error`) in a loop whose
    Python numbers of that dtype (`state`, `names`) its trial does not
    widen: the body widens one only on a path that raises (`raising`: the
    trial staged a raise), or mixes an int and a float no widening
    makes one type (`mean += d / n`, `n` a counter). None where the error
    is not an op's, or no such number is carried."""
    if not isinstance(error, DTypeMismatch):
        return None
    text = str(error)
    # A graph `if`'s refusal names the value whose dtypes differ: only a
    # carried number itself can be to blame (not a counter beside the
    # function's return value).
    branches = _BRANCH_DTYPES.match(text)
    numbers = [
        (name, dtype.name)
        for name, value in zip(names, state)
        if type(value) in (int, float)
        and re.search(rf"\b{(dtype := convert_to_tensor(value).dtype).name}\b", text)
        and (branches is None or branches.group(1) == quote(label(name)))
    ]
    if not numbers:
        return None
    where = where_.statement_here()
    return verification.unwidened_numbers(numbers, where, text, _instead(text), raising)


def _from_dtype_mismatch(
    error: BaseException | None, stop: BaseException | None = None
) -> bool:
    """Whether `error` is a `DTypeMismatch` or was raised from one (a trial
    trace's refusal names the type it tried, `graph_trial._fixed_point`),
    other than `stop` (and what led to it)."""
    seen = 0
    while error is not None and error is not stop and seen < 8:
        if isinstance(error, DTypeMismatch):
            return True
        error, seen = error.__cause__, seen + 1
    return False


def _forget_context(error: BaseException, handled: BaseException) -> None:
    """Cuts `handled` (and what led to it) from the exceptions `error` was
    raised while handling: a trial raised it while `handled` was being
    handled, which is no cause of it."""
    seen = 0
    while error.__context__ is not None and seen < 8:
        if error.__context__ is handled:
            error.__context__ = None
            return
        error, seen = error.__context__, seen + 1


def build_while(
    test: Callable[..., Any],
    body: Callable[..., Any],
    state: tuple[Any, ...],
    names: tuple[str, ...],
    first_cond: Any,
    places: Sequence[Place] = (),
    opts: dict[str, Any] | None = None,
    *,
    effects: bool | None = None,
    sample: tuple[Any, ...] | None = None,
) -> Any:
    # (`effects`, `sample`: what an earlier step of building this loop
    # found, so that it is traced on trial once, see `loop_state`.)
    names = names or state_names(test)
    if effects is None:  # (with places the loop is rotated: no need to know)
        effects = bool(places) or _has_effects(test, state)
    if places or effects:
        verification.refuse_loop_places(places)
        return _while_with_places(test, body, state, names, first_cond, places, opts)
    count = len(state)

    trial = while_trial(body, count)
    try:
        relaxed: list[Any] = []
        loop_vars, born, sample = loop_state(
            state, names, trial, sample=sample, relaxed=relaxed
        )
        opts = relax(opts, relaxed)
    except NeverSet as never:
        test_, body_, state_, names_, finish = without(
            never.position, test, body, state, names, 0, never.name, never.born
        )
        known = {"effects": False, "sample": never.sample}
        loop = (test_, body_, state_, names_, first_cond)
        return finish(build_while(*loop, opts=opts, **known))
    if born:
        first = LoopBorn(born, names)
        result = build_while(
            first.test(test, count),
            first.body(body, count, 0),
            (*loop_vars, *first.flags()),
            (*names, *first.flag_names()),
            first_cond,
            opts=opts,
            effects=False,
            sample=with_flags(sample, first),
        )
        return first.finish(result, count)
    options = loop_options(opts, loop_vars)
    if opts and opts.get("relax_shapes"):
        relax_shapes(body, loop_vars, options)
    if not loop_vars:
        # A loop with no state runs for its effects only: carry a counter.
        def cond0(i: Any) -> Any:
            return test()

        def body0(i: Any) -> Any:
            body()
            return i + 1

        control_flow.while_loop(
            cond0,
            body0,
            (0,),
            names=["iterations"],
            maximum_iterations=options["maximum_iterations"],
        )
        return None
    given = _LoopBlocks(state)

    def step(*v: Any) -> tuple[Any, ...]:
        return given.body(as_state(body(*v), count))

    with _loop_context(names, loop_vars):
        result = control_flow.while_loop(
            lambda *v: test(*v), step, loop_vars, names=labels(names), **options
        )
    result = given.keep(tuple(result))
    aliasing.refuse_lost_aliases(
        names, given.where, result, copied="before a graph loop"
    )
    return unpack_state(result)


class _LoopBlocks:
    """What a graph loop's state was before it and what its body gave, for
    `aliasing.refuse_lost_aliases` and `keep`."""

    def __init__(self, state: tuple[Any, ...]) -> None:
        self.state = state
        self.where: dict[str, tuple[Any, ...]] = {"before a graph loop": state}
        self._items: tuple[Any, ...] = ()

    def body(self, values: tuple[Any, ...]) -> tuple[Any, ...]:
        self.where["in the body of a graph loop"] = values
        self._items = nest.map_structure(lambda v: v, values)
        return values

    def keep(self, result: tuple[Any, ...]) -> tuple[Any, ...]:
        """`result`, except that a list or dict the body gives as the object
        the loop began with, or where it began with no value (a return
        value), stays that object (`nest.keep_shared`), holding the loop's
        outputs where the body left a tensor of its own.

        (The body's own items are not the loop's: they belong to its graph,
        which has finished. An item the body left as it came, a Python
        value or a tensor from outside the loop, is the same in every
        iteration and stays.)"""
        given = self.where.get("in the body of a graph loop")
        if given is None:
            return result
        kept = []
        for out, before, value, items in zip(result, self.state, given, self._items):
            if type(before) is UndefinedReturnValue:
                before = value  # (its value is never read: the body's)
            came = nest.map_structure(_as_it_came, items)
            kept.append(nest.keep_shared(out, before, value, came, items))
        return tuple(kept)


# What `_LoopBlocks.keep` compares an item the body made with: never it.
_MADE_IN_THE_BODY = object()


def _as_it_came(value: Any) -> Any:
    """`value`, or `_MADE_IN_THE_BODY` for a tensor of a graph the loop
    being built is not nested in (its body's, or a branch's in it)."""
    if not isinstance(value, SymbolicTensor):
        return value
    graph = STATE.graph
    while graph is not None:
        if value.graph is graph:
            return value
        graph = graph.outer_graph
    return _MADE_IN_THE_BODY


def _has_effects(test: Callable[..., Any], state: tuple[Any, ...]) -> bool:
    """Whether a loop test adds stateful ops (a Variable update): it has run
    once already, so the loop must not run it again before the body."""
    if not state:
        return False  # an effects-only loop: its test is traced as it is

    def probe(*args: Any) -> bool:
        test(*args)
        return STATE.graph.is_stateful

    return dry_run(probe, [as_guess(v) for v in state])


def _while_with_places(
    test: Callable[..., Any],
    body: Callable[..., Any],
    state: tuple[Any, ...],
    names: tuple[str, ...],
    first_cond: Any,
    places: Sequence[Place],
    opts: dict[str, Any] | None,
) -> Any:
    """`build_while` with the places as more loop variables, for a loop whose
    test has effects.

    The test may change places too (it may call a function that writes a
    `nonlocal`), and a graph loop's condition cannot pass anything on; so
    the loop is rotated: the condition is a loop variable, first the value
    the test already gave (its effects are in the places), then the test's
    value at the end of each iteration, computed in the body.

        c = first_cond                 while c:
        while c:               ==          state = body(*state)
            ...                            c = test(*state)
    """
    k = len(state)

    def test_(c: Any, *values: Any) -> Any:
        return c

    def body_(c: Any, *values: Any) -> Any:
        places_.write(places, values[k:])
        out = as_state(body(*values[:k]), k)
        c = test(*out)
        return (c, *out, *places_.read(places))

    loop = (
        test_,
        body_,
        (first_cond, *state, *places_.read(places)),
        ("the loop's condition", *names, *(p.name for p in places)),
    )
    result = _restoring(
        places, lambda: build_while(*loop, first_cond, opts=opts, effects=False)
    )
    result = as_state(result, 1 + k + len(places))
    places_.write_results(places, result[1 + k :])
    return unpack_state(result[1 : 1 + k])


def build_for(
    iterable: SymbolicTensor | tuple[Any, ...],
    body: Callable[..., Any],
    state: tuple[Any, ...],
    names: tuple[str, ...],
    extra_test: Callable[..., Any] | None,
    places: Sequence[Place] = (),
    opts: dict[str, Any] | None = None,
    *,
    sample: tuple[Any, ...] | None = None,
) -> Any:
    names = names or state_names(body, skip=1)
    iterable = _tensors_of(iterable)
    if places:
        verification.refuse_loop_places(places)
        k = len(state)
        test, body_, state_, names_ = _loop_with_places(
            extra_test, body, state, names, places, 1
        )
        result = _restoring(
            places,
            lambda: build_for(iterable, body_, state_, names_, test, opts=opts),
        )
        result = as_state(result, k + len(places))
        places_.write_results(places, result[k:])
        return unpack_state(result[:k])
    count = len(state)
    # (A tuple of tensors of one length: `enumerate`/`zip`, see `rows_of`.)
    length = _length(nest.flatten(iterable))

    def item(i: Any) -> Any:
        return nest.map_structure(lambda t: _row(t, i), iterable)

    trial = for_trial(iterable, body, count)
    item_types = [
        TypeGuess(t.dtype, _item_shape(t), is_weak(t)) for t in nest.flatten(iterable)
    ]
    try:
        relaxed: list[Any] = []
        loop_vars, born, sample = loop_state(
            state, names, trial, item_types, sample, relaxed
        )
        opts = relax(opts, relaxed)
    except NeverSet as never:
        test_, body_, state_, names_, finish = without(
            never.position, extra_test, body, state, names, 1, never.name, never.born
        )
        loop = (iterable, body_, state_, names_, test_)
        return finish(build_for(*loop, opts=opts, sample=never.sample))
    if born:
        first = LoopBorn(born, names)
        result = build_for(
            iterable,
            first.body(body, count, 1),
            (*loop_vars, *first.flags()),
            (*names, *first.flag_names()),
            first.test(extra_test, count),
            opts=opts,
            sample=with_flags(sample, first),
        )
        return first.finish(result, count)
    options = loop_options(opts, loop_vars)
    if options["shape_invariants"] is not None:
        options["shape_invariants"].insert(0, ())  # the iteration counter

    def cond(i: Any, *v: Any) -> Any:
        more = i < length
        if extra_test is None:
            return more
        return staged_and(more, lambda: extra_test(*v))

    given = _LoopBlocks(state)

    def step(i: Any, *v: Any) -> tuple[Any, ...]:
        return (i + 1, *given.body(as_state(body(item(i), *v), count)))

    with _loop_context(names, loop_vars):
        result = control_flow.while_loop(
            cond, step, (0, *loop_vars), names=["iteration", *labels(names)], **options
        )
    result = given.keep(tuple(result[1:]))
    aliasing.refuse_lost_aliases(
        names, given.where, result, copied="before a graph loop"
    )
    return unpack_state(result)


@contextlib.contextmanager
def _loop_context(names: Sequence[str], values: Sequence[Any]) -> Iterator[None]:
    """Adds the loop variables' names and dtypes to errors raised while tracing."""
    try:
        yield
    except (TypeError, ValueError) as e:
        described = []
        dtypes = set()
        for name, value in zip(names, values):
            dtype = getattr(value, "dtype", None)
            if dtype is None and isinstance(value, (bool, int, float)):
                dtype = convert_to_tensor(value).dtype
            shown = quote(label(name))
            described.append(f"{shown} ({dtype})" if dtype is not None else shown)
            if dtype is not None:
                dtypes.add(str(dtype))
        if described and not getattr(e, "_ag_loop_note", False):
            advice = ""
            # A dtype clash that involves a loop variable's dtype (not any
            # message that says "dtype"): the variable may need another.
            text = str(e)
            if isinstance(e, TypeError) and any(d in text for d in dtypes - {"bool"}):
                advice = (
                    "; a variable keeps its dtype in a graph loop, so give it the "
                    f"right one before the loop (e.g. {_instead(text)})"
                )
            verification.add_note(
                e,
                "while tracing a graph loop whose variables are "
                + ", ".join(described)
                + f" at the start{advice}",
            )
            e._ag_loop_note = True  # type: ignore[attr-defined]
        raise


def _instead(text: str) -> str:
    """What to write before a loop whose variable clashes in dtype with a
    value (`text`: the error): a float for an int, or, where two ints (two
    floats) of different widths clash (`int32 and int64`: a Python 0 and
    a NumPy int64), the wider one made explicitly."""
    named = dict.fromkeys(re.findall(r"\b(u?int\d+|float\d+)\b", text))
    kinds = {d.rstrip("0123456789") for d in named}
    if len(named) == 2 and len(kinds) == 1:
        wider = max(named, key=lambda d: int(re.sub(r"\D", "", d)))
        zero = "0.0" if wider.startswith("float") else "0"
        return f"rt.constant({zero}, rt.{wider}) instead of {zero}"
    return "0.0 instead of 0"


def _tensors_of(iterable: Any) -> Any:
    """What a graph `for` iterates: a `range` of tensor bounds, or a NumPy
    array or eager tensor (the rest of a Python loop, `for_stmt`), as a
    tensor."""
    if isinstance(iterable, range):
        return weak_range(iterable.start, iterable.stop, iterable.step)
    if isinstance(iterable, (np.ndarray, EagerTensor)):
        return convert_to_tensor(iterable)
    return iterable


def weak_range(*args: Any) -> Any:
    """Python's `range(*args)` as a graph tensor of weak ints
    (`SymbolicTensor.weak`): its items are Python ints, so `i * 0.5` is a
    float, as in Python; `rt.range` keeps TensorFlow's strict int32."""
    values = creation.range(*args)
    if isinstance(values, SymbolicTensor) and values.dtype.is_integer:
        values.weak = True
    return values


def _item_placeholder(values: SymbolicTensor) -> SymbolicTensor:
    """A placeholder of the graph being built for an item of `values`
    (weak where `values` is)."""
    item = STATE.graph.placeholder(values.dtype, _item_shape(values))
    item.weak = is_weak(values)
    return item


def _row(values: Any, i: Any) -> Any:
    """`values[i]`, weak where `values` is (a Python range's ints)."""
    row = values[i]
    if is_weak(values) and isinstance(row, SymbolicTensor):
        row.weak = True
    return row


def _item_shape(value: SymbolicTensor) -> Any:
    return None if value.shape is None else value.shape[1:]


def length_of(value: SymbolicTensor) -> Any:
    if not value.shape:
        raise verification.scalar_iteration(value.name)
    if value.shape[0] is not None:
        return value.shape[0]
    return array_ops.shape(value)[0]


def _length(tensors: Sequence[Any]) -> Any:
    """The number of rows of the shortest of `tensors`: a Python int where
    their lengths are known."""
    lengths = [length_of(t) for t in tensors]
    known = [n for n in lengths if isinstance(n, int)]
    unknown = [n for n in lengths if not isinstance(n, int)]
    if not unknown:
        return min(known)
    shortest = unknown[0]
    for n in [*unknown[1:], *([min(known)] if known else [])]:
        shortest = math_ops.minimum(shortest, n)
    return shortest


def rows_of(rows: Rows) -> Any:
    """The tensors of `enumerate(...)`/`zip(...)` over tensors as one tuple
    of tensors whose rows are the loop's items: `(indices, t)`, `(t, u)`
    (the loop stops at the shortest, as `zip` does); or None where Python
    runs the loop (an argument no tensor or array: Python iterates it, as
    `for x in xs` over a list). A `strict` zip of tensors whose lengths may
    differ is refused: a graph cannot iterate tensors in Python."""
    arrays = rows.arrays()
    if not all(
        isinstance(a, (SymbolicTensor, EagerTensor, np.ndarray)) for a in arrays
    ):
        return None  # (a list's items would become tensors)
    tensors = [convert_to_tensor(a) for a in arrays]
    length = _length(tensors)
    if rows.strict:
        lengths = [t.shape[0] if t.shape else None for t in tensors]
        if None in lengths or len(set(lengths)) > 1:
            where = where_.at(where_.current())
            raise verification.strict_zip_of_tensors(lengths, where)
    return rows.items(iter(tensors), lambda start: weak_range(start, start + length))
