"""The pipeline: pass order, effects untouched, and `autograph.function` wiring."""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest

import runtime as rt
from autograph.tracing import concrete, function
from runtime import optimizer
from runtime.optimizer.rewrite import format_graph
from tests.runtime.optimizer.util import all_ops, assert_same_runs, build, op_types


@pytest.fixture
def wired(monkeypatch: pytest.MonkeyPatch) -> None:
    """`optimize=True` runs the optimizer (as `autograph` wires it up)."""
    if optimizer.optimize_traced not in concrete._OPTIMIZERS:
        hooks = [*concrete._OPTIMIZERS, optimizer.optimize_traced]
        monkeypatch.setattr(concrete, "_OPTIMIZERS", hooks)


def test_the_passes_run_in_the_documented_order():
    assert [p.__name__ for p in optimizer.PASSES] == [
        "fold_constants",
        "simplify",
        "hoist_loop_invariants",
        "eliminate_common_subexpressions",
        "prune",
    ]


def test_optimize_combines_the_passes():
    def f(x, w):
        dead = rt.exp(x)  # noqa: F841
        scale = rt.constant(3.0) - 2.0  # folds to 1.0, then x * 1.0 -> x
        body = lambda i, y: (i + 1, y + rt.tanh(w) * scale)
        y = rt.while_loop(lambda i, y: i < 3, body, (0, x * scale))[1]
        return y + rt.tanh(w)

    g, inputs, outputs = build(f, (rt.float32, (2,), "x"), (rt.float32, (2,), "w"))
    new = optimizer.optimize(g, inputs, outputs)
    text = format_graph(new)
    assert "Exp" not in text and "Mul" not in text and "Sub" not in text
    # tanh(w) is hoisted out of the loop and merged with the one after it.
    assert op_types(new).count("Tanh") == 1
    assert "Tanh" not in op_types(new.get_operation_by_name("while").attrs["body"])
    feeds = [np.array([1.0, -1.0], np.float32), np.array([0.5, 2.0], np.float32)]
    assert_same_runs(g, inputs, outputs, new, feeds)


def test_the_traced_graph_is_left_unchanged():
    g, inputs, outputs = build(
        lambda x: rt.identity(x * 1) + (rt.constant(1) + 1), (rt.int32, (), "x")
    )
    before = str(g.as_graph_def())
    optimizer.optimize(g, inputs, outputs)
    assert str(g.as_graph_def()) == before


def test_effects_keep_their_order_and_control_dependencies():
    v = rt.Variable(0)

    def f(x):
        rt.print("start", x + 0)
        v.assign(x * 1)
        rt.print("v =", v.read_value())
        v.assign_add(rt.constant(2) * 3)
        rt.Assert(v.read_value() < 100, ["too big:", v.read_value()])
        return v.read_value()

    g, inputs, outputs = build(f, (rt.int32, (), "x"))
    new = optimizer.optimize(g, inputs, outputs)

    def effects(graph):
        return [
            (op.type, [c.name for c in op.control_inputs])
            for op in graph.get_operations()
            if op.stateful
        ]

    assert effects(new) == effects(g)
    reset = lambda: v.assign(0)
    assert_same_runs(
        g, inputs, outputs, new, [np.int32(5)], [np.int32(99)], reset=reset
    )


def test_op_names_and_locations_survive_optimization():
    g, inputs, outputs = build(
        lambda x: rt.tanh(x) * rt.exp(x) + 1.0, (rt.float32, (), "x")
    )
    new = optimizer.optimize(g, inputs, outputs)
    for op in new.get_operations():
        old = g.get_operation_by_name(op.name)
        assert old.type == op.type and old.location == op.location


def test_function_runs_the_optimized_graph_and_keeps_the_traced_one(wired):
    def count_down(n):
        while n > 0:
            n = n - 1 * 1
        return n

    traced = function(count_down).get_concrete_function(rt.constant(4))
    assert traced.optimized_graph is not traced.graph
    assert traced.unoptimized_graph is traced.graph
    assert "Greater" in op_types(traced.graph)
    assert "Greater" not in op_types(traced.optimized_graph)
    assert "Mul" not in [op.type for op in all_ops(traced.optimized_graph)]
    assert int(traced(rt.constant(4))) == 0


def test_optimize_false_runs_the_traced_graph(wired):
    def count_down(n):
        while n > 0:
            n -= 1
        return n

    traced = function(count_down, optimize=False).get_concrete_function(rt.constant(4))
    assert traced.optimized_graph is traced.graph
    assert "Greater" in op_types(traced.graph)


def test_prints_and_variables_behave_the_same_with_and_without_it(wired):
    def step(v, x):
        rt.print("x + 0 =", x + 0)
        for _ in rt.range(2):
            v.assign_add(x * 1)
            rt.print("v =", v)
        return v.read_value()

    outputs = []
    for optimize in (False, True):
        v = rt.Variable(1)
        f = function(step, optimize=optimize)
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            results = [int(f(v, rt.constant(i))) for i in (1, 2)]
        outputs.append((results, buffer.getvalue(), int(v.numpy())))
    assert outputs[0] == outputs[1]
    assert outputs[1][1].count("v =") == 4


def test_a_failing_assert_names_the_same_op_and_line_either_way(wired):
    def checked(x):
        y = x * 1
        rt.Assert(y > 0, ["y must be positive"])
        return y

    messages = []
    for optimize in (False, True):
        with pytest.raises(rt.errors.InvalidArgumentError) as info:
            function(checked, optimize=optimize)(rt.constant(-1))
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert "y must be positive" in messages[0] and "test_optimize.py" in messages[0]


def test_the_tracing_hook_returns_the_traced_graph_when_nothing_changes():
    g, inputs, outputs = build(lambda x: x + x, (rt.float32, (), "x"))
    graph, new_inputs, new_outputs = optimizer.optimize_traced(g, inputs, outputs)
    assert graph is g and new_inputs == inputs and new_outputs == outputs


def test_the_tracing_hook_returns_a_new_graph_and_its_tensors_otherwise():
    g, inputs, outputs = build(lambda x: x * 1.0 + x, (rt.float32, (), "x"))
    graph, new_inputs, new_outputs = optimizer.optimize_traced(g, inputs, outputs)
    assert graph is not g
    assert new_inputs == graph.inputs and new_outputs == graph.outputs
    assert new_outputs[0].op.inputs == (new_inputs[0], new_inputs[0])
