"""TensorFlow's guides' Variable examples, ported to rt.Variable.

"Introduction to graphs and tf.function" and "Better performance with
tf.function" use tf.Variable state inside tf.function throughout: a counter
incremented in a loop, Variables made on the first call only (and the error
when a function would make them on every call), updates in a tf.cond-like
`if`, Variables captured from a module, a closure or an object (`self.v`),
read after an update. (examples/guides/ ports the guides' own cells: the
`Count` module, `recommended_add`'s external Variable, the gradient.) Each
example runs the traced function more than once (the same trace again) and
checks the Variables' values after each call against the plain Python
function run eagerly.
"""

from __future__ import annotations

import pytest

import autograph
import runtime as rt


def _eager_and_traced(fn, reset, *args):
    """(result, state) of `fn` eagerly and of two calls of its trace, each
    from `reset()`'s state; `reset` returns the Variables to read after."""
    variables = reset()
    expected = [fn(*args), [v.numpy().item() for v in variables]]
    expected[0] = rt.convert_to_tensor(expected[0]).numpy().item()
    traced = autograph.function(fn)
    runs = []
    for _ in range(2):
        variables = reset()
        tensors = [rt.constant(a) for a in args]
        result = traced(*tensors).numpy().item()
        runs.append([result, [v.numpy().item() for v in variables]])
    assert traced.tracing_count == 1
    return expected, runs


_COUNTER = rt.Variable(0)


def _count_up(n):
    for _ in rt.range(n):
        _COUNTER.assign_add(1)
    return _COUNTER.read_value()


def test_a_counter_variable_incremented_in_a_graph_loop_keeps_counting():
    # The guide's counter: state outlives the call, so each call adds n.
    f = autograph.function(_count_up)
    _COUNTER.assign(0)
    assert [int(f(rt.constant(3))) for _ in range(3)] == [3, 6, 9]
    assert int(_COUNTER.numpy()) == 9 and f.tracing_count == 1


def _add_in_cond(x):
    if x > 0:
        _COUNTER.assign_add(x)
    else:
        _COUNTER.assign_sub(1)
    return _COUNTER + 1


@pytest.mark.parametrize("x", [3, -2])
def test_assign_add_inside_a_cond_like_if(x):
    def reset():
        _COUNTER.assign(10)
        return [_COUNTER]

    expected, runs = _eager_and_traced(_add_in_cond, reset, x)
    assert runs == [expected, expected]
    assert expected == [14 if x > 0 else 10, [13 if x > 0 else 9]]


def test_a_variable_read_before_and_after_a_write_in_a_branch_sees_both_values():
    v = rt.Variable(1)

    def f(x):
        before, after = x, x
        if x > 0:
            before = v.read_value()
            v.assign(x * 10)
            after = rt.identity(v)
        return before * 100 + after

    def reset():
        v.assign(1)
        return [v]

    expected, runs = _eager_and_traced(f, reset, 2)
    assert expected == [120, [20]] and runs == [expected, expected]


class _Counter:
    """The guide's `Count` module, made on the first call, plus a list of
    Variables made in a Python loop on that call (an item made in a loop)."""

    def __init__(self):
        self.count = None
        self.parts = []

    @autograph.function
    def __call__(self, n):
        if self.count is None:
            self.count = rt.Variable(0)
            for k in range(3):
                self.parts.append(rt.Variable(k * 10))
        for _ in rt.range(n):
            self.parts[1].assign_add(1)
        return self.count.assign_add(1) + self.parts[1]


def test_variables_made_on_the_first_call_only_and_in_a_loop_on_it():
    c = _Counter()
    assert [int(c(rt.constant(2))) for _ in range(3)] == [13, 16, 19]
    assert [int(p.numpy()) for p in c.parts] == [0, 16, 20]
    assert int(c.count.numpy()) == 3


def test_variables_made_in_a_loop_on_every_call_are_refused_at_the_first_call():
    # "Variables created only once": the loop makes new ones each call.
    @autograph.function
    def f(n):
        parts = []
        for k in range(2):
            parts.append(rt.Variable(k))
        return parts[1] + n

    line = f.python_function.__code__.co_firstlineno + 4
    with pytest.raises(
        ValueError, match=rf"f\(\) creates 2 rt.Variables at .*:{line} on"
    ):
        f(rt.constant(1))


class _Dense:
    """A model object with a Variable attribute (the guide's `self.v`)."""

    def __init__(self):
        self.w = rt.Variable(2.0)
        self.steps = rt.Variable(0)

    @autograph.function
    def __call__(self, x):
        y = x
        for _ in rt.range(3):
            y = y * self.w
            self.steps.assign_add(1)
        return y


def test_a_model_objects_variable_is_read_on_each_call_not_captured_as_a_value():
    model = _Dense()
    assert float(model(rt.constant(1.0))) == 8.0
    model.w.assign(3.0)  # no retrace: the graph reads the Variable
    assert float(model(rt.constant(1.0))) == 27.0
    assert int(model.steps.numpy()) == 6
    assert model.__call__.tracing_count == 1


def test_a_variable_captured_by_a_closure():
    def make_step():
        v = rt.Variable(0)

        @autograph.function
        def step(x):
            if x > v:
                v.assign(x)
            return v.read_value()

        return step, v

    step, v = make_step()
    assert [int(step(rt.constant(x))) for x in (3, 1, 5, 4)] == [3, 3, 5, 5]
    assert int(v.numpy()) == 5


def test_a_variable_as_the_source_of_a_loops_state():
    v = rt.Variable(2)

    def f(n):
        x = v  # the Variable itself: the loop carries its value
        for _ in rt.range(n):
            x = x * 2
        v.assign_add(1)
        return x

    def reset():
        v.assign(2)
        return [v]

    expected, runs = _eager_and_traced(f, reset, 3)
    assert expected == [16, [3]] and runs == [expected, expected]


def test_a_while_loop_whose_test_reads_the_variable_its_body_doubles():
    v = rt.Variable(1)

    def f(limit):
        steps = 0
        while v < limit:
            v.assign(v * 2)
            steps += 1
        return steps

    def reset():
        v.assign(1)
        return [v]

    expected, runs = _eager_and_traced(f, reset, 20)
    assert expected == [5, [32]] and runs == [expected, expected]


def test_a_break_decided_by_a_variable_in_a_graph_loop():
    v = rt.Variable(0)

    def f(limit):
        for i in rt.range(10):
            v.assign_add(i)
            if v > limit:
                break
        return v.read_value()

    def reset():
        v.assign(0)
        return [v]

    expected, runs = _eager_and_traced(f, reset, 7)
    assert expected == [10, [10]] and runs == [expected, expected]


def test_a_variable_accumulates_a_datasets_items():
    total = rt.Variable(0)

    @autograph.function
    def f(ds):
        for x in ds:
            total.assign_add(rt.cast(x, rt.int32))
        return total.read_value()

    ds = rt.data.Dataset.range(5)
    assert [int(f(ds)) for _ in range(2)] == [10, 20]
    assert f.tracing_count == 1


def test_a_variable_made_from_the_first_calls_input_then_updated_in_a_branch():
    class Model:
        def __init__(self):
            self.v = None

        @autograph.function
        def __call__(self, x):
            if self.v is None:
                self.v = rt.Variable(x * 2)
            if x > 1:
                self.v.assign_add(x)
            return self.v.read_value()

    m = Model()
    assert [int(m(rt.constant(x))) for x in (3, 1, 2)] == [9, 9, 11]
