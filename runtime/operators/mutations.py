"""Containers changed through methods inside a backend's `if` or loop.

Converted code lists what a statement assigns (names, items, attributes:
`places`), but not what a call changes: `out.append(v)`, `d.update(...)`,
`del d[k]`, `s.add(v)`, a user method that sets attributes of `self`. While
a backend traces a branch such a call runs once, whichever branch the
compiled program takes. This module makes those changes follow the rules of
item stores (API.md, "Mutation through methods"), for every backend, around
the backend's own statement (`tracked`):

1. Before the statement, the lists, dicts, sets and user objects reachable
   from the user's running function are noted (`Snapshot`), with the name
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

import sys
import types
from collections.abc import Callable, Sequence
from typing import Any

from runtime.control_flow_checks import quote
from runtime.operators import places as places_
from runtime.operators import recursion
from runtime.operators.places import Place, contents
from runtime.operators.verification import function_locals, is_generated
from runtime.source_locations import (
    INTERNAL_PATHS,
    SourceLocation,
    user_frame,
    user_location,
)

__all__ = ["tracked"]

# Objects of these packages are never the user's objects.
_LIBRARIES = frozenset(("builtins", "runtime", "autograph", "jax", "jaxlib", "numpy"))
_NOT_OBJECTS = (
    type,
    types.ModuleType,
    types.FunctionType,
    types.MethodType,
    types.BuiltinFunctionType,
    property,
)
_LIMIT = 5000  # containers looked at per statement, at most


def _is_object(value: Any) -> bool:
    """A user's object whose attributes are followed."""
    if isinstance(value, _NOT_OBJECTS) or not hasattr(value, "__dict__"):
        return False
    module = type(value).__module__ or ""
    return module.partition(".")[0] not in _LIBRARIES


_FOLLOWED: dict[type, bool] = {}  # by type: whether `Snapshot` looks inside


def _followed(value: Any) -> bool:
    """A list, tuple, dict, set or user's object (numbers, strings and
    tensors are skipped without a look)."""
    kind = type(value)
    found = _FOLLOWED.get(kind)
    if found is None:
        found = _FOLLOWED[kind] = issubclass(kind, (list, tuple, dict, set)) or (
            _is_object(value) and not issubclass(kind, (list, tuple, dict, set))
        )
        if len(_FOLLOWED) > 10_000:  # (classes made on the fly)
            _FOLLOWED.clear()
    return found


def _kind(obj: Any) -> str:
    if isinstance(obj, (list, dict, set)):
        return type(obj).__name__
    return "object"


def _shape(obj: Any) -> Any:
    """What must agree between branches: a list's length, a dict's keys in
    order, a set's elements, an object's attribute names."""
    if isinstance(obj, list):
        return len(obj)
    if isinstance(obj, dict):
        return tuple(obj)
    if isinstance(obj, set):
        return frozenset(obj)
    return frozenset(vars(obj))


def _contents(obj: Any) -> Any:
    if isinstance(obj, list):
        return tuple(obj)
    if isinstance(obj, dict):
        return tuple(obj.items())
    if isinstance(obj, set):
        return frozenset(obj)
    return dict(vars(obj))


def _put_back(obj: Any, saved: Any) -> None:
    if isinstance(obj, list):
        obj[:] = saved
    elif isinstance(obj, (dict, set)):
        obj.clear()
        obj.update(saved)
    else:
        attrs = vars(obj)
        for key in [k for k in attrs if k not in saved]:
            del attrs[key]
        attrs.update(saved)


class Snapshot:
    """The containers reachable from the user's function, by identity: each
    with the name it is reached by and its contents before the statement."""

    def __init__(self, roots: dict[str, Any], carried: Sequence[Place]) -> None:
        self.entries: dict[int, tuple[Any, str, Any]] = {}
        # Attributes and keys the statement's own places carry, by
        # (object, name): a key such a place adds is not a change.
        self.carried_attrs = set()
        self.carried_keys: dict[int, set[Any]] = {}
        for place in carried:
            obj = getattr(place, "obj", None)
            if obj is not None and isinstance(getattr(place, "attr", None), str):
                self.carried_attrs.add((id(places_._resolve(obj)), place.attr))
            slot = places_.item_slot(place)
            if slot is not None and isinstance(slot[0], (list, dict)):
                self.carried_keys.setdefault(id(slot[0]), set()).add(slot[1])
        stack = [
            (value, name)
            for name, value in reversed(roots.items())
            if _followed(value)
            and name.isidentifier()
            and not is_generated(name)
            and name != "ag__"
        ]
        seen: set[int] = set()
        while stack and len(seen) < _LIMIT:
            value, name = stack.pop()
            if id(value) in seen:
                continue
            seen.add(id(value))
            if isinstance(value, (list, tuple)):
                children = [
                    (v, f"{name}[{i}]") for i, v in enumerate(value) if _followed(v)
                ]
            elif isinstance(value, dict):
                children = [
                    (v, f"{name}[{k!r}]") for k, v in value.items() if _followed(v)
                ]
            elif isinstance(value, set):
                children = []
            else:
                children = [
                    (v, f"{name}.{a}") for a, v in vars(value).items() if _followed(v)
                ]
            if not isinstance(value, tuple):
                self.entries[id(value)] = (value, name, _contents(value))
            stack.extend(reversed(children))

    def changed(self, ignore: set[int]) -> list[int]:
        """The lists, dicts and sets (not in `ignore`) whose structure or
        items differ from the snapshot's, and the objects with an attribute
        that does (items and attributes that places carry aside)."""
        found = []
        for key, (obj, _, saved) in self.entries.items():
            if not isinstance(obj, (list, dict, set)):
                now = vars(obj)
                if any(
                    (key, a) not in self.carried_attrs
                    and (a not in now or a not in saved or now[a] is not saved[a])
                    for a in {*now, *saved}
                ):
                    found.append(key)
            elif key not in ignore and self._reshaped(key, obj, saved):
                found.append(key)
        return found

    def _reshaped(self, key: int, obj: Any, saved: Any) -> bool:
        """Whether a list's or dict's length, keys or items changed, other
        than the items the statement's places carry."""
        keys = self.carried_keys.get(key, ())
        if isinstance(obj, list):
            if len(obj) != len(saved):
                return True
            return any(
                v is not w for i, (v, w) in enumerate(zip(obj, saved)) if i not in keys
            )
        if isinstance(obj, dict):
            now = [(k, v) for k, v in obj.items() if k not in keys]
            before = [(k, v) for k, v in saved if k not in keys]
            return len(now) != len(before) or any(
                k != j or v is not w for (k, v), (j, w) in zip(now, before)
            )
        return _shape(obj) != _shape_of_saved(obj, saved)

    def restore(self) -> None:
        """Puts every container back as it was (what a failed build did to
        them is undone)."""
        for obj, _, saved in self.entries.values():
            _put_back(obj, saved)


def _shape_of_saved(obj: Any, saved: Any) -> Any:
    if isinstance(obj, list):
        return len(saved)
    if isinstance(obj, dict):
        return tuple(k for k, _ in saved)
    return saved  # a set's elements


def _roots() -> dict[str, Any]:
    """The user's running function's variables, and the globals its code
    (with the functions nested in it) names that are lists, dicts, sets or
    objects."""
    found = function_locals()
    frame = user_frame(1)
    if frame is None:
        return found
    codes = [frame.f_code]
    names: set[str] = set()
    while codes:
        code = codes.pop()
        names.update(code.co_names)
        codes.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    module = frame.f_globals
    for name in sorted(names):
        value = module.get(name)
        if name not in found and (
            isinstance(value, (list, dict, set)) or _is_object(value)
        ):
            found[name] = value
    return found


class _Restart(BaseException):
    """A traced branch or body changed containers the statement does not
    carry yet: build it again with them (see the module docstring)."""

    def __init__(self, tracker: _Tracker, changed: list[int]) -> None:
        super().__init__()
        self.tracker = tracker
        self.changed = changed


# The operators through which converted code calls a method.
_CALLERS = frozenset(("converted_call", "list_append", "list_pop"))


class _Lines:
    """Where the user's code called a method of a watched container (a
    profile hook, set while a statement is rebuilt)."""

    def __init__(self, watched: set[int]) -> None:
        self.watched = watched
        self.found: dict[int, SourceLocation] = {}
        self.previous: Any = None

    def __enter__(self) -> _Lines:
        self.previous = sys.getprofile()
        sys.setprofile(self._hook)
        return self

    def __exit__(self, *exc: Any) -> None:
        sys.setprofile(self.previous)

    def _hook(self, frame: types.FrameType, event: str, arg: Any) -> None:
        if event == "c_call":
            target = getattr(arg, "__self__", None)
        elif event == "call" and frame.f_code.co_argcount:
            target = frame.f_locals.get(frame.f_code.co_varnames[0])
            frame = frame.f_back
        else:
            return
        key = id(target)
        if key not in self.watched or key in self.found:
            return
        code = frame.f_code if frame is not None else None
        if (
            code is not None
            and code.co_filename.startswith(INTERNAL_PATHS)
            and code.co_name not in _CALLERS
        ):
            return  # the library's own look at the container
        while frame is not None and frame.f_code.co_filename.startswith(INTERNAL_PATHS):
            frame = frame.f_back
        if frame is not None:
            self.found[key] = SourceLocation(frame.f_code.co_filename, frame.f_lineno)


class _Tracker:
    """One backend statement being built: its snapshot, the containers it
    carries so far, and what each traced branch left."""

    def __init__(self, kind: str, places: Sequence[Place], backend: str) -> None:
        self.kind = kind  # "if" or "loop"
        self.backend = backend  # for messages: "graph", "JAX"
        self.where = user_location()
        self.snapshot = Snapshot(_roots(), places)
        self.carried: list[int] = []  # containers carried (places, sets)
        self.extra: list[Place] = []
        self.attrs: set[tuple[int, str]] = set()
        self.left: dict[str, dict[int, Any]] = {}  # branch -> shapes it left
        self.lines: _Lines | None = None

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
        self.lines = _Lines(set(self.carried))

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
                    _put_back(obj, saved)
        return self.shapes()

    def shapes(self) -> dict[int, Any]:
        return {k: _shape(self.snapshot.entries[k][0]) for k in self.carried}

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
            before = {k: _shape_of_saved(*self._saved(k)) for k in now}
        if before is not None:
            for key, shape in now.items():
                if shape != before[key]:
                    self._refuse(key, before[key], shape, label)

    def _saved(self, key: int) -> tuple[Any, Any]:
        obj, _, saved = self.snapshot.entries[key]
        if _is_object(obj) and not isinstance(obj, (list, dict, set)):
            return obj, frozenset(saved)
        return obj, saved

    def finish(self) -> None:
        """After the statement: a set gets the elements its branches agreed on."""
        for key in self.carried:
            obj = self.snapshot.entries[key][0]
            if isinstance(obj, set):
                shapes = [s[key] for s in self.left.values() if key in s]
                if shapes:
                    _put_back(obj, shapes[0])

    def _refuse(self, key: int, before: Any, after: Any, label: str) -> None:
        obj, name, _ = self.snapshot.entries[key]
        kind = _kind(obj)
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
        if label == "loop":
            raise TypeError(
                f"the {kind} {quote(name)} is changed{by} in the body of the "
                f"{backend} loop{at} so that its {what} change ({_show(before)} "
                f"before the iteration, {_show(after)} after): a {backend} loop "
                f"carries a {kind} only if every iteration keeps its {what}; build "
                "the values in a tensor (rt.TensorArray, or a list the loop "
                "`append`s to and nothing else changes), or change it after the loop"
            )
        other = "else" if label == "if" else "if"
        none = " (there is none)" if other == "else" and self.orelse_missing else ""
        raise TypeError(
            f"the {kind} {quote(name)} is changed{by} in a branch of the {backend} "
            f"`if`{at} so that its {what} {verb} on the branch ({_show(after)} "
            f"after the {label} branch, {_show(before)} after the {other} "
            f"branch{none}): a {backend} `if` carries a change to a {kind} only "
            f"where both branches leave it with the same {what}; make the same "
            "change in both branches, or make it after the if statement"
        )

    orelse_missing = False


def _show(shape: Any) -> str:
    if isinstance(shape, int):
        return f"{shape} item{'s' if shape != 1 else ''}"
    if isinstance(shape, frozenset):
        return "{" + ", ".join(sorted(map(repr, shape))) + "}"
    return "[" + ", ".join(map(repr, shape)) + "]"


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
