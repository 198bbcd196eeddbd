"""Constant folding: pure ops on constants become constants, nothing else."""

from __future__ import annotations

import numpy as np

import runtime as rt
from runtime.optimizer import fold_constants, prune
from runtime.optimizer.constant_folding import MAX_CONSTANT_BYTES
from runtime.optimizer.rewrite import format_graph
from tests.runtime.optimizer.util import (
    all_ops,
    assert_identical,
    assert_same_runs,
    build,
    op_types,
    run,
)


def test_an_op_on_constants_becomes_a_constant_named_after_it():
    g, inputs, outputs = build(
        lambda x: x * (rt.constant(2.0) + 1.0), (rt.float32, (), "x")
    )
    new = fold_constants(g, inputs, outputs)
    add = new.get_operation_by_name("add")
    assert add.type == "Const"
    assert_identical(add.attrs["value"], np.float32(3.0))
    assert new.outputs[0].op.inputs[1] is add.outputs[0]
    assert_same_runs(g, inputs, outputs, new, [np.float32(2.0)])


def test_folding_keeps_the_dtype_the_kernel_gives():
    def f(x):
        halves = rt.constant(1) / rt.constant(2)  # int / int is float64
        return x + rt.cast(rt.constant([1, 2]), rt.int64), halves

    g, inputs, outputs = build(f, (rt.int64, (2,), "x"))
    new = fold_constants(g, inputs, outputs)
    assert new.outputs[1].op.type == "Const"
    assert_identical(new.outputs[1].op.attrs["value"], np.float64(0.5))
    cast = new.get_operation_by_name("cast")
    assert cast.type == "Const" and cast.attrs["value"].dtype == np.int64
    assert_same_runs(g, inputs, outputs, new, [np.array([3, 4], np.int64)])


def test_an_op_that_would_raise_is_left_to_raise_at_run_time():
    g, inputs, outputs = build(
        lambda x: x + rt.pow(rt.constant(2), rt.constant(-1)), (rt.int32, (), "x")
    )
    new = fold_constants(g, inputs, outputs)
    assert new.get_operation_by_name("pow").type == "Pow"
    _, error, _ = run(new, new.inputs, new.outputs, [np.int32(1)])
    assert error is not None and "Integers to negative integer powers" in error
    assert_same_runs(g, inputs, outputs, new, [np.int32(1)])


def test_an_unused_op_that_would_raise_never_runs_after_folding_and_pruning():
    def f(x):
        rt.floordiv(rt.constant(1), rt.constant(0))  # unused: never runs
        return x + 1

    g, inputs, outputs = build(f, (rt.int32, (), "x"))
    new = prune(*_fold(g, inputs, outputs))
    assert "FloorDiv" not in op_types(new)
    assert_same_runs(g, inputs, outputs, new, [np.int32(1)])


def _fold(g, inputs, outputs):
    new = fold_constants(g, inputs, outputs)
    return new, new.inputs, new.outputs


def test_stateful_ops_on_constants_are_never_folded():
    def f(x):
        r = rt.random.uniform([2], seed=3)
        rt.print("two is", rt.constant(1) + 1)
        rt.Assert(rt.constant(1) < 2, ["one is small"])
        return x + r

    g, inputs, outputs = build(f, (rt.float32, (2,), "x"))
    new = fold_constants(g, inputs, outputs)
    types = op_types(new)
    assert {"RandomUniform", "PrintV2", "Assert"} <= set(types)
    # The pure op feeding the print is folded; the print stays.
    print_op = new.get_operation_by_name("print")
    assert [t.op.type for t in print_op.inputs] == ["Const"]
    assert_same_runs(g, inputs, outputs, new, [np.zeros(2, np.float32)])


def test_variable_reads_are_never_folded():
    v = rt.Variable(2.0)

    def f(x):
        before = v.read_value() * 1.0
        v.assign(rt.constant(5.0))
        return x + before + v.read_value()

    g, inputs, outputs = build(f, (rt.float32, (), "x"))
    new = fold_constants(g, inputs, outputs)
    assert op_types(new).count("ReadVariableOp") == 2
    reset = lambda: v.assign(2.0)
    assert_same_runs(g, inputs, outputs, new, [np.float32(1.0)], reset=reset)


def test_a_result_larger_than_the_limit_is_computed_at_run_time():
    side = int(np.sqrt(MAX_CONSTANT_BYTES / 4)) + 1
    g, inputs, outputs = build(
        lambda x: rt.reduce_sum(rt.zeros((side, side)) + x), (rt.float32, (), "x")
    )
    new = fold_constants(g, inputs, outputs)
    assert "Fill" in op_types(new)


def test_float_errors_fold_quietly_to_what_the_executor_gives():
    g, inputs, outputs = build(
        lambda x: x + rt.exp(rt.constant(1000.0)), (rt.float32, (), "x")
    )
    new = fold_constants(g, inputs, outputs)
    exp = new.get_operation_by_name("exp")
    assert exp.type == "Const" and np.isinf(exp.attrs["value"])
    assert_same_runs(g, inputs, outputs, new, [np.float32(1.0)])


def test_captured_constants_are_folded_inside_a_loop_body():
    def f(x):
        two = rt.constant(1) + 1  # folded in the outer graph, then captured
        return rt.while_loop(
            lambda i, s: i < 3, lambda i, s: (i + 1, s * (two * 3)), (0, x)
        )[1]

    g, inputs, outputs = build(f, (rt.int32, (), "x"))
    new = fold_constants(g, inputs, outputs)
    body = new.get_operation_by_name("while").attrs["body"]
    mul = body.get_operation_by_name("mul")
    assert mul.type == "Const"
    assert_identical(mul.attrs["value"], np.int32(6))
    assert_same_runs(g, inputs, outputs, new, [np.int32(1)])


def test_folding_recurses_into_cond_branches():
    def f(x):
        return rt.cond(x > 0, lambda: x * (rt.constant(2) * 2), lambda: -x)

    g, inputs, outputs = build(f, (rt.int32, (), "x"))
    new = fold_constants(g, inputs, outputs)
    then = new.get_operation_by_name("cond").attrs["then_branch"]
    assert "Const(4)" in format_graph(then)
    assert_same_runs(g, inputs, outputs, new, [np.int32(3)], [np.int32(-3)])


def test_tensor_array_ops_are_never_folded():
    def f(x):
        ta = rt.TensorArray(rt.int32, size=2).write(0, 1).write(1, 2)
        return ta.stack() + x

    g, inputs, outputs = build(f, (rt.int32, (2,), "x"))
    new = fold_constants(g, inputs, outputs)
    assert "TensorArrayWriteV3" in [op.type for op in all_ops(new)]
    assert_same_runs(g, inputs, outputs, new, [np.array([1, 1], np.int32)])


def test_folding_leaves_the_given_graph_unchanged():
    g, inputs, outputs = build(lambda x: x + (rt.constant(1) + 1), (rt.int32, (), "x"))
    before = str(g.as_graph_def())
    fold_constants(g, inputs, outputs)
    assert str(g.as_graph_def()) == before
