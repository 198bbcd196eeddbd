"""Helpers for optimizer tests: build a graph, run it before and after a pass."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import runtime as rt
from runtime import executor, nest
from runtime.graph import Graph
from runtime.optimizer.rewrite import format_graph
from runtime.tensor import SymbolicTensor

Pass = Callable[[Graph, Sequence[SymbolicTensor], Sequence[SymbolicTensor]], Graph]


def build(
    fn: Callable[..., Any], *specs: tuple[Any, Any, str]
) -> tuple[Graph, list[SymbolicTensor], list[SymbolicTensor]]:
    """(graph, placeholders, flat outputs) of `fn` on placeholders `specs`.

    Each spec is `(dtype, shape, name)`.
    """
    g = rt.Graph("f")
    with g.as_default():
        inputs = [g.placeholder(dtype, shape, name) for dtype, shape, name in specs]
        result = fn(*inputs)
        outputs = [g.convert(t) for t in nest.flatten(result)]
    return g, inputs, outputs


def run(
    graph: Graph,
    inputs: Sequence[SymbolicTensor],
    outputs: Sequence[SymbolicTensor],
    feeds: Sequence[Any],
) -> tuple[list[Any] | None, str | None, str]:
    """(results, error text, printed text) of one run of `graph`."""
    compiled = executor.compile(graph, inputs, outputs)
    buffer = io.StringIO()
    results, error = None, None
    with contextlib.redirect_stdout(buffer):
        try:
            results = compiled([np.asarray(f) for f in feeds])
        except Exception as e:  # the error is part of the outcome
            error = f"{type(e).__name__}: {e}"
    return results, error, buffer.getvalue()


def assert_identical(expected: Any, actual: Any) -> None:
    """Same dtype, shape and bits (nan == nan, -0.0 != 0.0)."""
    expected, actual = np.asarray(expected), np.asarray(actual)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    if expected.dtype.kind == "O":
        assert actual.tolist() == expected.tolist()
    else:
        assert actual.tobytes() == expected.tobytes(), (actual, expected)


def assert_same_runs(
    graph: Graph,
    inputs: Sequence[SymbolicTensor],
    outputs: Sequence[SymbolicTensor],
    new: Graph,
    *feeds_list: Sequence[Any],
    reset: Callable[[], Any] = lambda: None,
) -> None:
    """`new` gives what `graph` gives on each feed list: values, errors, prints.

    `reset` runs before each run (to restore variables).
    """
    for feeds in feeds_list:
        reset()
        before = run(graph, inputs, outputs, feeds)
        reset()
        after = run(new, new.inputs, new.outputs, feeds)
        assert after[1:] == before[1:], (before, after, format_graph(new))
        if before[0] is not None:
            assert len(after[0]) == len(before[0])
            for e, a in zip(before[0], after[0]):
                assert_identical(e, a)


def op_types(graph: Graph) -> list[str]:
    """The op types of `graph`, in order (subgraphs not included)."""
    return [op.type for op in graph.get_operations()]


def all_ops(graph: Graph) -> list[Any]:
    """Every op of `graph` and of its subgraphs."""
    ops = []
    for op in graph.get_operations():
        ops.append(op)
        for value in op.attrs.values():
            if isinstance(value, Graph):
                ops.extend(all_ops(value))
    return ops
