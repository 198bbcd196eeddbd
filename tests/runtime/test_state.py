"""Variables, rt.print, rt.Assert and TensorArray."""

from __future__ import annotations

import io
import sys
import weakref

import numpy as np
import pytest

import runtime as rt
from autograph import function as rt_function
from tests.runtime.util import run_graph


def test_variable_assign_methods_return_the_new_value():
    v = rt.Variable([1.0, 2.0])
    assert v.assign([3.0, 4.0]).numpy().tolist() == [3.0, 4.0]
    assert v.assign_add(1).numpy().tolist() == [4.0, 5.0]
    assert v.assign_sub([1.0, 1.0]).numpy().tolist() == [3.0, 4.0]
    assert v.read_value().numpy().tolist() == [3.0, 4.0]
    assert (v.dtype, v.shape) == (rt.float32, (2,))


def test_variable_updates_never_change_a_value_read_before_them():
    # An update may write into the variable's array only when nothing else
    # refers to it: earlier reads, their views and returned values keep theirs.
    v = rt.Variable([1.0, 2.0])
    read, array, returned = v.read_value(), v.numpy(), v.assign_add([1.0, 1.0])
    view = returned.numpy()[::-1]
    v.assign_sub([10.0, 10.0])
    assert read.numpy().tolist() == [1.0, 2.0] and array.tolist() == [1.0, 2.0]
    assert returned.numpy().tolist() == [2.0, 3.0] and view.tolist() == [3.0, 2.0]
    assert v.numpy().tolist() == [-8.0, -7.0]


def test_a_graph_update_keeps_the_values_the_graph_read_and_returns():
    v = rt.Variable(np.arange(6.0, dtype=np.float32).reshape(2, 3))

    @rt_function
    def step(delta):
        before = rt.transpose(v.read_value())  # a view of the old array
        v.assign_sub(delta)
        return before, v.read_value()

    before, after = step(rt.ones([2, 3]))
    assert before.numpy().tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    again, _ = step(rt.ones([2, 3]))  # `after` still refers to the last value
    assert after.numpy().tolist() == [[-1.0, 0.0, 1.0], [2.0, 3.0, 4.0]]
    assert again.numpy().tolist() == [[-1.0, 2.0], [0.0, 3.0], [1.0, 4.0]]


def test_a_graph_update_nothing_else_reads_writes_into_the_variable():
    # What makes a training step as cheap as NumPy's `w -= lr * grad`.
    v = rt.Variable(np.zeros((3, 4), np.float32))

    @rt_function
    def step(x):
        v.assign_sub(rt.matmul(x, v) + 1.0)  # the graph's read of `v` is dead
        return rt.reduce_sum(v.read_value())

    step(rt.zeros([3, 3]))
    array = weakref.ref(v.numpy())  # (a strong reference would forbid it)
    assert step(rt.zeros([3, 3])).numpy() == -24.0 and array() is v.numpy()


def test_variable_is_an_operand_everywhere():
    v = rt.Variable(3)
    assert (v + 1).numpy() == 4 and (2 * v).numpy() == 6
    assert rt.maximum(v, 5).numpy() == 5 and int(v) == 3
    assert (v == 3).numpy() and run_graph(lambda: v * 10) == 30


def test_variable_assign_checks_dtype_and_shape():
    v = rt.Variable([1, 2])
    with pytest.raises(TypeError, match="cannot assign a float32 value to the int32"):
        v.assign(rt.constant([1.0, 2.0]))
    with pytest.raises(ValueError, match=r"shape \(3,\) to the variable"):
        v.assign([1, 2, 3])
    with pytest.raises(TypeError), rt.Graph().as_default():
        v.assign(rt.constant([1.0, 2.0]))


def test_variable_repr_shows_its_value():
    v = rt.Variable(1.5, name="w")
    assert (
        repr(v)
        == "<rt.Variable 'w:0' shape=() dtype=float32, numpy=array(1.5, dtype=float32)>"
    )


def test_print_formats_tensors_like_tf_print(capsys):
    rt.print("x:", rt.constant([1.0, 2.5]), 7, rt.constant("hi"))
    rt.print(rt.range(10), rt.constant([[1, 2], [3, 4]]))
    rt.print(rt.constant(1.0) / 3.0, rt.constant(True), sep=", ", end="!\n")
    rt.print([rt.constant(1), "a"], {"k": rt.constant(2)})
    assert capsys.readouterr().out == (
        "x: [1 2.5] 7 hi\n"
        "[0 1 2 ... 7 8 9] [[1 2]\n [3 4]]\n"
        "0.333333343, True!\n"
        "[1, a] {'k': 2}\n"
    )


def test_print_looks_up_sys_stdout_when_it_runs():
    g = rt.Graph()
    with g.as_default():
        rt.print("hello")
    from runtime import executor

    run = executor.compile(g, [], [])
    buffer, saved = io.StringIO(), sys.stdout
    sys.stdout = buffer
    try:
        run([])
    finally:
        sys.stdout = saved
    assert buffer.getvalue() == "hello\n"


def test_assert_raises_with_its_data_when_false():
    rt.Assert(rt.constant(True), ["never"])
    with pytest.raises(
        rt.errors.InvalidArgumentError, match="assertion failed: x is 2"
    ):
        rt.Assert(rt.constant(2) < 1, ["x is", rt.constant(2)])


def test_tensor_array_writes_reads_and_stacks_eagerly():
    ta = rt.TensorArray(rt.float32, size=2)
    ta2 = ta.write(0, 1.0).write(1, [2.0][0])
    assert ta2.read(1).numpy() == 2.0
    assert ta2.stack().numpy().tolist() == [1.0, 2.0]
    assert ta2.size().numpy() == 2
    assert ta2.element_shape == ()


def test_tensor_array_write_returns_a_new_array_and_keeps_the_old_one():
    base = rt.TensorArray(rt.int32, size=0, dynamic_size=True).write(0, 1)
    a = base.write(1, 10)
    b = base.write(1, 20)
    assert a.stack().numpy().tolist() == [1, 10]
    assert b.stack().numpy().tolist() == [1, 20]
    assert base.stack().numpy().tolist() == [1]


@pytest.mark.parametrize(
    ("fn", "error", "message"),
    [
        (
            lambda: rt.TensorArray(rt.int32, size=1).write(1, 0),
            rt.errors.InvalidArgumentError,
            "not resizeable and size is: 1",
        ),
        (
            lambda: rt.TensorArray(rt.int32, size=1).read(3),
            rt.errors.InvalidArgumentError,
            "Tried to read from index 3",
        ),
        (
            lambda: rt.TensorArray(rt.int32, size=1).read(0),
            rt.errors.InvalidArgumentError,
            "has not yet been written",
        ),
        (
            lambda: rt.TensorArray(rt.int32, size=1).write(0, 1.5),
            TypeError,
            "cannot write a float32 value to a TensorArray of int32",
        ),
        (
            lambda: (
                rt.TensorArray(rt.int32, dynamic_size=True)
                .write(0, [1])
                .write(1, [1, 2])
            ),
            ValueError,
            r"cannot write a value of shape \(2,\)",
        ),
    ],
)
def test_tensor_array_misuse_raises_clear_errors(fn, error, message):
    with pytest.raises(error, match=message):
        fn()


def test_tensor_array_unstack_and_stack_round_trip():
    value = np.arange(6, dtype=np.int32).reshape(3, 2)
    ta = rt.TensorArray(rt.int32).unstack(value)
    assert ta.read(2).numpy().tolist() == [4, 5]
    np.testing.assert_array_equal(ta.stack().numpy(), value)
    np.testing.assert_array_equal(
        run_graph(lambda v: rt.TensorArray(rt.int32).unstack(v).stack(), value), value
    )
