"""TensorFlow's rule for Variables a Function creates (API.md, issue 23)."""

from __future__ import annotations

import pytest

import autograph
import runtime as rt


def test_a_function_that_creates_a_variable_on_every_call_is_refused_at_once():
    @autograph.function
    def f(x):
        v = rt.Variable(1.0)
        v.assign_add(x)
        return v.read_value()

    with pytest.raises(ValueError, match=r"f\(\) creates a rt.Variable at .*:14 on"):
        f(rt.constant(1.0))
    with pytest.raises(ValueError, match="only on its first call"):
        f(rt.constant(1.0))  # every call: never a silent 2.0, 3.0, 4.0


def test_the_guarded_form_creates_one_variable_and_keeps_it():
    class Counter:
        def __init__(self):
            self.v = None

        @autograph.function
        def __call__(self, x):
            if self.v is None:
                self.v = rt.Variable(1.0)
            self.v.assign_add(x)
            return self.v.read_value()

    c = Counter()
    assert [float(c(rt.constant(1.0))) for _ in range(3)] == [2.0, 3.0, 4.0]


def test_an_initial_value_may_depend_on_the_first_calls_input():
    state = []
    traces = []

    @autograph.function
    def fn(x):
        traces.append(1)
        if not state:
            state.append(rt.Variable(2.0 * x))
        return state[0] * x

    assert float(fn(rt.constant(2.0))) == 8.0
    assert float(fn(rt.constant(3.0))) == 12.0
    assert len(state) == 1 and float(state[0].numpy()) == 4.0
    assert len(traces) == 2  # the first call traces twice, the second reuses it


def test_the_initial_value_runs_no_effect_of_the_first_trace():
    state = []
    printed = []

    @autograph.function
    def fn(x):
        rt.py_function(lambda t: printed.append(float(t)), [x], [])
        if not state:
            state.append(rt.Variable(x + 1.0))
        return state[0].read_value()

    assert float(fn(rt.constant(1.0))) == 2.0
    assert printed == [1.0]


def test_an_initial_value_from_a_tensor_spec_argument_is_refused():
    state = []

    @autograph.function
    def fn(x):
        if not state:
            state.append(rt.Variable(2.0 * x))
        return state[0] * x

    with pytest.raises(ValueError, match="depends on the argument 'x'"):
        fn.get_concrete_function(rt.TensorSpec([], rt.float32))


def test_creating_a_variable_on_a_later_trace_is_refused():
    state = []

    @autograph.function
    def fn(x):
        if x > 1.0 if isinstance(x, float) else False:
            state.append(rt.Variable(1.0))
        return x

    fn(1.0)
    with pytest.raises(ValueError, match="but it was traced before"):
        fn(2.0)


def test_a_variable_made_from_a_tensor_inside_a_graph_if_is_refused():
    @autograph.function
    def fn(x):
        if x > 0:
            v = rt.Variable(x)
            return v.read_value()
        return x

    with pytest.raises(ValueError, match="inside a graph `if` or loop"):
        fn(rt.constant(1.0))
