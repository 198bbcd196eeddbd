"""Loop-invariant code motion: total invariant ops move before the loop."""

from __future__ import annotations

import numpy as np

import runtime as rt
from runtime.optimizer import hoist_loop_invariants as hoist
from tests.runtime.optimizer.util import assert_same_runs, build, op_types

W = (rt.float32, (2, 2), "w")
N = (rt.int32, (), "n")
WFEED = np.array([[1.0, 2.0], [0.5, -1.0]], np.float32)


def _loop(body, n_name="n"):
    def f(w, n):
        return rt.while_loop(
            lambda i, y: i < n, body(w), (0, rt.ones((2, 2))), names=["i", "y"]
        )[1]

    return f


def test_an_invariant_op_moves_before_the_loop_and_is_captured():
    f = _loop(lambda w: lambda i, y: (i + 1, y @ rt.transpose(w)))
    g, inputs, outputs = build(f, W, N)
    new = hoist(g, inputs, outputs)
    loop = new.get_operation_by_name("while")
    assert loop.inputs[-1].op.name == "while/transpose"
    assert new.get_operation_by_name("while/transpose").type == "Transpose"
    assert "Transpose" not in op_types(loop.attrs["body"])
    assert len(loop.attrs["cond"].inputs) == len(loop.attrs["body"].inputs)
    feeds = [[WFEED, np.int32(3)], [WFEED, np.int32(0)]]
    assert_same_runs(g, inputs, outputs, new, *feeds)


def test_whole_invariant_expressions_move_with_their_constants():
    f = _loop(lambda w: lambda i, y: (i + 1, y * rt.tanh(w * 2.0 + 1.0)))
    g, inputs, outputs = build(f, W, N)
    new = hoist(g, inputs, outputs)
    body = new.get_operation_by_name("while").attrs["body"]
    assert op_types(body).count("Tanh") == 0
    assert {"while/mul", "while/add_1", "while/tanh"} <= {
        op.name for op in new.get_operations()
    }
    assert_same_runs(g, inputs, outputs, new, [WFEED, np.int32(4)])


def test_ops_that_read_a_loop_variable_stay():
    f = _loop(lambda w: lambda i, y: (i + 1, rt.tanh(y) + w))
    g, inputs, outputs = build(f, W, N)
    new = hoist(g, inputs, outputs)
    body = new.get_operation_by_name("while").attrs["body"]
    assert "Tanh" in op_types(body) and "Add" in op_types(body)
    assert len(new.get_operations()) == len(g.get_operations())


def test_an_op_that_may_raise_stays_in_a_loop_that_may_not_run():
    def f(n, k):
        body = lambda i: (i + rt.pow(k, -1),)  # Pow raises for int k
        return rt.while_loop(lambda i: i < n, body, (0,))[0]

    g, inputs, outputs = build(f, N, (rt.int32, (), "k"))
    new = hoist(g, inputs, outputs)
    assert "Pow" in op_types(new.get_operation_by_name("while").attrs["body"])
    assert_same_runs(g, inputs, outputs, new, [np.int32(0), np.int32(2)])


def test_a_shape_sensitive_op_on_an_unknown_shape_stays():
    def f(n, v):
        body = lambda i, s: (i + 1, s + rt.reduce_sum(v * v))
        return rt.while_loop(lambda i, s: i < n, body, (0, 0.0))[1]

    g, inputs, outputs = build(f, N, (rt.float32, (None,), "v"))
    new = hoist(g, inputs, outputs)
    body = new.get_operation_by_name("while").attrs["body"]
    assert "Mul" in op_types(body)
    feeds = [np.int32(2), np.array([1.0, 2.0], np.float32)]
    assert_same_runs(g, inputs, outputs, new, feeds)


def test_an_elementwise_op_on_an_unknown_shape_moves():
    def f(n, v):
        body = lambda i, s: (i + 1, s + rt.tanh(v))
        return rt.while_loop(lambda i, s: i < n, body, (0, rt.zeros_like(v)))[1]

    g, inputs, outputs = build(f, N, (rt.float32, (None,), "v"))
    new = hoist(g, inputs, outputs)
    assert "Tanh" not in op_types(new.get_operation_by_name("while").attrs["body"])
    feeds = [np.int32(2), np.array([1.0, 2.0], np.float32)]
    assert_same_runs(g, inputs, outputs, new, feeds)


def test_effects_stay_in_the_loop_and_run_every_iteration():
    def f(w, n):
        def body(i, y):
            rt.print("w is", w * 2.0)
            return i + 1, y

        return rt.while_loop(lambda i, y: i < n, body, (0, w))[1]

    g, inputs, outputs = build(f, W, N)
    new = hoist(g, inputs, outputs)
    body = new.get_operation_by_name("while").attrs["body"]
    assert "PrintV2" in op_types(body)
    assert_same_runs(g, inputs, outputs, new, [WFEED, np.int32(3)])


def test_invariants_of_the_condition_move_too():
    def f(w, n):
        cond = lambda i, y: rt.cast(i, rt.float32) < rt.reduce_sum(w * w)
        return rt.while_loop(cond, lambda i, y: (i + 1, y + 1.0), (0, 0.0))[1]

    g, inputs, outputs = build(f, W, N)
    new = hoist(g, inputs, outputs)
    cond = new.get_operation_by_name("while").attrs["cond"]
    assert "Sum" not in op_types(cond)
    assert_same_runs(g, inputs, outputs, new, [WFEED, np.int32(0)])


def test_nested_loops_hoist_as_far_out_as_the_op_is_invariant():
    def f(w, n):
        def outer(i, y):
            def inner(j, z):
                return j + 1, z + rt.exp(w) + rt.cast(i, rt.float32)

            return i + 1, rt.while_loop(lambda j, z: j < 2, inner, (0, y))[1]

        return rt.while_loop(lambda i, y: i < n, outer, (0, w))[1]

    g, inputs, outputs = build(f, W, N)
    new = hoist(g, inputs, outputs)
    assert new.get_operation_by_name("while/while/exp").type == "Exp"
    outer_body = new.get_operation_by_name("while").attrs["body"]
    # The cast reads the outer loop's variable: invariant in the inner loop only.
    assert outer_body.get_operation_by_name("while/cast").type == "Cast"
    inner_body = outer_body.get_operation_by_name("while").attrs["body"]
    assert not {"Exp", "Cast"} & set(op_types(inner_body))
    feeds = [[WFEED, np.int32(3)], [WFEED, np.int32(0)]]
    assert_same_runs(g, inputs, outputs, new, *feeds)


def test_a_graph_without_loops_is_copied_unchanged():
    g, inputs, outputs = build(lambda w, n: w * 2.0, W, N)
    new = hoist(g, inputs, outputs)
    text = str(new.as_graph_def()).replace('output: "mul"\n', "")
    assert text == str(g.as_graph_def())
