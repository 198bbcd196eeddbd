"""The converted-code operators (`ag__.if_stmt`, `while_stmt`, ...) of one
staging backend, written once.

`install` registers, for a backend's value type, the statements and
expressions whose rules the core owns: the `if` (`staging.conditional`),
loops (handed to the backend as one `Loop`), `a if c else b`, `and`, `or`,
`not`. A backend gives its primitives (`staging.backend.Backend`) and its
loop builders; a new backend is one `install` call.
"""

from __future__ import annotations

import dataclasses
import linecache
from collections.abc import Callable, Sequence
from typing import Any

from runtime.operators import dispatch, mutations, verification
from runtime.operators.control_flow import state_names
from runtime.operators.places import Place
from runtime.operators.staging import aliasing, born, conditional, key_order, returned
from runtime.operators.staging import where as where_
from runtime.operators.staging.where import staged


@dataclasses.dataclass(frozen=True)
class Loop:
    """One converted `while` or `for` statement, as its operator got it.

    Attributes:
        body: The body function, over the state (after the item, in a `for`).
        state: The loop variables' values before the loop.
        names: Their names.
        places: The items, attributes and cells the loop may write.
        opts: `autograph.set_loop_options`'s options, or None.
        test: A `while` loop's test; a `for` loop's extra test (a `break`
            or `return` condition), or None.
        first_cond: A `while` loop's test's value before the loop.
        iterable: What a `for` loop iterates.
    """

    body: Callable[..., Any]
    state: tuple[Any, ...]
    names: tuple[str, ...]
    places: Sequence[Place] = ()
    opts: dict[str, Any] | None = None
    test: Callable[..., Any] | None = None
    first_cond: Any = None
    iterable: Any = None


def _if_exp_label(*arms: Callable[[], Any]) -> str:
    """How messages name the value of a staged `a if c else b`."""
    for arm in arms:
        code = getattr(arm, "__code__", None)
        if code is not None and any(
            verification.label(n) == verification.label("retval_")
            for n in code.co_freevars
        ):
            # Return lowering's `ag__.if_exp(do_return, lambda: retval_, ...)`.
            return verification.label("retval_")
    code = getattr(arms[0], "__code__", None) if arms else None
    if code is not None:
        line = linecache.getline(code.co_filename, code.co_firstlineno).lstrip()
        function = where_.user_function(arms[0])
        if line.startswith(("if ", "elif ")) and function not in (None, "<module>"):
            # An `if` whose branches both `return`: one expression.
            return f"the return value of {function!r}"
    return "the value of the `if`/`else`"  # an expression


def install(
    backend: Any,
    value_type: type,
    *,
    while_loop: Callable[[Loop], Any],
    for_loop: Callable[[Loop], Any],
    select: Callable[[Any, Callable[[], Any], Callable[[], Any], str], Any],
    logical_not: Callable[[Any], Any],
    for_range: Callable[[Loop], Any] | None = None,
    declines: Callable[[Any], bool] = lambda value: False,
    wrap: Callable[[Callable[..., Any]], Callable[..., Any]] = lambda impl: impl,
) -> dict[str, Callable[..., Any]]:
    """Registers the core's operators for `value_type` in the dispatch
    tables, over `backend`'s primitives and these builders:

    Args:
        backend: The backend's primitives (`staging.backend.Backend`).
        value_type: The class of the values the backend stages.
        while_loop: Builds a `while` loop (a `Loop` with `test`, `first_cond`).
        for_loop: Builds a `for` loop (a `Loop` with `iterable`).
        select: `select(cond, if_true, if_false, label)`: the staged value
            of `if_true() if cond else if_false()`, named `label` in messages.
        logical_not: The staged `not`.
        for_range: Builds the rest of a `for` over a Python range whose
            state has become staged (`ag__.for_stmt` hands it over), or
            None: Python runs it.
        declines: Whether a value of the type is concrete: the statement
            then runs as Python (`NotImplemented`).
        wrap: Wraps each operator (every backend's keeps its refusals:
            `staging.raising.keeping_refusals`).

    Returns:
        The operators by name, also for a backend's extra registrations.
    """

    def if_stmt(
        cond: Any,
        body: Callable[..., Any],
        orelse: Callable[..., Any] | None,
        state: tuple[Any, ...],
        names: tuple[str, ...],
        places: Sequence[Place] = (),
    ) -> Any:
        if declines(cond):
            return NotImplemented
        return conditional.if_stmt(backend, cond, body, orelse, state, names, places)

    def while_stmt(
        test: Callable[..., Any],
        body: Callable[..., Any],
        state: tuple[Any, ...],
        names: tuple[str, ...],
        first_cond: Any,
        places: Sequence[Place] = (),
        opts: dict[str, Any] | None = None,
    ) -> Any:
        if declines(first_cond):
            return NotImplemented
        names = names or state_names(test)
        with (
            born.building_loop(),
            returned.building_loop(body, state, names, places, skip=0) as returns,
        ):
            loop = Loop(
                returns.body(body), state, names, places, opts, test, first_cond
            )
            return returns.finish(while_loop(loop))

    def for_stmt_of(build: Callable[[Loop], Any]) -> Callable[..., Any]:
        def for_stmt(
            iterable: Any,
            body: Callable[..., Any],
            state: tuple[Any, ...],
            names: tuple[str, ...],
            extra_test: Callable[..., Any] | None,
            places: Sequence[Place] = (),
            opts: dict[str, Any] | None = None,
        ) -> Any:
            names = names or state_names(body, skip=1)
            test = extra_test
            with (
                born.building_loop(),
                returned.building_loop(body, state, names, places, skip=1) as returns,
            ):
                traced = returns.body(body)
                loop = Loop(traced, state, names, places, opts, test, iterable=iterable)
                return returns.finish(build(loop))

        return for_stmt

    def if_exp(
        cond: Any,
        if_true: Callable[[], Any],
        if_false: Callable[[], Any],
        expr_repr: str = "",
    ) -> Any:
        if declines(cond):
            return NotImplemented
        if verification.returned_from_loop(if_true):
            # `return retval_ if do_return else <after>` after a loop holding
            # a `return`: refused as that `if` is, naming the loop and the
            # function (no "true branch" at the loop's line).
            # (Its own statement, watching items: each arm starts from the
            # items as they are here, not as they were before an `if`
            # around it, whose branch may have changed them: a loop's
            # place written back into the list the loop returns.)
            returning = aliasing.watching_items(
                conditional.if_stmt, f"{backend.kind} `if`", check=False
            )
            return returning(backend, cond, if_true, if_false, (), ())
        label = _if_exp_label(if_true, if_false)
        arms = key_order.Arms(label, backend.kind)  # (a dict's order: one)
        true, false = arms.arm(if_true, "if"), arms.arm(if_false, "else")
        return arms.finish(select(cond, true, false, label))

    def and_(a: Any, b: Callable[[], Any]) -> Any:
        if declines(a):
            return NotImplemented
        return select(a, b, lambda: a, "the value of the `and`")

    def or_(a: Any, b: Callable[[], Any]) -> Any:
        if declines(a):
            return NotImplemented
        return select(a, lambda: a, b, "the value of the `or`")

    def not_(a: Any) -> Any:
        if declines(a):
            return NotImplemented
        return logical_not(a)

    kind = backend.kind
    watching = aliasing.watching_items
    impls = {
        "if_stmt": watching(if_stmt, f"{kind} `if`", 5),
        "while_stmt": watching(while_stmt, f"{kind} loop"),
        "for_stmt": watching(for_stmt_of(for_loop), f"{kind} loop"),
        "if_exp": if_exp,
        "and_": and_,
        "or_": or_,
        "not_": not_,
    }
    if for_range is not None:
        impls["for_range"] = watching(for_stmt_of(for_range), f"{kind} loop")
    # (Changes through methods, and recursion: `mutations.tracked`.)
    impls = {
        name: staged(wrap(mutations.tracked(impl, name, kind)))
        for name, impl in impls.items()
    }
    for name, impl in impls.items():
        impl.backend = backend  # type: ignore[attr-defined]  # (for messages)
        dispatch.register(name, value_type, impl)
    return impls
