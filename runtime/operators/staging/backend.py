"""The `Backend` protocol: what a staging backend provides to the core.

Each backend module (`runtime.operators.graph_backend`, `jax_backend`, a
test's toy backend) implements these few primitives; the rules that use them
(`staging.raising`, `staging.born`) are written once.
"""

from __future__ import annotations

from typing import Any, Protocol


class Backend(Protocol):
    """The primitives a staging backend implements for the shared rules."""

    #: How messages name the backend's statements: "graph" (a graph `if`,
    #: a graph loop), "JAX".
    kind: str
    #: How messages name a staged program: "a graph", "a compiled JAX function".
    program: str

    def checked_read(self, flag: Any, value: Any, message: str) -> Any:
        """`value`, staged so that the program raises (with `message`)
        where it reads it while `flag` (a staged bool) is false."""

    def raise_at_run(self, error: Exception, message: str) -> None:
        """Stages a point that raises `error`'s type with `message` when
        the program runs it (on the path being traced)."""

    def keep_refusal(self, refusal: Exception) -> None:
        """Makes sure `refusal`, about to be raised while tracing, is not
        lost if the user's code catches it (`except Exception`, a `return`
        in `finally`): the program must not run as if it had not been."""
