"""`assert` as a function, so a graph tensor condition becomes a graph assert."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from runtime.operators.dispatch import TABLES

_ASSERT = TABLES["assert_stmt"]


def assert_stmt(cond: Any, message: Callable[[], Any] | None = None) -> None:
    """Raises AssertionError unless `cond` holds.

    Plain-Python equivalent:

        assert cond, message()

    The message is a function so that, as in Python, it is evaluated only when
    the assertion fails. Like `assert`, nothing is checked under `python -O`.
    """
    impl = _ASSERT[type(cond)]
    if impl is not None and impl(cond, message) is not NotImplemented:
        return
    if __debug__ and not cond:
        if message is None:
            raise AssertionError
        raise AssertionError(message())
