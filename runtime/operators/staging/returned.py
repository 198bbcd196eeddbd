"""The object a staged loop's `return`s give, once for every backend.

Return lowering carries a loop's return value as the loop variable
`retval_`; a staged `if` in the body that returns `xs` merges `xs` with the
value the loop carries (zeros of its type, another list), so the `if`, and
the loop, give a new list holding the loop's values. In Python the function
returns `xs` itself: a change made through the returned value (a caller in
the traced code, a `finally`) reaches `xs`.

So while a loop is built, each staged `if` in its body records which values
its branches gave for each list or dict it packs (`merged`), and the body's
`retval_` is followed back through those `if`s (`Returns.finish`). Where
every path that sets it gives one list or dict `O` that existed before the
loop (its state, its places' values, or a name of the function around the
body), the loop's return value is `O`: when the loop exits by such a
`return`, Python's value is `O`, whose items then are what they are when
the loop exits (the loop carries `O` where its body changes `O`'s items, as
a place or a loop variable; `return` ends the iteration). Any other value on
a path -- a list made in the body, another object, a value an `if` of
another loop or a `select` packed -- leaves the loop's value as the backend
builds it.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from runtime.operators import places as places_
from runtime.operators import verification
from runtime.operators.control_flow import as_state, unpack_state
from runtime.operators.staging.wrapper import Wrapper
from runtime.operators.variables import UndefinedReturnValue, is_undefined


class Returns:
    """What one loop being built needs to know of its body's return value."""

    def __init__(
        self, state: Sequence[Any], names: Sequence[str], skip: int, existing: list[Any]
    ) -> None:
        self.state = tuple(state)
        self.skip = skip  # (a `for` body's first argument is the item)
        labels = [verification.label(n) for n in names]
        target = verification.label("retval_")
        self.position = labels.index(target) if labels.count(target) == 1 else None
        self.existing = existing  # (held: their ids are not reused meanwhile)
        self.inputs: list[Any] = []  # the body's `retval_` in each trace
        self.outputs: list[Any] = []  # ... and what the body gave for it
        self.packed: dict[int, tuple[Any, list[Any]]] = {}  # `merged`

    def body(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """`fn`, recording its `retval_` in and out in each trace."""
        return fn if self.position is None else _Traced(fn, self)

    def finish(self, result: Any) -> Any:
        """The loop's `result`, its return value the object the body's
        `return`s give where that is one list or dict of before the loop."""
        if self.position is None or not self.outputs:
            return result
        before = self.state[self.position]
        found: set[int] = set()
        objects: list[Any] = []
        for out in self.outputs:
            for value in self._sources(out, set()):
                if id(value) not in found:
                    found.add(id(value))
                    objects.append(value)
        if len(objects) != 1:
            return result
        (obj,) = objects
        if type(obj) not in (list, dict):
            return result
        if not self._existed(obj):
            return result  # made in the body: the loop's values, packed
        if not self._comes_in_unset_or(before, obj):
            # (A value carried in, returned where the loop runs no
            # iteration of its own: it may be another object.)
            return result
        values = list(as_state(result, len(self.state)))
        if type(values[self.position]) is not type(obj):
            return result  # (not a plain value: carried with a flag)
        values[self.position] = obj
        return unpack_state(values)

    def _existed(self, value: Any) -> bool:
        """Whether `value` existed before the loop, as far as it can tell."""
        return any(value is e for e in self.existing)

    def _comes_in_unset_or(self, before: Any, obj: Any) -> bool:
        """Whether the return value before the loop is `obj` or unset: no
        value, or the value a loop around it carries in (its body runs only
        while no `return` has been taken) or `obj` by its `if`s."""
        if type(before) is UndefinedReturnValue or before is obj:
            return True
        loops = _BUILDING.loops
        at = next((i for i, r in enumerate(loops) if r is self), 0)
        if at == 0 or loops[at - 1].position is None:
            return False
        return all(v is obj for v in loops[at - 1]._sources(before, set()))

    def _sources(self, value: Any, seen: set[int]) -> list[Any]:
        """The values a path may give where the body gives `value`: none
        for no return (the value the loop carries in, a placeholder), the
        branches' values for a list or dict a staged `if` packed."""
        if is_undefined(value) or isinstance(value, UndefinedReturnValue):
            return []
        if any(value is v for v in self.inputs) and not self._existed(value):
            # (The value the loop carries in: no `return` taken yet. One
            # the user's code holds counts as itself: a backend may carry
            # the list `xs` a `return xs` gave as it is.)
            return []
        if id(value) in seen:
            return []
        entry = self.packed.get(id(value))
        if entry is None or entry[0] is not value:
            return [value]
        seen.add(id(value))
        out: list[Any] = []
        for branch in entry[1]:
            out += self._sources(branch, seen)
        return out


class _Traced(Wrapper):
    """A loop's body that records its `retval_` in and out in each trace."""

    def __init__(self, fn: Callable[..., Any], record: Returns) -> None:
        super().__init__(fn)
        self._record = record

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        record = self._record
        count = len(record.state)
        if record.position is None or len(args) != record.skip + count:
            return self._fn(*args, **kwargs)
        # (Before the body runs: a loop in it asks whether its return value
        # comes in as this one, `Returns.finish`.)
        record.inputs.append(args[record.skip + record.position])
        result = self._fn(*args, **kwargs)
        record.outputs.append(as_state(result, count)[record.position])
        return result


class _Building(threading.local):
    def __init__(self) -> None:
        self.loops: list[Returns] = []


_BUILDING = _Building()


@contextlib.contextmanager
def building_loop(
    body: Callable[..., Any],
    state: Sequence[Any],
    names: Sequence[str],
    places: Sequence[Any],
    skip: int,
) -> Iterator[Returns]:
    """The scope of one loop's build: yields its `Returns`, whose `body`
    wraps the loop's body and whose `finish` the loop's result goes
    through."""
    existing = [*state, *_cells(body), *places_.read(places)]
    for place in places:  # (and the list or dict holding an item place)
        slot = places_.item_slot(place)
        existing += [places_.whole(place), slot[0] if slot else None]
    record = Returns(state, names, skip, existing)
    _BUILDING.loops.append(record)
    try:
        yield record
    finally:
        _BUILDING.loops.pop()


def merged(out: Sequence[Any], branches: Sequence[Sequence[Any]]) -> None:
    """A staged `if` in the body of the loop being built gave `out`, from
    the values `branches` (each traced branch's, by position, before a
    value not set on its path took the other's type): records each list or
    dict `out` holds that is none of its branches' values."""
    if not _BUILDING.loops:
        return
    record = _BUILDING.loops[-1]
    for i, value in enumerate(out):
        if type(value) not in (list, dict):
            continue
        given = [b[i] for b in branches if i < len(b)]
        if any(value is g for g in given):
            continue
        record.packed[id(value)] = (value, given)


def _cells(fn: Callable[..., Any]) -> list[Any]:
    """The values of `fn`'s free variables (the names of the function
    around a loop's body that it, or a function in it, reads)."""
    values = []
    for cell in getattr(fn, "__closure__", None) or ():
        with contextlib.suppress(ValueError):  # (an empty cell)
            values.append(cell.cell_contents)
    return values
