"""A graph loop's variables: names the loop is the first to assign, return
values, lists (TensorArrays), found by one trial trace of the body."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from runtime import control_flow_checks as checks
from runtime import nest
from runtime.graph import user_location
from runtime.op_registry import convert_to_tensor
from runtime.operators import verification
from runtime.operators.backends.graph import BACKEND, TypeGuess, zeros_like_spec
from runtime.operators.control_flow import as_state, unpack_state
from runtime.operators.staging import born
from runtime.operators.staging import where as where_
from runtime.operators.staging.born import Born, on_trial
from runtime.operators.variables import (
    UnboundUntilRun,
    Undefined,
    UndefinedReturnValue,
    is_undefined,
)
from runtime.ops.tensor_array import TensorArray
from runtime.tensor import (
    EagerTensor,
    SymbolicTensor,
    Tensor,
    is_symbolic,
    is_weak,
)


def loop_state(
    state: tuple[Any, ...],
    names: Sequence[str],
    trial: Callable[[tuple[Any, ...]], tuple[Any, ...]],
    hints: Sequence[Any] = (),
    sample: tuple[Any, ...] | None = None,
    relaxed: list[Any] | None = None,
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
        (see `LoopBorn`): their positions, each with whether the name is bound
        on entry (False, or the flag of an earlier loop's `UnboundUntilRun`);
        and the trial trace's sample (None if none was needed).
    """
    needs_trial = any(isinstance(v, (Undefined, list)) or _opaque(v) for v in state)
    if sample is None and needs_trial:
        with on_trial(state):
            sample = _trial(trial, state, names, hints)
    out = []
    born: dict[int, Any] = {}  # position: whether it is bound on entry
    for i, (value, name) in enumerate(zip(state, names)):
        if isinstance(value, UndefinedReturnValue):
            if sample[i] is value:
                raise NeverSet(i, sample)
            if isinstance(sample[i], Undefined):
                raise verification.untyped_return("graph")
            out.append(zeros_like_spec(sample[i], relaxed))
        elif type(value) is Undefined:
            if sample[i] is value:  # assigned on no path the graph has
                raise NeverSet(i, sample, born=name)
            given = sample[i]
            if type(given) is UnboundUntilRun:  # by a loop inside the body
                given = given.value
            elif is_undefined(given):
                raise verification.not_on_every_path(name, "graph")
            elif _opaque(given):  # (a function defined in the body)
                raise verification.not_carried_out_of_loop(
                    name, checks.kind(given), "graph", where_.statement_here()
                )
            out.append(zeros_like_spec(given, relaxed))
            born[i] = False
        elif type(value) is UnboundUntilRun:  # an earlier graph loop's
            out.append(value.value)
            born[i] = value.flag
        elif isinstance(value, list):
            out.append(_list_state(value, name, sample[i]))
        elif _opaque(value):
            if sample[i] is value:
                raise NeverSet(i, sample, name)
            # The body gives it another one (a new function): no graph
            # loop can carry it.
            raise verification.replaced_in_loop(
                name, checks.kind(value), "graph", where_.statement_here()
            )
        else:
            out.append(value)
    return tuple(out), born, sample


def _opaque(value: Any) -> bool:
    """An object no graph loop variable can hold (a user's `Vec`): the loop
    keeps it out of its variables if the body gives it back as the same
    object (`v += b` through `Vec.__iadd__`), as the JAX backend keeps
    values that are not arrays in Python; its attributes the body changes
    are carried as the mutations of any object are."""
    return not isinstance(
        value, (Undefined, list, tuple, dict, type(None))
    ) and not checks.convertible(value)


class NeverSet(Exception):
    """A state variable the loop does not carry: a return value no traced
    path of a loop's body sets (its `return` is behind a condition that is
    false while tracing), or an object the body gives back as itself
    (`_opaque`, `name` given). It stays out of the loop variables (see
    `without`)."""

    def __init__(
        self,
        position: int,
        sample: tuple[Any, ...],
        name: str | None = None,
        born: str | None = None,
    ) -> None:
        super().__init__(position)
        self.position = position
        self.name = name
        self.born = born  # (a name the loop may bind first: its name)
        # (What the trial trace gave for the other variables.)
        self.sample = (*sample[:position], *sample[position + 1 :])


def without(
    position: int,
    test: Callable[..., Any] | None,
    body: Callable[..., Any],
    state: tuple[Any, ...],
    names: tuple[str, ...],
    skip: int,
    name: str | None = None,
    born_name: str | None = None,
) -> tuple[Any, ...]:
    """A loop's test, body, state and names without the state variable at
    `position`, which keeps its value; and a function that puts it back
    into the loop's result. `name`: the object's (`NeverSet.name`);
    `born_name`: the name's, for one the loop may bind first
    (`NeverSet.born`)."""
    kept = state[position]
    count = len(state)
    where = where_.statement_here() if born_name is not None else ""

    def full(values: Sequence[Any]) -> tuple[Any, ...]:
        return (*values[:position], kept, *values[position:])

    def test_(*args: Any) -> Any:
        return test(*full(args))

    def body_(*args: Any) -> Any:
        out = as_state(body(*args[:skip], *full(args[skip:])), count)
        if out[position] is not kept:
            if name is not None:
                checks.check_body_value(out[position], f"loop variable {name!r}")
            if born_name is not None:
                # (The trial took a path the loop does not: a test it stages
                # on a value the trial had as a Python one.)
                raise verification.born_on_an_untraced_path(born_name, "graph", where)
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
    guess: Callable[[Any], Any] | None = None,
) -> tuple[Any, ...]:
    """What the body returns for `state`, traced once into a scratch graph.

    The body may read a variable that only an earlier iteration assigns
    (`total += prev; prev = i`): its type is then found as a fixed point, the
    first of the types of the loop's values (`hints` and the state) that the
    body maps to itself.
    """
    # The body is traced as the loop will trace it: on tensors, not on the
    # Python values the variables have before the loop (a Python `if` on
    # them would take one branch only); `guess` may keep some as they are.
    state = [(guess or as_guess)(v) for v in state]
    while True:
        try:
            lists = _listless(tuple(state))
            sample = trial(lists)
            if any(type(v) is list for v in lists):
                where = where_.at(user_location())
                verification.refuse_grown_lists(names, lists, sample, "graph", where)
            return sample
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
                if born.read_raises_when_run(names[i]):
                    continue
                kind = f"{failed.guess.dtype.name} {failed.guess.shape}"
                kind_of_error = type(failed.error)
                if kind_of_error not in (TypeError, ValueError):
                    kind_of_error = ValueError
                raise kind_of_error(
                    f"{message} (tracing the body with it as {kind}: {failed.error})"
                ) from failed.error
            if guess is not None:
                state[i] = guess
            elif not born.read_raises_when_run(names[i]):
                raise ValueError(message) from None


def as_guess(value: Any) -> Any:
    """A Python number, string or tensor as the loop variable it becomes,
    each leaf of a tuple, list or dict too: the loop carries `('run', n)`,
    `[0, n]` and `{'c': 0}` as tensors, so a trial on the Python string or
    number would take one branch of a test that the loop stages
    (`if c[0] != 'run'`, `if ms[-1] == 0`), and learn another state. A list
    or dict stays one (a fresh one, which the trial may change)."""
    if isinstance(value, (bool, int, float, str, Tensor)):
        spec = value if is_symbolic(value) else convert_to_tensor(value)
        weak = type(value) is int or is_weak(value)
        return TypeGuess(spec.dtype, spec.shape, weak)
    if type(value) in (tuple, list):
        return type(value)(as_guess(v) for v in value)
    if type(value) is dict:
        return {k: as_guess(v) for k, v in value.items()}
    return value


class _NoFixedPoint(Exception):
    def __init__(self, guess: TypeGuess, error: Exception) -> None:
        super().__init__(guess, error)
        self.guess, self.error = guess, error


def _fixed_point(
    trial: Callable[[tuple[Any, ...]], tuple[Any, ...]],
    state: list[Any],
    i: int,
    candidates: Sequence[Any],
) -> TypeGuess | None:
    """The first candidate type for variable `i` that the body maps to
    itself, or None. If none does and building the body failed for some,
    `_NoFixedPoint` tells the first such failure (it may not depend on the
    type at all: a name assigned in one branch of a graph `if`)."""
    tried = set()
    guesses: list[TypeGuess] = []
    refusals: list[Exception] = []
    # (The candidates' leaves, as JAX's: a tuple of a string and a number
    # is no one tensor's type.) A type the body gives for a guess is tried
    # too: `prev = i / 2` gives float64 whatever `prev` was.
    values = [*nest.flatten(list(candidates)), 0, 0.0]
    for value in values:
        if isinstance(value, TypeGuess):
            guess = value
        elif is_undefined(value) or not checks.convertible(value):
            continue
        else:
            spec = value if is_symbolic(value) else convert_to_tensor(value)
            guess = TypeGuess(spec.dtype, spec.shape)
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
        if isinstance(out, SymbolicTensor | EagerTensor):
            if out.dtype is guess.dtype and out.shape == guess.shape:
                return guess
            values.append(TypeGuess(out.dtype, out.shape))
    if refusals:
        raise _NoFixedPoint(guesses[0], refusals[0])
    return None


def _list_state(items: list[Any], name: str, sample: Any) -> Any:
    """A list as a loop variable: a TensorArray if the body appends to it,
    else the list itself (a structure of loop variables)."""
    if isinstance(sample, list) and len(sample) == len(items) and items:
        return items
    return _as_tensor_array(items, name, sample)


class LoopBorn:
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
            where_.at(user_location(2)),
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


def with_flags(sample: tuple[Any, ...] | None, born: LoopBorn) -> Any:
    """A trial trace's `sample` for the loop that also carries `born`'s
    flags (which no later step reads)."""
    return None if sample is None else (*sample, *born.flags())


def widened_numbers(
    state: tuple[Any, ...],
    names: Sequence[str],
    trial: Callable[[tuple[Any, ...]], tuple[Any, ...]],
) -> tuple[Any, ...] | None:
    """`state` with each Python number the body makes a wider number cast
    to that type (`total = 0` then `total += x[i]` on float32: a float32
    0.0), as Python's arithmetic widens it and JAX's weak types do; None if
    there is none. The body is traced on trial with the numbers as Python
    numbers (and the rest as the loop's variables), which the graph loop
    needs only where building it with the numbers' own types failed.
    Raises what the trial raises.

    Traced again until nothing changes: a number widened can widen another
    (`s = s + prev; prev = i / 2`, both 0), and a name the loop binds first
    (`prev`), whose read raised on the first trial (`if i > 0: s = s +
    prev`), is given the type the body gives it, as the loop will.
    """
    out, widened = list(state), False
    probe = list(state)  # what the body is traced on
    while numbers := [i for i, v in enumerate(probe) if type(v) in (int, float)]:
        with on_trial(probe):
            sample = _trial(trial, tuple(probe), names, (), guess=_weak_guess)
        wider = _wider(state, sample, numbers)
        if wider:
            wider = _in_the_loop(wider, state, probe, names, trial)
        _cast_to(wider, state, out)
        _cast_to(wider, state, probe)
        more = bool(wider)
        widened = widened or more
        for i, value in enumerate(probe):
            given = sample[i]
            if type(value) is Undefined and isinstance(given, SymbolicTensor):
                probe[i] = TypeGuess(given.dtype, given.shape)
                more = True
        if not more:
            break
    if not widened:
        wider = _wider_as_weak(state, names, trial)
        _cast_to(wider, state, out)
        widened = bool(wider)
    return tuple(out) if widened else None


def _cast_to(wider: dict[int, Any], state: Sequence[Any], out: list[Any]) -> None:
    """`out` with the numbers of `state` at `wider`'s positions cast to its
    dtypes."""
    for i, dtype in wider.items():
        out[i] = convert_to_tensor(state[i], dtype=dtype)


def _wider_as_weak(
    state: tuple[Any, ...],
    names: Sequence[str],
    trial: Callable[[tuple[Any, ...]], tuple[Any, ...]],
) -> dict[int, Any]:
    """`_wider` where the trial on Python numbers widens none: a staged
    `if` the numbers reach (`acc = fclamp(acc + lag)`, whose `if v > 9.0:
    return 9.0` the Python 0 folds away) widens them only as the loop's
    weak tensors (`SymbolicTensor.weak`), which this trial traces them as."""
    numbers = [i for i, v in enumerate(state) if type(v) in (int, float)]
    if not numbers:
        return {}
    weak = list(state)
    for i in numbers:
        spec = convert_to_tensor(state[i])
        weak[i] = TypeGuess(spec.dtype, spec.shape, True)
    with on_trial(weak):
        sample = _trial(trial, tuple(weak), names, ())
    return _wider(state, sample, numbers)


def _wider(
    state: Sequence[Any], sample: Sequence[Any], numbers: Sequence[int]
) -> dict[int, Any]:
    """The positions among `numbers` (Python numbers of `state`) whose value
    in `sample` is of a wider type, each with that dtype."""
    wider = {}
    for i in numbers:
        given = sample[i]
        if type(given) in (int, float):
            given = convert_to_tensor(given)
        if not isinstance(given, SymbolicTensor | EagerTensor):
            continue
        if _widens(convert_to_tensor(state[i]).dtype, given.dtype):
            wider[i] = given.dtype
    return wider


def _in_the_loop(
    wider: dict[int, Any],
    state: Sequence[Any],
    probe: list[Any],
    names: Sequence[str],
    trial: Callable[[tuple[Any, ...]], tuple[Any, ...]],
) -> dict[int, Any]:
    """`wider`'s dtypes as the loop gives them: traced again with the other
    Python numbers as the tensors the loop makes of them. A counter `i = 0`
    is an int32 there, so `acc + i / 2` is a float64, where the trial on
    Python numbers gave a Python float (float32). `wider` as it is where
    that trace fails (a number that widens only with another one)."""
    loop = [v if i in wider else as_guess(v) for i, v in enumerate(probe)]
    try:
        with on_trial(loop):
            sample = _trial(trial, tuple(loop), names, (), guess=_weak_guess)
    except (TypeError, ValueError):
        return wider
    return {i: _wider(state, sample, [i]).get(i, dtype) for i, dtype in wider.items()}


def _weak_guess(value: Any) -> Any:
    """`as_guess`, but a Python number stays one (`widened_numbers`)."""
    return value if type(value) in (int, float) else as_guess(value)


_KIND_RANK = {"i": 0, "u": 0, "f": 1, "c": 2}


def _widens(number: Any, to: Any) -> bool:
    """Whether Python's arithmetic takes a number of dtype `number` to one
    of dtype `to` (int to float, float32 to float64, ...)."""
    a, b = np.dtype(number.as_numpy_dtype), np.dtype(to.as_numpy_dtype)
    if a.kind not in _KIND_RANK or b.kind not in _KIND_RANK:
        return False
    return (_KIND_RANK[b.kind], b.itemsize) > (_KIND_RANK[a.kind], a.itemsize)


def _listless(state: tuple[Any, ...]) -> tuple[Any, ...]:
    # Fresh lists: the trial appends to them, and what it appends tells the
    # element dtype.
    return tuple(list(v) if isinstance(v, list) else v for v in state)


def _as_tensor_array(items: list[Any], name: str, sample: Any) -> TensorArray:
    array = _new_tensor_array(items, name, sample)
    array._list_name = name  # for the messages of what a list does and it cannot
    return array


def _new_tensor_array(items: list[Any], name: str, sample: Any) -> TensorArray:
    grown = sample[len(items) :] if isinstance(sample, list) else []
    for item in (*items, *grown):
        if not checks.convertible(item):  # (a function the body appends)
            raise verification.list_item_not_a_tensor(
                name, checks.kind(item), where_.statement_here()
            )
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
