"""The containers a user's function reaches, noted before a backend's
statement and compared after each branch it traces (`mutations`).

`Snapshot` walks the variables of the user's running function (and the
globals its code names) into lists, tuples, dicts, sets and the user's
objects (not numbers, strings, tensors or the library's objects), notes
each container by identity with the name it is reached by (`out`,
`d['xs']`, `self.acc`) and its contents, and tells which changed:

    >>> out = []
    >>> snap = Snapshot({"out": out}, ())
    >>> out.append(1)
    >>> [snap.entries[k][1] for k in snap.changed(set())]
    ['out']
    >>> snap.restore(); out
    []

`CallLines` is a profile hook that finds the line of the user's call that
changed a container (set only while a statement is rebuilt for a refusal's
message).
"""

from __future__ import annotations

import collections
import random
import sys
import types
from collections.abc import Sequence
from typing import Any

import numpy as np

from runtime.operators import places as places_
from runtime.operators.places import Place
from runtime.operators.staging.aliasing import function_locals
from runtime.operators.verification import is_generated
from runtime.source_locations import INTERNAL_PATHS, SourceLocation, user_frame

__all__ = [
    "CONTAINERS",
    "SEQUENCES",
    "STATES",
    "VALUES",
    "CallLines",
    "Snapshot",
    "contents_of",
    "is_object",
    "kind_of",
    "put_back",
    "roots",
    "saved_shape",
    "shape",
    "show",
]

# The sequences whose items are noted (and carried, `places.contents`) as a
# list's: their length must agree, their items are carried.
SEQUENCES = (list, collections.deque)
# Python state that calls change and no place carries: a NumPy array's
# values (`a += 1`, `a[0] = v`), an iterator's position (`next(it)`), a
# generator's, a `random.Random`'s state (`rng.random()`). A traced branch
# that does not run changed it all the same: noted whole (`state_of`),
# compared like a set's elements, and put back where the type allows (a
# generator, or an iterator that ran out, cannot be: a change is refused).
ITERATORS = tuple(
    {type(iter(v)) for v in ([], (), range(0), "", "\u00e9", b"")}
    | {type(reversed([]))}
)
STATES = (np.ndarray, random.Random, types.GeneratorType, *ITERATORS)
# Those that hold Python values only, a set's elements, a bytearray's bytes
# and the states above: compared whole, and set after the statement (no
# place carries them).
VALUES = (set, bytearray, *STATES)
CONTAINERS = (*SEQUENCES, dict, *VALUES)  # (the rest are objects)

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
# A NumPy array larger than this is not noted (a copy per traced statement),
# nor are arrays past the first `_ARRAYS_BYTES` of them.
ARRAY_BYTES = 1 << 22
_ARRAYS_BYTES = 1 << 24


def is_object(value: Any) -> bool:
    """A user's object whose attributes are followed: an instance of a
    class of the user's code (or a `types.SimpleNamespace`), not of the
    standard library's or an installed package's (whose objects may keep
    caches in their attributes)."""
    if isinstance(value, _NOT_OBJECTS) or not hasattr(value, "__dict__"):
        return False
    return _users_module(type(value).__module__ or "")


_USERS: dict[str, bool] = {}  # by module name: whether it is the user's code


def _users_module(name: str) -> bool:
    found = _USERS.get(name)
    if found is None:
        top = name.partition(".")[0]
        path = getattr(sys.modules.get(name), "__file__", None) or ""
        found = _USERS[name] = name == "types" or not (
            top in _LIBRARIES
            or top in sys.stdlib_module_names
            or "site-packages" in path
            or "dist-packages" in path
        )
    return found


# By type, for the standard library's and installed packages' types only:
# whether `Snapshot` looks inside. A class of the user's code is not kept:
# it holds its module (a notebook cell's, a generated program's), and all
# that module's functions and their traced graphs would live on with it.
_FOLLOWED: dict[type, bool] = {}


def followed(value: Any) -> bool:
    """A list, tuple, dict, set or user's object (numbers, strings and
    tensors are skipped without a look)."""
    kind = type(value)
    found = _FOLLOWED.get(kind)
    if found is None:
        found = issubclass(kind, (*CONTAINERS, tuple)) or is_object(value)
        if not _users_module(kind.__module__ or ""):
            _FOLLOWED[kind] = found
            if len(_FOLLOWED) > 10_000:  # (classes made on the fly)
                _FOLLOWED.clear()
    return found


def kind_of(obj: Any) -> str:
    if isinstance(obj, STATES):
        return _STATE_KINDS[next(k for k in _STATE_KINDS if isinstance(obj, k))]
    for kind in CONTAINERS:
        if isinstance(obj, kind):
            return kind.__name__
    return "object"


_STATE_KINDS = {
    np.ndarray: "NumPy array",
    random.Random: "random.Random",
    types.GeneratorType: "generator",
    **{kind: "iterator" for kind in ITERATORS},
}


def state_of(obj: Any) -> Any:
    """The state of a `STATES` object, comparable with `==` (None: not
    noted, e.g. an array of Python objects, or larger than `ARRAY_BYTES`).

        >>> it = iter([1, 2]); before = state_of(it); next(it)
        1
        >>> before, state_of(it)
        (0, 1)
    """
    if isinstance(obj, np.ndarray):
        if obj.dtype.hasobject or obj.nbytes > ARRAY_BYTES:
            return None
        return (obj.shape, obj.dtype.str, obj.tobytes())
    if isinstance(obj, random.Random):
        try:
            return obj.getstate()
        except NotImplementedError:  # (SystemRandom has none)
            return None
    if isinstance(obj, types.GeneratorType):
        frame = obj.gi_frame
        if frame is None:
            return _SPENT
        # Where it stopped, and what its variables hold (a loop's `yield`
        # stops at the same instruction each time, with new values).
        return (frame.f_lasti, tuple(map(id, frame.f_locals.values())))
    reduced = obj.__reduce__()  # an ITERATORS: (iter, (sequence,), position)
    return reduced[2] if len(reduced) > 2 else _SPENT


_SPENT = "ran out"  # the state of an iterator or generator that ended


def restorable(obj: Any, saved: Any) -> bool:
    """Whether `put_back` can give `obj` the state `saved` (a generator, or
    an iterator that ran out since, cannot be wound back)."""
    if not isinstance(obj, STATES):
        return True
    now = state_of(obj)
    if now == saved or isinstance(obj, (np.ndarray, random.Random)):
        return True
    return not isinstance(obj, types.GeneratorType) and now != _SPENT


def shape(obj: Any) -> Any:
    """What must agree between branches: a list's length, a dict's keys in
    order, a set's elements, a bytearray's bytes, an object's attribute
    names."""
    if isinstance(obj, SEQUENCES):
        return len(obj)
    if isinstance(obj, dict):
        return tuple(obj)
    if isinstance(obj, set):
        return frozenset(obj)
    if isinstance(obj, bytearray):
        return bytes(obj)
    if isinstance(obj, STATES):
        return state_of(obj)
    return frozenset(vars(obj))


def contents_of(obj: Any) -> Any:
    if isinstance(obj, SEQUENCES):
        return tuple(obj)
    if isinstance(obj, dict):
        return tuple(obj.items())
    if isinstance(obj, set):
        return frozenset(obj)
    if isinstance(obj, bytearray):
        return bytes(obj)
    if isinstance(obj, STATES):
        return state_of(obj)
    return dict(vars(obj))


def put_back(obj: Any, saved: Any) -> None:
    if isinstance(obj, (list, bytearray)):
        obj[:] = saved
    elif isinstance(obj, collections.deque):
        obj.clear()
        obj.extend(saved)
    elif isinstance(obj, dict):
        # (A mapping: a Counter's `update` counts the pairs it is given.)
        obj.clear()
        obj.update(dict(saved))
    elif isinstance(obj, set):
        obj.clear()
        obj.update(saved)
    elif isinstance(obj, STATES):
        if state_of(obj) == saved or not restorable(obj, saved):
            return
        if isinstance(obj, np.ndarray):
            shape, dtype, data = saved
            obj[...] = np.frombuffer(data, dtype).reshape(shape)
        elif isinstance(obj, random.Random):
            obj.setstate(saved)
        else:
            obj.__setstate__(saved)  # an iterator's position
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
            attr_slot = places_.attr_slot(place)
            if attr_slot is not None:
                self.carried_attrs.add((id(attr_slot[0]), attr_slot[1]))
            slot = places_.item_slot(place)
            if slot is not None and isinstance(slot[0], (*SEQUENCES, dict)):
                self.carried_keys.setdefault(id(slot[0]), set()).add(slot[1])
        stack = [
            (value, name)
            for name, value in reversed(roots.items())
            if followed(value)
            and name.isidentifier()
            and not is_generated(name)
            and name != "ag__"
        ]
        seen: set[int] = set()
        arrays = 0  # the bytes of the arrays noted so far
        while stack and len(seen) < _LIMIT:
            value, name = stack.pop()
            if id(value) in seen:
                continue
            seen.add(id(value))
            if isinstance(value, (list, tuple, collections.deque)):
                children = [
                    (v, f"{name}[{i}]") for i, v in enumerate(value) if followed(v)
                ]
            elif isinstance(value, dict):
                children = [
                    (v, f"{name}[{k!r}]") for k, v in value.items() if followed(v)
                ]
            elif isinstance(value, (set, bytearray)):
                children = []
            elif isinstance(value, STATES):
                if isinstance(value, np.ndarray):
                    arrays += value.nbytes
                    if arrays > _ARRAYS_BYTES:
                        continue
                if state_of(value) is None:
                    continue
                children = []
            else:
                children = [
                    (v, f"{name}.{a}") for a, v in vars(value).items() if followed(v)
                ]
            if not isinstance(value, tuple):
                self.entries[id(value)] = (value, name, contents_of(value))
            stack.extend(reversed(children))

    def changed(self, ignore: set[int]) -> list[int]:
        """The lists, dicts and sets (not in `ignore`) whose structure or
        items differ from the snapshot's, and the objects with an attribute
        that does (items and attributes that places carry aside)."""
        found = []
        for key, (obj, _, saved) in self.entries.items():
            if not isinstance(obj, CONTAINERS):
                if self.changed_attrs(key):
                    found.append(key)
            elif key not in ignore and self._reshaped(key, obj, saved):
                found.append(key)
        return found

    def changed_attrs(self, key: int) -> list[str]:
        """The attributes of the object `key` that it has gained, lost or
        holds another value in since the snapshot, in name order (those
        places carry aside)."""
        obj, _, saved = self.entries[key]
        now = vars(obj)
        return sorted(
            a
            for a in {*now, *saved}
            if (key, a) not in self.carried_attrs
            and (a not in now or a not in saved or now[a] is not saved[a])
        )

    def _reshaped(self, key: int, obj: Any, saved: Any) -> bool:
        """Whether a list's or dict's length, keys or items changed, other
        than the items the statement's places carry."""
        keys = self.carried_keys.get(key, ())
        if isinstance(obj, SEQUENCES):
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
        return shape(obj) != saved_shape(obj, saved)

    def restore(self) -> None:
        """Puts every container back as it was (what a failed build did to
        them is undone)."""
        for obj, _, saved in self.entries.values():
            put_back(obj, saved)


def saved_shape(obj: Any, saved: Any) -> Any:
    if isinstance(obj, SEQUENCES):
        return len(saved)
    if isinstance(obj, dict):
        return tuple(k for k, _ in saved)
    return saved  # a set's elements, a bytearray's bytes


def roots() -> dict[str, Any]:
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
        if name not in found and (isinstance(value, CONTAINERS) or is_object(value)):
            found[name] = value
    return found


# The operators through which converted code calls a method.
_CALLERS = frozenset(("converted_call", "list_append", "list_pop"))


class CallLines:
    """Where the user's code called a method of a watched container (a
    profile hook, set while a statement is rebuilt)."""

    def __init__(self, watched: set[int]) -> None:
        self.watched = watched
        self.found: dict[int, SourceLocation] = {}
        self.previous: Any = None

    def __enter__(self) -> CallLines:
        self.previous = sys.getprofile()
        sys.setprofile(self._hook)
        return self

    def __exit__(self, *exc: Any) -> None:
        sys.setprofile(self.previous)

    def _hook(self, frame: types.FrameType, event: str, arg: Any) -> None:
        if isinstance(getattr(self.previous, "__self__", None), CallLines):
            self.previous(frame, event, arg)  # (an outer statement's, rebuilt)
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


def show(shape: Any, kind: str = "") -> str:
    """A shape (`shape`) as messages show it; `kind` (`kind_of`) for a state."""
    if kind == "NumPy array":
        dims, dtype, data = shape
        array = np.frombuffer(data, dtype).reshape(dims)
        return np.array2string(array, threshold=8, separator=", ")
    if kind in ("iterator", "generator"):
        if shape == _SPENT:
            return "ended"
        return f"at item {shape}" if kind == "iterator" else "advanced"
    if kind == "random.Random":
        return "a state"
    if isinstance(shape, int):
        return f"{shape} item{'s' if shape != 1 else ''}"
    if isinstance(shape, bytes):
        return repr(shape)
    if isinstance(shape, frozenset):
        return "{" + ", ".join(sorted(map(repr, shape))) + "}"
    return "[" + ", ".join(map(repr, shape)) + "]"
