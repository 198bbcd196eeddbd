"""Fixtures for the tracer's tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from autograph.tracing import run_functions_eagerly


@pytest.fixture(autouse=True)
def _graph_mode() -> Iterator[None]:
    """Every test starts, and leaves, with Functions tracing graphs."""
    run_functions_eagerly(False)
    yield
    run_functions_eagerly(False)
