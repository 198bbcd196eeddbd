"""Dict key order through a staged statement, once for every backend.

A Python dict remembers the order its keys were inserted in, and code that
reads it (`d.values()`, `for k in d`, `list(d)`) sees that order. A staged
`if` or loop picks its *values* when the program runs, but a dict's key
order is fixed while tracing: it cannot depend on the path. So
(`mutations.tracked`, for every backend):

- the branches of a staged `if` must leave every dict the statement carries
  (a variable's value, a place's value, a dict whose items are places) with
  its keys in the same order, and a loop's body in the order they had
  before the loop; else the statement is refused (`first_difference`);
- where they agree, each branch and body starts from the order before the
  statement, and the statement's results are given that order back
  (`follow`): a backend that rebuilds dicts (JAX's pytrees sort their
  keys) would otherwise give them another.

A *signature* (`signature`) is the key orders of the dicts in a value,
nested as the value is:

    >>> signature({'b': 1, 'a': {'y': 0, 'x': 0}})
    ('dict', ('b', 'a'), {'b': None, 'a': ('dict', ('y', 'x'), {'y': None, 'x': None})})
    >>> signature([1, 2]) is None
    True
"""

from __future__ import annotations

# Own references: a user's `builtins.len = spy` does not see our calls.
from builtins import dict, enumerate, id, isinstance, len, list, set, tuple, zip
from collections.abc import Callable, Sequence
from typing import Any

from runtime.control_flow_checks import quote
from runtime.operators.staging import where as where_
from runtime.source_locations import SourceLocation, user_frame

__all__ = [
    "Arms",
    "Orders",
    "first_difference",
    "follow",
    "order_refusal",
    "signature",
]

_DEPTH = 64  # deeper structures are not looked into (a list holding itself)


def signature(value: Any, _depth: int = 0) -> Any:
    """The key orders of the dicts in `value`: None where it holds no dict;
    `('dict', keys, {key: signature})` for a dict; `('seq', [signature])`
    for a list or tuple holding one."""
    if _depth > _DEPTH:
        return None
    if isinstance(value, dict):
        return (
            "dict",
            tuple(value),
            {k: signature(v, _depth + 1) for k, v in value.items()},
        )
    if isinstance(value, (list, tuple)):
        inner = [signature(v, _depth + 1) for v in value]
        return ("seq", inner) if any(s is not None for s in inner) else None
    return None


def first_difference(
    a: Any, b: Any, name: str
) -> tuple[str, tuple[Any, ...], tuple[Any, ...]] | None:
    """The first dict (as `name` and its keys and indices: `d['x']`) whose
    keys the signatures `a` and `b` give in different orders, with both
    orders; None if none does. Dicts with different keys, or values of
    different structures, are not this rule's (other checks name them)."""
    if a is None or b is None or a[0] != b[0]:
        return None
    if a[0] == "dict":
        if a[1] != b[1] and set(a[1]) == set(b[1]) and len(a[1]) == len(b[1]):
            return name, a[1], b[1]
        for key, inner in a[2].items():
            if key in b[2]:
                found = first_difference(inner, b[2][key], f"{name}[{key!r}]")
                if found is not None:
                    return found
        return None
    for i, (x, y) in enumerate(zip(a[1], b[1])):
        found = first_difference(x, y, f"{name}[{i}]")
        if found is not None:
            return found
    return None


def follow(value: Any, sig: Any, _seen: set[int] | None = None) -> None:
    """Puts the keys of each dict in `value` in the order `sig` (a
    signature) gives, in place, where the dict has exactly those keys."""
    if sig is None:
        return
    seen = set() if _seen is None else _seen
    if id(value) in seen or len(seen) > 10_000:
        return
    seen.add(id(value))
    if sig[0] == "dict" and isinstance(value, dict):
        order = sig[1]
        if tuple(value) != order and set(value) == set(order):
            items = [(k, value[k]) for k in order]
            value.clear()
            value.update(items)
        for key, inner in sig[2].items():
            if inner is not None and key in value:
                follow(value[key], inner, seen)
    elif sig[0] == "seq" and isinstance(value, (list, tuple)):
        for item, inner in zip(value, sig[1]):
            follow(item, inner, seen)


def follow_all(values: Sequence[Any], sigs: Sequence[Any]) -> None:
    """`follow` for each value with its signature."""
    for value, sig in zip(values, sigs):
        follow(value, sig)


class Orders:
    """The key orders one staged statement keeps (see the module docstring):
    of its outputs (`names`), of its places' values, and of the dicts whose
    items are its places (`containers`, by the name the user reaches each).

    Args:
        kind: "if" or "loop".
        names: The outputs' names, for messages.
        outputs: The outputs' values before the statement (an `if` without
            an else block gives them unchanged).
        places: The statement's places whose values it reads and writes.
        containers: (name, dict) of the dicts whose items are places.
        backend: How messages name the backend's statements ("graph").
        where: `' at file:line'` of the statement, or nothing.
    """

    def __init__(
        self,
        kind: str,
        names: Sequence[str],
        outputs: Sequence[Any],
        places: Sequence[Any],
        containers: Sequence[tuple[str, dict]],
        backend: str,
        where: str,
    ) -> None:
        self.kind = kind
        self.places = list(places)
        self.containers = list(containers)
        self.labels = [*names, *(p.name for p in places), *(n for n, _ in containers)]
        self.backend = backend
        self.where = where
        self.count = len(names)
        self.initial = self.signatures(outputs)
        self.left: dict[str, list[Any]] = {}  # branch -> what it left
        self.orelse_missing = False

    def _values(self, outputs: Sequence[Any]) -> list[Any]:
        return [
            *outputs,
            *(p.get() for p in self.places),
            *(c for _, c in self.containers),
        ]

    def signatures(self, outputs: Sequence[Any]) -> list[Any]:
        return [signature(v) for v in self._values(outputs)]

    def _merged(self, first: list[list[Any]]) -> list[Any]:
        found = [None] * len(self.initial)
        for sigs in first:
            found = [s if s is not None else t for s, t in zip(found, sigs)]
        return found

    def start(self, state: Sequence[Any]) -> None:
        """A branch or body starts (with `state`, a body's loop variables):
        its dicts in the order they had before the statement (a dict a loop
        makes first: as its body left it)."""
        order = self._merged([self.initial, *self.left.values()])
        values = self._values(state if self.kind == "loop" else [None] * self.count)
        follow_all(values, order)

    def end(self, label: str, outputs: Sequence[Any], orelse_missing: bool) -> None:
        """A branch (`label`: "if", "else") or body ended giving `outputs`:
        refused if it leaves a dict in another order than the other branch
        (an `if`) or than before the loop."""
        sigs = self.signatures(outputs)
        if self.kind == "loop":
            self.left["body"] = sigs
            self._compare(sigs, self.initial, "loop", "")
            return
        self.left[label] = sigs
        self.orelse_missing = orelse_missing
        other = "else" if label == "if" else "if"
        before = self.left.get(other)
        if before is None and orelse_missing and label == "if":
            before = self.initial
        if before is not None:
            self._compare(sigs, before, label, other)

    def _compare(
        self, sigs: list[Any], before: list[Any], label: str, other: str
    ) -> None:
        for name, now, was in zip(self.labels, sigs, before):
            found = first_difference(now, was, name)
            if found is not None:
                name, after, earlier = found
                raise self.refusal(name, earlier, after, label)

    def refusal(
        self, name: str, before: Sequence[Any], after: Sequence[Any], label: str
    ) -> TypeError:
        """The refusal of a dict `name` left with its keys `after` where the
        other branch (or the loop's start) has them `before`."""
        return order_refusal(
            name, before, after, label, self.backend, self.where, self.orelse_missing
        )

    def finish(self, outputs: Sequence[Any]) -> None:
        """The statement's results (`outputs`, its places, its containers)
        in the order the branches (or the body) agreed on."""
        order = self._merged([*self.left.values(), self.initial])
        follow_all(self._values(outputs), order)


def order_refusal(
    name: str,
    before: Sequence[Any],
    after: Sequence[Any],
    label: str,
    backend: str,
    where: str,
    orelse_missing: bool = False,
    by: str = "",
) -> TypeError:
    """Refuses a dict `name` whose key order depends on the path: `after`
    as the `label` branch ("if", "else") or a loop's body ("loop") leaves
    it, `before` as the other branch (or the loop's start) does; `by`:
    where the call that changed it is (`file:line`), or nothing."""
    was, now = _show(before), _show(after)
    by = f" (changed by the call at {by})" if by else ""
    advice = (
        "assign to a key the dict has (`d[k] = v`) rather than deleting or "
        "popping it and inserting it again"
    )
    if label == "loop":
        return TypeError(
            f"the key order of {_dict_named(name)} is changed in the body of "
            f"the {backend} loop{where}{by} ({was} before the loop, {now} after an "
            f"iteration): a {backend} loop cannot make a dict's key order depend "
            "on how many times it runs, so its body must leave the keys in the "
            f"order they had before the loop; {advice}, or make the change "
            "after the loop"
        )
    other = "else" if label == "if" else "if"
    none = " (there is none)" if other == "else" and orelse_missing else ""
    return TypeError(
        f"the key order of {_dict_named(name)} depends on the branch of the "
        f"{backend} `if`{where}{by} ({now} after the {label} branch, {was} after the "
        f"{other} branch{none}): a {backend} `if` cannot make a dict's key order "
        "depend on the branch it takes, so both branches must leave its keys in "
        f"the same order; {advice}, insert new keys in the same order in both "
        "branches, or make the change after the if statement"
    )


def located(where: SourceLocation | None, function: str | None) -> str:
    """`' at file:line in 'f''` (the statement's line and the user's
    function), or as much of it as is known."""
    if where is None:
        return ""
    named = "" if function in (None, "<module>") else f" in {function!r}"
    return f" at {where}{named}"


def _dict_named(name: str) -> str:
    # (A description, "the value of the `if`/`else`", as it is.)
    return f"{name}, a dict," if name.startswith("the ") else f"the dict {quote(name)}"


def _show(keys: Sequence[Any]) -> str:
    return "[" + ", ".join(map(repr, keys)) + "]"


class Arms:
    """The two arms of a staged `a if c else b` (`label`: how messages
    name its value), giving dicts whose keys must come in one order; the
    value gets that order back (`finish`)."""

    def __init__(self, label: str, backend: str) -> None:
        self.label = label
        self.backend = backend
        self.left: dict[str, Any] = {}
        frame = user_frame(2)  # (the user's function, before a backend's frames)
        self.function = frame.f_code.co_name if frame is not None else None

    def arm(self, fn: Callable[[], Any], which: str) -> Callable[[], Any]:
        return _Arm(fn, self, which)

    def finish(self, value: Any) -> Any:
        for sig in self.left.values():
            follow(value, sig)
            break
        return value


class _Arm:
    """An arm of a conditional expression, noting the key orders of what it
    gives; it looks like the function it wraps (`__code__`: messages name
    the value from it)."""

    def __init__(self, fn: Callable[[], Any], arms: Arms, which: str) -> None:
        self._fn, self._arms, self._which = fn, arms, which

    def __getattr__(self, name: str) -> Any:
        return getattr(self._fn, name)

    def __call__(self) -> Any:
        value = self._fn()
        arms, which = self._arms, self._which
        sig = arms.left[which] = signature(value)
        other = "else" if which == "if" else "if"
        if other in arms.left:
            found = first_difference(sig, arms.left[other], arms.label)
            if found is not None:
                name, after, before = found
                at = located(where_.current(), arms.function)
                raise order_refusal(name, before, after, which, arms.backend, at)
        return value
