"""Containers changed through methods inside a backend's `if` or loop.

Converted code lists what a statement assigns (names, items, attributes:
`places`), but not what a call changes: `out.append(v)`, `d.update(...)`,
`del d[k]`, `s.add(v)`, a user method that sets attributes of `self`. While
a backend traces a branch such a call runs once, whichever branch the
compiled program takes. This module makes those changes follow the rules of
item stores (API.md, "Mutation through methods"), for every backend, around
the backend's own statement (`tracked`):

1. Before the statement, the lists, dicts, sets and user objects reachable
   from the user's running function are noted (`containers.Snapshot`), with the name
   the user reaches each by (`out`, `d['xs']`, `self.acc`).
2. The backend builds the statement as usual, but each branch and loop body
   it traces is watched: when one ends having changed such a container (a
   list's length, a dict's keys, a set's elements, an object's attributes),
   the build is abandoned by `_Restart`, which no backend catches (it is a
   BaseException, and raised before a `cond`/`while` op is made, so nothing
   was added to the graph or jaxpr being built).
3. The containers are put back as they were, and the statement is built
   again with each changed list or dict as one more place (`places.contents`: its
   value is the container's items, writing it puts them back in place) and
   each changed attribute as an attribute place: the backend then carries
   them as it carries item stores, one value per branch, written back after
   the op. A set's elements are Python values: they must come out the same
   from both branches and are then set after the statement.
4. While rebuilding, the structure each branch leaves (length, keys,
   elements, attribute names) is compared: branches of an `if` that leave a
   container differently, or a loop body that changes it, are refused with a
   TypeError naming the container and the line of the call that changed it
   (found with a profile hook, in one more rebuild made for the message).

Nothing of this runs in plain Python: `tracked` wraps only a backend's
implementations, which run while a backend builds a graph.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from runtime.control_flow_checks import quote
from runtime.operators import containers, recursion, verification
from runtime.operators import places as places_
from runtime.operators.control_flow import as_state, state_names, unpack_state
from runtime.operators.places import Place, contents
from runtime.operators.staging import in_place, key_order, python_value
from runtime.operators.staging.conditional import outputs_before
from runtime.operators.staging.python_value import needs_python_value
from runtime.operators.staging.wrapper import Wrapper
from runtime.operators.variables import Undefined
from runtime.source_locations import user_frame, user_location

__all__ = ["tracked"]


class _Restart(BaseException):
    """A traced branch or body changed containers the statement does not
    carry yet: build it again with them (see the module docstring)."""

    def __init__(
        self,
        tracker: _Tracker,
        changed: list[int],
        unset: int | None = None,
        keep: int | None = None,
        lines: bool = False,
    ) -> None:
        super().__init__()
        self.tracker = tracker
        self.changed = changed
        # The attributes of each changed object that differ, as the branch
        # left them: noted where it ends, since the backend puts its places
        # back as it unwinds, and a place written through a property (`s.lr`)
        # puts back the attribute its setter stores (`s._lr`) too.
        self.attrs = {
            key: tracker.snapshot.changed_attrs(key)
            for key in changed
            if not isinstance(tracker.snapshot.entries[key][0], containers.CONTAINERS)
        }
        self.unset = unset  # an output to leave out (see `_Tracker.outputs`)
        self.keep = keep  # one left out that a branch sets after all
        self.lines = lines  # build it under `CallLines`, for a refusal's line


class _Tracker:
    """One backend statement being built: its snapshot, the containers it
    carries so far, and what each traced branch left."""

    def __init__(self, kind: str, places: Sequence[Place], backend: str) -> None:
        self.kind = kind  # "if" or "loop"
        self.count = 0  # an if's outputs
        self.unset: set[int] = set()  # outputs no branch sets, left out
        self.kept: set[int] = set()  # outputs one branch sets (the backend refuses)
        self.backend = backend  # for messages: "graph", "JAX"
        self.where = user_location()
        frame = user_frame()
        self.function = frame.f_code.co_name if frame is not None else None
        self.snapshot = containers.Snapshot(containers.roots(), places)
        places_.exact_setters(
            places, lambda obj: id(obj) in self.snapshot.entries, self._at()
        )
        self.carried: list[int] = []  # containers carried (places, sets)
        self.extra: list[Place] = []
        self.attrs: set[tuple[int, str]] = set()
        self.left: dict[str, dict[int, Any]] = {}  # branch -> shapes it left
        self.lines: containers.CallLines | None = None
        self.watched: list[places_.Untracked] = []  # (see `watching_items`)
        self.orders: key_order.Orders | None = None  # (see `order_keys`)
        # A loop's NumPy arrays its body changes with `+=` (`in_place`).
        self.in_place: in_place.Refusal | None = None

    def watching_items(
        self, places: tuple[Place, ...]
    ) -> tuple[tuple[Place, ...], list[places_.Untracked]]:
        """`places` without the items no place can carry (a key that changes
        in the statement, `scan[j] = v` in a Python `for j in range(3)`;
        `places.Untracked`) of a list, dict or object the snapshot watches:
        a change to one is a change of its container, carried or refused
        like a change a call makes. Also returns those items. An item of
        anything else (a NumPy array) stays, and the backend refuses it."""
        names = {name for _, name, _ in self.snapshot.entries.values()}
        watched = [
            p
            for p in places
            if isinstance(p, places_.Untracked) and _container(p.name) in names
        ]
        self.watched = watched
        return tuple(p for p in places if p not in watched), watched

    def order_keys(
        self, operator: str, args: list[Any], places: Sequence[Place]
    ) -> None:
        """Notes the key orders the statement must keep (`key_order`): of its
        outputs, its places' values and the dicts whose items are places."""
        if operator == "if_stmt":
            state, names = args[3], tuple(args[4])
            outputs = outputs_before(state, names) if names else (None,)
            names = names or ("the function's return value",)
        else:
            state, names = tuple(args[2]), tuple(args[3])
            if not names:
                skip = 0 if operator == "while_stmt" else 1
                names = state_names(args[0] if skip == 0 else args[1], skip)
            outputs = state
        carried = [p for p in places if not isinstance(p, places_.Untracked)]
        containers: dict[int, tuple[str, dict]] = {}
        for place in carried:
            slot = places_.item_slot(place)
            if slot is not None and isinstance(slot[0], dict):
                name = _container(place.name) or place.name
                containers.setdefault(id(slot[0]), (name, slot[0]))
        self.orders = key_order.Orders(
            self.kind,
            [verification.label(n) for n in names],
            outputs,
            carried,
            list(containers.values()),
            self.backend,
            self._at(),
        )

    def _at(self) -> str:
        """`' at file:line in 'f''` of the statement, or nothing."""
        return key_order.located(self.where, self.function)

    def note_in_place(
        self, operator: str, args: list[Any], places: Sequence[Place]
    ) -> None:
        """Notes the NumPy arrays the loop carries that its body changes with
        `+=` (`staging.in_place`): refused where the body is traced on
        something else (`check_in_place`)."""
        skip = 0 if operator == "while_stmt" else 1
        names = tuple(args[3]) if len(args) > 3 and args[3] else ()
        names = names or state_names(args[0] if skip == 0 else args[1], skip)
        self.in_place = in_place.refusal(
            args[1], tuple(args[2]), names, places, self.backend, self._at()
        )

    def check_in_place(self, state: Sequence[Any]) -> None:
        """Refuses the loop if its body starts on something else than the
        arrays it changes in place (a backend's traced value): Python's loop
        would change the arrays, the staged one only rebinds the names."""
        refusal = self.in_place
        if refusal is None:
            return
        if refusal.place is None:
            given = state[refusal.position] if refusal.position < len(state) else None
        else:
            given = refusal.place.get()
        if given is not refusal.array:
            raise refusal.error

    # Building the statement again.

    def restart(
        self,
        changed: list[int],
        lines: bool = False,
        attrs: dict[int, list[str]] | None = None,
    ) -> None:
        """Carries `changed` (with the attributes `attrs` that changed of
        each object) from the next build on."""
        added = len(self.extra), len(self.carried)
        for key in changed:
            obj, name, _ = self.snapshot.entries[key]
            if key in self.carried and isinstance(obj, containers.CONTAINERS):
                continue
            if key not in self.carried:
                self.carried.append(key)
            if isinstance(obj, (*containers.SEQUENCES, dict)):
                self.extra.append(contents(name, obj))
            elif not isinstance(obj, containers.VALUES):
                # Each attribute any branch changed, adds or deletes.
                for attr in (attrs or {}).get(key, ()):
                    if (key, attr) in self.attrs:
                        continue
                    self.attrs.add((key, attr))
                    self.snapshot.carried_attrs.add((key, attr))
                    self.extra.append(places_.attr(f"{name}.{attr}", obj, attr))
        if changed and added == (len(self.extra), len(self.carried)):
            # (A change no place carries that carrying does not settle: the
            # statement would be built again forever.)
            names = ", ".join(quote(self.snapshot.entries[k][1]) for k in changed)
            statement = "`if`" if self.kind == "if" else "loop"
            raise RuntimeError(
                f"internal error: the {self.backend} {statement}{self._at()} keeps "
                f"changing {names} however it is built; please report it"
            )
        self.snapshot.restore()
        self.left.clear()
        if self.orders is not None:
            self.orders.left.clear()
        if lines:
            self.lines = containers.CallLines(set(self.carried))

    # Watching a branch or body.

    def watch(self, fn: Callable[..., Any] | None, label: str, skip: int = 0) -> Any:
        """`fn`, checked when it returns (or raises) by `_end`; `label`: "if",
        "else", "body" or "test" (a loop's, whose first `skip` arguments
        are not the state)."""
        if fn is None:
            return None
        return _Watched(fn, self, label, skip)

    def start(self) -> dict[int, Any]:
        if self.kind == "if":
            for key in self.carried:  # (a set: no backend puts it back)
                obj, _, saved = self.snapshot.entries[key]
                if isinstance(obj, containers.VALUES):
                    containers.put_back(obj, saved)
        return self.shapes()

    def shapes(self) -> dict[int, Any]:
        return {k: containers.shape(self.snapshot.entries[k][0]) for k in self.carried}

    def end(self, label: str, started: dict[int, Any], raised: bool) -> None:
        changed = self.snapshot.changed(set(self.carried))
        for key in changed:
            obj, name, saved = self.snapshot.entries[key]
            if not containers.restorable(obj, saved):
                self._refuse_spent(obj, name, label)
        if changed:
            raise _Restart(self, changed)
        if raised:
            return  # (the graph raises where this branch runs)
        now = self.shapes()
        if self.kind == "loop":
            for key, shape in now.items():
                if shape != started[key]:
                    self._refuse(key, started[key], shape, "loop")
            return
        self.left[label] = now
        other = "else" if label == "if" else "if"
        before = self.left.get(other)
        if before is None and self.orelse_missing:
            before = {k: containers.saved_shape(*self._saved(k)) for k in now}
        if before is not None:
            for key, shape in now.items():
                if shape != before[key]:
                    self._refuse(key, before[key], shape, label)

    def outputs(self, result: Any) -> Any:
        """What an `if` branch gives, without the outputs no branch sets.

        A name unbound on every path through a graph `if` (`w` of a Python
        `for` over an empty list, in one branch) may still be read after
        it where Python skips the read (`c or w > 0`): it is no output of
        the op, and stays unbound after it. The first branch that gives a
        plain `Undefined` has the statement built again without it; if a
        branch then sets it, it is built once more with it, so the
        backend's own check refuses the name set in one branch only.
        """
        values = list(as_state(result, self.count))
        for i in sorted(self.unset):
            if type(values[i]) is not Undefined:
                raise _Restart(self, [], keep=i)
        for i, value in enumerate(values):
            if type(value) is Undefined and i not in self.unset | self.kept:
                raise _Restart(self, [], unset=i)
        return unpack_state([v for i, v in enumerate(values) if i not in self.unset])

    def _saved(self, key: int) -> tuple[Any, Any]:
        obj, _, saved = self.snapshot.entries[key]
        if containers.is_object(obj) and not isinstance(obj, containers.CONTAINERS):
            return obj, frozenset(saved)
        return obj, saved

    def finish(self) -> None:
        """After the statement: a set gets the elements its branches agreed on."""
        for key in self.carried:
            obj = self.snapshot.entries[key][0]
            if isinstance(obj, containers.VALUES):
                shapes = [s[key] for s in self.left.values() if key in s]
                if shapes:
                    containers.put_back(obj, shapes[0])

    def refuse_lost(self, obj: Any, name: str) -> None:
        """Refuses a statement that a backend tried to build, then handed to
        Python to run, after the attempt advanced `obj` for good: Python's
        run would start from the wrong item."""
        kind = containers.kind_of(obj)
        at = f" at {self.where}" if self.where else ""
        raise TypeError(
            f"the {kind} {quote(name)} is advanced while the {self.backend} "
            f"{'`if`' if self.kind == 'if' else 'loop'}{at} is traced, which "
            f"then runs in Python instead (see the warning): {_a(kind)} cannot be "
            f"wound back, so Python's run would start past the items it drew; "
            f"{_DRAW_FIRST.format(name=name)}"
        )

    def _refuse_spent(self, obj: Any, name: str, label: str) -> None:
        """Refuses a generator (or an iterator that ran out) a traced branch
        or body advanced: it cannot be wound back for the next build."""
        kind = containers.kind_of(obj)
        at = f" at {self.where}" if self.where else ""
        where = (
            f"the body of the {self.backend} loop{at}"
            if self.kind == "loop"
            else f"the {label} branch of the {self.backend} `if`{at}"
        )
        raise TypeError(
            f"the {kind} {quote(name)} is advanced in {where}: a {self.backend} "
            f"statement traces its code whether or not it runs, and {_a(kind)} "
            f"cannot be wound back; {_DRAW_FIRST.format(name=name)}"
        )

    def _refuse(self, key: int, before: Any, after: Any, label: str) -> None:
        if self.lines is None:
            # The line of the call that changed it: build the statement once
            # more under the profile hook that finds it (only for this
            # message: under the hook every call the trace makes is slower,
            # by each enclosing statement's hook again).
            raise _Restart(self, [], lines=True)
        obj, name, _ = self.snapshot.entries[key]
        kind = containers.kind_of(obj)
        line = self.lines.found.get(key)
        by = f" by the call at {line}" if line else ""
        at = f" at {self.where}" if self.where else ""
        if kind == "dict" and set(before) == set(after):  # the same keys
            raise key_order.order_refusal(
                name,
                before,
                after,
                label,
                self.backend,
                self._at(),
                self.orelse_missing,
                line,
            )
        what = {
            "list": "length",
            "deque": "length",
            "bytearray": "bytes",
            "dict": "keys",
            "set": "elements",
            "object": "attributes",
            **_STATE_WHAT,
        }.get(kind, "state")
        backend = self.backend
        if kind == "object" and not line:
            by = _cached_read(obj, name, before, after) or by
        if kind in containers.STATE_NAMES:
            self._refuse_state(kind, name, what, by, at, label)
        verb = "depends" if what == "length" else "depend"
        was, now = containers.show(before, kind), containers.show(after, kind)
        if label == "loop":
            raise TypeError(
                f"the {kind} {quote(name)} is changed{by} in the body of the "
                f"{backend} loop{at} so that its {what} {_changes(what)} ({was} "
                f"before the iteration, {now} after): a {backend} loop carries a "
                f"{kind} only if every iteration keeps its {what}; build the values "
                f"in {_built_instead(backend, kind, name)}, or change it after the "
                "loop"
            )
        other = "else" if label == "if" else "if"
        none = " (there is none)" if other == "else" and self.orelse_missing else ""
        raise TypeError(
            f"the {kind} {quote(name)} is changed{by} in a branch of the {backend} "
            f"`if`{at} so that its {what} {verb} on the branch ({now} after the "
            f"{label} branch, {was} after the {other} branch{none}): a {backend} "
            f"`if` carries a change to {_a(kind)} only where both branches leave it "
            f"with the same {what}; make the same "
            "change in both branches, or make it after the if statement"
        )

    def _refuse_state(
        self, kind: str, name: str, what: str, by: str, at: str, label: str
    ) -> None:
        """Refuses a change to Python state (`containers.STATES`) that a
        branch or body makes: no backend carries it."""
        advice = _STATE_ADVICE.get(kind, _RANDOM_ADVICE).format(name=name)
        backend = self.backend
        if label == "loop":
            raise TypeError(
                f"the {kind} {quote(name)} is changed{by} in the body of the "
                f"{backend} loop{at}: a {backend} loop traces its body once, so "
                f"its {what} would not follow the iterations; {advice}"
            )
        where = (
            f"a branch of the {backend} `if`{at} (it has no else)"
            if self.orelse_missing
            else f"a branch of the {backend} `if`{at} and not alike in the other"
        )
        raise TypeError(
            f"the {kind} {quote(name)} is changed{by} in {where}: a {backend} `if` "
            f"traces both branches, so its {what} cannot follow the branch the "
            f"program takes; {advice}"
        )

    orelse_missing = False


def _built_instead(backend: str, kind: str, name: str) -> str:
    """What a `backend` loop carries instead of the container `name` whose
    size its body changes: a JAX array, or the graph's TensorArray."""
    if backend == "JAX":
        return (
            "an array (ys = jnp.zeros(n) before the loop, ys = ys.at[i].set(v) in it)"
        )
    build = (
        "a list a local name holds that the loop `append`s to and nothing else changes"
    )
    if kind == "list" and not name.isidentifier():
        # (Only a local name's list is carried as a TensorArray.)
        build = (
            f"{build}: a list held in an item or attribute, as {name} is, is not "
            "carried that way; build it in a local name (`values = []` before the "
            f"loop) and assign `{name} = values` after the loop"
        )
    return f"a tensor (rt.TensorArray, or {build})"


def _changes(what: str) -> str:
    """The verb for `what` ("length", "keys", "attributes") changing."""
    return "changes" if what == "length" else "change"


def _a(kind: str) -> str:
    """`kind` with its article: "an iterator", "a generator"."""
    return f"{'an' if kind[0] in 'aeiouAEIOU' else 'a'} {kind}"


# What is compared, per kind of `containers.STATES` (else its "state").
_STATE_WHAT = {
    "NumPy array": "values",
    "iterator": "position",
    "generator": "position",
    "StringIO": "text",
    "BytesIO": "bytes",
    "array.array": "items",
}
_RANDOM_ADVICE = (
    "draw its numbers before the statement, or use the backend's random "
    "ops (rt.random, jax.random) for values that depend on the path"
)
_DRAW_FIRST = (
    "draw its values before the statement (e.g. `values = list({name})`) "
    "and read them there"
)
_WRITE_AFTER = "write to it after the statement, from values the statement gives"
# What to do instead, per kind of `containers.STATES` (`{name}`: the user's;
# a random generator: `_RANDOM_ADVICE`).
_STATE_ADVICE = {
    "NumPy array": (
        "assign a new value to the name instead of changing the array in place "
        "(`{name} = {name} + 1` rather than `{name} += 1` or `{name}[i] = v`), "
        "or make the change outside the statement"
    ),
    "iterator": _DRAW_FIRST,
    "generator": _DRAW_FIRST,
    "StringIO": _WRITE_AFTER,
    "BytesIO": _WRITE_AFTER,
    "array.array": (
        "assign a new value to the name, or keep the values in a list or a tensor"
    ),
}


def _container(item: str) -> str | None:
    """`scan` for the item `scan[j]` (as the user wrote it), None if the
    text is no item."""
    try:
        node = ast.parse(item, mode="eval").body
    except SyntaxError:
        return None
    return ast.unparse(node.value) if isinstance(node, ast.Subscript) else None


def _staged_key(error: Exception) -> bool:
    """Whether `error` is a list indexed by a staged value (its
    `__index__`), or a dict keyed by one (graph tensors and JAX tracers
    are unhashable): an item no backend carries."""
    return needs_python_value(error) in (python_value.INT, python_value.HASHED)


class _Watched(Wrapper):
    """A branch or body the backend calls, checked when it ends."""

    def __init__(
        self, fn: Callable[..., Any], tracker: _Tracker, label: str, skip: int = 0
    ) -> None:
        super().__init__(fn)
        self._tracker = tracker
        self._label = label
        self._skip = skip

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        tracker, label, orders = self._tracker, self._label, self._tracker.orders
        if label == "body":
            tracker.check_in_place(args[self._skip :])
        started = tracker.start()
        if orders is not None:
            orders.start(args[self._skip :])
        try:
            result = self._fn(*args, **kwargs)
        except Exception as error:
            if tracker.watched and _staged_key(error):
                message = tracker.watched[0].message(tracker.backend)
                raise TypeError(message) from error
            if label == "test":  # (a body's: each backend's loop builder)
                at = f" at {tracker.where}" if tracker.where else ""
                kind = tracker.backend
                python_value.refuse_in_loop(error, self._fn, 0, kind, at, "condition")
            tracker.end(label, started, raised=True)
            raise
        tracker.end(label, started, raised=False)
        if orders is not None and label != "test":
            orders.end(label, _outputs(result, label, tracker), tracker.orelse_missing)
        if tracker.count and label in ("if", "else"):
            return tracker.outputs(result)
        return result


def tracked(
    impl: Callable[..., Any], operator: str, backend: str = "graph"
) -> Callable[..., Any]:
    """A backend's implementation of `operator` (`if_stmt`, `while_stmt`,
    `for_stmt`, `for_range`), carrying or refusing the containers its
    branches or body change through methods (see the module docstring), and
    refusing recursion through it (`recursion.enter`); for `if_exp`, `and_`
    and `or_`, only the latter; any other operator's is returned as it is.
    `backend` names the backend's statements in messages ("graph", "JAX")."""
    if operator in ("if_exp", "and_", "or_"):
        return recursion.guarded(impl, operator, backend)  # (they change nothing)
    if operator not in ("if_stmt", "while_stmt", "for_stmt", "for_range"):
        return impl
    is_if = operator == "if_stmt"

    def run(*args: Any, **kwargs: Any) -> Any:
        args = list(args)
        if is_if and len(args) > 5:
            kwargs["places"] = args.pop(5)
        places = tuple(kwargs.get("places", ()))
        token = recursion.enter(operator, backend)
        try:
            if not is_if:  # (a loop's body reads a counted key's default)
                places_.create_defaults(places)
            tracker = _Tracker("if" if is_if else "loop", places, backend)
            places, watched = tracker.watching_items(places)
            kept = _without_array_attributes(places)
            if watched or kept != places:  # (places given by keyword)
                places = kwargs["places"] = kept
            tracker.order_keys(operator, args, places)
            if not is_if:
                tracker.note_in_place(operator, args, places)
            while True:
                call = list(args)
                if is_if:
                    _leave_out_unset(call, tracker)
                    call[1] = tracker.watch(call[1], "if")
                    call[2] = tracker.watch(call[2], "else")
                else:
                    # (A while's test, or a for's `extra_test`.)
                    test = 0 if operator == "while_stmt" else 4
                    skip = 0 if operator == "while_stmt" else 1
                    call[1] = tracker.watch(call[1], "body", skip)
                    if len(call) > test:
                        call[test] = tracker.watch(call[test], "test")
                if tracker.extra:
                    kwargs["places"] = (*places, *tracker.extra)
                try:
                    if tracker.lines is None:
                        result = impl(*call, **kwargs)
                    else:
                        with tracker.lines:
                            result = impl(*call, **kwargs)
                except _Restart as restart:
                    if restart.tracker is not tracker:
                        raise
                    if restart.unset is not None:
                        tracker.unset.add(restart.unset)
                    if restart.keep is not None:
                        tracker.unset.discard(restart.keep)
                        tracker.kept.add(restart.keep)
                    tracker.restart(restart.changed, restart.lines, restart.attrs)
                    continue
                except BaseException:
                    # Refused (or failed) while built: what its traced code
                    # changed is undone, as for a build that restarts (a JAX
                    # range loop refused staged runs unrolled, afresh).
                    tracker.snapshot.restore()
                    raise
                break
            if result is NotImplemented:
                # Python runs the statement instead (a JAX range loop refused
                # staged runs unrolled): afresh, what the attempt changed undone.
                tracker.snapshot.restore()
                for obj, name in tracker.snapshot.lost():
                    tracker.refuse_lost(obj, name)
            else:
                tracker.finish()
                if tracker.unset:  # (unbound after the `if` too)
                    result = _put_back_unset(result, args[4], tracker.unset)
                label = "if" if is_if else "body"
                tracker.orders.finish(_outputs(result, label, tracker))
            return result
        finally:
            recursion.exit(token)

    return run


def _without_array_attributes(places: tuple[Place, ...]) -> tuple[Place, ...]:
    """`places` without the attributes of NumPy arrays (`a.shape = (2, 2)`):
    setting one changes the array in place, which the snapshot watches as
    it watches `a.resize(3)` (set after the statement where its branches
    agree, else refused); a statement carrying the attribute's value would
    set it from the traced values of its outputs."""
    kept = []
    for place in places:
        slot = places_.attr_slot(place)
        if slot is None or not isinstance(slot[0], np.ndarray):
            kept.append(place)
    return places if len(kept) == len(places) else tuple(kept)


def _outputs(result: Any, label: str, tracker: _Tracker) -> tuple[Any, ...]:
    """What a branch ("if", "else") or a loop's body gave, as the values
    `tracker.orders` names: an `if` of no outputs gives the function's
    return value."""
    if label == "body":
        return as_state(result, tracker.orders.count)
    return as_state(result, tracker.count) if tracker.count else (result,)


def _leave_out_unset(call: list[Any], tracker: _Tracker) -> None:
    """An `if_stmt` call (`cond, body, orelse, state, names`) without the
    outputs `tracker.unset`; an `if` with no else block gives its state
    unchanged, as its else branch."""
    state, names = call[3], call[4]
    tracker.orelse_missing = call[2] is None
    tracker.count = len(names)
    if not tracker.unset:
        return
    if call[2] is None:
        if len(state) != len(names):  # (its state is not its outputs)
            tracker.kept |= tracker.unset
            tracker.unset.clear()
            return
        call[2] = _unchanged
    call[4] = tuple(n for i, n in enumerate(names) if i not in tracker.unset)


def _unchanged(*state: Any) -> Any:
    return unpack_state(state)


def _put_back_unset(result: Any, names: Sequence[str], unset: set[int]) -> Any:
    """An `if`'s result with the outputs left out as unbound."""
    given = iter(as_state(result, len(names) - len(unset)))
    values = [Undefined(n) if i in unset else next(given) for i, n in enumerate(names)]
    return unpack_state(values)


def _cached_read(obj: Any, name: str, before: Any, after: Any) -> str:
    """`' by reading t.sq, a functools.cached_property ...'` where an
    attribute only one of `before`/`after` has is one (reading it stores
    it: no call of the user's shows where), else nothing."""
    try:
        changed = sorted(set(before) ^ set(after))
    except TypeError:
        return ""
    for attribute in changed:
        for klass in type(obj).__mro__:
            value = vars(klass).get(attribute)
            if isinstance(value, functools.cached_property):
                return (
                    f" by reading {name}.{attribute} (a functools.cached_property, "
                    "which stores its value on the object when first read)"
                )
    return ""
