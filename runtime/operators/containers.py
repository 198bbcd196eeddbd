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

import abc
import array
import collections
import io
import os
import random
import sys
import sysconfig
import types
import warnings
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

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
    "STATE_NAMES",
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
# generator's, a random generator's state (`rng.random()`, `random.random()`,
# `np.random.rand()`), a StringIO's text, an `array.array`'s items. A traced
# branch that does not run changed it all the same: noted whole
# (`state_of`), compared like a set's elements, and put back where the type
# allows (a generator, or an iterator other than a sequence's, cannot be: a
# change is refused). The kinds, with how each is read and put back, are
# `_STATE_KINDS` below.
ITERATORS = tuple(
    {type(iter(v)) for v in ([], (), range(0), "", "\u00e9", b"")}
    | {type(reversed([]))}
)


class LibraryIterator(abc.ABC):  # noqa: B024 - a virtual class (__subclasshook__)
    """The iterators of the standard library and installed packages other
    than `ITERATORS` and generators (`zip`, `map`, `enumerate`, dict
    iterators, `itertools.count`, ...): their position is what their
    `__reduce__` gives (none: not noted); they cannot be wound back. Not
    the backends' own (a dataset's iterator draws in the graph)."""

    @classmethod
    def __subclasshook__(cls, kind: type) -> bool:
        if not any("__next__" in vars(k) for k in kind.__mro__):
            return NotImplemented
        module = kind.__module__ or ""
        if module.partition(".")[0] in _BACKENDS:
            return False
        return not _users_module(module)


_BACKENDS = frozenset(("runtime", "autograph", "jax", "jaxlib", "tensorflow"))


STATES = (
    np.ndarray,
    random.Random,
    np.random.Generator,
    np.random.RandomState,
    io.StringIO,
    io.BytesIO,
    array.array,
    types.GeneratorType,
    *ITERATORS,
    LibraryIterator,
)
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
        return _state_kind(obj).name
    for kind in CONTAINERS:
        if isinstance(obj, kind):
            return kind.__name__
    return "object"


class _Saved:
    """A state noted as `key` (compared, hashed) with the `value` that puts
    it back (a random generator's state dict, which may hold arrays)."""

    __slots__ = ("key", "value")

    def __init__(self, key: Any, value: Any) -> None:
        self.key = key
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Saved) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)


def _key(value: Any, depth: int = 0) -> Any:
    """`value` (a state dict, a `__reduce__` result) as a key comparable with
    `==`: arrays as bytes, iterators by their own position, other objects by
    identity."""
    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        return value
    if isinstance(value, np.ndarray):
        return (value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, dict):
        return tuple((k, _key(v, depth)) for k, v in value.items())
    if isinstance(value, (tuple, list)) and len(value) <= 10_000:
        return tuple(_key(v, depth) for v in value)
    if depth < 4 and isinstance(value, (*ITERATORS, LibraryIterator)):
        return ("position", _position(value, depth + 1))
    return ("object", id(value))


def _position(it: Any, depth: int = 0) -> Any:
    """A library iterator's position (`__reduce__`, nested iterators'
    positions in it), or None where it tells none."""
    try:
        with warnings.catch_warnings():  # (itertools' pickling: deprecated in 3.12)
            warnings.simplefilter("ignore", DeprecationWarning)
            reduced = it.__reduce__()
    except Exception:  # (not picklable: a file, a csv reader, ...)
        return None
    if not isinstance(reduced, tuple):
        return None
    return _key(reduced[1:], depth)


def _generator_position(gen: types.GeneratorType) -> Any:
    frame = gen.gi_frame
    if frame is None:
        return _SPENT
    # Where it stopped, and what its variables hold (a loop's `yield` stops
    # at the same instruction each time, with new values).
    return (frame.f_lasti, tuple(map(id, frame.f_locals.values())))


def _sequence_position(it: Any) -> Any:
    reduced = it.__reduce__()  # (iter, (sequence,), position)
    return reduced[2] if len(reduced) > 2 else _SPENT


def _array_state(a: np.ndarray) -> Any:
    if a.dtype.hasobject or a.nbytes > ARRAY_BYTES:
        return None
    return (a.shape, a.dtype.str, a.tobytes())


def _put_array(a: np.ndarray, saved: Any) -> None:
    shape, dtype, data = saved
    # (A branch may have given the array another dtype, shape or size in
    # place: `a.dtype = ...`, `a.shape = (2, 2)`, `a.resize(3)`.)
    if a.dtype.str != dtype:
        a.dtype = np.dtype(dtype)
    if a.shape != shape:
        if a.size == np.prod(shape, dtype=np.int64):
            a.shape = shape
        else:
            a.resize(shape, refcheck=False)
    a[...] = np.frombuffer(data, dtype).reshape(shape)


def _random_state(rng: random.Random) -> Any:
    try:
        return rng.getstate()
    except NotImplementedError:  # (SystemRandom has none)
        return None


def _stream_state(stream: io.StringIO | io.BytesIO) -> Any:
    return None if stream.closed else (stream.getvalue(), stream.tell())


def _put_stream(stream: io.StringIO | io.BytesIO, saved: Any) -> None:
    text, position = saved
    stream.seek(0)
    stream.truncate()
    stream.write(text)
    stream.seek(position)


class _StateKind(NamedTuple):
    name: str  # as messages name it
    read: Callable[[Any], Any]  # its state (None: not noted)
    write: Callable[[Any, Any], None] | None  # puts one back (None: cannot)


_STATE_KINDS: dict[type, _StateKind] = {
    np.ndarray: _StateKind("NumPy array", _array_state, _put_array),
    random.Random: _StateKind("random.Random", _random_state, random.Random.setstate),
    np.random.Generator: _StateKind(
        "NumPy Generator",
        lambda g: _Saved(_key(g.bit_generator.state), g.bit_generator.state),
        lambda g, saved: setattr(g.bit_generator, "state", saved.value),
    ),
    np.random.RandomState: _StateKind(
        "NumPy RandomState",
        lambda r: _Saved(_key(s := r.get_state(legacy=False)), s),
        lambda r, saved: r.set_state(saved.value),
    ),
    io.StringIO: _StateKind("StringIO", _stream_state, _put_stream),
    io.BytesIO: _StateKind("BytesIO", _stream_state, _put_stream),
    array.array: _StateKind(
        "array.array",
        lambda a: (a.typecode, a.tobytes()),
        lambda a, saved: a.__setitem__(slice(None), array.array(*saved)),
    ),
    types.GeneratorType: _StateKind("generator", _generator_position, None),
    **{
        kind: _StateKind(
            "iterator", _sequence_position, lambda it, saved: it.__setstate__(saved)
        )
        for kind in ITERATORS
    },
}
_OTHER_ITERATORS = _StateKind("iterator", _position, None)
STATE_NAMES = frozenset(k.name for k in _STATE_KINDS.values())
"""What `kind_of` calls the `STATES`."""


def _state_kind(obj: Any) -> _StateKind:
    for kind in type(obj).__mro__:
        found = _STATE_KINDS.get(kind)
        if found is not None:
            return found
    return _OTHER_ITERATORS


def state_of(obj: Any) -> Any:
    """The state of a `STATES` object, comparable with `==` (None: not
    noted, e.g. an array of Python objects, or larger than `ARRAY_BYTES`).

        >>> it = iter([1, 2]); before = state_of(it); next(it)
        1
        >>> before, state_of(it)
        (0, 1)
    """
    return _state_kind(obj).read(obj)


_SPENT = "ran out"  # the state of an iterator or generator that ended


def restorable(obj: Any, saved: Any) -> bool:
    """Whether `put_back` can give `obj` the state `saved` (a generator, an
    iterator other than a sequence's, or one that ran out since, cannot be
    wound back)."""
    if not isinstance(obj, STATES):
        return True
    now = state_of(obj)
    return now == saved or (_state_kind(obj).write is not None and now != _SPENT)


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
        if state_of(obj) != saved and restorable(obj, saved):
            _state_kind(obj).write(obj, saved)  # type: ignore[misc]
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

    def lost(self) -> list[tuple[Any, str]]:
        """The objects (with their names) whose state changed and cannot be
        put back (a generator advanced)."""
        return [
            (obj, name)
            for obj, name, saved in self.entries.values()
            if not restorable(obj, saved)
        ]

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
        if name in found:
            continue
        if isinstance(value, CONTAINERS) or is_object(value):
            found[name] = value
        elif value is random:  # `random.random()`: the module's generator
            found[name] = random._inst  # type: ignore[attr-defined]
        elif value is np or value is np.random:  # `np.random.rand()`: NumPy's
            found[name] = np.random.mtrand._rand  # type: ignore[attr-defined]
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
        # Past the standard library's and packages' frames to the caller
        # (a `functools.cached_property` calls the getter that sets it).
        while frame is not None and _foreign(frame.f_code.co_filename):
            frame = frame.f_back
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


_STDLIB = sysconfig.get_paths()["stdlib"] + os.sep


def _foreign(filename: str) -> bool:
    """Whether `filename` is the standard library's or an installed
    package's (not this library's, not the user's)."""
    return (
        filename.startswith(_STDLIB)
        or "site-packages" in filename
        or "dist-packages" in filename
    )


def show(shape: Any, kind: str = "") -> str:
    """A shape (`shape`) as messages show it; `kind` (`kind_of`) for a state."""
    if kind == "NumPy array":
        dims, dtype, data = shape
        values = np.frombuffer(data, dtype).reshape(dims)
        return np.array2string(values, threshold=8, separator=", ")
    if kind in STATE_NAMES:
        return "ended" if shape == _SPENT else "a state"
    if isinstance(shape, int):
        return f"{shape} item{'s' if shape != 1 else ''}"
    if isinstance(shape, bytes):
        return repr(shape)
    if isinstance(shape, frozenset):
        return "{" + ", ".join(sorted(map(repr, shape))) + "}"
    return "[" + ", ".join(map(repr, shape)) + "]"
