"""The retracing warning: once, naming the argument and the fix."""

from __future__ import annotations

import warnings

import pytest

import runtime as rt
from autograph.tracing import RetracingWarning, function
from autograph.tracing.diagnostics import RETRACING_THRESHOLD


def calls_warned(fn, values):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for value in values:
            fn(value)
    return [w for w in caught if issubclass(w.category, RetracingWarning)]


def test_five_traces_do_not_warn():
    @function
    def f(n):
        return n

    assert RETRACING_THRESHOLD == 5
    assert calls_warned(f, range(5)) == []


def test_a_sixth_trace_warns_once_naming_the_python_argument_and_the_fix():
    @function
    def train(num_steps):
        return num_steps

    caught = calls_warned(train, range(10))
    assert len(caught) == 1
    assert str(caught[0].message) == (
        "train has been traced 6 times; tracing is expensive. Its argument "
        "'num_steps' keeps changing: 6 different Python values so far (0, 1, 2, "
        "...), and each one traces a new graph. Pass it as a tensor (e.g. "
        "rt.constant(num_steps)) instead, or fix the signature with "
        "input_signature=[rt.TensorSpec(...)] (None dimensions match any size)."
    )
    assert caught[0].filename == __file__


def test_the_warning_names_a_tensor_argument_whose_shape_keeps_changing():
    @function
    def total(scale, x):
        return rt.reduce_sum(x) * scale

    with pytest.warns(RetracingWarning) as caught:
        for n in range(1, 7):
            total(2.0, rt.ones([n]))
    message = str(caught[0].message)
    assert "Its argument 'x' keeps changing: 6 different dtypes or shapes so far" in (
        message
    )
    assert "(float32 (1,), float32 (2,), float32 (3,), ...)" in message
    assert "input_signature=[rt.TensorSpec(...)]" in message


def test_the_warning_names_an_argument_keyed_by_identity():
    class Config:
        pass

    @function
    def use(config):
        return 0

    configs = [Config() for _ in range(6)]
    with pytest.warns(RetracingWarning, match="6 different objects so far") as caught:
        for config in configs:
            use(config)
    assert "Pass the same object each time" in str(caught[0].message)


def test_calls_that_reuse_traces_do_not_count():
    @function
    def f(n):
        return n

    assert calls_warned(f, [0, 1, 2, 0, 1, 2, 0, 1, 2, 3, 4]) == []
