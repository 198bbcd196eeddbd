"""Names a loop may be the first to assign.

Such a name is carried from zeros of the type the loop gives it (or from an
earlier loop's value), with a flag that says whether an iteration has
assigned it yet. Until one has, the variable holds an `UnboundUntilRun`:
reading it (`ag__.ld`, which wraps every read of a maybe-unbound name)
checks the flag right where the read is, so the program raises exactly
when Python would raise UnboundLocalError, naming the variable and the loop.

The state is a mapping from keys (positions, or the JAX backend's names) to
values; `Born` keeps which keys are loop-born and their flags.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from typing import Any

from runtime.operators import exceptions, verification
from runtime.operators.staging.backend import Backend
from runtime.operators.variables import UnboundUntilRun, Undefined
from runtime.source_locations import user_location


class _ReadsThatRaise(threading.local):
    """For each loop being built (innermost last): the names its body
    reads, unbound, before any traced path of the iteration assigns them.
    For each trial trace of a loop's body under way: the unbound values the
    loop's state holds (the names it may bind first). For each loop whose
    iterations run as Python (a Python `range`, a `while` whose test is
    still a Python bool): the unbound values its state holds."""

    def __init__(self) -> None:
        self.loops: list[set[str]] = []
        self.trials: list[tuple[Undefined, ...]] = []
        self.iterations: list[tuple[Undefined, ...]] = []


_READS = _ReadsThatRaise()


@contextlib.contextmanager
def building_loop() -> Iterator[None]:
    """The scope of one loop's build, for `read_raises_when_run`."""
    _READS.loops.append(set())
    try:
        yield
    finally:
        _READS.loops.pop()


@contextlib.contextmanager
def on_trial(state: Iterable[Any]) -> Iterator[None]:
    """The scope of the trial traces of a loop's body that learn the types
    of the names it may bind first (`state`: the loop's initial values),
    for `unset_by_loop`."""
    _READS.trials.append(tuple(v for v in state if type(v) is Undefined))
    try:
        yield
    finally:
        _READS.trials.pop()


def unset_by_loop(value: Any) -> bool:
    """Whether `value` is what a name holds, unbound, before a loop whose
    body is being traced on trial, which may bind it first.

    A staged `if` there that binds it in one branch only gives it the other
    branch's type on the other path, as a return value not set on a path:
    the trial learns its type. When the loop is built the name holds an
    `UnboundUntilRun`, and the `if` carries it with its flag, so that it is
    read checked after the `if` and after the loop, where Python may find
    it unbound (`found = True; break` ... `else: found = False` binds it on
    every path)."""
    return type(value) is Undefined and any(
        _same(value, u) for trial in _READS.trials for u in trial
    )


def _same(value: Undefined, unset: Undefined) -> bool:
    """Whether `value` is `unset`, or the same empty cell read by another
    statement's place (`Undefined.origin`: a variable of a `try`)."""
    return value is unset or (value.origin is not None and value.origin is unset.origin)


def iterating(state: Iterable[Any]) -> bool:
    """Enters the scope of a loop whose iterations run as Python, one by one
    (`state`: its initial values), for `unset_in_iteration`; whether it did
    (a state with no unbound name needs none). The loop leaves it with
    `done_iterating()` (a `try`/`finally`, not a context manager: the
    operators call no builtin a user may have replaced, as contextlib's
    `next` is)."""
    unset = tuple(v for v in state if type(v) is Undefined)
    if unset:
        _READS.iterations.append(unset)
    return bool(unset)


def done_iterating() -> None:
    """Leaves the scope `iterating` entered."""
    _READS.iterations.pop()


def unset_in_iteration(value: Any) -> bool:
    """Whether `value` is what a name holds, unbound, before a loop whose
    iterations run as Python: the loop carries the name, so a later
    iteration, the loop's `else` or a staged loop the rest of it becomes
    may bind it.

    A staged `if` in an iteration that binds it in one branch only gives
    it as a maybe-bound value: the bound branch's value (zeros of its type
    on the other path) with a flag, as a loop that may bind a name first
    does. A read checks the flag where Python may find the name unbound
    (`for ... if x == t: r = i; break ... else: r = -1` binds it on every
    path). Outside a loop such an `if` is refused (`check_defined`)."""
    return type(value) is Undefined and any(
        _same(value, u) for loop in _READS.iterations for u in loop
    )


def read_raises_when_run(name: str) -> bool:
    """Makes a read of `name` (unbound before the loop) that the body of
    the loop being built makes before any traced path of the iteration
    assigns it raise when the program runs it, as Python raises there in
    the first iteration (where no type for it makes the body traceable:
    a dict, or a name assigned only by a Python loop that runs no
    iteration). False if it already did: the name is read elsewhere too."""
    loop = _READS.loops[-1]
    if name in loop:
        return False
    loop.add(name)
    return True


def raises_when_run(error: BaseException) -> bool:
    """Whether `error`, raised by a loop body being traced, is such a read
    (`read_raises_when_run`) of an enclosing loop's: the iteration raises it
    when it runs, as any error on the traced path."""
    if not isinstance(error, UnboundLocalError):
        return False
    text = str(error)
    return any(f"'{n}'" in text for loop in _READS.loops for n in loop)


def staged_in_iteration(
    error: BaseException,
    loop_names: Collection[str],
    raised_on_path: Callable[[BaseException], bool],
) -> bool:
    """Whether `error`, raised while a loop body was traced, is raised when
    the program runs an iteration (the iteration gives its state back),
    rather than while tracing: Python raises it in the iterations that
    reach it, so a loop that runs none does not. True for an error Python
    raises on the path (`raised_on_path`), a read `raises_when_run`, and an
    unbound read of a name the loop does not carry (`loop_names`): one it
    carries tells a trial trace that name's type, so it propagates."""
    if raises_when_run(error):
        return True
    if isinstance(error, NameError):
        if type(error) not in (NameError, UnboundLocalError):
            return False
        read = re.search(r"'(\w+)'", str(error))
        return read is not None and read.group(1) not in loop_names
    return raised_on_path(error)


def maybe_bound(
    backend: Backend, name: str, value: Any, flag: Any, message: str
) -> Any:
    """`value` if `flag` is surely true, else an `UnboundUntilRun` that
    checks `flag` where it is read."""
    if flag is True:
        return value

    def read(returned_by: Callable[..., Any] | None = None) -> Any:
        # The check raises when the program runs; a `try` around the read
        # that would handle Python's error (UnboundLocalError; KeyError or
        # AttributeError for an item or attribute) cannot catch it there.
        # (`returned_by`: the user's function, which returns it in a
        # structure, where Python raises nothing: `places.checked_results`.)
        if returned_by is not None:
            text = verification.unassigned_returned(name, message, returned_by)
            return backend.checked_read(flag, value, text, ValueError)
        where = user_location(3)
        python = verification.unset_read_error(name)
        handler = exceptions.handling_try(where, python())
        if handler is not None:
            refusal = verification.unbound_inside_try(
                name, where, handler, backend.kind, backend.program
            )
            backend.keep_refusal(refusal)
            raise refusal
        first = exceptions.replaced_by_finally(where)
        if first is not None:
            what = f"reading '{name}' (which a {backend.kind} loop may not set)"
            refusal = verification.raises_in_finally(
                what, where, first, backend.program
            )
            backend.keep_refusal(refusal)
            raise refusal
        exceptions.staged_a_raise(where)
        return backend.checked_read(flag, value, message, python)

    return UnboundUntilRun(name, value, flag, message, read)


class Born:
    """The loop-born names of one loop: `flags` maps each one's key to the
    key its flag is carried under; `names` maps keys to the user's names;
    `where` is the loop's `" at file:line"`."""

    def __init__(
        self,
        backend: Backend,
        flags: Mapping[Any, Any],
        names: Mapping[Any, str],
        where: str,
    ) -> None:
        self.backend = backend
        self.flags = dict(flags)
        self.names = names
        self.where = where
        # The keys every traced iteration assigns on each of its paths
        # (None until `step` has traced one).
        self.always: set[Any] | None = None

    def unbound(
        self, values: Mapping[Any, Any], when: str, ran: bool = False
    ) -> dict[Any, Any]:
        """`values` (holding the flags too) with each loop-born name as an
        `UnboundUntilRun` that checks its flag where it is read; after a
        loop that surely `ran` an iteration (a static trip count of at least
        one, no `break`), a name each iteration assigns on every path is its
        plain value: its flag is surely true, and a library call the value
        reaches (`jnp.add` in a helper) takes no placeholder."""
        out = dict(values)
        surely = self.always if ran and when == "after" else None
        for key, flag in self.flags.items():
            name = self.names[key]
            message = verification.unassigned_after_loop(
                name, when, self.backend.kind, self.where
            )
            value, flag = values[key], values[flag]
            if surely is not None and key in surely:
                flag = True
            out[key] = maybe_bound(self.backend, name, value, flag, message)
        return out

    def step(
        self,
        carried: Mapping[Any, Any],
        inputs: Mapping[Any, Any],
        outputs: dict[Any, Any],
        assigned: Callable[[], Any],
    ) -> None:
        """Sets the loop-born names and their flags in `outputs` (what an
        iteration gave for `inputs`, made from the `carried` values) for the
        next iteration: a name the iteration did not assign keeps its value
        and flag; one an inner loop may have assigned takes that loop's flag;
        else the flag is `assigned()` (a staged True). Keeps in `always`
        the names that every iteration traced so far assigned on each path."""
        assigned_here = set()
        for key, flag in self.flags.items():
            output = outputs[key]
            if output is inputs[key]:  # not assigned in this iteration
                outputs[key], outputs[flag] = carried[key], carried[flag]
            elif type(output) is UnboundUntilRun:  # maybe, by an inner loop
                outputs[key], outputs[flag] = output.value, output.flag
            else:
                outputs[flag] = assigned()
                assigned_here.add(key)
        if self.always is None:
            self.always = assigned_here
        else:
            self.always &= assigned_here
