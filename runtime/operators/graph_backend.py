"""The graph backend: converted control flow on graph tensors builds graph ops.

Registers `SymbolicTensor` in `dispatch.TABLES` for the operators, so that
`if_stmt` on a graph-tensor condition builds one `cond` node, `while_stmt` and
`for_stmt` one `while` node, and so on. Also says when it is active (a graph is
being built), which lets converted functions skip straight to plain Python
otherwise.

`print` is not claimed: as in TensorFlow, a Python `print` runs while tracing
(showing symbolic tensors) and `rt.print` is the op that prints every call.

Errors name the user's variables: the names come from the operator call
(`if_stmt`) or from the parameters of the generated loop functions, which are
the loop variables' names.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from runtime import control_flow, dtypes, nest
from runtime import control_flow_checks as checks
from runtime.context import STATE
from runtime.control_flow_checks import quote
from runtime.graph import Graph, keep_refusal, user_location
from runtime.op_registry import convert_to_tensor
from runtime.operators import dispatch, verification
from runtime.operators import places as places_
from runtime.operators.control_flow import as_state, state_names, unpack_state
from runtime.operators.places import Place
from runtime.operators.staging import conditional
from runtime.operators.staging import where as where_
from runtime.operators.staging.born import Born
from runtime.operators.staging.raising import raise_when_run
from runtime.operators.staging.where import staged
from runtime.operators.variables import (
    UnboundUntilRun,
    Undefined,
    UndefinedReturnValue,
    is_undefined,
)
from runtime.operators.verification import label, labels
from runtime.ops import array as array_ops
from runtime.ops import creation
from runtime.ops import math as math_ops
from runtime.ops.state import Assert, ensure_defined
from runtime.ops.tensor_array import TensorArray
from runtime.shapes import as_shape
from runtime.tensor import (
    EagerTensor,
    SymbolicTensor,
    Tensor,
    is_symbolic,
)

# -- if -----------------------------------------------------------------------------


class _GraphBackend:
    """The graph runtime's primitives for the staging core (`staging.backend`)."""

    kind = "graph"
    program = "a graph"

    def checked_read(self, flag: Any, value: Any, message: str) -> Any:
        return ensure_defined(flag, value, message)

    def raise_at_run(self, error: Exception, message: str) -> None:
        Assert(False, [f"{type(error).__name__}: {message}"])

    def keep_refusal(self, refusal: Exception) -> None:
        keep_refusal(refusal, ours=True)  # raised when the trace ends

    def on_path(self, error: Exception) -> bool:
        return verification.raised_on_path(error)

    def branch_args(self, state: tuple[Any, ...]) -> tuple[Any, ...]:
        return state

    def trial(self, fn: Callable[[], Any]) -> Any:
        return _dry_run(fn, ())

    def zeros(self, values: list[Any]) -> list[Any]:
        return [
            nest.map_structure(
                lambda v: v if v is None or is_undefined(v) else _zeros_like_spec(v),
                value,
            )
            for value in values
        ]

    def fill(self, value: Any, other: Any) -> Any:
        return _zeros_keeping_objects(other)

    def snapshot(self, values: list[Any]) -> list[Any]:
        return values  # (the graph's `cond` keeps objects itself)

    def keep_objects(self, out: list[Any], given: Any, copies: Any) -> list[Any]:
        return out

    def cond(
        self,
        pred: Any,
        true_fn: Callable[[], list[Any]],
        false_fn: Callable[[], list[Any]],
        keys: list[str],
    ) -> list[Any]:
        result = control_flow.cond(
            pred,
            lambda: unpack_state(true_fn()),
            lambda: unpack_state(false_fn()),
            names=keys,
        )
        return list(as_state(result, len(keys)))


BACKEND = _GraphBackend()


def _if_stmt(*args: Any, **kwargs: Any) -> Any:
    return conditional.if_stmt(BACKEND, *args, **kwargs)


def _raising_body(body: Callable[..., Any], skip: int) -> Callable[..., Any]:
    """A graph loop's `body` (after `skip` leading item arguments), which
    raises when the graph runs an iteration in which Python raises: an
    error the user's code raised while it was traced becomes an Assert, and
    the iteration gives back the loop variables unchanged (never used)."""

    def run(*args: Any) -> Any:
        try:
            return body(*args)
        except Exception as error:
            # (An unbound read tells a trial trace a loop-born name's type.)
            if isinstance(error, NameError) or not verification.raised_on_path(error):
                raise
            raise_when_run(BACKEND, error, "the body of the graph loop", "this run ran")
            return unpack_state(args[skip:])

    return run


def _restoring(places: Sequence[Place], build: Callable[[], Any]) -> Any:
    """`build()`; if it fails, the places get back the values they had (not
    the tensors of a half-built graph)."""
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


def _zeros_keeping_objects(value: Any) -> Any:
    """`_zeros_like_spec(value)`, except that a list or dict whose values
    this graph can read stays the same object: a value never read, it then
    leaves the object the other branch gives unchanged (see
    `control_flow._keep_identity`), as Python would."""
    if type(value) in (list, dict) and all(
        _readable_here(leaf) for leaf in nest.flatten(value, expand_composites=True)
    ):
        return value
    if nest.is_nested(value):
        children = [_zeros_keeping_objects(c) for c in nest.children(value)]
        return nest.rebuild(value, children)
    return _zeros_like_spec(value)


def _readable_here(leaf: Any) -> bool:
    """Whether the graph being built can read `leaf` (not a tensor of a
    scratch graph)."""
    if not isinstance(leaf, SymbolicTensor):
        return True
    graph: Graph | None = STATE.graph
    while graph is not None:
        if leaf.graph is graph:
            return True
        graph = graph.outer_graph
    return False


# -- loops ----------------------------------------------------------------------------


def _dry_run(body: Callable[..., Any], args: Sequence[Any]) -> Any:
    """Traces `body` once into a scratch graph that is thrown away.

    Used to learn the dtype and shape a value gets inside the loop (a return
    value, an empty list's elements). Python side effects of the body happen
    once more while tracing, as in TensorFlow.
    """
    outer = STATE.graph
    scratch = Graph("dry_run", outer_graph=outer)
    scratch.isolated = True  # what fails here may be tried another way
    with scratch.as_default(), verification.items_kept():
        args = [
            scratch.placeholder(a.dtype, a.shape) if isinstance(a, _Guess) else a
            for a in args
        ]
        return body(*args)


@dataclasses.dataclass(frozen=True)
class _Guess:
    """A type tried for a variable whose type a loop has not shown yet."""

    dtype: dtypes.DType
    shape: tuple[int | None, ...] | None


def _zeros_like_spec(value: Any) -> Any:
    """Zeros shaped like `value`, a (nested) value that may be of a scratch graph."""

    def zeros(leaf: Any) -> Any:
        spec = leaf if isinstance(leaf, SymbolicTensor) else convert_to_tensor(leaf)
        if spec.dtype is dtypes.string:
            return convert_to_tensor("")
        shape = tuple(0 if d is None else d for d in spec.shape)
        return creation.zeros(shape, dtype=spec.dtype)

    return nest.map_structure(zeros, value)


def _loop_state(
    state: tuple[Any, ...],
    names: Sequence[str],
    trial: Callable[[tuple[Any, ...]], tuple[Any, ...]],
    hints: Sequence[Any] = (),
    sample: tuple[Any, ...] | None = None,
) -> tuple[tuple[Any, ...], dict[int, Any], tuple[Any, ...] | None]:
    """Turns the loop's initial state into graph-loop variables.

    A variable not assigned yet (a return value, or a name first assigned
    inside the loop) starts as zeros of the type the loop gives it, learnt by
    tracing the body once; a Python list the body appends to becomes a
    TensorArray, any other list keeps its structure.

    `sample` is what the body gave in an earlier trial trace of the same
    loop, if there was one: a loop is traced at most once on trial.

    Returns:
        The loop variables; the names the loop may be the first to assign
        (see `_Born`): their positions, each with whether the name is bound
        on entry (False, or the flag of an earlier loop's `UnboundUntilRun`);
        and the trial trace's sample (None if none was needed).
    """
    needs_trial = any(isinstance(v, (Undefined, list)) for v in state)
    if sample is None and needs_trial:
        sample = _trial(trial, state, names, hints)
    out = []
    born: dict[int, Any] = {}  # position: whether it is bound on entry
    for i, (value, name) in enumerate(zip(state, names)):
        if isinstance(value, UndefinedReturnValue):
            if sample[i] is value:
                raise _NeverSet(i, sample)
            if isinstance(sample[i], Undefined):
                raise verification.untyped_return("graph")
            out.append(_zeros_like_spec(sample[i]))
        elif type(value) is Undefined:
            if sample[i] is value:  # assigned on no path the graph has
                raise _NeverSet(i, sample)
            given = sample[i]
            if type(given) is UnboundUntilRun:  # by a loop inside the body
                given = given.value
            elif is_undefined(given):
                raise verification.not_on_every_path(name, "graph")
            out.append(_zeros_like_spec(given))
            born[i] = False
        elif type(value) is UnboundUntilRun:  # an earlier graph loop's
            out.append(value.value)
            born[i] = value.flag
        elif isinstance(value, list):
            out.append(_list_state(value, name, sample[i]))
        else:
            out.append(value)
    return tuple(out), born, sample


class _NeverSet(Exception):
    """A return value no traced path of a loop's body sets (its `return` is
    behind a condition that is false while tracing): it stays out of the
    loop variables (see `_without`)."""

    def __init__(self, position: int, sample: tuple[Any, ...]) -> None:
        super().__init__(position)
        self.position = position
        # (What the trial trace gave for the other variables.)
        self.sample = (*sample[:position], *sample[position + 1 :])


def _without(
    position: int,
    test: Callable[..., Any] | None,
    body: Callable[..., Any],
    state: tuple[Any, ...],
    names: tuple[str, ...],
    skip: int,
) -> tuple[Any, ...]:
    """A loop's test, body, state and names without the state variable at
    `position`, which keeps its value; and a function that puts it back
    into the loop's result."""
    kept = state[position]
    count = len(state)

    def full(values: Sequence[Any]) -> tuple[Any, ...]:
        return (*values[:position], kept, *values[position:])

    def test_(*args: Any) -> Any:
        return test(*full(args))

    def body_(*args: Any) -> Any:
        out = as_state(body(*args[:skip], *full(args[skip:])), count)
        if out[position] is not kept:
            raise verification.untyped_return("graph")
        return unpack_state((*out[:position], *out[position + 1 :]))

    def finish(result: Any) -> Any:
        return unpack_state(full(as_state(result, count - 1)))

    return (
        test_ if test is not None else None,
        body_,
        (*state[:position], *state[position + 1 :]),
        (*names[:position], *names[position + 1 :]),
        finish,
    )


def _trial(
    trial: Callable[[tuple[Any, ...]], tuple[Any, ...]],
    state: tuple[Any, ...],
    names: Sequence[str],
    hints: Sequence[Any],
) -> tuple[Any, ...]:
    """What the body returns for `state`, traced once into a scratch graph.

    The body may read a variable that only an earlier iteration assigns
    (`total += prev; prev = i`): its type is then found as a fixed point, the
    first of the types of the loop's values (`hints` and the state) that the
    body maps to itself.
    """
    # The body is traced as the loop will trace it: on tensors, not on the
    # Python values the variables have before the loop (a Python `if` on
    # them would take one branch only).
    state = [_as_guess(v) for v in state]
    while True:
        try:
            return trial(_listless(tuple(state)))
        except UnboundLocalError as e:
            unknown = [
                i
                for i, (n, v) in enumerate(zip(names, state))
                if type(v) is Undefined and f"'{n}'" in str(e)
            ]
            if not unknown:
                raise
            i = unknown[0]
            message = verification.untyped_loop_name(names[i], "graph")
            try:
                guess = _fixed_point(trial, state, i, [*hints, *state])
            except _NoFixedPoint as failed:
                kind = f"{failed.guess.dtype.name} {failed.guess.shape}"
                kind_of_error = type(failed.error)
                if kind_of_error not in (TypeError, ValueError):
                    kind_of_error = ValueError
                raise kind_of_error(
                    f"{message} (tracing the body with it as {kind}: {failed.error})"
                ) from failed.error
            if guess is None:
                raise ValueError(message) from None
            state[i] = guess


def _as_guess(value: Any) -> Any:
    """A Python number or a tensor as the loop variable it becomes."""
    if isinstance(value, (bool, int, float, Tensor)):
        spec = value if is_symbolic(value) else convert_to_tensor(value)
        return _Guess(spec.dtype, spec.shape)
    return value


class _NoFixedPoint(Exception):
    def __init__(self, guess: _Guess, error: Exception) -> None:
        super().__init__(guess, error)
        self.guess, self.error = guess, error


def _fixed_point(
    trial: Callable[[tuple[Any, ...]], tuple[Any, ...]],
    state: list[Any],
    i: int,
    candidates: Sequence[Any],
) -> _Guess | None:
    """The first candidate type for variable `i` that the body maps to
    itself, or None. If none does and building the body failed for some,
    `_NoFixedPoint` tells the first such failure (it may not depend on the
    type at all: a name assigned in one branch of a graph `if`)."""
    tried = set()
    guesses: list[_Guess] = []
    refusals: list[Exception] = []
    for value in [*candidates, 0, 0.0]:
        if isinstance(value, _Guess):
            guess = value
        elif is_undefined(value) or not checks.convertible(value):
            continue
        else:
            spec = value if is_symbolic(value) else convert_to_tensor(value)
            guess = _Guess(spec.dtype, spec.shape)
        if guess in tried:
            continue
        tried.add(guess)
        try:
            sample = trial(_listless((*state[:i], guess, *state[i + 1 :])))
        except UnboundLocalError:
            # Another variable an earlier iteration assigns is read too:
            # `_trial` finds its type next; whether this one's holds shows
            # when the loop is built (a type that changes is refused there).
            return guess
        except (TypeError, ValueError) as error:
            guesses.append(guess)
            refusals.append(error)
            continue
        out = sample[i]
        if (
            isinstance(out, SymbolicTensor | EagerTensor)
            and out.dtype is guess.dtype
            and out.shape == guess.shape
        ):
            return guess
    if refusals:
        raise _NoFixedPoint(guesses[0], refusals[0])
    return None


def _list_state(items: list[Any], name: str, sample: Any) -> Any:
    """A list as a loop variable: a TensorArray if the body appends to it,
    else the list itself (a structure of loop variables)."""
    if isinstance(sample, list) and len(sample) == len(items) and items:
        return items
    return _as_tensor_array(items, name, sample)


class _Born:
    """A graph loop's loop-born names (`staging.born`), by position: the
    loop carries each one's flag after the loop variables."""

    def __init__(self, born: dict[int, Any], names: Sequence[str]) -> None:
        self.initial = tuple(born.values())
        self.names = names
        k = len(names)
        self.core = Born(
            BACKEND,
            {p: k + j for j, p in enumerate(born)},
            dict(enumerate(names)),
            f"the graph loop{where_.at(user_location(2))}",
        )

    def _unbound(self, values: Sequence[Any], when: str) -> list[Any]:
        out = self.core.unbound(dict(enumerate(values)), when)
        return [out[i] for i in range(len(self.names))]

    def flags(self) -> tuple[Any, ...]:
        """Initial values of the flags: bound on entry or not."""
        return self.initial

    def flag_names(self) -> tuple[str, ...]:
        return tuple(f"{self.names[i]}_assigned" for i in self.core.flags)

    def test(self, test: Callable[..., Any] | None, k: int) -> Callable[..., Any]:
        """`test` over the loop variables and the flags."""
        if test is None:
            return None

        def run(*args: Any) -> Any:
            return test(*self._unbound(args, "in"))

        return run

    def body(self, body: Callable[..., Any], k: int, skip: int) -> Callable[..., Any]:
        """`body` over the loop variables and the flags; `skip` leading
        arguments (a `for` item) pass through."""

        def run(*args: Any) -> Any:
            carried = dict(enumerate(args[skip:]))
            inputs = self.core.unbound(carried, "in")
            outputs = as_state(body(*args[:skip], *(inputs[i] for i in range(k))), k)
            out = dict(enumerate(outputs))
            self.core.step(carried, inputs, out, lambda: True)
            return unpack_state([out[i] for i in range(len(carried))])

        return run

    def finish(self, result: Any, k: int) -> Any:
        """The loop's result; what no iteration may have assigned is checked
        when read."""
        result = as_state(result, k + len(self.initial))
        return unpack_state(tuple(self._unbound(result, "after")))


def _with_flags(sample: tuple[Any, ...] | None, born: _Born) -> Any:
    """A trial trace's `sample` for the loop that also carries `born`'s
    flags (which no later step reads)."""
    return None if sample is None else (*sample, *born.flags())


def _listless(state: tuple[Any, ...]) -> tuple[Any, ...]:
    # Fresh lists: the trial appends to them, and what it appends tells the
    # element dtype.
    return tuple(list(v) if isinstance(v, list) else v for v in state)


def _as_tensor_array(items: list[Any], name: str, sample: Any) -> TensorArray:
    if items:
        first = convert_to_tensor(items[0])
        array = TensorArray(first.dtype, size=0, dynamic_size=True)
        for i, item in enumerate(items):
            array = array.write(i, item)
        return array
    if isinstance(sample, list) and sample:
        element = sample[0]
        spec = (
            element
            if isinstance(element, SymbolicTensor)
            else convert_to_tensor(element)
        )
        return TensorArray(spec.dtype, size=0, dynamic_size=True)
    raise verification.empty_list_before_loop(name)


def _while_stmt(
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
    # found, so that it is traced on trial once, see `_loop_state`.)
    names = names or state_names(test)
    if effects is None:  # (with places the loop is rotated: no need to know)
        effects = bool(places) or _has_effects(test, state)
    if places or effects:
        verification.refuse_untracked(places)
        return _while_with_places(test, body, state, names, first_cond, places, opts)
    count = len(state)

    def trial(args: tuple[Any, ...]) -> tuple[Any, ...]:
        return as_state(_dry_run(body, args), count)

    try:
        loop_vars, born, sample = _loop_state(state, names, trial, sample=sample)
    except _NeverSet as never:
        test_, body_, state_, names_, finish = _without(
            never.position, test, body, state, names, 0
        )
        known = {"effects": False, "sample": never.sample}
        loop = (test_, body_, state_, names_, first_cond)
        return finish(_while_stmt(*loop, opts=opts, **known))
    if born:
        first = _Born(born, names)
        result = _while_stmt(
            first.test(test, count),
            first.body(body, count, 0),
            (*loop_vars, *first.flags()),
            (*names, *first.flag_names()),
            first_cond,
            opts=opts,
            effects=False,
            sample=_with_flags(sample, first),
        )
        return first.finish(result, count)
    options = _loop_options(opts, loop_vars)
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
    verification.refuse_lost_aliases(
        names, given.where, result, copied="before a graph loop"
    )
    return unpack_state(result)


class _LoopBlocks:
    """What a graph loop's state was before it and what its body gave, for
    `verification.refuse_lost_aliases` and `keep`."""

    def __init__(self, state: tuple[Any, ...]) -> None:
        self.state = state
        self.where: dict[str, tuple[Any, ...]] = {"before a graph loop": state}
        self._items: tuple[Any, ...] = ()

    def body(self, values: tuple[Any, ...]) -> tuple[Any, ...]:
        self.where["in the body of a graph loop"] = values
        self._items = nest.map_structure(lambda v: v, values)
        return values

    def keep(self, result: tuple[Any, ...]) -> tuple[Any, ...]:
        """`result`, except that a list or dict the body gives as an object
        from outside the loop stays that object (`nest.keep_shared`) where
        the loop began with it, or with no value (a return value)."""
        given = self.where.get("in the body of a graph loop")
        if given is None:
            return result
        kept = []
        for out, before, value, items in zip(result, self.state, given, self._items):
            if type(before) is UndefinedReturnValue:
                before = value  # (its value is never read: the body's)
            kept.append(nest.keep_shared(out, before, value, items, items))
        return tuple(kept)


def _has_effects(test: Callable[..., Any], state: tuple[Any, ...]) -> bool:
    """Whether a loop test adds stateful ops (a Variable update): it has run
    once already, so the loop must not run it again before the body."""
    if not state:
        return False  # an effects-only loop: its test is traced as it is

    def probe(*args: Any) -> bool:
        test(*args)
        return STATE.graph.is_stateful

    return _dry_run(probe, [_as_guess(v) for v in state])


def _while_with_places(
    test: Callable[..., Any],
    body: Callable[..., Any],
    state: tuple[Any, ...],
    names: tuple[str, ...],
    first_cond: Any,
    places: Sequence[Place],
    opts: dict[str, Any] | None,
) -> Any:
    """`_while_stmt` with the places as more loop variables, for a loop whose
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
        places, lambda: _while_stmt(*loop, first_cond, opts=opts, effects=False)
    )
    result = as_state(result, 1 + k + len(places))
    places_.write(places, result[1 + k :])
    return unpack_state(result[1 : 1 + k])


def _for_stmt(
    iterable: SymbolicTensor,
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
    if isinstance(iterable, range):  # the rest of a Python loop (for_stmt)
        iterable = creation.range(iterable.start, iterable.stop, iterable.step)
    if places:
        verification.refuse_untracked(places)
        k = len(state)
        test, body_, state_, names_ = _loop_with_places(
            extra_test, body, state, names, places, 1
        )
        result = _restoring(
            places,
            lambda: _for_stmt(iterable, body_, state_, names_, test, opts=opts),
        )
        result = as_state(result, k + len(places))
        places_.write(places, result[k:])
        return unpack_state(result[:k])
    count = len(state)
    length = _length(iterable)

    def item(i: Any) -> Any:
        return iterable[i]

    def trial(args: tuple[Any, ...]) -> tuple[Any, ...]:
        # An item of the right type and shape, not `iterable[0]`: the iterable
        # may be empty.
        def run(*args: Any) -> Any:
            element = STATE.graph.placeholder(iterable.dtype, _item_shape(iterable))
            return body(element, *args)

        return as_state(_dry_run(run, args), count)

    item_type = _Guess(iterable.dtype, _item_shape(iterable))
    try:
        loop_vars, born, sample = _loop_state(state, names, trial, [item_type], sample)
    except _NeverSet as never:
        test_, body_, state_, names_, finish = _without(
            never.position, extra_test, body, state, names, 1
        )
        loop = (iterable, body_, state_, names_, test_)
        return finish(_for_stmt(*loop, opts=opts, sample=never.sample))
    if born:
        first = _Born(born, names)
        result = _for_stmt(
            iterable,
            first.body(body, count, 1),
            (*loop_vars, *first.flags()),
            (*names, *first.flag_names()),
            first.test(extra_test, count),
            opts=opts,
            sample=_with_flags(sample, first),
        )
        return first.finish(result, count)
    options = _loop_options(opts, loop_vars)
    if options["shape_invariants"] is not None:
        options["shape_invariants"].insert(0, ())  # the iteration counter

    def cond(i: Any, *v: Any) -> Any:
        more = i < length
        if extra_test is None:
            return more
        return _and(more, lambda: extra_test(*v))

    given = _LoopBlocks(state)

    def step(i: Any, *v: Any) -> tuple[Any, ...]:
        return (i + 1, *given.body(as_state(body(item(i), *v), count)))

    with _loop_context(names, loop_vars):
        result = control_flow.while_loop(
            cond, step, (0, *loop_vars), names=["iteration", *labels(names)], **options
        )
    result = given.keep(tuple(result[1:]))
    verification.refuse_lost_aliases(
        names, given.where, result, copied="before a graph loop"
    )
    return unpack_state(result)


def _loop_options(
    opts: dict[str, Any] | None, loop_vars: tuple[Any, ...]
) -> dict[str, Any]:
    """`rt.while_loop`'s keyword arguments from `autograph.set_loop_options`.

    A `shape_invariants` pair `(value, shape)` applies to the loop variables
    (or the tensors in a tuple, list or dict carried by the loop) whose value
    when the loop starts is `value`, by identity; the others keep their own
    shapes.
    """
    opts = opts or {}
    pairs = list(opts.get("shape_invariants") or ())
    options: dict[str, Any] = {
        "maximum_iterations": opts.get("maximum_iterations"),
        "shape_invariants": None,
    }
    for n, pair in enumerate(pairs):
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
            raise verification.bad_invariant_entry(n, pair)
    if not pairs:
        return options
    used = [False] * len(pairs)
    shapes = []
    for var in loop_vars:
        for leaf in nest.flatten(var, expand_composites=True):
            shape = _static_shape(leaf)
            for n, (value, invariant) in enumerate(pairs):
                if value is leaf:
                    shape, used[n] = as_shape(invariant), True
            shapes.append(shape)
    for n, (value, _) in enumerate(pairs):
        if not used[n]:
            raise verification.invariant_not_a_loop_variable(n, _kind(value))
    options["shape_invariants"] = shapes
    return options


def _static_shape(value: Any) -> Any:
    shape = getattr(value, "shape", None)
    if isinstance(value, Tensor) or isinstance(shape, tuple):
        return shape
    return np.shape(value)


def _kind(value: Any) -> str:
    if isinstance(value, Tensor):
        return f"the tensor {value.name!r}" if is_symbolic(value) else "a tensor"
    return f"a {type(value).__name__}"


@contextlib.contextmanager
def _loop_context(names: Sequence[str], values: Sequence[Any]) -> Iterator[None]:
    """Adds the loop variables' names and dtypes to errors raised while tracing."""
    try:
        yield
    except (TypeError, ValueError) as e:
        described = []
        for name, value in zip(names, values):
            dtype = getattr(value, "dtype", None)
            if dtype is None and isinstance(value, (bool, int, float)):
                dtype = convert_to_tensor(value).dtype
            shown = quote(label(name))
            described.append(f"{shown} ({dtype})" if dtype is not None else shown)
        if described and not getattr(e, "_ag_loop_note", False):
            advice = ""
            if isinstance(e, TypeError) and ("dtype" in str(e) or "cast" in str(e)):
                advice = (
                    "; a variable keeps its dtype in a graph loop, so give it the "
                    "right one before the loop (e.g. 0.0 instead of 0)"
                )
            verification.add_note(
                e,
                "while tracing a graph loop whose variables are "
                + ", ".join(described)
                + f" at the start{advice}",
            )
            e._ag_loop_note = True  # type: ignore[attr-defined]
        raise


def _item_shape(value: SymbolicTensor) -> Any:
    return None if value.shape is None else value.shape[1:]


def _length(value: SymbolicTensor) -> Any:
    if not value.shape:
        raise verification.scalar_iteration(value.name)
    if value.shape[0] is not None:
        return value.shape[0]
    return array_ops.shape(value)[0]


# -- expressions ----------------------------------------------------------------------


def _and(a: Any, b: Callable[[], Any]) -> Any:
    return control_flow.cond(a, b, lambda: a, names=["the value of the `and`"])


def _or(a: Any, b: Callable[[], Any]) -> Any:
    return control_flow.cond(a, lambda: a, b, names=["the value of the `or`"])


def _not(a: Any) -> Any:
    return math_ops.logical_not(a)


def _if_exp(
    cond: Any,
    if_true: Callable[[], Any],
    if_false: Callable[[], Any],
    expr_repr: str = "",
) -> Any:
    def arm(fn: Callable[[], Any], other: Callable[[], Any]) -> Callable[[], Any]:
        def run() -> Any:
            value = fn()
            if isinstance(value, UndefinedReturnValue):
                # `return retval_` after a loop whose `return` no traced path
                # took: the value is never used; give it the other's type.
                return conditional.fill(BACKEND, value, _dry_run(other, ()))
            return value

        return run

    return control_flow.cond(
        cond,
        arm(if_true, if_false),
        arm(if_false, if_true),
        names=[_if_exp_label(if_true, if_false)],
    )


def _if_exp_label(*arms: Callable[[], Any]) -> str:
    """How messages name the value of a graph `if_exp`."""
    for arm in arms:
        code = getattr(arm, "__code__", None)
        if code is not None and any(
            label(n) == label("retval_") for n in code.co_freevars
        ):
            # Return lowering's `ag__.if_exp(do_return, lambda: retval_, ...)`.
            return label("retval_")
    return "the value of the `if`/`else`"  # an expression, or an `if` of returns


def _assert(cond: Any, message: Callable[[], Any] | None) -> None:
    data = [] if message is None else [message()]
    Assert(cond, data)


def _range(*args: Any) -> Any:
    return creation.range(*args)


def _len(value: SymbolicTensor) -> Any:
    return _length(value)


def _int(value: Any, *args: Any, **kwargs: Any) -> Any:
    if args or kwargs:  # as Python: a base is for strings only
        raise verification.int_with_base()
    return array_ops.cast(value, dtypes.int32)


def _float(value: Any) -> Any:
    return array_ops.cast(value, dtypes.float32)


def _list_append(array: TensorArray, value: Any) -> TensorArray:
    return array.write(array.size(), value)


def _list_pop(array: TensorArray, *index: Any) -> Any:
    raise verification.pop_of_tensor_array()


def register() -> None:
    """Installs the graph backend into the dispatch tables."""

    def kept(impl: Callable[..., Any]) -> Callable[..., Any]:
        # What the backend refuses stays refused: user code around the
        # statement may catch the error while tracing (`keep_refusal`).
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return impl(*args, **kwargs)
            except Exception as error:
                keep_refusal(error)
                raise

        return run

    def while_stmt(test: Callable[..., Any], body: Callable[..., Any], *a, **k) -> Any:
        return _while_stmt(test, _raising_body(body, 0), *a, **k)

    def for_stmt(
        iterable: Any, body: Callable[..., Any], state: tuple, names: tuple, *a, **k
    ) -> Any:
        names = names or state_names(body, skip=1)
        return _for_stmt(iterable, _raising_body(body, 1), state, names, *a, **k)

    watching = verification.watching_items
    for operator, impl in (
        ("if_stmt", watching(_if_stmt, "graph `if`", 5)),
        ("while_stmt", watching(while_stmt, "graph loop")),
        ("for_stmt", watching(for_stmt, "graph loop")),
        ("and_", _and),
        ("or_", _or),
        ("not_", _not),
        ("if_exp", _if_exp),
        ("assert_stmt", _assert),
        ("range_", _range),
        ("len_", _len),
        ("int_", _int),
        ("float_", _float),
    ):
        dispatch.register(operator, SymbolicTensor, staged(kept(impl)))
    dispatch.register("list_append", TensorArray, kept(_list_append))
    dispatch.register("list_pop", TensorArray, kept(_list_pop))
    # Graph.as_default() counts the graphs being built in the hint.
    dispatch.register_activity_check(lambda: STATE.graph is not None, hinted=True)


register()
