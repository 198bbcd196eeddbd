"""`Wrapper`: a function a backend calls in place of the user's branch or
loop body, which looks like it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["Wrapper"]


class Wrapper:
    """Calls `fn` (a subclass adds what happens around the call) and looks
    like it to the backend: `__code__`, `__qualname__` and the rest are
    `fn`'s, since messages and state names come from them, and
    `inspect.unwrap` finds `fn`."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self._fn = fn

    def __getattr__(self, name: str) -> Any:
        return getattr(self._fn, name)

    @property
    def __wrapped__(self) -> Callable[..., Any]:
        return self._fn
