"""Dead-node pruning: what neither outputs nor effects need goes."""

from __future__ import annotations

import numpy as np

import runtime as rt
from autograph.tracing import function
from runtime.optimizer import prune
from tests.runtime.optimizer.util import assert_same_runs, build, op_types, run


def test_an_op_nobody_needs_is_removed_and_placeholders_stay():
    def f(x, unused):
        rt.exp(x)
        return x + 1.0

    g, inputs, outputs = build(f, (rt.float32, (), "x"), (rt.float32, (), "unused"))
    new = prune(g, inputs, outputs)
    assert op_types(new) == ["Placeholder", "Placeholder", "Const", "Add"]
    assert [t.op.name for t in new.inputs] == ["x", "unused"]
    assert_same_runs(g, inputs, outputs, new, [np.float32(1), np.float32(2)])


def test_effects_and_what_they_read_are_kept_in_order():
    v = rt.Variable(1)

    def f(x):
        rt.print("first", x * 2)
        v.assign_add(x)
        rt.Assert(v.read_value() > 0, ["v is", v.read_value()])
        rt.print("last")
        return rt.constant(0)

    g, inputs, outputs = build(f, (rt.int32, (), "x"))
    new = prune(g, inputs, outputs)
    effects = [op.type for op in new.get_operations() if op.stateful]
    assert effects == ["PrintV2", "AssignAddVariableOp", "Assert", "PrintV2"]
    reset = lambda: v.assign(1)
    assert_same_runs(
        g, inputs, outputs, new, [np.int32(3)], [np.int32(-5)], reset=reset
    )


def test_control_dependencies_of_the_kept_ops_are_unchanged():
    v = rt.Variable(1.0)

    def f(x):
        v.assign(x)
        return v.read_value() * 2.0

    g, inputs, outputs = build(f, (rt.float32, (), "x"))
    new = prune(g, inputs, outputs)
    read = new.get_operation_by_name("read")
    assert [c.name for c in read.control_inputs] == ["assign"]
    assert read.control_inputs[0] is new.get_operation_by_name("assign")


def test_the_dead_test_of_a_converted_while_loop_is_removed():
    def count_down(n):
        while n > 0:
            n -= 1
        return n

    traced = function(count_down, optimize=False).get_concrete_function(rt.constant(3))
    g = traced.graph
    assert "Greater" in op_types(g)  # the test, evaluated once before the loop
    new = prune(g, traced.inputs, traced.outputs)
    assert "Greater" not in op_types(new)
    assert op_types(new).count("While") == 1
    assert_same_runs(g, traced.inputs, traced.outputs, new, [np.int32(3)])


def test_a_dead_loop_goes_but_a_dead_loop_with_an_effect_stays():
    def f(x):
        rt.while_loop(lambda i: i < 3, lambda i: (i + 1,), (x,))

        def noisy(i):
            rt.print("i =", i)
            return (i + 1,)

        rt.while_loop(lambda i: i < 2, noisy, (x,))
        return x

    g, inputs, outputs = build(f, (rt.int32, (), "x"))
    new = prune(g, inputs, outputs)
    assert [op.name for op in new.get_operations() if op.type == "While"] == ["while_1"]
    assert_same_runs(g, inputs, outputs, new, [np.int32(0)])


def test_captures_no_subgraph_uses_are_dropped_with_what_fed_them():
    def f(x, y):
        scale = rt.exp(y)

        def body(i, s):
            scale * 2.0  # dead inside the body: the capture becomes unused
            return i + 1, s + x

        return rt.while_loop(lambda i, s: i < 3, body, (0, x))[1]

    g, inputs, outputs = build(f, (rt.float32, (), "x"), (rt.float32, (), "y"))
    loop = g.get_operation_by_name("while")
    assert len(loop.inputs) == 4  # i, s, x, scale
    new = prune(g, inputs, outputs)
    loop = new.get_operation_by_name("while")
    assert [t.op.name for t in loop.inputs] == ["const", "x", "x"]
    assert len(loop.attrs["body"].inputs) == len(loop.attrs["cond"].inputs) == 3
    assert "Exp" not in op_types(new)
    assert_same_runs(g, inputs, outputs, new, [np.float32(1), np.float32(2)])


def test_unused_captures_of_a_cond_are_dropped():
    def f(x, y):
        unused = rt.exp(y)

        def then():
            unused * 2.0  # dead inside the branch
            return x + 1.0

        return rt.cond(x > 0, then, lambda: x)

    g, inputs, outputs = build(f, (rt.float32, (), "x"), (rt.float32, (), "y"))
    assert len(g.get_operation_by_name("cond").inputs) == 3
    new = prune(g, inputs, outputs)
    cond = new.get_operation_by_name("cond")
    assert [t.op.name for t in cond.inputs] == ["greater", "x"]
    assert len(cond.attrs["then_branch"].inputs) == 1
    assert len(cond.attrs["else_branch"].inputs) == 1
    assert "Exp" not in op_types(new)
    assert_same_runs(g, inputs, outputs, new, [np.float32(1), np.float32(2)])


def test_pruning_keeps_a_failing_op_only_if_it_is_needed():
    def f(x):
        rt.floordiv(x, 0)  # unused: the executor never ran it either
        return x

    g, inputs, outputs = build(f, (rt.int32, (), "x"))
    new = prune(g, inputs, outputs)
    assert run(new, new.inputs, new.outputs, [np.int32(1)])[1] is None
