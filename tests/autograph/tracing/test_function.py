"""`autograph.function`: the ways to make a Function, and calling it."""

from __future__ import annotations

import collections
import gc
import warnings

import numpy as np
import pytest

import autograph
import runtime as rt
from autograph import tracing
from autograph.tracing import (
    ConcreteFunction,
    Function,
    function,
)


def test_public_names_are_exported_from_autograph():
    assert autograph.function is tracing.function
    assert autograph.Function is Function
    assert autograph.ConcreteFunction is ConcreteFunction
    assert autograph.run_functions_eagerly is tracing.run_functions_eagerly
    assert autograph.functions_run_eagerly is tracing.functions_run_eagerly


def test_bare_decorator_makes_a_function():
    @function
    def add(a, b):
        return a + b

    assert isinstance(add, Function)
    assert add(rt.constant(1.0), rt.constant(2.0)).numpy() == 3.0
    assert add.__name__ == "add"


def test_decorator_with_arguments_makes_a_function():
    @function(autograph=False, optimize=False)
    def add(a, b):
        return a + b

    assert isinstance(add, Function)
    assert add(rt.constant(1), rt.constant(2)).numpy() == 3


def test_called_on_a_function_it_wraps_it():
    def square(x):
        return x * x

    traced = function(square)
    assert traced.python_function is square
    assert traced(rt.constant(3.0)).numpy() == 9.0


def test_to_code_shows_the_converted_python_function():
    def relu(x):
        if x > 0:
            return x
        return 0

    assert autograph.to_code(function(relu)) == autograph.to_code(relu)


def test_wrapping_a_function_again_wraps_its_python_function():
    def square(x):
        return x * x

    once = function(square)
    twice = function(once, autograph=False)
    assert twice.python_function is square


def test_results_are_eager_tensors():
    @function
    def double(x):
        return x * 2

    result = double(rt.constant([1, 2]))
    assert isinstance(result, rt.Tensor)
    np.testing.assert_array_equal(result.numpy(), [2, 4])


def test_nested_results_keep_their_structure():
    point = collections.namedtuple("point", "x y")

    @function
    def parts(a, b):
        return {"sum": a + b, "pair": (a, [b]), "none": None, "p": point(a, b)}

    out = parts(rt.constant(1.0), rt.constant(2.0))
    assert list(out) == ["sum", "pair", "none", "p"]
    assert out["sum"].numpy() == 3.0
    assert isinstance(out["pair"], tuple) and isinstance(out["pair"][1], list)
    assert out["pair"][1][0].numpy() == 2.0
    assert out["none"] is None
    assert type(out["p"]) is point and out["p"].y.numpy() == 2.0


def test_python_scalars_returned_become_tensors():
    @function
    def constants(x):
        return x, 3, 2.5, "text", True

    _, three, half, text, flag = constants(rt.constant(0))
    assert three.dtype == rt.int32 and three.numpy() == 3
    assert half.dtype == rt.float32
    assert text.dtype == rt.string
    assert flag.dtype == rt.bool


def test_variables_returned_become_their_value():
    v = rt.Variable(5.0)

    @function
    def read():
        return v

    assert read().numpy() == 5.0
    v.assign(6.0)
    assert read().numpy() == 6.0


def test_returning_an_object_that_is_no_tensor_raises_type_error():
    @function
    def bad(x):
        return x, object

    message = (
        "bad() returned <class 'object'> at [1], a type, which is not a tensor: "
        "a Function can return tensors, Variables, Python scalars, None, and "
        "tuples, lists and dicts of them"
    )
    with pytest.raises(TypeError) as info:
        bad(rt.constant(1))
    assert str(info.value) == message


def test_numpy_arrays_are_tensor_arguments():
    @function
    def double(x):
        return x + x

    out = double(np.array([1.0, 2.0], np.float32))
    np.testing.assert_array_equal(out.numpy(), [2.0, 4.0])
    double(np.array([3.0, 4.0], np.float32))
    assert double.tracing_count == 1


def test_a_function_calling_a_plain_function_converts_it_recursively():
    def clip(x):
        if x > 1.0:
            x = rt.constant(1.0)
        return x

    @function
    def outer(x):
        return clip(x) * 2.0

    assert outer(rt.constant(5.0)).numpy() == 2.0
    assert outer(rt.constant(0.25)).numpy() == 0.5
    graph = outer.get_concrete_function(rt.constant(5.0)).graph
    assert "cond" in [op.name for op in graph.get_operations()]


def test_a_function_calling_another_function_inlines_it():
    @function
    def add(a, b):
        return a + b

    @function
    def dense(x, w, b):
        return add(rt.matmul(x, w), b)

    out = dense(rt.ones([3, 2]), rt.ones([2, 2]), rt.ones([2]))
    np.testing.assert_array_equal(out.numpy(), np.full((3, 2), 3.0))
    assert add.tracing_count == 0
    assert dense.tracing_count == 1


class Scaler:
    def __init__(self, factor):
        self.factor = factor
        self.traces = 0

    @function
    def scale(self, x):
        self.traces += 1
        return x * self.factor


def test_methods_have_one_trace_cache_per_instance():
    a, b = Scaler(2.0), Scaler(3.0)
    x = rt.constant([1.0, 2.0])
    np.testing.assert_array_equal(a.scale(x).numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(b.scale(x).numpy(), [3.0, 6.0])
    a.scale(x)
    assert (a.traces, b.traces) == (1, 1)
    assert a.scale == a.scale and a.scale != b.scale  # like Python's bound methods
    assert a.scale.tracing_count == 1 and a.scale.__self__ is a
    assert Scaler.scale is Scaler.__dict__["scale"]


def test_a_method_of_a_temporary_instance_keeps_it_for_the_call():
    # `Scaler(5.0).scale(x)`: the temporary's last reference was the one
    # `scale` was looked up on; the Function must hold it as a bound method
    # does (it held it weakly: ReferenceError when it traced).
    x = rt.constant([1.0, 2.0])
    np.testing.assert_array_equal(Scaler(5.0).scale(x).numpy(), [5.0, 10.0])
    np.testing.assert_array_equal(Scaler(6.0).scale(x).numpy(), [6.0, 12.0])
    method = Scaler(7.0).scale
    gc.collect()
    np.testing.assert_array_equal(method(x).numpy(), [7.0, 14.0])


def test_a_method_function_holds_its_instance_weakly():
    scaler = Scaler(2.0)
    scaler.scale(rt.constant(1.0))
    assert len(Scaler.scale._bound) >= 1
    count = len(Scaler.scale._bound)
    del scaler
    gc.collect()
    assert len(Scaler.scale._bound) == count - 1


def test_a_function_on_call_works_as_a_callable_object():
    class Model:
        def __init__(self):
            self.v = rt.Variable(0)

        @function
        def __call__(self, step):
            return self.v.assign_add(step)

    model = Model()
    assert model(rt.constant(2)).numpy() == 2
    assert model(rt.constant(3)).numpy() == 5


def test_run_functions_eagerly_runs_the_python_function_each_call(capsys):
    @function
    def get_mse(y_true, y_pred):
        print("Calculating MSE!")
        return rt.reduce_mean((y_true - y_pred) ** 2)

    y_true, y_pred = rt.constant([1.0, 2.0]), rt.constant([2.0, 4.0])
    for _ in range(3):
        get_mse(y_true, y_pred)
    assert capsys.readouterr().out == "Calculating MSE!\n"
    tracing.run_functions_eagerly(True)
    assert tracing.functions_run_eagerly() is True
    for _ in range(3):
        assert get_mse(y_true, y_pred).numpy() == 2.5
    tracing.run_functions_eagerly(False)
    assert tracing.functions_run_eagerly() is False
    assert capsys.readouterr().out == "Calculating MSE!\n" * 3


def test_errors_while_tracing_point_at_the_users_code():
    @function
    def broken(x):
        return x + undefined_name  # noqa: F821

    with pytest.raises(NameError) as info:
        broken(rt.constant(1))
    frames = [(str(entry.path), entry.lineno + 1) for entry in info.traceback]
    line = broken.python_function.__code__.co_firstlineno + 2
    assert (__file__, line) in frames
    assert str(info.value) == "name 'undefined_name' is not defined"


def test_a_failed_trace_is_not_cached():
    calls = []

    @function
    def flaky(x):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("first trace fails")
        return x

    with pytest.raises(RuntimeError, match="first trace fails"):
        flaky(rt.constant(1))
    assert flaky(rt.constant(1)).numpy() == 1
    assert flaky.tracing_count == 1


def test_a_function_without_source_raises_one_conversion_error_and_no_warning():
    """Typed into a plain `python` prompt: one error that says where to put
    the function, not a warning and then a TypeError from the trace (API.md)."""
    namespace: dict = {}
    exec("def inc(x):\n    return x + 1\n", namespace)
    inc = function(namespace["inc"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(autograph.ConversionError) as info:
            inc(rt.constant(1))
    assert "put it in a file, an IPython session or a notebook cell" in str(info.value)
    assert info.value.__cause__ is None
    assert function(namespace["inc"], autograph=False)(rt.constant(1)).numpy() == 2


def test_a_function_that_cannot_be_converted_for_another_reason_still_warns():
    inc = function(len)  # a builtin: no Python source, traced as it is
    with pytest.warns(UserWarning, match="autograph could not convert len"):
        assert inc(rt.constant([1, 2])) == 2


def test_a_generator_function_raises_the_conversion_error_of_to_graph():
    def gen(x):
        yield x

    with pytest.raises(autograph.ConversionError) as expected:
        autograph.to_graph(gen)
    traced = function(gen)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "traces it as it is" warning
        with pytest.raises(autograph.ConversionError) as info:
            traced(rt.constant(1))
    assert str(info.value) == str(expected.value)
    assert ".gen': a generator cannot be converted; mark it with" in str(info.value)
    assert info.value.lineno == gen.__code__.co_firstlineno


def test_an_async_function_raises_the_conversion_error_of_to_graph():
    async def coroutine(x):
        return x

    traced = function(coroutine)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(autograph.ConversionError, match="an async function cannot"):
            traced(rt.constant(1))


def test_autograph_false_traces_the_original_code():
    @function(autograph=False)
    def branchy(x):
        if x > 0:
            return x
        return -x

    with pytest.raises(TypeError, match="as a Python bool is not allowed"):
        branchy(rt.constant(1))
