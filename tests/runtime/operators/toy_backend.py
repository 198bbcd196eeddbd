"""A third staging backend, in a hundred lines: proof that the core's
`Backend` protocol (`runtime.operators.staging`) is enough for a backend.

Its values (`Staged`) wrap Python values and, like tracers, have no Python
truth value. Its `cond` runs both branches (each under the path it is on)
and selects the taken one's outputs; run-time raises and checked reads act
where the path is live; loops run their body in Python. `run(fn, *args)`
runs `autograph.to_graph(fn)` on staged arguments.
"""

from __future__ import annotations

import contextlib
import operator

import autograph
from autograph.impl import api
from runtime import context
from runtime.operators import dispatch, verification
from runtime.operators.control_flow import as_state, unpack_state
from runtime.operators.py_builtins import Rows
from runtime.operators.staging import aliasing
from runtime.operators.staging.operators import install
from runtime.operators.staging.raising import as_written, keeping_refusals
from runtime.operators.variables import is_undefined


class Staged:
    """A staged value: its Python value is known, its truth is not usable."""

    __hash__ = None

    def __init__(self, value):
        self.value = value

    def __bool__(self):
        raise TypeError("a staged value has no Python truth value")

    def __repr__(self):
        return f"Staged({self.value!r})"


def _lift(fn):
    return lambda a, b: Staged(fn(value(a), value(b)))


for _name in (
    *("add", "sub", "mul", "truediv", "floordiv", "mod"),
    *("gt", "lt", "ge", "le", "eq", "ne"),
):
    setattr(Staged, f"__{_name}__", _lift(getattr(operator, _name)))
    setattr(
        Staged, f"__r{_name}__", _lift(lambda a, b, f=_name: getattr(operator, f)(b, a))
    )
Staged.__neg__ = lambda a: Staged(-value(a))


def value(v):
    """The Python value inside `v` (recursively through tuples, lists and
    dicts)."""
    if isinstance(v, Staged):
        return v.value
    if type(v) is dict:
        return {k: value(x) for k, x in v.items()}
    if type(v) in (tuple, list):
        return type(v)(value(x) for x in v)
    return v


def _zero(v):
    if v is None or is_undefined(v):
        return v
    if type(v) in (tuple, list):
        return type(v)(_zero(x) for x in v)
    if not isinstance(v, (Staged, int, float)):
        return v  # an object (a user's `Vec`) stands for itself
    return Staged(type(value(v))())


class ToyBackend:
    kind, program = "toy", "a toy program"

    def __init__(self):
        self.path, self.refusals = [], []

    def checked_read(self, flag, v, message, raises=UnboundLocalError):
        if all(self.path) and not value(flag):
            raise as_written(raises, message)
        return v

    def raise_at_run(self, error, message):
        if all(self.path):
            raise as_written(type(error), message)

    def keep_refusal(self, refusal):
        self.refusals.append(refusal)

    def on_path(self, error):
        return verification.raised_on_path(error)

    def branch_args(self, state):
        return state

    def trial(self, fn):
        with aliasing.items_kept():
            return fn()

    def zeros(self, values):
        return [_zero(v) for v in values]

    def fill(self, v, other):
        return _zero(other)

    def snapshot(self, values):
        return values

    def keep_objects(self, out, given, copies):
        return out

    def cond(self, pred, true_fn, false_fn, keys):
        taken = bool(value(pred))
        outs = []
        for fn, on in ((true_fn, taken), (false_fn, not taken)):
            self.path.append(on)
            try:
                outs.append(fn())
            finally:
                self.path.pop()
        return outs[0] if taken else outs[1]


def _while(loop):
    state, cond = loop.state, loop.first_cond
    while value(cond):
        state = as_state(loop.body(*state), len(state))
        cond = loop.test(*state)
    return unpack_state(state)


def _items(iterable):
    """The staged items of a `for` over a staged list, or over `enumerate`
    or `zip` of staged lists (`Rows`: a tuple of staged rows)."""
    if not isinstance(iterable, Rows):
        return [Staged(item) for item in value(iterable)]
    columns = [value(a) for a in iterable.arrays()]
    n = min(len(c) for c in columns)
    rows = iterable.items(iter(columns), lambda start: range(start, start + n))

    def row(structure, i):
        if type(structure) is tuple:
            return tuple(row(s, i) for s in structure)
        return Staged(structure[i])

    return [row(rows, i) for i in range(n)]


def _for(loop):
    state = loop.state
    for item in _items(loop.iterable):
        if loop.test is not None and not value(loop.test(*state)):
            break
        state = as_state(loop.body(item, *state), len(state))
    return unpack_state(state)


TOY = ToyBackend()
install(
    TOY,
    Staged,
    while_loop=_while,
    for_loop=_for,
    select=lambda c, t, f, key: t() if value(c) else f(),
    logical_not=lambda a: Staged(not value(a)),
    wrap=keeping_refusals(TOY),
)
dispatch.register("range_", Staged, lambda *args: Staged(range(*map(value, args))))


@contextlib.contextmanager
def _active():
    # (No activity check: converted code runs because it is forced to.)
    context.add_to_active_hint(1)
    TOY.refusals[:] = []
    try:
        with api.always_run_converted():
            yield
    finally:
        context.add_to_active_hint(-1)


def run(fn, *args):
    """`autograph.to_graph(fn)` on staged `args`: its result's Python value,
    or a refusal user code caught (and swallowed) while staging."""
    try:
        with _active():
            result = autograph.to_graph(fn)(*(Staged(a) for a in args))
    except Exception:
        # (User code caught a refusal and raised something else.)
        if TOY.refusals:
            raise TOY.refusals[0] from None
        raise
    if TOY.refusals:
        raise TOY.refusals[0]
    return value(result)
