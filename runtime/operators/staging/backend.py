"""The `Backend` protocol: the primitives a staging backend gives the core.

Each backend (`backends/graph.py`, `backends/jax.py`, the tests' toy
backend) implements these; the rules that use them (`staging.conditional`,
`staging.raising`, `staging.born`) are written once. With its loop builders
and expression primitives (see `staging.operators.install`), that is all a
backend is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol


class Backend(Protocol):
    """The primitives a staging backend implements for the shared rules."""

    #: How messages name the backend's statements: "graph" (a graph `if`,
    #: a graph loop), "JAX".
    kind: str
    #: How messages name a staged program: "a graph", "a compiled JAX function".
    program: str

    def cond(
        self,
        pred: Any,
        true_fn: Callable[[], list[Any]],
        false_fn: Callable[[], list[Any]],
        keys: list[str],
    ) -> list[Any]:
        """Stages `true_fn() if pred else false_fn()`: each branch gives one
        value per key (`keys` name them in messages); returns the staged
        values. Values the backend cannot stage pass through unchanged (both
        branches must agree on them)."""

    def trial(self, fn: Callable[[], list[Any]]) -> list[Any]:
        """What `fn()` gives, traced once and thrown away: its values'
        types (specs, scratch values), for `zeros` and `fill`."""

    def zeros(self, values: list[Any]) -> list[Any]:
        """Zeros of the types of `values` (what `trial` gave): what a branch
        that raises at run time gives meanwhile."""

    def fill(self, value: Any, other: Any) -> Any:
        """What stands for `value` (a placeholder: no value on this path)
        given `other`, what the other path gives there (from `trial`):
        zeros of its type, or the same list or dict object if the backend
        carries it by identity."""

    def branch_args(self, state: tuple[Any, ...]) -> tuple[Any, ...]:
        """The arguments a branch function gets for `state` (a backend
        that rebuilds lists copies them here)."""

    def snapshot(self, values: list[Any]) -> Any:
        """A copy of the lists and dicts in `values` as a branch left them,
        for `keep_objects`."""

    def keep_objects(
        self, out: list[Any], given: dict[str, list[Any]], copies: dict[str, Any]
    ) -> list[Any]:
        """`out` (a `cond`'s values), with each list or dict both branches
        gave as the same object (`given`, `copies` by branch) kept as that
        object, as Python's name holds it."""

    def on_path(self, error: Exception) -> bool:
        """Whether Python raises `error` only on the path being traced (the
        user's `raise`, `d[k]`), not about staging it."""

    def checked_read(
        self,
        flag: Any,
        value: Any,
        message: str,
        raises: type[Exception] = UnboundLocalError,
    ) -> Any:
        """`value`, staged so that the program raises `raises` (what Python
        raises there: KeyError for an item) with `message` where it reads
        it while `flag` (a staged bool) is false."""

    def raise_at_run(self, error: Exception, message: str) -> None:
        """Stages a point that raises `error`'s type with `message` when
        the program runs it (on the path being traced)."""

    def keep_refusal(self, refusal: Exception) -> None:
        """Makes sure `refusal`, about to be raised while tracing, is not
        lost if the user's code catches it (`except Exception`, a `return`
        in `finally`): the program must not run as if it had not been."""
