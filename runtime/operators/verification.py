"""Checks on converted control flow and their messages (STYLE 6, 11).

Every message names the user's variable and says how to fix the problem;
tests pin the text.
"""

from __future__ import annotations

import linecache
import re

# Own references: a user's `builtins.len = spy` does not see our calls.
from builtins import (
    getattr,
    hasattr,
    id,
    isinstance,
    len,
    repr,
    tuple,
    type,
    zip,
)
from collections.abc import Callable, Sequence
from typing import Any

from runtime import nest
from runtime.control_flow_checks import describe, difference, quote
from runtime.errors import InvalidArgumentError
from runtime.graph import keep_refusal, raised_by_user, user_location
from runtime.operators import places as places_
from runtime.operators.places import Place
from runtime.operators.staging.python_value import needs_python_value
from runtime.operators.staging.where import GENERATED_FUNCTIONS, statement_here
from runtime.operators.variables import (
    UnboundAfterReturn,
    UnboundUntilRun,
    Undefined,
    is_undefined,
)

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


def raise_python_loop_tensor_condition(
    names: tuple[str, ...], backend: Any = None, where: str = ""
) -> None:
    """A `for` over a Python iterable other than a range (which a backend
    can continue) got a backend value's `break` or `return` condition
    (`backend`: the staging backend whose value it is, or None for the
    graph's; `where`: `' at file:line'` of the loop)."""
    state = ", ".join(repr(n) for n in names if not is_generated(n)) or "none"
    kind = getattr(backend, "kind", "graph")
    if kind == "graph":
        value = "graph tensor"
        fix = (
            "iterate over tensors (`for x in t`, `enumerate(t)`, `zip(t, u)`) "
            "or rt.range(n)"
        )
    else:
        value = f"traced {kind} value"
        fix = (
            "iterate over arrays (`for x in xs`, `enumerate(xs)`, `zip(xs, ys)`) "
            "or over range(n) with a traced n"
        )
    error = TypeError(
        f"this `for` loop{where} iterates over a Python value, so it runs as "
        "Python (unrolled while tracing), but its `break` or `return` depends on "
        f"a {value} (loop variables: {state}); {fix}, to make it one {kind} loop"
    )
    if backend is None:
        keep_refusal(error, ours=True)  # user code may catch it while tracing
    else:
        backend.keep_refusal(error)
    raise error


# ... and those of an `if` jump lowering writes after a loop
# (`anno.Basic.GUARD`): the loop's `else` block; the path that returned.
_LOOP_ELSE = re.compile(r"loop_else(_\d+)?")
_LOOP_RETURNED = re.compile(r"loop_returned(_\d+)?")


_LOOP_HEADER = re.compile(r"\s*(async\s+)?(for|while)\b")


def returned_from_loop(body: Callable[..., Any]) -> bool:
    """Whether `body` is the true branch of the check jump lowering writes
    after a loop holding a `return` (`if do_return: return retval_`): a
    function `loop_returned`, or the arm `lambda: retval_` that `return
    retval_ if do_return else <after>` has, placed at the loop's line."""
    name = getattr(body, "__name__", "")
    if _LOOP_RETURNED.fullmatch(name):
        return True
    code = getattr(body, "__code__", None)
    if name != "<lambda>" or code is None:
        return False
    if not any(label(n) == label("retval_") for n in code.co_freevars):
        return False
    header = linecache.getline(code.co_filename, code.co_firstlineno)
    return _LOOP_HEADER.match(header) is not None


def _user_function(body: Callable[..., Any]) -> str:
    """The name of the user's function a generated branch `body` is in."""
    parts = [p for p in body.__qualname__.split(".") if p != "<locals>"][:-1]
    while len(parts) > 1 and GENERATED_FUNCTIONS.fullmatch(parts[-1]):
        parts.pop()
    return parts[-1] if parts else "?"


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
    function = _user_function(body)
    at = f"{code.co_filename}:{code.co_firstlineno}"
    fix = "add a `return` of such a value on that path"
    if returned_from_loop(body):
        # `if do_return: return retval_` after a loop holding a `return`.
        if branch == "if":
            raise ValueError(
                f"{function!r} returns None from inside the {kind} loop at {at} "
                "(a bare `return`, or `return None`) but a value after the loop; "
                f"a {kind} function needs a value of the same kind on every path: "
                "return such a value inside the loop too"
            )
        after = (
            "the code after the loop has no `return` on that path, or returns None"
            if has_else
            else "no `return` follows the loop"
        )
        raise ValueError(
            f"{function!r} returns a value from inside the {kind} loop at {at} but "
            f"None when the loop ends without returning ({after}); a {kind} "
            f"function needs a value of the same kind on every path: {fix}"
        )
    other = "else" if branch == "if" else "if"
    where = (
        f"from its {branch} branch (that path has no `return`, or returns None)"
        if branch == "if" or has_else
        else "when its condition is false (it has no else branch, and no `return` "
        "follows it)"
    )
    raise ValueError(
        f"{function!r} returns a value from the {other} branch of the {kind} `if` "
        f"at {at} but None {where}; a {kind} `if` needs a value of the same kind "
        f"from both branches: {fix}"
    )


def check_loop_return(
    body: Callable[..., Any], in_loop: Any, after: Any, kind: str = "graph"
) -> None:
    """The `if do_return: return retval_` after a loop holding a `return`
    (`body` is its true branch, `loop_returned`): refuses values of two
    structures, `in_loop` (what a `return` inside the loop gave) and
    `after` (what the code after the loop returns), naming the loop, where
    a plain `if`'s message would name a "true branch" at the loop's line."""
    if not returned_from_loop(body) or nest.same_structure(in_loop, after):
        return
    code = body.__code__
    at = f"{code.co_filename}:{code.co_firstlineno}"
    detail = difference(in_loop, after, "inside the loop", "after it")
    fix = "return the same structure in both places"
    if type(in_loop) is type(after) in (list, tuple) and len(in_loop) != len(after):
        # (a graph carries each item in a variable of its own)
        fix = (
            f"a {type(in_loop).__name__} has one length on every path: return "
            f"{describe(in_loop)} after the loop too (padded, with a count of "
            "the items that are real, where fewer are)"
        )
    raise ValueError(
        f"{_user_function(body)!r} returns {describe(in_loop)} from inside the "
        f"{kind} loop at {at} but {describe(after)} after the loop{detail}; a "
        f"{kind} function needs a value of the same structure on every path: {fix}"
    )


def untruthful(cond: Any, error: TypeError) -> TypeError | None:
    """The refusal of `if cond:` where `cond`'s `__bool__` or `__len__`, a
    method of the user's, gave a traced value (`error`: Python's "__bool__
    should return bool", or the traced value's refusal to be an int), naming
    the method, the `if` and the fix; None for another error."""
    method = None
    for name in ("__bool__", "__len__"):
        method = getattr(type(cond), name, None)
        if method is not None:
            break
    code = getattr(method, "__code__", None)
    text = str(error)
    if code is None or not (
        text.startswith("__bool__ should return bool")
        or "Python int" in text
        or type(error).__name__ == "TracerIntegerConversionError"
    ):
        return None
    where = user_location()
    at = f" at {where}" if where is not None else ""
    owner = getattr(code, "co_qualname", code.co_name)
    wanted = "a bool" if code.co_name == "__bool__" else "an int"
    return TypeError(
        f"the condition of the `if`{at} is {describe(cond)}, whose truth Python "
        f"tests with {owner} ({code.co_filename}:{code.co_firstlineno}); it "
        f"returns a traced value, not {wanted}, and a traced value has none "
        f"while tracing; make {code.co_name} return {wanted}, or write the "
        "condition on the traced value itself (that `if` is then traced)"
    )


def check_defined(
    values: Sequence[Any],
    names: Sequence[str],
    branch: str,
    others: Sequence[Any] | None = None,
    kind: str = "graph",
    body: Callable[..., Any] | None = None,
    has_else: bool = True,
) -> None:
    """Raises unless each of a graph `if` branch's `values` (for `names`) is
    defined, as the other branch defines it (`others`, when given: what the
    other branch gave; a value undefined in both stays undefined, such as
    an item whose container is missing). `kind` is what the `if` becomes
    ("graph", "JAX"), for the message; `body` its true branch's function
    (it carries the if's line; the guard of a loop's `else` block is named
    for it); `has_else`: whether the user wrote an else branch."""
    if others is None:
        others = [None] * len(values)
    for value, name, given in zip(values, names, others):
        # (A return value set in neither branch is fine: it stays undefined.)
        if type(value) is Undefined and type(given) is not Undefined:
            if body is not None and _LOOP_ELSE.fullmatch(body.__name__):
                raise _undefined_around_loop_else(name, branch, kind, body)
            if value.deleted_by:
                raise _deleted_in_one_branch(value, name, branch, kind, body, has_else)
            if type(given) is UnboundAfterReturn:  # (the other branch returns)
                raise _unassigned_where_the_other_returns(
                    name, branch, kind, body, has_else
                )
            raise ValueError(
                one_branch_only(quote(label(name)), branch, kind, body, has_else)
                + "and it is used after the `if`; "
                + _assign_it(branch, has_else)
            )


def _unassigned_where_the_other_returns(
    name: str,
    branch: str,
    kind: str,
    body: Callable[..., Any] | None,
    has_else: bool,
) -> ValueError:
    """`name` is read after a `kind` `if` whose other branch returns and
    whose `branch` leaves it unassigned: unbound on the only path that
    continues (TensorFlow: "'w' must also be initialized in the main branch")."""
    other = "else" if branch == "if" else "if"
    unassigned = (
        f"its {branch} branch does not assign it"
        if branch == "if" or has_else
        else "it is not assigned when the condition is false (the `if` has no else)"
    )
    where = f"in its {branch}" if branch == "if" or has_else else "in an else"
    return ValueError(
        f"{quote(label(name))} is not assigned on the path that continues after "
        f"the {kind} `if`{_if_at(body)} (its {other} branch returns, and "
        f"{unassigned}), and it is used after the `if`; assign it before the "
        f"`if`, or {where} branch"
    )


def _if_at(body: Callable[..., Any] | None) -> str:
    """`' at f.py:3 in 'f''`: the line of the `if` whose true branch is
    `body`, and the user's function, or nothing."""
    if body is None:
        return ""
    code = body.__code__
    return f" at {code.co_filename}:{code.co_firstlineno} in {_user_function(body)!r}"


def _assign_it(branch: str, has_else: bool) -> str:
    if branch == "else" and not has_else:
        return "assign it before the `if` too, or in an else branch"
    return "assign it in both branches or before the `if`"


def one_branch_only(
    shown: str,
    branch: str,
    kind: str,
    body: Callable[..., Any] | None,
    has_else: bool,
) -> str:
    """The start of a refusal of `shown` (a variable or item, as the user
    wrote it), set in one branch of a `kind` `if` and not in `branch`:
    `"'y' is assigned in the if branch of the graph `if` at f.py:3 in 'f'
    but not in its else branch, "`. `body`: the if's true branch (its line
    and function); `has_else`: whether the user wrote an else branch."""
    other = "else" if branch == "if" else "if"
    at = _if_at(body)
    lacking = (
        f"in its {branch} branch"
        if branch == "if" or has_else
        else "when the condition is false (the `if` has no else)"
    )
    return (
        f"{shown} is assigned in the {other} branch of the {kind} `if`{at} "
        f"but not {lacking}, "
    )


def _deleted_in_one_branch(
    value: Undefined,
    name: str,
    branch: str,
    kind: str,
    body: Callable[..., Any] | None,
    has_else: bool,
) -> ValueError:
    """The user's code unbinds `name` in `branch` of a `kind` `if` (`value`
    says how: `del`, or the end of an `except ... as` block) and the other
    path keeps it bound: which it is after the `if` would depend on a `kind`
    value."""
    shown = quote(label(name))
    at = _if_at(body)
    if value.deleted_by == "except":
        how = f"unbound (the end of an `except ... as {name}` block unbinds it)"
        fix = "bind the exception to a name used only in that block"
    else:
        how = f"deleted (`del {name}`)"
        fix = "delete it on both paths or on neither"
    other = "else" if branch == "if" else "if"
    kept = (
        f"in its {other} branch"
        if branch == "else" or has_else
        else "when the condition is false (the `if` has no else)"
    )
    return ValueError(
        f"{shown} is {how} in the {branch} branch of the {kind} `if`{at} but "
        f"bound {kept}, and it is used after the `if`; whether it exists "
        f"after the `if` would depend on a {kind} value: {fix}"
    )


def _undefined_around_loop_else(
    name: str, branch: str, kind: str, body: Callable[..., Any]
) -> ValueError:
    """A name a loop's `else` block binds and the path where a `break` ends
    the loop does not (`branch` 'else'), or the other way round ('if'). The
    guard `if not break_:` is the compiler's: the message names the loop."""
    code = body.__code__
    loop = (
        f"the {kind} loop at {code.co_filename}:{code.co_firstlineno} in "
        f"{_user_function(body)!r}"
    )
    shown = quote(label(name))
    if branch == "else":
        return ValueError(
            f"{shown} is assigned in the `else` block of {loop} but not on the path "
            "where the loop ends by `break`, and it is used after the loop; assign "
            "it before the loop (or also before the `break`)"
        )
    return ValueError(
        f"{shown} is bound after {loop} when it ends by `break` but not after its "
        "`else` block runs, and it is used after the loop; assign it on both paths "
        "or before the loop"
    )


def refuse_untracked(places: Sequence[Place], kind: str = "graph") -> None:
    """Raises for a place a `kind` ("graph", "JAX") backend cannot carry
    (`places.Untracked`)."""
    for place in places:
        if isinstance(place, places_.Untracked):
            raise TypeError(place.message(kind))


def refuse_loop_places(places: Sequence[Place], kind: str = "graph") -> None:
    """Raises for a place a `kind` ("graph", "JAX") loop cannot carry: an
    untracked one (`refuse_untracked`), or an item or attribute the loop may
    create in a container whose keys the function observes
    (`places.observed_births`)."""
    refuse_untracked(places, kind)
    born = places_.observed_births(places)
    if born:
        raise TypeError(observed_birth(born[0].name, kind, statement_here()))


def observed_birth(name: str, kind: str, where: str) -> str:
    """The refusal of the item or attribute `name` that a `kind` loop (at
    `where`) may create, where the function asks whether it exists."""
    if name.endswith("]"):
        owner = name[: name.rfind("[")]
        absent = f"{owner} holds no such key before it"
        asks = f"which keys {owner} holds (`in`, `len`, `.get`, iterating it, ...)"
    else:
        owner = name[: name.rfind(".")]
        absent = f"{owner} has no such attribute before it"
        asks = f"whether {owner} has it (`hasattr`, `getattr` with a default, `vars`)"
    return (
        f"{name} is created by the {kind} loop{where} ({absent}), and the function "
        f"asks {asks}: a {kind} loop carries the value of {name}, not whether it "
        "exists, so it would exist from the loop's first iteration on, and after a "
        f"loop that runs no iteration; create it before the loop (`{name} = ...`, its "
        "starting value) and test that value where the code tests whether it exists"
    )


# Errors Python raises on a path of the program, not about building the
# graph: raised while tracing a graph `if`'s branch, they belong to that branch.
_RAISED_ON_PATH = (
    UnboundLocalError,
    NameError,
    ZeroDivisionError,
    KeyError,
    IndexError,
    # An op a static shape shows will fail (`l[0]` of an empty tensor under
    # `if rt.size(l) > 0`): it fails where the path runs, as when the shape
    # is known only then.
    InvalidArgumentError,
)


def raised_on_path(error: Exception) -> bool:
    """Whether Python raises `error` only on the path being traced: the
    user's code raised it (a `raise`, `d[k]`, `1 / 0`), or it is an error
    Python raises at a read (an unbound variable). Never a staged value
    used as a Python value (`t in marks` hashes a tracer): that is about
    tracing, on every path."""
    if needs_python_value(error) is not None:
        return False
    return isinstance(error, _RAISED_ON_PATH) or raised_by_user(error) is not None


def check_places_defined(
    places: Sequence[Place],
    then: Sequence[Any],
    orelse: Sequence[Any],
    kind: str = "graph",
    body: Callable[..., Any] | None = None,
    has_else: bool = True,
) -> None:
    """Raises for a place one branch of a `kind` ("graph", "JAX") `if` leaves
    undefined and the other defines (`body`, `has_else`: as for
    `check_defined`)."""
    for place, a, b in zip(places, then, orelse):
        # (A name a graph loop in one branch may leave unbound counts as set
        # there: its placeholder says whether it is, where it is read.)
        if _unset(a) != _unset(b):
            branch = "if" if _unset(a) else "else"
            raise ValueError(
                one_branch_only(quote(place.name), branch, kind, body, has_else)
                + f"so whether it exists after the `if` would depend on a {kind} "
                "value; " + _assign_it(branch, has_else)
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


def born_on_an_untraced_path(name: str, loop: str, where: str) -> ValueError:
    """A name first assigned in a loop, on a path of its body that the trial
    trace, which learns the loop's types, did not take."""
    return ValueError(
        f"{quote(name)} is first assigned inside the {loop} loop{where} on a "
        "path its trial trace did not take, so its type cannot be told; give "
        f"{quote(name)} a value before the loop"
    )


def not_carried_out_of_loop(name: str, kind: str, loop: str, where: str) -> TypeError:
    """A name first assigned in a loop, to a value (`kind`: 'a function')
    that a `loop` ("graph", "JAX") loop cannot carry out of it."""
    return TypeError(
        f"{quote(name)} is first assigned inside the {loop} loop{where}, to "
        f"{kind}, and is used after the loop: a {loop} loop carries only "
        "tensors (and tuples, lists, dicts of them) out of its body, so a "
        f"value made there cannot leave it; define {quote(name)} before the "
        "loop (a function can take the loop's values as arguments)"
    )


def replaced_in_loop(name: str, kind: str, loop: str, where: str) -> TypeError:
    """A variable holding a value (`kind`: 'a function') that a `loop`
    ("graph") loop cannot carry, which the loop's body replaces."""
    return TypeError(
        f"loop variable {quote(name)} is {kind}, which cannot be a {loop} loop "
        f"variable (the {loop} loop{where} gives it a new one): a {loop} loop "
        "carries only tensors (and tuples, lists, dicts of them); assign it "
        "before the loop only (a function can take the loop's values as "
        "arguments)"
    )


def not_on_every_path(name: str, loop: str, where: str = "") -> ValueError:
    """A name first assigned in a loop, on some paths through its body only."""
    return ValueError(
        f"'{name}' is first assigned inside a {loop} loop{where}, but not on every "
        "path through its body; give it a value before the loop"
    )


def unset_read_error(name: str) -> type[Exception]:
    """What Python raises reading `name` (a name, `d['k']` or `ob.attr`)
    where nothing has set it."""
    if name.endswith("]"):
        return KeyError
    if "." in name:
        return AttributeError
    return UnboundLocalError


def unassigned_after_loop(name: str, when: str, loop: str, where: str = "") -> str:
    """The message of a read (`when`: "in" or "after" the loop) of a name, item
    or attribute that a loop may be the first to assign, where no iteration
    did; it says what Python raises there."""
    python = unset_read_error(name).__name__
    return (
        f"{quote(name)} is read {when} the {loop} loop{where}, but no iteration "
        f"has assigned it (Python: {python}); give {quote(name)} a value before "
        "the loop"
    )


def unassigned_after_if(name: str, kind: str, body: Callable[..., Any]) -> str:
    """The message of a read of a name that a `kind` `if` inside a loop
    (`body`: its true branch) binds on one path only, where neither it nor
    anything after it has (`born.unset_in_iteration`)."""
    code = body.__code__
    at = f" at {code.co_filename}:{code.co_firstlineno} in {_user_function(body)!r}"
    python = unset_read_error(name).__name__
    return (
        f"{quote(name)} is read after the {kind} `if`{at} (which assigns it on "
        f"one path only) on a path where nothing assigned it (Python: {python}); "
        f"give {quote(name)} a value before the loop"
    )


def untyped_loop_name(name: str, loop: str, where: str = "") -> str:
    """The message for a name read before the loop assigns it, whose type
    no candidate gives."""
    return (
        f"'{name}' is read in a {loop} loop{where} before the loop assigns it (an "
        "earlier iteration would), and its type cannot be told; give it a value "
        "before the loop"
    )


def unwidened_numbers(
    numbers: Sequence[tuple[str, str]],
    where: str,
    mismatch: str,
    advice: str,
    raising: bool = True,
) -> TypeError:
    """A graph loop that carries Python numbers (`numbers`: name and the
    dtype it gets) whose body uses one with another dtype (`mismatch`, the
    op's error) only on paths that finish no iteration (they raise), so
    the loop's trial cannot tell the wider type Python's arithmetic gives
    it there; `advice`: what to write before the loop instead. Not
    `raising`: the body mixes an int and a float where Python's arithmetic
    allows it (`mean += d / n`, `n` a counter), which no wider type of one
    number makes one dtype."""
    shown = ", ".join(quote(label(name)) for name, _ in numbers)
    if len(numbers) > 1:
        shown = f"one of {shown}"
    dtypes = "/".join(dict.fromkeys(dtype for _, dtype in numbers))
    if not raising:
        return TypeError(
            f"{shown}, a Python number before the graph loop{where}, is carried "
            f"by the loop as {dtypes}, and its body mixes it with a value of "
            f"another dtype ({mismatch}), which Python's arithmetic allows; a "
            "graph loop keeps each variable's dtype and its ops do not mix an "
            "int and a float (as TensorFlow's), so cast where they meet (e.g. "
            f"d / rt.cast(n, rt.float32)) or give it that type before the loop "
            f"(e.g. {advice})"
        )
    return TypeError(
        f"{shown}, a Python number before the graph loop{where}, is carried "
        f"by the loop as {dtypes}, but its body uses it with a value of another "
        f"dtype ({mismatch}) only on a path that ends no iteration (it raises), "
        "where Python's arithmetic would widen it; the loop takes a variable's "
        "type from the paths that end an iteration, so give it the wider type "
        f"before the loop (e.g. {advice})"
    )


def arm_not_carried(
    key: str, shown: str, branch: str, where: str, kind: str
) -> TypeError:
    """The refusal of a conditional expression (or a tail `if` that returns)
    whose `branch` ("if"/"else") gives a value, `shown` as its kind, that the
    backend's `if` cannot carry."""
    return TypeError(
        f"{key} is {shown} in the {branch} branch of the {kind} `if`{where}: "
        "a traced `if` gives arrays (and tuples, lists, dicts of them); give "
        "an array on every path, or choose with a Python value"
    )


def list_item_not_a_tensor(name: str, kind: str, where: str) -> TypeError:
    """A list a graph loop appends to (carried as a TensorArray, whose
    items are tensors) holding, or given, `kind` ('a function'), which no
    tensor holds."""
    return TypeError(
        f"list {quote(name)} holds {kind}, and the graph loop{where} appends "
        "to it: a graph loop carries a list it appends to as a TensorArray, "
        "whose items are tensors; append only tensors to it there, or build it "
        "in a Python loop (over a Python list, or range(n) with a Python n)"
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
            shown = label(name)
            if loop == "JAX":  # a JAX loop cannot grow a list in place either
                advice = (
                    f"preallocate an array ({shown} = jnp.zeros(n); "
                    f"{shown} = {shown}.at[i].set(v)), or in a `for` over an "
                    "array collect the values as jax.lax.scan outputs"
                )
            else:
                advice = (
                    f"append to it ({shown}.append(...), then rt.stack({shown}) "
                    "after the loop), or collect the values in an rt.TensorArray"
                )
            raise TypeError(
                f"loop variable {quote(shown)} is a list of {was} before "
                f"the {loop} loop{where} but a list of {now} after one "
                "iteration; a loop variable must keep its structure, so a list "
                f"carried by a {loop} loop keeps its length: {advice}"
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


def strict_zip_of_tensors(lengths: Sequence[Any], where: str) -> TypeError:
    """A graph `for` over `zip(..., strict=True)` of tensors whose lengths
    (ints, or None where unknown) may differ: Python raises ValueError
    where the shortest ends, which a graph loop does not."""
    shown = ", ".join("unknown" if n is None else str(n) for n in lengths)
    return TypeError(
        f"the `for` loop{where} iterates over zip(..., strict=True) of tensors "
        f"whose lengths may differ ({shown} rows): Python raises ValueError "
        "where the shortest ends, which a graph loop cannot; drop strict=True "
        "(the loop stops at the shortest) or give the tensors equal static lengths"
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


def unbound_inside_try(
    name: str, where: Any, handler: str, kind: str, program: str
) -> TypeError:
    """A maybe-unbound read (a `kind` loop may not assign `name`) inside a
    `try` whose handler would catch what Python raises there
    (`unset_read_error`)."""
    python = unset_read_error(name).__name__
    return TypeError(
        f"{quote(name)} may be unbound where it is read at {where} (a {kind} loop "
        f"may assign it in no iteration), inside the `try` at {handler} that "
        f"would handle the {python}, but {program} cannot catch an exception "
        f"when it runs; give {quote(name)} a value before the loop"
    )


def raised_inside_try(
    error: Exception, where: str, handler: str, program: str
) -> TypeError:
    """`error`, raised on a staged path (`where`: in what, at which line),
    inside a `try` at `handler` that handles it."""
    shown = repr(error)
    if "Tracer(" in shown:  # (a message formatted from a JAX tracer's repr)
        shown = f"{type(error).__name__} (its message shows a traced value)"
    return TypeError(
        f"{shown} is raised in {where}, inside the `try` at {handler} that "
        f"handles it, but {program} cannot catch an exception when it runs; "
        "decide with a Python value, or return a value that says what happened "
        "instead of raising"
    )


def raises_in_finally(what: str, where: Any, first: str, program: str) -> TypeError:
    """`what` (a maybe-unbound read, a raise) may raise when the program
    runs at `where`, in a `finally` block whose `try` may already raise at
    `first`: Python raises the block's exception, `program` the first."""
    return TypeError(
        f"{what} may raise at {where}, in a `finally` block whose `try` may "
        f"already raise at {first} when {program} runs; Python would raise the "
        f"`finally`'s exception in its place, but {program} raises the first one "
        "it meets; make the `finally` block unable to raise (give its variables "
        "values before the `try`)"
    )


def unset_reaches_library(error: TypeError, fn: Any, args: Any) -> TypeError | None:
    """A clear TypeError for `error`, raised by a library function (`jnp.add`)
    that the user's `fn`, called with `args`, gave an item a staged loop may
    leave unset (an `UnboundUntilRun`: JAX has no hook to check it where a
    library reads it); None if `error` is another one or `args` hold none."""
    if "UnboundUntilRun" not in str(error) or hasattr(error, "unset_item"):
        return None  # (another error, or one a nested call made clear)
    found = _unset_in(args, set(), 3)
    if not found:
        return None
    unset = found[0]
    name = quote(unset.symbol_name)
    where = _loop_of(unset.message)
    code = getattr(fn, "__code__", None)
    at = f" at {code.co_filename}:{code.co_firstlineno}" if code else ""
    clear = TypeError(
        f"{getattr(fn, '__name__', fn)}(){at} was given {name}, which {where} may "
        "leave unset (no static trip count of at least one sets it on every "
        "path), and passes it to a library function, which cannot check it "
        f"where it reads it ({str(error).splitlines()[0]}); give {name} a value "
        "before the loop"
    )
    clear.unset_item = unset.symbol_name  # type: ignore[attr-defined]
    return clear


def _loop_of(message: str) -> str:
    """`'the graph loop at f.py:3'`: the loop an `UnboundUntilRun`'s
    `message` (`unassigned_after_loop`'s) names."""
    loop = re.search(r"the (\w+ loop(?: at [^,]*)?), but", message)
    return f"the {loop.group(1)}" if loop else "a staged loop"


def unassigned_returned(name: str, message: str, function: Any) -> str:
    """The message of an item or attribute `name`, which a loop may be the
    first to set (`message`: its read's), in the structure `function`
    returns: Python returns the structure without it, where a staged program
    returns a structure fixed when it is traced."""
    code = function.__code__
    at = f"{code.co_filename}:{code.co_firstlineno}"
    return (
        f"{quote(name)} is part of what {function.__name__!r} (at {at}) returns, "
        f"and no iteration of {_loop_of(message)} has set it: Python would "
        f"return that without {quote(name)}, but a traced function returns the "
        f"structure it was traced with; give {quote(name)} a value before the loop"
    )


def _unset_in(value: Any, seen: set[int], depth: int) -> list[UnboundUntilRun]:
    """The `UnboundUntilRun`s `value` holds, `depth` containers deep (lists,
    tuples, dicts, objects' attributes)."""
    if type(value) is UnboundUntilRun:
        return [value]
    if depth == 0 or id(value) in seen:
        return []
    seen.add(id(value))
    if isinstance(value, dict):
        items = list(value.values())
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        items = list(getattr(value, "__dict__", {}).values())
    return [u for item in items for u in _unset_in(item, seen, depth - 1)]
