"""Copy on write: a pass copies a flat graph only from its first change on."""

from __future__ import annotations

import numpy as np

import runtime as rt
from runtime.optimizer import (
    eliminate_common_subexpressions as cse,
)
from runtime.optimizer import (
    fold_constants,
    optimize,
    prune,
    simplify,
)
from runtime.optimizer.rewrite import format_graph
from tests.runtime.optimizer.util import assert_same_runs, build, op_types

X = (rt.float32, (3,), "x")
FEED = [np.array([1.0, -2.0, 0.5], np.float32)]


def test_a_pass_with_nothing_to_do_returns_the_graph_it_was_given():
    g, inputs, outputs = build(lambda x: rt.tanh(x) * rt.exp(x), X)
    assert fold_constants(g, inputs, outputs) is not g  # `g.outputs` unset
    g.outputs = outputs  # as every pass's result has them
    text = format_graph(g)
    for run_pass in (fold_constants, simplify, cse, prune):
        assert run_pass(g, inputs, outputs) is g
    assert optimize(g, inputs, outputs) is g and format_graph(g) == text


def test_the_first_change_copies_the_ops_kept_before_it():
    # `exp_1` merges into `exp` (the first change): `tanh`, kept as itself
    # until then, is copied, and the later `tanh_1` still merges into it.
    g, inputs, outputs = build(
        lambda x: rt.tanh(x) + rt.exp(x) + rt.exp(x) + rt.tanh(x), X
    )
    text = format_graph(g)
    new = cse(g, inputs, outputs)
    assert new is not g and format_graph(g) == text
    assert op_types(new) == ["Placeholder", "Tanh", "Exp", "Add", "Add", "Add"]
    assert all(op.graph is new for op in new.get_operations())
    assert all(t.graph is new for op in new.get_operations() for t in op.inputs)
    assert_same_runs(g, inputs, outputs, new, FEED)


def test_a_dropped_op_and_a_fold_copy_the_graph():
    def f(x):
        rt.exp(x)  # dead
        return rt.tanh(x) * (rt.constant(2.0) - 1.0)

    g, inputs, outputs = build(f, X)
    pruned = prune(g, inputs, outputs)
    assert "Exp" not in op_types(pruned) and "Exp" in op_types(g)
    folded = fold_constants(g, inputs, outputs)
    assert folded is not g and "Sub" not in op_types(folded)
    for new in (pruned, folded, optimize(g, inputs, outputs)):
        assert_same_runs(g, inputs, outputs, new, FEED)
