"""Tracing semantics: what runs while tracing, and what runs on every call."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
from autograph.tracing import function


def test_python_side_effects_happen_only_while_tracing(capsys):
    external = []

    @function
    def side_effect(x):
        print("Python side effect")
        external.append(x)
        return x

    for _ in range(3):
        side_effect(rt.constant(1))
    assert len(external) == 1
    assert capsys.readouterr().out == "Python side effect\n"


def test_printing_a_tensor_with_python_print_happens_only_while_tracing(capsys):
    @function
    def double(a):
        print("Tracing with", a)
        return a + a

    double(rt.constant(1))
    double(rt.constant(2))
    assert capsys.readouterr().out.count("Tracing with") == 1


def test_rt_print_runs_on_every_call_in_program_order(capsys):
    @function
    def f(x):
        print("Traced with", x.dtype)
        rt.print("Executed with", x)
        rt.print("then", x + 1)

    f(rt.constant(1))
    f(rt.constant(2))
    assert capsys.readouterr().out == (
        "Traced with int32\nExecuted with 1\nthen 2\nExecuted with 2\nthen 3\n"
    )


def test_python_arguments_retrace_and_tensor_arguments_do_not(capsys):
    @function
    def train(num_steps):
        print("Tracing")
        rt.print("Executing with num_steps =", num_steps)

    train(num_steps=10)
    train(num_steps=20)
    train(num_steps=rt.constant(10))
    train(num_steps=rt.constant(20))
    assert capsys.readouterr().out == (
        "Tracing\nExecuting with num_steps = 10\n"
        "Tracing\nExecuting with num_steps = 20\n"
        "Tracing\nExecuting with num_steps = 10\n"
        "Executing with num_steps = 20\n"
    )
    assert train.tracing_count == 3


def test_variable_writes_run_in_program_order():
    a = rt.Variable(1.0)
    b = rt.Variable(2.0)

    @function
    def f(x, y):
        a.assign(y * b)
        b.assign_add(x * a)
        return a + b

    assert f(1.0, 2.0).numpy() == 10.0
    assert (a.numpy(), b.numpy()) == (4.0, 6.0)
    assert f(1.0, 2.0).numpy() == 30.0


def test_variable_writes_run_even_when_nothing_is_returned():
    counter = rt.Variable(0)

    @function
    def bump():
        counter.assign_add(1)

    for _ in range(3):
        assert bump() is None
    assert counter.numpy() == 3


def test_graph_execution_is_non_strict():
    @function
    def unused_return_graph(x, indices):
        rt.gather(x, indices)  # out of range, but unused: never runs
        return x

    out = unused_return_graph(rt.constant([5.0]), rt.constant([20]))
    np.testing.assert_array_equal(out.numpy(), [5.0])
    with pytest.raises(rt.errors.InvalidArgumentError):
        rt.gather(rt.constant([5.0]), rt.constant([20]))


def test_asserts_run_on_every_call():
    @function
    def checked(x):
        assert x > 0, "x must be positive"
        return x

    assert checked(rt.constant(1)).numpy() == 1
    with pytest.raises(rt.errors.InvalidArgumentError, match="x must be positive"):
        checked(rt.constant(-1))


def test_globals_are_captured_when_tracing():
    scale = {"value": 1}

    @function
    def buggy_add():
        return 1 + scale["value"]

    assert buggy_add().numpy() == 2
    scale["value"] = 100
    assert buggy_add().numpy() == 2


def test_an_iterator_argument_is_consumed_only_while_tracing(capsys):
    @function
    def buggy_consume_next(iterator):
        rt.print("Value:", next(iterator))

    iterator = iter([1, 2, 3])
    for _ in range(3):
        buggy_consume_next(iterator)
    assert capsys.readouterr().out == "Value: 1\n" * 3


def test_variables_may_be_created_on_the_first_trace():
    class Count:
        def __init__(self):
            self.count = None

        @function
        def __call__(self):
            if self.count is None:
                self.count = rt.Variable(0)
            return self.count.assign_add(1)

    counter = Count()
    assert counter().numpy() == 1
    assert counter().numpy() == 2


def test_creating_a_variable_on_a_later_trace_raises_value_error():
    @function
    def f(x):
        if x > 1.0:  # a Python float: decided while tracing
            v = rt.Variable(1.0)
            return v + x
        return rt.constant(x)

    assert f(1.0).numpy() == 1.0
    assert f(1.0).numpy() == 1.0
    with pytest.raises(ValueError) as info:
        f(2.0)
    line = f.python_function.__code__.co_firstlineno + 3
    assert str(info.value) == (
        f"f() created a rt.Variable at {__file__}:{line} while tracing f(x=2.0), "
        "but it was traced before: a Function may create Variables only on its "
        "first call, and only once. Create them outside the function, or create "
        "them once and reuse them (e.g. `if self.v is None: self.v = "
        "rt.Variable(...)`)"
    )


def test_a_variable_created_on_every_call_is_refused_on_the_first_call():
    @function
    def f(x):
        v = rt.Variable(1.0)
        return v + x

    with pytest.raises(ValueError, match=r"creates a rt.Variable at .* on every call"):
        f(1.0)


def test_a_python_counter_guarding_a_write_is_frozen_into_the_graph():
    class Model:
        def __init__(self):
            self.v = rt.Variable(0)
            self.counter = 0

        @function
        def __call__(self):
            if self.counter == 0:
                self.counter += 1
                self.v.assign_add(1)
            return self.v

    model = Model()
    assert [model().numpy() for _ in range(3)] == [1, 2, 3]


def test_graph_control_flow_runs_in_the_graph(capsys):
    @function
    def fizzbuzz(n):
        for i in rt.range(1, n + 1):
            if i % 15 == 0:
                rt.print("fizzbuzz")
            elif i % 3 == 0:
                rt.print("fizz")
            elif i % 5 == 0:
                rt.print("buzz")
            else:
                rt.print(i)

    fizzbuzz(rt.constant(5))
    fizzbuzz(rt.constant(15))
    out = capsys.readouterr().out.split()
    assert out[:5] == ["1", "2", "fizz", "4", "buzz"]
    assert out[-1] == "fizzbuzz" and len(out) == 20
    assert fizzbuzz.tracing_count == 1


def _raises_unless_the_branch_raises_first(a):
    if a > 5:
        raise KeyError("big")
    raise ValueError("always")


def _reads_a_name_only_a_raising_loop_body_assigns(a):
    nn = {}
    for i in range(a, 1):
        w = i - 4
        nn["missing"]["a"] = -i
    return w


def _raises_after_a_print(a):
    rt.print("before")
    raise ValueError("after the print")


@pytest.mark.parametrize(
    ("fn", "a"),
    [
        (_raises_unless_the_branch_raises_first, 7),
        (_raises_unless_the_branch_raises_first, 1),
        (_reads_a_name_only_a_raising_loop_body_assigns, -1),
        (_reads_a_name_only_a_raising_loop_body_assigns, 4),
    ],
)
def test_a_function_every_path_of_which_raises_raises_pythons_error(fn, a):
    # (fuzz: the trace raised the top-level error, the same for every input,
    # where Python raises a graph `if`'s or loop's first.) Staged after the
    # graph's effects, it raises what Python raises for each input.
    with pytest.raises(Exception) as python:
        fn(a)
    staged = function(fn)
    with pytest.raises(rt.errors.InvalidArgumentError) as info:
        staged(rt.constant(a))
    assert isinstance(info.value, type(python.value))
    assert str(python.value) in str(info.value)


def test_a_raise_after_an_effect_runs_the_effect_first(capsys):
    staged = function(_raises_after_a_print)
    with pytest.raises(ValueError, match="after the print"):
        staged(rt.constant(1))
    assert capsys.readouterr().out == "before\n"


def test_a_raise_with_no_effect_before_it_raises_while_tracing():
    def always(a):
        raise ValueError("no graph needed")

    with pytest.raises(ValueError, match="no graph needed") as info:
        function(always)(rt.constant(1))
    assert not isinstance(info.value, rt.errors.InvalidArgumentError)
