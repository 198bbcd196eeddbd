"""Common-subexpression elimination: equal pure computations merge."""

from __future__ import annotations

import numpy as np

import runtime as rt
from runtime.optimizer import eliminate_common_subexpressions as cse
from runtime.optimizer.cse import freeze
from tests.runtime.optimizer.util import assert_same_runs, build, op_types

X = (rt.float32, (3,), "x")
FEED = [np.array([1.0, -2.0, 0.5], np.float32)]


def test_whole_repeated_expressions_merge_bottom_up():
    g, inputs, outputs = build(
        lambda x: rt.tanh(x * 2.0 + 1.0) - rt.tanh(x * 2.0 + 1.0), X
    )
    new = cse(g, inputs, outputs)
    assert op_types(new).count("Tanh") == 1
    assert op_types(new).count("Mul") == 1
    sub = new.outputs[0].op
    assert sub.inputs[0] is sub.inputs[1]
    assert_same_runs(g, inputs, outputs, new, FEED)


def test_the_first_op_keeps_its_name():
    g, inputs, outputs = build(lambda x: (rt.exp(x), rt.exp(x)), X)
    new = cse(g, inputs, outputs)
    assert [t.op.name for t in new.outputs] == ["exp", "exp"]


def test_different_attrs_do_not_merge():
    def f(x):
        m = rt.reshape(x, (3, 1))
        return rt.reduce_sum(m, axis=0), rt.reduce_sum(m, axis=1)

    g, inputs, outputs = build(f, X)
    assert op_types(cse(g, inputs, outputs)).count("Sum") == 2


def test_attrs_compare_with_their_types_and_floats_by_their_bits():
    assert freeze(1) != freeze(True)
    assert freeze(1) != freeze(1.0)
    assert freeze(0.0) != freeze(-0.0)
    assert freeze(float("nan")) == freeze(float("nan"))
    assert freeze((1, None)) != freeze([1, None])
    assert freeze(rt.int32) == freeze(rt.int32) != freeze(rt.int64)


def test_equal_constants_merge_but_zero_and_minus_zero_do_not():
    g, inputs, outputs = build(lambda x: (x + 0.0, x * 0.0, x - (-0.0)), X)
    new = cse(g, inputs, outputs)
    consts = [op for op in new.get_operations() if op.type == "Const"]
    assert len(consts) == 2
    assert_same_runs(g, inputs, outputs, new, FEED)


def test_random_ops_never_merge():
    def f(x):
        return x + rt.random.uniform([3], seed=1) + rt.random.uniform([3], seed=1)

    g, inputs, outputs = build(f, X)
    assert op_types(cse(g, inputs, outputs)).count("RandomUniform") == 2


def test_variable_reads_never_merge_across_a_write():
    v = rt.Variable(1.0)

    def f(x):
        before = v.read_value()
        v.assign_add(x)
        return before, v.read_value()

    g, inputs, outputs = build(f, (rt.float32, (), "x"))
    new = cse(g, inputs, outputs)
    assert op_types(new).count("ReadVariableOp") == 2
    reset = lambda: v.assign(1.0)
    assert_same_runs(g, inputs, outputs, new, [np.float32(2)], reset=reset)


def test_prints_of_the_same_value_both_run():
    def f(x):
        rt.print(x)
        rt.print(x)
        return x

    g, inputs, outputs = build(f, X)
    new = cse(g, inputs, outputs)
    assert op_types(new).count("PrintV2") == 2
    assert_same_runs(g, inputs, outputs, new, FEED)


def test_duplicates_inside_a_loop_body_merge():
    def body(i, s):
        return i + 1, s + rt.square(s) * rt.square(s)

    g, inputs, outputs = build(
        lambda x: rt.while_loop(lambda i, s: i < 2, body, (0, x))[1], X
    )
    new = cse(g, inputs, outputs)
    loop_body = new.get_operation_by_name("while").attrs["body"]
    assert op_types(loop_body).count("Square") == 1
    assert_same_runs(g, inputs, outputs, new, FEED)
