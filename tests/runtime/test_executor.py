"""The executor: pruning, effect order, errors that point at the user's line."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
from runtime import executor


def _line_containing(text: str) -> int:
    with open(__file__) as f:
        for number, line in enumerate(f, 1):
            if text in line and "_line_containing" not in line:
                return number
    raise AssertionError(text)


def test_compile_runs_a_graph_on_numpy_inputs():
    g = rt.Graph()
    with g.as_default():
        x = g.placeholder(rt.float32, (None,), "x")
        y = rt.tanh(x) * 2.0
    run = executor.compile(g, [x], [y, x])
    out = run([np.array([0.0, 1.0], np.float32)])
    np.testing.assert_allclose(out[0], np.tanh([0.0, 1.0]) * 2, rtol=1e-6)
    assert out[1].tolist() == [0.0, 1.0]


def test_variables_assigned_in_a_graph_follow_program_order():
    a = rt.Variable(1.0)
    b = rt.Variable(2.0)
    g = rt.Graph()
    with g.as_default():
        x = g.placeholder(rt.float32, (), "x")
        y = g.placeholder(rt.float32, (), "y")
        a.assign(y * b)
        b.assign_add(x * a)
        out = a + b
    run = executor.compile(g, [x, y], [out])
    assert run([np.float32(1.0), np.float32(2.0)]) == [10.0]
    assert (a.numpy(), b.numpy()) == (4.0, 6.0)


def test_stateful_ops_run_every_call_even_when_unused(capsys):
    v = rt.Variable(0)
    g = rt.Graph()
    with g.as_default():
        x = g.placeholder(rt.int32, (), "x")
        rt.print("x =", x)
        v.assign_add(x)
        out = x * 2
    run = executor.compile(g, [x], [out])
    run([np.int32(1)])
    run([np.int32(2)])
    assert capsys.readouterr().out == "x = 1\nx = 2\n"
    assert v.numpy() == 3


def test_prints_and_writes_run_in_program_order(capsys):
    v = rt.Variable(1)
    g = rt.Graph()
    with g.as_default():
        rt.print("before", v)
        v.assign(5)
        rt.print("after", v)
        v.assign_add(1)
        rt.print("last", v.read_value())
    executor.compile(g, [], [])([])
    assert capsys.readouterr().out == "before 1\nafter 5\nlast 6\n"


def test_reads_see_the_value_at_their_place_in_the_program():
    v = rt.Variable(10)
    g = rt.Graph()
    with g.as_default():
        first = v.read_value()
        v.assign(20)
        second = v + 0
    assert executor.compile(g, [], [first, second])([]) == [10, 20]


def test_unused_failing_op_does_not_raise_in_a_graph_but_does_eagerly():
    g = rt.Graph()
    with g.as_default():
        x = g.placeholder(rt.int32, (None,), "x")
        rt.gather(x, [10])  # never needed
        out = x + 1
    run = executor.compile(g, [x], [out])
    assert run([np.array([1, 2], np.int32)])[0].tolist() == [2, 3]
    assert "gather" not in [op.name for op in run.ops]
    with pytest.raises(rt.errors.InvalidArgumentError):
        rt.gather(rt.constant([1, 2]), [10])


def test_run_time_errors_name_the_op_and_the_user_line():
    g = rt.Graph()
    with g.as_default():
        x = g.placeholder(rt.int32, (None,), "x")
        i = g.placeholder(rt.int32, (), "i")
        y = rt.gather(x, i) * 2  # bad index at run time
    run = executor.compile(g, [x, i], [y])
    with pytest.raises(rt.errors.InvalidArgumentError) as info:
        run([np.array([1, 2], np.int32), np.int32(7)])
    error = info.value
    line = _line_containing("# bad index at run time")
    assert (error.op_type, error.op_name) == ("GatherV2", "gather")
    assert error.location == f"{__file__}:{line}"
    assert f"(node 'gather', created at {__file__}:{line})" in str(error)


def test_errors_inside_loop_bodies_name_the_inner_op():
    g = rt.Graph()
    with g.as_default():
        x = g.placeholder(rt.int32, (3,), "x")

        def body(i):
            rt.Assert(i < 3, ["i =", i])
            return i + 1

        rt.while_loop(lambda i: i < 5, body, [0])
    run = executor.compile(g, [x], [])
    with pytest.raises(
        rt.errors.InvalidArgumentError, match=r"assertion failed: i = 3"
    ) as e:
        run([np.array([1, 2, 3], np.int32)])
    assert e.value.op_type == "Assert"
    assert e.value.location.startswith(__file__)


def test_a_needed_placeholder_must_be_an_input():
    g = rt.Graph()
    with g.as_default():
        x = g.placeholder(rt.int32, (), "x")
        y = x + 1
    with pytest.raises(ValueError, match="placeholder 'x' is needed"):
        executor.compile(g, [], [y])


def test_outputs_must_belong_to_the_graph():
    g, other = rt.Graph(), rt.Graph()
    y = other.placeholder(rt.int32, (), "y")
    with pytest.raises(ValueError, match="is not a tensor of graph"):
        executor.compile(g, [], [y])


def test_the_plan_is_readable_python():
    g = rt.Graph()
    with g.as_default():
        x = g.placeholder(rt.int32, (), "x")
        (n,) = rt.while_loop(lambda i: i < x, lambda i: i + 1, [0])
    run = executor.compile(g, [x], [n])
    assert "while True:" in run.source and "break" in run.source
    compile(run.source, "<check>", "exec")


def _nested_loops(depth: int, x, i_max):
    """`depth` graph while loops, each running the next inside its body;
    the innermost adds 1 to `x` and, at `i_max` > 1, fails an Assert."""
    if depth == 0:
        rt.Assert(i_max < 2, ["deepest loop failed"])  # deepest assert
        return x + 1

    def body(i, acc):
        return i + 1, _nested_loops(depth - 1, acc, i_max)

    return rt.while_loop(lambda i, acc: i < i_max, body, [0, x])[1]


@pytest.mark.parametrize("depth", [1, 21, 60])
def test_any_nesting_depth_of_loops_compiles_and_runs(depth):
    # Python allows 20 statically nested blocks (and 100 indentation levels)
    # in one function; deeper loops are called as functions of their own.
    g = rt.Graph()
    with g.as_default():
        x = g.placeholder(rt.int32, (), "x")
        n = g.placeholder(rt.int32, (), "n")
        y = _nested_loops(depth, x, n)
    run = executor.compile(g, [x, n], [y])
    assert run([np.int32(5), np.int32(1)]) == [6]
    with pytest.raises(
        rt.errors.InvalidArgumentError, match="deepest loop failed"
    ) as info:
        run([np.int32(5), np.int32(2)])
    line = _line_containing("# deepest assert")
    assert info.value.location == f"{__file__}:{line}"


def _nested_conds(depth: int, x):
    if depth == 0:
        return x + 1
    return rt.cond(x > 0, lambda: _nested_conds(depth - 1, x) + 1, lambda: x - 1)


def test_deeply_nested_conds_compile_and_run():
    g = rt.Graph()
    with g.as_default():
        x = g.placeholder(rt.int32, (), "x")
        y = _nested_conds(120, x)
    run = executor.compile(g, [x], [y])
    assert run([np.int32(1)]) == [122]
    assert run([np.int32(-1)]) == [-2]
