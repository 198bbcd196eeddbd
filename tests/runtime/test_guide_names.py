"""The names the tf.function guides use: py_function, executing_eagerly,
rt.nn, set_shape, __version__, errors.OutOfRangeError (issue 23)."""

from __future__ import annotations

import numpy as np
import pytest

import autograph
import runtime as rt


def test_version_is_a_string():
    assert isinstance(rt.__version__, str) and rt.__version__.count(".") == 2


def test_executing_eagerly_is_false_only_while_tracing():
    seen = []

    @autograph.function
    def f(x):
        seen.append(rt.executing_eagerly())
        return x + 1

    assert rt.executing_eagerly()
    f(rt.constant(1))
    f(rt.constant(2))
    assert seen == [False]


def test_py_function_runs_python_on_every_graph_run():
    calls = []

    def numpy_double(x):
        calls.append(x.numpy())
        return x.numpy() * 2

    @autograph.function
    def f(x):
        y = rt.py_function(numpy_double, [x], rt.float32)
        return y + 1.0

    for value in (1.0, 2.0, 3.0):
        assert float(f(rt.constant(value))) == value * 2 + 1
    assert calls == [1.0, 2.0, 3.0]
    assert [
        op.type
        for op in f.get_concrete_function(rt.constant(1.0)).graph.get_operations()
    ].count("EagerPyFunc") == 1


def test_py_function_with_no_outputs_is_an_effect_that_is_never_pruned():
    calls = []

    @autograph.function
    def f(x):
        out = rt.py_function(lambda t: calls.append(int(t)), [x], [])
        assert out == []
        return x

    f(rt.constant(4))
    f(rt.constant(5))
    assert calls == [4, 5]


def test_py_function_with_a_list_of_outputs_gives_a_list():
    a, b = rt.py_function(lambda x: (x, x * 2), [rt.constant(3)], [rt.int32] * 2)
    assert (int(a), int(b)) == (3, 6)


def test_py_function_output_of_the_wrong_dtype_raises_when_the_graph_runs():
    @autograph.function
    def f(x):
        return rt.py_function(lambda t: "text", [x], rt.float32)

    with pytest.raises(rt.errors.InvalidArgumentError, match="string value"):
        f(rt.constant(1.0))


def test_dropout_zeroes_and_scales():
    x = rt.ones([1000])
    y = rt.nn.dropout(x, 0.5, seed=1).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0}
    assert 300 < (y == 0).sum() < 700


def test_dropout_draws_anew_on_each_graph_run():
    @autograph.function
    def f(x):
        return rt.nn.dropout(x, 0.5)

    x = rt.ones([200])
    assert not np.array_equal(f(x).numpy(), f(x).numpy())


def test_dropout_rejects_a_rate_of_one():
    with pytest.raises(ValueError, match="rate must be in"):
        rt.nn.dropout(rt.ones([2]), 1.0)


def test_set_shape_refines_unknown_sizes_while_tracing():
    shapes = []

    @autograph.function(input_signature=[rt.TensorSpec([None, None])])
    def f(x):
        x.set_shape([None, 3])
        shapes.append(x.shape)
        return x

    f.get_concrete_function()
    assert shapes == [(None, 3)]


def test_set_shape_incompatible_raises_value_error():
    @autograph.function(input_signature=[rt.TensorSpec([2])])
    def f(x):
        x.set_shape([3])
        return x

    with pytest.raises(ValueError, match=r"shapes \(2,\) and \(3,\)"):
        f.get_concrete_function()
    with pytest.raises(ValueError, match="incompatible"):
        rt.constant([1, 2]).set_shape([3])


def test_out_of_range_error_is_an_op_error():
    assert issubclass(rt.errors.OutOfRangeError, rt.errors.OpError)
    assert not issubclass(rt.errors.OutOfRangeError, rt.errors.InvalidArgumentError)
