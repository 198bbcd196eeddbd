"""The one dispatch point between plain Python and a graph backend.

Every operator that converted code calls (`if_stmt`, `while_stmt`, `and_`,
...) asks this registry for an implementation keyed by the *type* of the value
it dispatches on (a condition, an iterable, a list). A missing entry means
"run as plain Python". A backend registers one function per operator:

    >>> from runtime.operators import dispatch
    >>> class Traced: ...
    >>> dispatch.register("not_", Traced, lambda value: "graph not")
    >>> dispatch.lookup("not_", Traced()) is not None
    True
    >>> dispatch.lookup("not_", True) is None
    True
    >>> dispatch.unregister("not_", Traced)

The graph backend (`runtime.operators.graph_backend`) registers
`runtime.tensor.SymbolicTensor`; another backend (say JAX tracers) would be
one more set of entries, not a fork of the operators.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from runtime import context

# Operator name -> {value type -> implementation}. The operators read these
# dicts directly on their hot path (one dict lookup per dispatch).
TABLES: dict[str, dict[type, Callable[..., Any]]] = {
    name: {}
    for name in (
        "if_stmt",
        "while_stmt",
        "for_stmt",
        "and_",
        "or_",
        "not_",
        "if_exp",
        "assert_stmt",
        "print_",
        "range_",
        "len_",
        "int_",
        "float_",
        "list_append",
        "list_pop",
    )
}


# Functions that say whether a backend is active right now (e.g. a graph is
# being built). While none is, no value can be claimed by a backend.
_ACTIVITY_CHECKS: list[Callable[[], bool]] = []


def register_activity_check(check: Callable[[], bool], *, hinted: bool = False) -> None:
    """Registers a backend's "am I active?" predicate (see `any_active`).

    Args:
        check: The predicate (for this thread).
        hinted: Whether the backend counts its activations in
            `runtime.context.ACTIVE_HINT` (so that while the hint is zero,
            `check()` is known to be false on every thread). Without one the
            hint stays above zero, and every call of a `to_graph` result asks
            `any_active()`.
    """
    if check not in _ACTIVITY_CHECKS:
        _ACTIVITY_CHECKS.append(check)
        if not hinted:
            context.add_to_active_hint(1)


def any_active() -> bool:
    """Whether any backend is active, i.e. some value may be dispatched.

    While this is false every operator runs its plain-Python equivalent, so a
    converted function computes exactly what the original does; `to_graph`
    uses that to run the original directly, at no overhead.
    """
    return any(check() for check in _ACTIVITY_CHECKS)


def register(operator: str, value_type: type, impl: Callable[..., Any]) -> None:
    """Makes `operator` call `impl` when its dispatch value is a `value_type`."""
    if operator not in TABLES:
        raise KeyError(f"unknown operator {operator!r}; known: {sorted(TABLES)}")
    TABLES[operator][value_type] = impl


def unregister(operator: str, value_type: type) -> None:
    """Removes a registration made by `register` (no error if absent)."""
    TABLES[operator].pop(value_type, None)


def lookup(operator: str, value: Any) -> Callable[..., Any] | None:
    """The implementation registered for `type(value)`, or None for Python."""
    return TABLES[operator].get(type(value))
