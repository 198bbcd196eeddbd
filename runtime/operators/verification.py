"""Checks on converted control flow and their messages (STYLE 6, 11).

Every message names the user's variable and says how to fix the problem;
tests pin the text.
"""

from __future__ import annotations

import contextlib
import re
import threading

# Own references: a user's `builtins.len = spy` does not see our calls.
from builtins import (
    dict,
    enumerate,
    hasattr,
    id,
    isinstance,
    len,
    repr,
    set,
    tuple,
    type,
    zip,
)
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from runtime.control_flow_checks import quote
from runtime.graph import keep_refusal, raised_by_user
from runtime.operators import places as places_
from runtime.operators.places import Place
from runtime.operators.variables import UnboundUntilRun, Undefined, is_undefined
from runtime.source_locations import user_frame

# What converted code's own state variables stand for, by the Namer's base
# names (a clash with a user's name gets a suffix: `retval__1`, `break__2`).
# (The `for` item `itr` is a loop function's parameter, never state.)
_GENERATED = tuple(
    (re.compile(rf"{base}(_\d+)?"), what)
    for base, what in (
        ("retval_", "the function's return value"),
        ("do_return", "whether the function has returned"),
        ("break_", "the loop's `break` condition"),
        ("continue_", "the loop's `continue` condition"),
        # Saved before a `try` whose finally block may cancel a jump.
        ("retval_before", "the function's return value"),
        ("do_return_before", "whether the function has returned"),
        ("break_before", "the loop's `break` condition"),
        ("continue_before", "the loop's `continue` condition"),
    )
)


def label(name: str) -> str:
    """How messages name a state variable: the user's name, or what a
    generated one stands for.

        >>> label("total"), label("retval_")
        ('total', "the function's return value")

    A description is not an identifier, so messages print it unquoted.
    """
    for pattern, what in _GENERATED:
        if pattern.fullmatch(name):
            return what
    return name


def labels(names: Sequence[str]) -> list[str]:
    """`label` of each name."""
    return [label(n) for n in names]


def is_generated(name: str) -> bool:
    """Whether `name` is one of converted code's own variables."""
    return label(name) != name


def raise_python_loop_tensor_condition(names: tuple[str, ...]) -> None:
    """A `for` over a Python iterable other than a range (which a backend
    can continue) got a graph-tensor `break` or `return` condition."""
    state = ", ".join(repr(n) for n in names if not is_generated(n)) or "none"
    error = TypeError(
        "this `for` loop iterates over a Python value, so it runs as Python "
        "(unrolled while tracing), but its `break` or `return` depends on a graph "
        f"tensor (loop variables: {state}); iterate over a tensor, e.g. "
        "rt.range(n), to make it one graph loop"
    )
    keep_refusal(error, ours=True)  # user code may catch it while tracing
    raise error


# The names the compiler gives the functions it generates (`Namer` bases).
_HELPERS = re.compile(r"(if_body|else_body|loop_body|loop_test|extra_test)(_\d+)?")


def raise_missing_return(
    body: Callable[..., Any], branch: str, has_else: bool, kind: str = "graph"
) -> None:
    """A graph `if` ending its function returns a value in one branch only.

    Args:
        body: The if's generated true branch (it carries the if's file and
            line, and is nested in the user's function).
        branch: 'if' or 'else': the branch that returned nothing.
        has_else: Whether the `if` has an else branch.
        kind: What the `if` becomes ("graph", "JAX"), for the message.
    """
    code = body.__code__
    parts = [p for p in body.__qualname__.split(".") if p != "<locals>"][:-1]
    while len(parts) > 1 and _HELPERS.fullmatch(parts[-1]):
        parts.pop()
    function = parts[-1] if parts else "?"
    other = "else" if branch == "if" else "if"
    where = (
        f"from its {branch} branch (that path has no `return`, or returns None)"
        if branch == "if" or has_else
        else "when its condition is false (it has no else branch, and no `return` "
        "follows it)"
    )
    raise ValueError(
        f"{function!r} returns a value from the {other} branch of the {kind} `if` "
        f"at {code.co_filename}:{code.co_firstlineno} but None {where}; a {kind} "
        "`if` needs a value of the same kind from both branches: add a `return` "
        "of such a value on that path"
    )


def check_defined(
    values: Sequence[Any],
    names: Sequence[str],
    branch: str,
    others: Sequence[Any] | None = None,
) -> None:
    """Raises unless each of a graph `if` branch's `values` (for `names`) is
    defined, as the other branch defines it (`others`, when given: what the
    other branch gave; a value undefined in both stays undefined, such as
    an item whose container is missing)."""
    other = "else" if branch == "if" else "if"
    if others is None:
        others = [None] * len(values)
    for value, name, given in zip(values, names, others):
        # (A return value set in neither branch is fine: it stays undefined.)
        if type(value) is Undefined and type(given) is not Undefined:
            raise ValueError(
                f"{quote(label(name))} must also be defined in the {branch} branch: "
                "it is set "
                f"in the {other} branch of a graph `if` and used after it; assign "
                "it in both branches or before the if statement"
            )


def refuse_untracked(places: Sequence[Place]) -> None:
    """Raises for a place a backend cannot carry (`places.Untracked`)."""
    for place in places:
        if isinstance(place, places_.Untracked):
            raise TypeError(place.message())


# Errors Python raises on a path of the program, not about building the
# graph: raised while tracing a graph `if`'s branch, they belong to that branch.
_RAISED_ON_PATH = (
    UnboundLocalError,
    NameError,
    ZeroDivisionError,
    KeyError,
    IndexError,
)


def raised_on_path(error: Exception) -> bool:
    """Whether Python raises `error` only on the path being traced: the
    user's code raised it (a `raise`, `d[k]`, `1 / 0`), or it is an error
    Python raises at a read (an unbound variable)."""
    return isinstance(error, _RAISED_ON_PATH) or raised_by_user(error) is not None


def check_places_defined(
    places: Sequence[Place], then: Sequence[Any], orelse: Sequence[Any]
) -> None:
    """Raises for a place one branch of a graph `if` leaves undefined and the
    other defines."""
    for place, a, b in zip(places, then, orelse):
        # (A name a graph loop in one branch may leave unbound counts as set
        # there: its placeholder says whether it is, where it is read.)
        if _unset(a) != _unset(b):
            branch, other = ("if", "else") if _unset(a) else ("else", "if")
            raise ValueError(
                f"{quote(place.name)} must also be defined in the {branch} "
                "branch: it is set "
                f"in the {other} branch of a graph `if`, so whether it exists after "
                "the `if` would depend on a graph tensor; assign it in both branches "
                "or before the if statement"
            )


def _unset(value: Any) -> bool:
    """Undefined, and not a placeholder for a name a graph loop may bind."""
    return is_undefined(value) and type(value) is not UnboundUntilRun


def add_note(error: BaseException, note: str) -> None:
    """`error.add_note(note)`; before Python 3.11, which has no notes, the
    note is appended to the message."""
    if hasattr(error, "add_note"):
        error.add_note(note)
    elif error.args and isinstance(error.args[0], str):
        error.args = (f"{error.args[0]}\n{note}", *error.args[1:])


# -- loops of a backend (`loop`: "graph" or "JAX"; `where`: " at file:line") ----


def untyped_return(loop: str) -> ValueError:
    """A return value set in a loop whose type no traced path tells."""
    return ValueError(
        f"cannot tell the type of the return value of this function from its {loop} "
        "loop; return a value of the same type on every path"
    )


def not_on_every_path(name: str, loop: str, where: str = "") -> ValueError:
    """A name first assigned in a loop, on some paths through its body only."""
    return ValueError(
        f"'{name}' is first assigned inside a {loop} loop{where}, but not on every "
        "path through its body; give it a value before the loop"
    )


def unassigned_after_loop(name: str, when: str, loop: str, where: str = "") -> str:
    """The message of a read (`when`: "in" or "after" the loop) of a name, item
    or attribute that a loop may be the first to assign, where no iteration
    did; it says what Python raises there."""
    if name.endswith("]"):
        python = "KeyError"
    elif "." in name:
        python = "AttributeError"
    else:
        python = "UnboundLocalError"
    return (
        f"{quote(name)} is read {when} the {loop} loop{where}, but no iteration "
        f"has assigned it (Python: {python}); give {quote(name)} a value before "
        "the loop"
    )


def untyped_loop_name(name: str, loop: str, where: str = "") -> str:
    """The message for a name read before the loop assigns it, whose type
    no candidate gives."""
    return (
        f"'{name}' is read in a {loop} loop{where} before the loop assigns it (an "
        "earlier iteration would), and its type cannot be told; give it a value "
        "before the loop"
    )


def empty_list_before_loop(name: str) -> ValueError:
    """A list a graph loop carries but never appends to, with no element to
    tell its type."""
    return ValueError(
        f"list '{name}' is empty before a graph loop whose body does not append to "
        "it; give it an element, or use rt.TensorArray"
    )


def refuse_grown_lists(
    names: Sequence[str],
    before: Sequence[Any],
    after: Sequence[Any],
    loop: str,
    where: str = "",
) -> None:
    """Raises TypeError for a list that one iteration of a loop body
    replaces by a list of another length (`s = s + [x]`): a loop variable
    that changes structure (API.md). A list the body appends to (the same
    object, longer) is carried as a TensorArray instead."""
    for name, old, new in zip(names, before, after):
        if (
            type(old) is list
            and type(new) is list
            and new is not old
            and len(new) != len(old)
        ):
            was, now = _count_items(old), _count_items(new)
            raise TypeError(
                f"loop variable {quote(label(name))} is a list of {was} before "
                f"the {loop} loop{where} but a list of {now} after one "
                "iteration; a loop variable must keep its structure, so a list "
                f"carried by a {loop} loop keeps its length: append to it "
                f"({label(name)}.append(...), then rt.stack({label(name)}) after "
                "the loop), or collect the values in an rt.TensorArray"
            )


def _count_items(values: Sequence[Any]) -> str:
    return f"{len(values)} item" + ("" if len(values) == 1 else "s")


def bad_invariant_entry(n: int, pair: Any) -> TypeError:
    """A `set_loop_options(shape_invariants=...)` entry that is no pair."""
    return TypeError(
        "each shape_invariants entry of autograph.set_loop_options must be a "
        f"(variable, shape) pair; entry {n} is {pair!r}"
    )


def invariant_not_a_loop_variable(n: int, kind: str) -> ValueError:
    """A `shape_invariants` entry naming something the loop does not carry."""
    return ValueError(
        f"shape_invariants entry {n} of autograph.set_loop_options names {kind} "
        "that is not a variable of this loop; give (variable, shape) pairs for "
        "variables the loop changes"
    )


def scalar_iteration(name: str) -> TypeError:
    """A `for` over a scalar graph tensor."""
    return TypeError(
        f"cannot iterate over a scalar tensor {name!r}; iterate over a 1-D or "
        "higher tensor, or use rt.range(n)"
    )


def int_with_base() -> TypeError:
    """`int(tensor, base)`: as Python, a base is for strings only."""
    return TypeError("int() can't convert a tensor with an explicit base")


def pop_of_tensor_array() -> TypeError:
    """`list.pop()` on a list a graph loop carries as a TensorArray."""
    return TypeError(
        "pop() on a list carried through a graph loop (a TensorArray) is not "
        "supported; keep an index variable and read() instead"
    )


def refuse_lost_aliases(
    names: Sequence[str],
    given: dict[str, Sequence[Any]],
    result: Sequence[Any],
    copied: str = "",
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
                if others:
                    kind = type(obj).__name__
                    raise ValueError(
                        f"{quote(name)} holds the same {kind} as {quote(others[0])} "
                        f"{where}, but "
                        + (
                            "the loop's body would work on a copy"
                            if where == copied
                            else f"after it {quote(name)} would hold a copy"
                        )
                        + " (a graph picks values, "
                        f"not objects), so a change through one would not show "
                        f"in the other; give it its own {kind} (`{kind}(...)`) "
                        f"or keep one name for the object"
                    )


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
    frame = user_frame(2)
    found: dict[str, Any] = {}
    code = None
    while frame is not None:
        if code is None or code in frame.f_code.co_consts:
            for name, value in frame.f_locals.items():
                found.setdefault(name, value)
            code = frame.f_code
        frame = frame.f_back
    return found


def watching_items(
    impl: Callable[..., Any], statement: str, position: int | None = None
) -> Callable[..., Any]:
    """`impl`, a backend's statement, refusing items changed through a name
    the statement assigns (`UntrackedItems`); its places are the keyword
    `places`, or the argument at `position`."""

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
