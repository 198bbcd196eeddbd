"""Arithmetic simplification: exact identities only."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
from runtime.optimizer import simplify
from tests.runtime.optimizer.util import assert_same_runs, build, op_types

INT = (rt.int32, (2,), "x")
FLOAT = (rt.float32, (2,), "x")
IFEED = [np.array([3, -4], np.int32)]
FFEED = [np.array([-0.0, np.nan], np.float32)]


@pytest.mark.parametrize(
    ("name", "fn"),
    [
        ("x * 1", lambda x: x * 1),
        ("1 * x", lambda x: 1 * x),
        ("x + 0", lambda x: x + 0),
        ("0 + x", lambda x: 0 + x),
        ("x - 0", lambda x: x - 0),
        ("x * [1, 1]", lambda x: x * rt.constant([1, 1])),
    ],
)
def test_an_integer_identity_becomes_its_operand(name, fn):
    g, inputs, outputs = build(fn, INT)
    new = simplify(g, inputs, outputs)
    assert new.outputs[0] is new.inputs[0], name
    assert_same_runs(g, inputs, outputs, new, IFEED)


@pytest.mark.parametrize(
    ("name", "fn"),
    [
        ("x * 1.0", lambda x: x * 1.0),
        ("1.0 * x", lambda x: 1.0 * x),
        ("x / 1.0", lambda x: x / 1.0),
        ("x - 0.0", lambda x: x - 0.0),
        ("x + -0.0", lambda x: x + (-0.0)),
        ("-0.0 + x", lambda x: -0.0 + x),
    ],
)
def test_an_exact_float_identity_becomes_its_operand(name, fn):
    g, inputs, outputs = build(fn, FLOAT)
    new = simplify(g, inputs, outputs)
    assert new.outputs[0] is new.inputs[0], name
    assert_same_runs(g, inputs, outputs, new, FFEED)


def test_float_x_plus_zero_is_kept_because_minus_zero_plus_zero_is_plus_zero():
    g, inputs, outputs = build(lambda x: x + 0.0, FLOAT)
    new = simplify(g, inputs, outputs)
    assert "Add" in op_types(new)
    assert_same_runs(g, inputs, outputs, new, FFEED)


def test_float_x_minus_minus_zero_is_kept():
    g, inputs, outputs = build(lambda x: x - (-0.0), FLOAT)
    assert "Sub" in op_types(simplify(g, inputs, outputs))


def test_integer_division_by_one_is_kept_because_it_gives_float64():
    g, inputs, outputs = build(lambda x: x / 1, INT)
    new = simplify(g, inputs, outputs)
    assert "Div" in op_types(new)
    assert_same_runs(g, inputs, outputs, new, IFEED)


def test_a_constant_that_broadcasts_to_a_new_shape_is_kept():
    g, inputs, outputs = build(lambda x: x * rt.ones((3, 1), rt.int32), INT)
    new = simplify(g, inputs, outputs)
    assert "Mul" in op_types(new)
    assert new.outputs[0].shape == (3, 2)
    assert_same_runs(g, inputs, outputs, new, IFEED)


def test_an_array_constant_is_kept_when_the_operand_shape_is_not_known():
    g, inputs, outputs = build(lambda x: x * rt.constant([1]), (rt.int32, (None,), "x"))
    assert "Mul" in op_types(simplify(g, inputs, outputs))


def test_a_scalar_constant_simplifies_whatever_the_operand_shape():
    g, inputs, outputs = build(lambda x: x * 1, (rt.int32, None, "x"))
    new = simplify(g, inputs, outputs)
    assert new.outputs[0] is new.inputs[0]


def test_identity_chains_collapse_to_their_source():
    g, inputs, outputs = build(lambda x: rt.identity(rt.identity(x)) + 1, INT)
    new = simplify(g, inputs, outputs)
    assert "Identity" not in op_types(new)
    assert new.outputs[0].op.inputs[0] is new.inputs[0]
    assert_same_runs(g, inputs, outputs, new, IFEED)


def test_a_cast_to_the_same_dtype_and_a_reshape_to_the_same_shape_vanish():
    def f(x):
        same = rt.reshape(rt.cast(x * 2, rt.int32), [2])
        return rt.negative(rt.negative(same))

    g, inputs, outputs = build(f, INT)
    new = simplify(g, inputs, outputs)
    assert new.outputs[0].op.type == "Mul"
    assert_same_runs(g, inputs, outputs, new, IFEED)


def test_a_cast_to_another_dtype_is_kept():
    g, inputs, outputs = build(lambda x: rt.cast(x, rt.float32), INT)
    assert op_types(simplify(g, inputs, outputs))[-1] == "Cast"


def test_simplification_applies_inside_loops():
    def f(x):
        return rt.while_loop(lambda i: i < 10, lambda i: (i * 1 + 3,), (x,))[0]

    g, inputs, outputs = build(f, (rt.int32, (), "x"))
    new = simplify(g, inputs, outputs)
    body = new.get_operation_by_name("while").attrs["body"]
    assert "Mul" not in op_types(body)
    assert_same_runs(g, inputs, outputs, new, [np.int32(0)], [np.int32(20)])
