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
   (found with a profile hook, on the rebuild only).

Nothing of this runs in plain Python: `tracked` wraps only a backend's
implementations, which run while a backend builds a graph.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from runtime.control_flow_checks import quote
from runtime.operators import containers, recursion
from runtime.operators import places as places_
from runtime.operators.places import Place, contents
from runtime.source_locations import (
    user_location,
)

__all__ = ["tracked"]


class _Restart(BaseException):
    """A traced branch or body changed containers the statement does not
    carry yet: build it again with them (see the module docstring)."""

    def __init__(self, tracker: _Tracker, changed: list[int]) -> None:
        super().__init__()
        self.tracker = tracker
        self.changed = changed


class _Tracker:
    """One backend statement being built: its snapshot, the containers it
    carries so far, and what each traced branch left."""

    def __init__(self, kind: str, places: Sequence[Place], backend: str) -> None:
        self.kind = kind  # "if" or "loop"
        self.backend = backend  # for messages: "graph", "JAX"
        self.where = user_location()
        self.snapshot = containers.Snapshot(containers.roots(), places)
        self.carried: list[int] = []  # containers carried (places, sets)
        self.extra: list[Place] = []
        self.attrs: set[tuple[int, str]] = set()
        self.left: dict[str, dict[int, Any]] = {}  # branch -> shapes it left
        self.lines: containers.CallLines | None = None

    # Building the statement again.

    def restart(self, changed: list[int]) -> None:
        for key in changed:
            obj, name, saved = self.snapshot.entries[key]
            if key in self.carried and isinstance(obj, (list, dict, set)):
                continue
            if key not in self.carried:
                self.carried.append(key)
            if isinstance(obj, (list, dict)):
                self.extra.append(contents(name, obj))
            elif not isinstance(obj, set):
                # Each attribute any branch changed, adds or deletes.
                now = vars(obj)
                for attr in sorted({*now, *saved}):
                    same = attr in now and attr in saved and now[attr] is saved[attr]
                    if (key, attr) in self.attrs or same:
                        continue
                    self.attrs.add((key, attr))
                    self.snapshot.carried_attrs.add((key, attr))
                    self.extra.append(places_.attr(f"{name}.{attr}", obj, attr))
        self.snapshot.restore()
        self.left.clear()
        self.lines = containers.CallLines(set(self.carried))

    # Watching a branch or body.

    def watch(self, fn: Callable[..., Any] | None, label: str) -> Any:
        """`fn`, checked when it returns (or raises) by `_end`."""
        if fn is None:
            return None
        return _Watched(fn, self, label)

    def start(self) -> dict[int, Any]:
        if self.kind == "if":
            for key in self.carried:  # (a set: no backend puts it back)
                obj, _, saved = self.snapshot.entries[key]
                if isinstance(obj, set):
                    containers.put_back(obj, saved)
        return self.shapes()

    def shapes(self) -> dict[int, Any]:
        return {k: containers.shape(self.snapshot.entries[k][0]) for k in self.carried}

    def end(self, label: str, started: dict[int, Any], raised: bool) -> None:
        changed = self.snapshot.changed(set(self.carried))
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

    def _saved(self, key: int) -> tuple[Any, Any]:
        obj, _, saved = self.snapshot.entries[key]
        if containers.is_object(obj) and not isinstance(obj, (list, dict, set)):
            return obj, frozenset(saved)
        return obj, saved

    def finish(self) -> None:
        """After the statement: a set gets the elements its branches agreed on."""
        for key in self.carried:
            obj = self.snapshot.entries[key][0]
            if isinstance(obj, set):
                shapes = [s[key] for s in self.left.values() if key in s]
                if shapes:
                    containers.put_back(obj, shapes[0])

    def _refuse(self, key: int, before: Any, after: Any, label: str) -> None:
        obj, name, _ = self.snapshot.entries[key]
        kind = containers.kind_of(obj)
        line = self.lines.found.get(key) if self.lines else None
        by = f" by the call at {line}" if line else ""
        at = f" at {self.where}" if self.where else ""
        what = {
            "list": "length",
            "dict": "keys",
            "set": "elements",
            "object": "attributes",
        }[kind]
        backend, verb = self.backend, "depends" if what == "length" else "depend"
        was, now = containers.show(before), containers.show(after)
        if label == "loop":
            raise TypeError(
                f"the {kind} {quote(name)} is changed{by} in the body of the "
                f"{backend} loop{at} so that its {what} change ({was} before the "
                f"iteration, {now} after): a {backend} loop carries a {kind} only "
                f"if every iteration keeps its {what}; build the values in a "
                "tensor (rt.TensorArray, or a list the loop `append`s to and "
                "nothing else changes), or change it after the loop"
            )
        other = "else" if label == "if" else "if"
        none = " (there is none)" if other == "else" and self.orelse_missing else ""
        raise TypeError(
            f"the {kind} {quote(name)} is changed{by} in a branch of the {backend} "
            f"`if`{at} so that its {what} {verb} on the branch ({now} after the "
            f"{label} branch, {was} after the {other} branch{none}): a {backend} "
            f"`if` carries a change to a {kind} only where both branches leave it "
            f"with the same {what}; make the same "
            "change in both branches, or make it after the if statement"
        )

    orelse_missing = False


class _Watched:
    """A branch or body the backend calls, checked when it ends; it looks
    like the function it wraps to the backend (`__code__`, `__qualname__`:
    messages and state names come from them)."""

    def __init__(self, fn: Callable[..., Any], tracker: _Tracker, label: str) -> None:
        self._fn = fn
        self._tracker = tracker
        self._label = label

    def __getattr__(self, name: str) -> Any:
        return getattr(self._fn, name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        tracker = self._tracker
        started = tracker.start()
        try:
            result = self._fn(*args, **kwargs)
        except Exception:
            tracker.end(self._label, started, raised=True)
            raise
        tracker.end(self._label, started, raised=False)
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
        return recursion.guarded(impl, operator)  # (expressions change nothing)
    if operator not in ("if_stmt", "while_stmt", "for_stmt", "for_range"):
        return impl
    is_if = operator == "if_stmt"

    def run(*args: Any, **kwargs: Any) -> Any:
        args = list(args)
        if is_if and len(args) > 5:
            kwargs["places"] = args.pop(5)
        places = tuple(kwargs.get("places", ()))
        token = recursion.enter(operator)
        try:
            tracker = _Tracker("if" if is_if else "loop", places, backend)
            while True:
                call = list(args)
                if is_if:
                    tracker.orelse_missing = call[2] is None
                    call[1] = tracker.watch(call[1], "if")
                    call[2] = tracker.watch(call[2], "else")
                else:
                    # (A while's test, or a for's `extra_test`.)
                    test = 0 if operator == "while_stmt" else 4
                    call[1] = tracker.watch(call[1], "body")
                    if len(call) > test:
                        call[test] = tracker.watch(call[test], "body")
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
                    tracker.restart(restart.changed)
                    continue
                break
            if result is not NotImplemented:
                tracker.finish()
            return result
        finally:
            recursion.exit(token)

    return run
