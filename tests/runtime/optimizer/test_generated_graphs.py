"""Generated graphs: every pass, and the pipeline, keep results bit for bit.

Hypothesis writes small programs over three inputs: arithmetic with
identity constants (`x * 1`, `x + -0.0`), constant subexpressions, repeated
subexpressions, loops whose bodies read captured (invariant) values, conds,
and prints. Each is traced into a graph; the optimized graph must return the
same bits, print the same text and raise the same errors.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import runtime as rt
from runtime import optimizer
from tests.runtime.optimizer.util import assert_same_runs, build

CONSTANTS = (0.0, -0.0, 1.0, 2.0, 0.5, float("nan"))
UNARY = ("tanh", "exp", "negative", "identity", "abs", "sqrt")
BINARY = ("add", "subtract", "multiply", "maximum", "divide")
INDEX = st.integers(0, 99)
STEP = st.one_of(
    st.tuples(st.just("unary"), st.sampled_from(UNARY), INDEX),
    st.tuples(st.just("binary"), st.sampled_from(BINARY), INDEX, INDEX),
    st.tuples(
        st.just("constant"),
        st.sampled_from(BINARY),
        INDEX,
        st.sampled_from(CONSTANTS),
        st.booleans(),
    ),
    st.tuples(
        st.just("folded"),
        st.sampled_from(BINARY),
        st.sampled_from(CONSTANTS),
        st.sampled_from(CONSTANTS),
        INDEX,
    ),
    st.tuples(st.just("reduce"), INDEX, INDEX),
    st.tuples(st.just("loop"), INDEX, INDEX, INDEX),
    st.tuples(st.just("cond"), INDEX, INDEX, INDEX),
    st.tuples(st.just("print"), INDEX),
)
PROGRAMS = st.lists(STEP, min_size=1, max_size=12)
FEEDS = st.lists(
    st.floats(-3, 3, width=32, allow_nan=False), min_size=3, max_size=3
).map(lambda v: np.array(v, np.float32))


def _apply(step: tuple[Any, ...], pool: list[Any], n: Any) -> Any:
    kind, *args = step
    pick = lambda i: pool[i % len(pool)]
    if kind == "unary":
        return getattr(rt, args[0])(pick(args[1]))
    if kind == "binary":
        return getattr(rt, args[0])(pick(args[1]), pick(args[2]))
    if kind == "constant":
        op, i, c, left = args
        return getattr(rt, op)(c, pick(i)) if left else getattr(rt, op)(pick(i), c)
    if kind == "folded":
        op, a, b, i = args
        return pick(i) * getattr(rt, op)(rt.constant(a), rt.constant(b))
    if kind == "reduce":
        return pick(args[0]) + rt.reduce_sum(pick(args[1]))
    if kind == "loop":
        s, a, b = (pick(i) for i in args)
        body = lambda i, s: (i + 1, rt.tanh(s * rt.tanh(a) + b * 1.0))
        return rt.while_loop(lambda i, s: i < n, body, (0, s))[1]
    if kind == "cond":
        p, a, b = (pick(i) for i in args)
        return rt.cond(
            rt.reduce_sum(p) > 0, lambda: a * b + rt.exp(b), lambda: a - rt.exp(b)
        )
    rt.print("value:", pick(args[0]))
    return pick(args[0])


def _program(steps: list[tuple[Any, ...]]) -> Any:
    def program(x, y, n):
        pool = [x, y]
        for step in steps:
            pool.append(_apply(step, pool, n))
        return pool[-1], pool[len(pool) // 2]

    return program


CASES = [pytest.param(p, id=p.__name__) for p in optimizer.PASSES]
CASES.append(pytest.param(optimizer.optimize, id="optimize"))


# Generated constants include nan and inf: NumPy warns about what they give.
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("run_pass", CASES)
@settings(max_examples=60, deadline=None)
@given(steps=PROGRAMS, x=FEEDS, y=FEEDS, n=st.integers(0, 3))
def test_the_pass_keeps_the_results_of_a_generated_graph(run_pass, steps, x, y, n):
    g, inputs, outputs = build(
        _program(steps),
        (rt.float32, (3,), "x"),
        (rt.float32, (3,), "y"),
        (rt.int32, (), "n"),
    )
    new = run_pass(g, inputs, outputs)
    assert_same_runs(g, inputs, outputs, new, [x, y, np.int32(n)])
