"""Generated programs give the same values eagerly and as executed graphs."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import runtime as rt
from tests.runtime.util import run_eager, run_graph

UNARY = {
    "tanh": rt.tanh,
    "abs": rt.abs,
    "neg": lambda a: -a,
    "square": lambda a: rt.minimum(rt.square(a), 100.0),
    "sigmoid": rt.sigmoid,
    "relu": rt.relu,
}
BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: rt.maximum(rt.minimum(a * b, 100.0), -100.0),
    "max": rt.maximum,
    "min": rt.minimum,
    "where": lambda a, b: rt.where(a > b, a, b * 0.5),
}

leaves = st.sampled_from(["x", "y", "const"])


def _extend(children):
    return st.one_of(
        st.tuples(st.sampled_from(sorted(UNARY)), children),
        st.tuples(st.sampled_from(sorted(BINARY)), children, children),
        st.tuples(st.just("cond"), children, children, children),
        st.tuples(st.just("loop"), st.integers(0, 3), children),
        st.tuples(st.just("sum"), children),
    )


programs = st.recursive(leaves, _extend, max_leaves=8)


def evaluate(expr, x, y):
    if expr == "x":
        return x
    if expr == "y":
        return y
    if expr == "const":
        return rt.constant([0.5, -1.0, 2.0])
    kind = expr[0]
    if kind in UNARY:
        return UNARY[kind](evaluate(expr[1], x, y))
    if kind in BINARY:
        return BINARY[kind](evaluate(expr[1], x, y), evaluate(expr[2], x, y))
    if kind == "sum":
        return rt.reduce_sum(evaluate(expr[1], x, y), keepdims=True) + 0.0 * x
    if kind == "cond":
        pred = rt.reduce_sum(evaluate(expr[1], x, y)) > 0
        return rt.cond(
            pred, lambda: evaluate(expr[2], x, y), lambda: evaluate(expr[3], x, y)
        )
    _, count, body = expr
    (_, result) = rt.while_loop(
        lambda i, v: i < count,
        lambda i, v: (i + 1, rt.tanh(v + evaluate(body, x, y))),
        (0, x),
    )
    return result


vectors = st.lists(
    st.floats(-3, 3, allow_nan=False, width=32), min_size=3, max_size=3
).map(lambda v: np.array(v, np.float32))


@settings(max_examples=60, deadline=None)
@given(programs, vectors, vectors)
def test_generated_program_gives_the_same_values_eagerly_and_as_a_graph(expr, x, y):
    def fn(a, b):
        return evaluate(expr, a, b)

    eager = run_eager(fn, x, y)
    graph = run_graph(fn, x, y)
    dynamic = run_graph(fn, x, y, dynamic=True)
    np.testing.assert_allclose(graph, eager, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dynamic, eager, rtol=1e-5, atol=1e-6)
    assert graph.dtype == eager.dtype == np.float32
