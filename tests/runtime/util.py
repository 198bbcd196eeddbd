"""Helpers for runtime tests: run a function eagerly and as a traced graph."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import runtime as rt
from runtime import executor, nest
from runtime.tensor import is_symbolic


def trace(fn: Callable[..., Any], *args: Any, dynamic: bool | str = False) -> Any:
    """Builds a graph of `fn` on placeholders shaped like `args` (NumPy values).

    Returns (graph, placeholders, flat outputs, output structure). With
    `dynamic`, every placeholder dimension is unknown (None); with
    `dynamic="rank"`, even the ranks are.
    """
    g = rt.Graph()
    with g.as_default():
        placeholders = []
        for i, a in enumerate(args):
            a = np.asarray(a)
            shape = tuple(None for _ in a.shape) if dynamic else a.shape
            if dynamic == "rank":
                shape = None
            dtype = rt.string if a.dtype.kind in "UO" else rt.as_dtype(a.dtype)
            placeholders.append(g.placeholder(dtype, shape, f"arg{i}"))
        result = fn(*placeholders)
        flat = [
            t if is_symbolic(t) or t is None else g.convert(t)
            for t in nest.flatten(result)
        ]
    return g, placeholders, flat, result


def run_graph(fn: Callable[..., Any], *args: Any, dynamic: bool | str = False) -> Any:
    """`fn(*args)` traced into a graph and run by the executor.

    Returns the outputs as NumPy values, in `fn`'s output structure.
    """
    g, placeholders, flat, result = trace(fn, *args, dynamic=dynamic)
    tensors = [t for t in flat if t is not None]
    values = iter(executor.compile(g, placeholders, tensors)([_np(a) for a in args]))
    return nest.pack_sequence_as(
        result, [None if t is None else next(values) for t in flat]
    )


def run_eager(fn: Callable[..., Any], *args: Any) -> Any:
    """`fn(*args)` on eager tensors, outputs as NumPy values."""
    result = fn(*[rt.constant(_np(a)) for a in args])
    return nest.map_structure(lambda t: rt.convert_to_tensor(t).numpy(), result)


def _np(a: Any) -> Any:
    a = np.asarray(a)
    return a.astype(object) if a.dtype.kind == "U" else a


def assert_same(actual: Any, expected: Any) -> None:
    """Equal values and equal dtypes (NumPy oracle comparison)."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    if actual.dtype.kind == "f":
        np.testing.assert_allclose(actual, expected, rtol=1e-6, atol=1e-6)
    else:
        np.testing.assert_array_equal(actual, expected)
