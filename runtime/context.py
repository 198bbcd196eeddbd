"""Which graph, if any, ops are being added to (one stack per thread).

`runtime.graph.Graph.as_default()` pushes onto this stack; every op looks at
`STATE.graph` to decide between running at once (None: eager) and adding a
node. It lives in its own module so that `tensor` and `graph` can both read it
without importing each other.
"""

from __future__ import annotations

import contextlib
import re
import threading

# Own references: a user's `builtins.len = spy` does not see our calls.
from builtins import isinstance
from collections.abc import Iterator
from typing import Any

__all__ = [
    "ACTIVE_HINT",
    "STATE",
    "add_to_active_hint",
    "eager_scope",
    "get_default_graph",
    "name_scope",
    "trial_trace",
]

# A process-wide hint for the `ag__` dispatch: how many things that may make
# a backend active exist right now, on any thread (graphs being built,
# `always_run_converted` blocks, backends that keep no count). Zero means no
# backend is active anywhere, so a `to_graph` result runs the original
# function after one list read. It only ever over-approximates.
ACTIVE_HINT = [0]
_HINT_LOCK = threading.Lock()


def add_to_active_hint(n: int) -> None:
    """Adds `n` (+1 on entering, -1 on leaving) to `ACTIVE_HINT`, atomically."""
    with _HINT_LOCK:
        ACTIVE_HINT[0] += n


class _State(threading.local):
    # The class attribute is the per-thread default; `graph` is read on every
    # op, so it is a plain attribute rather than `stack[-1]`.
    graph: Any = None
    # The active `GradientTape`s, innermost last (see `runtime.gradients`).
    tapes: tuple[Any, ...] = ()
    # How many trial traces are running (a backend tracing a body once more
    # to learn its types): the user's `print` is silent inside one, so that
    # tracing prints what the body prints once, as TensorFlow does.
    trials: int = 0
    # How deep converted calls entered through `to_graph`'s dispatcher are
    # nested while a backend is active, and the refusals a backend without a
    # graph (JAX) kept for the outermost one to raise when it returns (user
    # code may catch them while tracing, as `Graph.refusals` says).
    calls: int = 0
    refusals: list[Any] | None = None
    # While a converted call traces (`calls` > 0): the texts traced values
    # gave, for the messages staged to show their values when the program
    # runs (`runtime.operators.staging.formatted`).
    formatted: list[Any] | None = None
    # How many items or attributes a graph loop left holding an
    # `UnboundUntilRun` during this converted call (`places.write_results`):
    # the outermost call checks those its result holds.
    unbound_items: int = 0
    # While a converted call traces: where the staged program may raise when
    # it runs (`file`, `line`), for a `finally` block that raises too
    # (`runtime.operators.exceptions.replaced_by_finally`).
    staged_raises: list[tuple[str, int]] | None = None
    # What the last outermost converted call staged there, for the graph
    # tracer that called it (`staging.raising.replaced_in_finally`).
    last_staged_raises: list[tuple[str, int]] | None = None

    def __init__(self) -> None:
        self.stack: list[Any] = []


STATE = _State()


def get_default_graph() -> Any:
    """The `Graph` being built on this thread, or None in eager mode."""
    return STATE.graph


@contextlib.contextmanager
def push(graph: Any) -> Iterator[Any]:
    """Makes `graph` (a Graph, or None for eager) current inside the block."""
    state = STATE
    state.stack.append(state.graph)
    state.graph = graph
    counted = graph is not None
    if counted:
        add_to_active_hint(1)
    try:
        yield graph
    finally:
        state.graph = state.stack.pop()
        if counted:
            add_to_active_hint(-1)


@contextlib.contextmanager
def trial_trace() -> Iterator[None]:
    """Marks the block as a trial trace: `ag__.print_` prints nothing in it."""
    state = STATE
    state.trials += 1
    try:
        yield
    finally:
        state.trials -= 1


def eager_scope() -> contextlib.AbstractContextManager[Any]:
    """Runs ops eagerly inside the block, even while a graph is being built.

    Used to evaluate a `Variable`'s initial value, like TensorFlow's
    `init_scope`.
    """
    return push(None)


_SCOPE_NAME = re.compile(r"[A-Za-z0-9_.][A-Za-z0-9_.\-]*")


@contextlib.contextmanager
def name_scope(name: str) -> Iterator[str]:
    """Prefixes `name/` to the names of the graph ops created in the block.

        >>> import runtime as rt
        >>> graph = rt.Graph()
        >>> with graph.as_default(), rt.name_scope("block"):
        ...     total = rt.constant(1) + 2
        >>> total.op.name
        'block/add'

    Scopes nest (`outer/inner/add`); a name used twice in one graph gets a
    suffix the second time (`block_1/add`). Eager ops have no names, so
    outside a graph the block runs unchanged. Yields the prefix (`block/`).

    Raises:
        ValueError: `name` is empty or holds characters other than letters,
            digits, `_`, `.` and `-`.
    """
    if not isinstance(name, str) or not _SCOPE_NAME.fullmatch(name):
        raise ValueError(
            f"invalid name scope {name!r}: use letters, digits, '_', '.' and '-'"
        )
    graph = STATE.graph
    if graph is None:
        yield f"{name}/"
        return
    with graph.name_scope(name) as prefix:
        yield prefix
