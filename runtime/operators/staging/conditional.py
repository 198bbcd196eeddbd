"""The `if` statement on a staged condition, once for every backend.

Both branches are traced; each starts from the state and the places as they
were before the `if` (the other branch's changes to lists and dicts undone),
and gives its outputs: the state's variables (or, for an `if` that ends its
function, the return value), then the places' values. The backend's `cond`
builds the staged conditional from the two branches; the rules around it
are here:

- a branch that raises on its path raises when the program runs it, and
  gives zeros of the other branch's types meanwhile (`staging.raising`);
- an `if` ending its function whose branches both raise gives no value
  (not None): an `if` around it takes its other branch's type there;
- a value not set on a path (a `return` not taken, a variable of a path
  that has returned) takes the other branch's type, as zeros;
- a return value in one branch only, or a variable or place defined in one
  branch only, is refused;
- a Python number both branches give alike stays that Python number;
- a name an earlier (or inner) loop may have bound travels with its flag,
  and comes out as a maybe-bound value again (`staging.born`);
- a list or dict shared by two names that the branches leave as different
  objects is refused (`aliasing.refuse_lost_aliases`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from runtime.operators import places as places_
from runtime.operators import verification
from runtime.operators.control_flow import as_state, unpack_state
from runtime.operators.places import Place
from runtime.operators.staging import aliasing
from runtime.operators.staging import returned as returns_
from runtime.operators.staging.born import (
    maybe_bound,
    unset_by_loop,
    unset_in_iteration,
)
from runtime.operators.staging.raising import raise_when_run
from runtime.operators.variables import (
    UnboundAfterReturn,
    UnboundUntilRun,
    UndefinedReturnValue,
    is_undefined,
)

_PLACEHOLDERS = (UndefinedReturnValue, UnboundAfterReturn)
_BRANCHES = ("if", "else")
# What a returning `if` whose branches both raise gives: one object for all,
# which a backend's `cond` passes through where both branches give it (an
# `if` holding such `if`s in both branches, traced and on trial).
_NEVER_RETURNS = UndefinedReturnValue()


def if_stmt(
    backend: Any,
    cond: Any,
    body: Callable[..., Any],
    orelse: Callable[..., Any] | None,
    state: tuple[Any, ...],
    names: tuple[str, ...],
    places: Sequence[Place] = (),
) -> Any:
    """`ag__.if_stmt` on a condition `backend` stages (see `Backend`)."""
    verification.refuse_untracked(places, backend.kind)
    returns = not names  # no outputs: the branches give the function's value
    count = len(names) or 1
    keys = [verification.label("retval_")] if returns else verification.labels(names)
    keys += [p.name for p in places]
    before = places_.read(places)
    unchanged = outputs_before(state, names)
    fns = {"if": body, "else": orelse}
    # Names an earlier graph loop may have bound: each branch gives a value
    # and whether it is bound, by output position, with the message its read
    # raises. A loop inside a branch may add one: the branch traced first
    # tells, and the other then gives its value with a flag too.
    inputs = [None] * count if returns else list(unchanged)
    maybe = {
        i: v.message
        for i, v in enumerate([*inputs, *before])
        if type(v) is UnboundUntilRun
    }
    every = ["retval_"] * count if returns else list(names)
    every += [p.name for p in places]
    # Names unbound before the `if` that a loop iterating as Python carries
    # (`born.unset_in_iteration`; a variable of a `try` too, in a place):
    # a branch that binds one gives it with a
    # flag, the other zeros of its type and False.
    fresh = {
        i: verification.unassigned_after_if(every[i], backend.kind, body)
        for i, v in enumerate([*inputs, *before])
        if unset_in_iteration(v) and not unset_by_loop(v)
    }
    maybe.update(fresh)
    given: dict[str, list[Any]] = {}  # each branch's outputs, as objects
    copies: dict[str, list[Any]] = {}  # ... and their items as they were
    held: dict[str, list[Any]] = {}  # ... and the places' values, alike
    held_copies: dict[str, list[Any]] = {}
    returned: dict[str, Any] = {}
    traced: list[str] = []

    def call(
        fn: Callable[..., Any] | None, which: str | None, raised: bool = False
    ) -> list[Any]:
        aliasing.restore_items()  # the other branch's changes undone
        places_.write(places, before)
        args = backend.branch_args(state)
        if fn is not None:
            result = fn(*args)
        elif returns and raised:
            # Both branches raise: this `if` returns nothing (not None), and
            # an `if` around it gives its other branch's type here, as for a
            # `return` not taken.
            result = _NEVER_RETURNS
        else:  # no else block: the state comes out unchanged
            result = None if returns else unpack_state(unchanged)
        values = [result] if returns else list(as_state(result, count))
        # (A copy of a list given back is the object Python's name holds.)
        originals = {id(c): v for c, v in zip(args, state) if c is not v}
        values = [originals.get(id(v), v) for v in values]
        values += places_.read(places)
        if which is not None:
            traced.append(which)
            # (A list or dict both branches return stays that object too:
            # `return retval_ if do_return else xs` after a loop whose
            # `return`s give `xs` is `xs`.)
            given[which] = values[:count]
            copies[which] = backend.snapshot(values[:count])
            held[which] = values[count:]
            held_copies[which] = backend.snapshot(values[count:])
        late = {
            i: v.message
            for i, v in enumerate(values)
            if type(v) is UnboundUntilRun and i not in maybe
        }
        if late and traced == [which]:  # the first branch traced tells
            maybe.update(late)
        elif late:
            # A name this path may have bound (a loop inside it) that the
            # branch traced first gave without a flag: trace again with one.
            raise _Retry(token, late)
        for i in maybe:
            if type(values[i]) is UnboundUntilRun:
                values[i] = (values[i].value, values[i].flag)
            elif not is_undefined(values[i]):
                values[i] = (values[i], True)
        return values

    def sample(which: str, own: Callable[[], list[Any]]) -> list[Any]:
        """What branch `which` gives, traced on trial; `own()` if it raises
        on its path too (both branches raise: the values are never used)."""
        try:
            return backend.trial(lambda: call(fns[which], None))
        except Exception as error:
            if not backend.on_path(error):
                raise
            return own()

    def branch(which: str) -> Callable[[], list[Any]]:
        other = "else" if which == "if" else "if"

        def run() -> list[Any]:
            try:
                out = call(fns[which], which)
            except Exception as error:
                if not backend.on_path(error):
                    raise
                # Python raises it only when this branch runs: so does the
                # program; the branch gives the other's types meanwhile.
                shapes = sample(other, lambda: call(None, None, raised=True))
                what = f"the {which} branch of the {backend.kind} `if`"
                raise_when_run(backend, error, what, "this run took")
                given.pop(which, None)
                return backend.zeros(shapes)
            raw[which] = list(out[:count])  # (before a placeholder is filled)
            if returns:
                returned[which] = out[0]
                if len(returned) == 2 and (returned["if"] is None) != (
                    returned["else"] is None
                ):
                    lacking = "if" if returned["if"] is None else "else"
                    verification.raise_missing_return(
                        body, lacking, orelse is not None, kind=backend.kind
                    )
                if len(returned) == 2 and not any(
                    v is None or _unset(v) for v in returned.values()
                ):
                    verification.check_loop_return(
                        body, returned["if"], returned["else"], backend.kind
                    )
            if any(_unset(v) for v in out):
                # No value on this path (a `return` not taken, or a variable
                # of a path that has returned): the other branch's type.
                shapes = sample(other, lambda: out)
                out = [
                    fill(backend, v, s, i in fresh) if _unset(v) else v
                    for i, (v, s) in enumerate(zip(out, shapes))
                ]
                for i, value in enumerate(given.get(which, ())):
                    if _unset(value):  # as the branch gives it
                        given[which][i] = out[i]
                        copies[which][i] = backend.snapshot([out[i]])[0]
            if not returns:
                # Each branch against the other, once both are traced (an
                # item of a missing container is undefined in both).
                defined[which] = out[:count]
                first = defined.get(other)
                if first is not None:
                    check = verification.check_defined
                    has_else = orelse is not None
                    kind = backend.kind
                    check(out[:count], names, which, first, kind, body, has_else)
                    check(first, names, other, out[:count], kind, body, has_else)
            left[which] = out[count:]
            if len(left) == 2:
                verification.check_places_defined(
                    places,
                    left["if"],
                    left["else"],
                    backend.kind,
                    body,
                    orelse is not None,
                )
            outs[which] = out
            return out

        return run

    left: dict[str, list[Any]] = {}
    defined: dict[str, list[Any]] = {}
    outs: dict[str, list[Any]] = {}  # each branch's outputs, as given
    raw: dict[str, list[Any]] = {}  # ... as the branch gave them
    token = object()
    while True:
        try:
            out = backend.cond(cond, branch("if"), branch("else"), keys)
            break
        except _Retry as retry:
            if retry.token is not token:
                places_.write(places, before)
                raise
            maybe.update(retry.late)
            for seen in (
                given,
                copies,
                held,
                held_copies,
                returned,
                left,
                defined,
                outs,
                raw,
            ):
                seen.clear()
            traced.clear()
        except BaseException:
            places_.write(places, before)
            raise
    if len(outs) == 2:
        # Both branches give the same Python number (a counter both
        # increment, a return flag both set): Python's value after the `if`,
        # not the op's traced copy of it (`[0] * n` stays a list).
        for i in same_python_scalars(outs["if"], outs["else"]):
            out[i] = outs["if"][i]
    if len(given) == 2:
        # (A name carried with its flag, `maybe`, is a (value, flag) pair
        # here, which `maybe_bound` below makes one value.)
        plain = [i for i in range(count) if i not in maybe]
        kept = backend.keep_objects(
            [out[i] for i in plain], _at(given, plain), _at(copies, plain)
        )
        for i, value in zip(plain, kept):
            out[i] = value
        where = {
            f"in the {b} branch of a {backend.kind} `if`": v for b, v in given.items()
        }
        aliasing.refuse_lost_aliases(names, where, out[:count], program=backend.program)
    if len(held) == 2 and places:
        # A list or dict a place holds that both branches leave as it came
        # (`ys = xs` in one, nothing in the other) stays that object, as a
        # name's does: the JAX op gives back a copy (`ys[0] += 1` in a
        # `finally` after the `if` changed the copy, not `xs`).
        kept = backend.keep_objects(out[count:], held, held_copies)
        for j, value in enumerate(kept):
            if count + j not in maybe:
                out[count + j] = value
        # One that each branch leaves as another object is a copy after the
        # `if`, as a name's is (`ys = xs` in a branch, where a function
        # reads `ys` too, so that it is a place).
        plain = [j for j in range(len(places)) if count + j not in maybe]
        aliasing.refuse_lost_aliases(
            [places[j].name for j in plain],
            {
                f"in the {b} branch of a {backend.kind} `if`": [v[j] for j in plain]
                for b, v in held.items()
            },
            [out[count + j] for j in plain],
            program=backend.program,
        )
    for i, message in maybe.items():
        if i in fresh and type(out[i]) is not tuple:
            continue  # bound by neither branch: unbound as before
        out[i] = maybe_bound(backend, every[i], *out[i], message)
    places_.write(places, out[count:])
    out = out[:count]
    # (Which objects a list or dict packed here came from: a loop being
    # built follows its return value back through them.)
    returns_.merged(out, list(raw.values()))
    return out[0] if returns else unpack_state(out)


def _at(record: dict[str, list[Any]], positions: list[int]) -> dict[str, list[Any]]:
    """Each branch's values in `record` at `positions` only."""
    return {which: [values[i] for i in positions] for which, values in record.items()}


def same_python_scalars(a: Sequence[Any], b: Sequence[Any]) -> list[int]:
    """The positions where `a` and `b` hold the same Python bool, int or
    float (of one type, equal, the same sign of zero)."""
    return [
        i
        for i, (x, y) in enumerate(zip(a, b))
        if type(x) in (bool, int, float) and type(y) is type(x) and repr(x) == repr(y)
    ]


class _Retry(BaseException):
    """A branch traced after the first gives a maybe-bound name (with its
    flag) where the first gave a plain value: the `if` is built again,
    carrying that name's flag from both branches. A BaseException, so that
    no `except Exception` of the user's code in a branch stops it."""

    def __init__(self, token: object, late: dict[int, str]) -> None:
        super().__init__(late)
        self.token, self.late = token, late


def _unset(value: Any) -> bool:
    """A value not set on a branch's path that takes the other branch's
    type there: a return value, a variable of a path that has returned, a
    name a loop being built may bind first (`born.unset_by_loop`), or one
    a loop iterating as Python carries (`born.unset_in_iteration`)."""
    return (
        isinstance(value, _PLACEHOLDERS)
        or unset_by_loop(value)
        or unset_in_iteration(value)
    )


def fill(backend: Any, value: Any, other: Any, flagged: bool = False) -> Any:
    """A value not set on a branch's path, given what the other branch
    gives there (as traced on trial); `flagged`: a name carried with its
    flag, which the other branch gives as (value, flag)."""
    if flagged and type(other) is tuple:
        return (fill(backend, value, other[0]), False)
    if isinstance(value, UndefinedReturnValue) and isinstance(
        other, UndefinedReturnValue
    ):
        return other  # the same object in both branches: it passes through
    if is_undefined(other):
        return value
    return backend.fill(value, other)


def outputs_before(state: tuple[Any, ...], names: Sequence[str]) -> tuple[Any, ...]:
    """The outputs `names` as they were before an `if`, given its inputs
    `state`: the same where the inputs are the outputs; else each output's
    value in the user's function (or the input in its position from the
    end)."""
    count = len(names)
    if len(state) == count:
        return state
    held = aliasing.function_locals()
    tail = (
        state[-count:] if len(state) > count else (None,) * (count - len(state)) + state
    )
    return tuple(held.get(n, t) for n, t in zip(names, tail))
