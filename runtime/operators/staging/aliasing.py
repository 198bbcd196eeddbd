"""Aliasing in staged statements: the lists and dicts the user's names
share, and the items a statement changes through them.

- `watching_items`: a statement refuses an item of a list or dict changed
  through a name it assigns, which no place carries (`UntrackedItems`);
  each branch and trial trace starts from the items as they were
  (`restore_items`, `items_kept`).
- `refuse_lost_aliases`: a list or dict two names share that a staged
  statement gives back as two objects is refused.
"""

from __future__ import annotations

import contextlib
import threading

# Own references: a user's `builtins.len = spy` does not see our calls.
from builtins import (
    dict,
    enumerate,
    id,
    isinstance,
    len,
    set,
    tuple,
    type,
)
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from runtime.control_flow_checks import quote
from runtime.operators import places as places_
from runtime.operators.places import Place
from runtime.operators.staging import unobserved
from runtime.operators.verification import is_generated
from runtime.source_locations import user_frame


def refuse_lost_aliases(
    names: Sequence[str],
    given: dict[str, Sequence[Any]],
    result: Sequence[Any],
    copied: str = "",
    program: str = "a graph",
) -> None:
    """Refuses a graph statement after which a list or dict would be a copy
    that Python shares with another variable.

    After a graph `if`, a variable whose branches give different lists (or
    dicts) holds a new one: the graph picks its values, not an object.
    Python's variable would be one of those objects, which another variable
    may hold too (`e = d`, or `ys = xs` before the `if`); a later change
    through one would not show in the other. Refused when such an object is
    also held by another variable of the function (or inside its value), or
    by another variable the branch gives.

    Args:
        names: The state variables, in order.
        given: What the statement's blocks gave for them, by where ("in
            the if branch of a graph `if`", "before a graph loop").
        result: The statement's values for them.
        copied: The entry of `given` whose values the statement's blocks get
            as copies ("before a graph loop": the body works on the loop
            variables): an object shared there is refused even if it comes
            out of the statement whole.
        program: What picks values, not objects, in the message.
    """
    held: dict[str, Any] | None = None
    for where, outs in given.items():
        for i, name in enumerate(names):
            if is_generated(name) or not name.isidentifier():
                # The return value (or a conditional expression's, which may
                # be returned): what the function returns is a copy anyway
                # (graph outputs); only a finally block that changes the
                # object after the return could tell.
                continue
            for obj in mutable_parts(outs[i]):
                if _holds(result[i], obj) and where != copied:
                    continue  # the object itself comes out of the statement
                others = [
                    n
                    for j, n in enumerate(names)
                    if j != i and not is_generated(n) and _holds(outs[j], obj)
                ]
                if not others:
                    if held is None:
                        held = function_locals()
                    others = [
                        n
                        for n, v in held.items()
                        if n != name and not is_generated(n) and _holds(v, obj)
                    ]
                if not others:
                    continue
                seen = _observation(name, names, outs, obj)
                if seen is None:
                    continue  # only read: the copy holds Python's values
                kind = type(obj).__name__
                seen = f" (which the function can see: {seen})" if seen else ""
                raise ValueError(
                    f"{quote(name)} holds the same {kind} as {quote(others[0])} "
                    f"{where}, but "
                    + (
                        "the loop's body would work on a copy"
                        if where == copied
                        else f"after it {quote(name)} would hold a copy"
                    )
                    + f" ({program} picks values, "
                    f"not objects), so a change through one would not show "
                    f"in the other{seen}; give it its own {kind} (`{kind}(...)`) "
                    f"or keep one name for the object"
                )


def _observation(
    name: str, names: Sequence[str], outs: Sequence[Any], obj: Any
) -> str | None:
    """How the user's function may see the list or dict `obj` as one object
    through a name that holds it (`name`, a state variable `names` whose
    value in `outs` holds it, a variable of the function): None where it
    only reads its values, so that a copy cannot be told from it
    (`unobserved.observation`). A name holding it inside another list or
    dict counts as such a use."""
    frames = _function_frames()
    if not frames:
        return ""
    holders = {name}
    held = [
        (n, v)
        for frame in frames
        for n, v in frame.f_locals.items()
        if not is_generated(n)
    ]
    held += [(n, v) for n, v in zip(names, outs) if not is_generated(n)]
    for n, v in held:
        if _holds(v, obj):
            if v is not obj:
                return f"{quote(n)} holds it inside another object"
            holders.add(n)
    outer = frames[-1]
    return unobserved.observation(outer.f_code, outer.f_globals, holders, obj)


def mutable_parts(value: Any) -> list[Any]:
    """The lists and dicts in `value` (itself included), outermost first."""
    found: list[Any] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, dict)):
            found.append(item)
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return found


def _holds(value: Any, obj: Any) -> bool:
    """Whether `value` is `obj` or holds it in its lists, tuples and dicts."""
    seen: set[int] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if item is obj:
            return True
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return False


def function_locals() -> dict[str, Any]:
    """The variables of the user's running function that a converted
    statement is in: the first frame outside this library, and each frame up
    the stack whose code holds the code of the last one found (the
    functions it is nested in)."""
    found: dict[str, Any] = {}
    for frame in _function_frames():
        for name, value in frame.f_locals.items():
            found.setdefault(name, value)
    return found


def _function_frames() -> list[Any]:
    """The frames `function_locals` reads, innermost first: the last is the
    user's function (the others are functions nested in it)."""
    frame = user_frame(3)
    frames = []
    code = None
    while frame is not None:
        if code is None or code in frame.f_code.co_consts:
            frames.append(frame)
            code = frame.f_code
        frame = frame.f_back
    return frames


def watching_items(
    impl: Callable[..., Any],
    statement: str,
    position: int | None = None,
    check: bool = True,
) -> Callable[..., Any]:
    """`impl`, a backend's statement, refusing items changed through a name
    the statement assigns (`UntrackedItems`); its places are the keyword
    `places`, or the argument at `position`. With `check` False it only
    scopes `restore_items` (the statement's blocks start from the items as
    they are when it starts)."""

    def run(*args: Any, **kwargs: Any) -> Any:
        places = kwargs.get("places", ())
        if position is not None and len(args) > position:
            places = args[position]
        items = UntrackedItems(places)
        _WATCHED.stack.append(items)
        try:
            result = impl(*args, **kwargs)
        finally:
            _WATCHED.stack.pop()
        if check:
            items.check(statement, result)
        return result

    return run


class _Watched(threading.local):
    def __init__(self) -> None:
        self.stack: list[UntrackedItems] = []


_WATCHED = _Watched()  # the statements being built, innermost last


def restore_items() -> None:
    """Puts back the items of the lists and dicts the innermost statement
    being built watches, as they were before it: each branch starts from
    them, as it does from its places."""
    if _WATCHED.stack:
        _WATCHED.stack[-1].restore()


@contextlib.contextmanager
def items_kept() -> Iterator[None]:
    """Undoes what a trial trace does to the items the innermost statement
    being built watches (they stay as the trace found them)."""
    if not _WATCHED.stack:
        yield
        return
    watched = _WATCHED.stack[-1]
    now = watched.items_now()
    try:
        yield
    finally:
        watched.restore(now)


class UntrackedItems:
    """The items of the user's lists and dicts before a graph statement, to
    find those it changed that converted code does not carry (`check`).

    A converted statement carries the items it changes as places (`xs[0]`),
    by the names it changes them through. One changed through a name the
    statement assigns (`ys = xs; ys[0] += 1` in a branch) is not carried:
    the change would be made while tracing, whichever branch runs. Such an
    item is refused. (An item added, as by `append`, is a Python side
    effect made while tracing, as API.md says; it is not looked at.)
    """

    def __init__(self, places: Sequence[Place]) -> None:
        slots = [places_.item_slot(p) for p in places]
        self._carried = {(id(s[0]), s[1]) for s in slots if s is not None}
        # Lists and dicts carried whole (changed through methods).
        self._whole = {id(c) for c in map(places_.whole, places) if c is not None}
        self._before: dict[int, tuple[Any, dict[Any, Any], list[str]]] = {}
        # Items a branch changed, found when the next branch started.
        self._changed: dict[int, dict[Any, Any]] = {}
        for name, value in function_locals().items():
            for obj in mutable_parts(value):
                entry = self._before.get(id(obj))
                if entry is None:
                    entry = self._before[id(obj)] = (obj, _items(obj), [])
                entry[2].append(name)

    def items_now(self) -> dict[int, dict[Any, Any]]:
        """The watched containers' items now."""
        return {key: _items(obj) for key, (obj, _, _) in self._before.items()}

    def restore(self, items: dict[int, dict[Any, Any]] | None = None) -> None:
        """Puts back the watched items as they were before the statement
        (or as `items_now` gave them)."""
        for key, (obj, before, _) in self._before.items():
            saved = before if items is None else items[key]
            now = _items(obj)
            for k, value in saved.items():
                if k in now and now[k] is not value:
                    if items is None:  # a branch changed it: `check` looks
                        self._changed.setdefault(key, {})[k] = now[k]
                    obj[k] = value

    def check(self, statement: str, result: Any) -> None:
        """Raises TypeError for an item the statement changed untracked
        (`result`: what it gave; a list or dict in it is carried whole)."""
        for ident, (obj, before, names) in self._before.items():
            if _holds(result, obj) or ident in self._whole:
                continue
            now = {**_items(obj), **self._changed.get(ident, {})}
            for key, value in before.items():
                if key in now and now[key] is not value:
                    if (id(obj), key) in self._carried:
                        continue
                    kind = type(obj).__name__
                    held = " and ".join(quote(n) for n in names)
                    raise TypeError(
                        f"a {statement} changes item {key!r} of the {kind} "
                        f"{held} {'hold' if len(names) > 1 else 'holds'} through "
                        "a name it assigns inside (as `ys = xs` then "
                        "`ys[0] += 1` in a branch): a graph cannot carry that "
                        "change, which would be made whichever way the "
                        "statement goes; change the item through a name the "
                        "statement does not assign, or assign that name before it"
                    )


def _items(obj: Any) -> dict[Any, Any]:
    """A list's or dict's items by index or key."""
    return dict(enumerate(obj)) if isinstance(obj, list) else dict(obj)
