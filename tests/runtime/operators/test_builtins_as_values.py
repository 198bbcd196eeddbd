"""A builtin reached as a value behaves as the builtin named directly."""

import builtins
import re

import numpy as np
import pytest

import autograph
import runtime as rt
from runtime.operators import converted_call
from tests.equivalence import assert_equivalent, assert_graph_equivalent


def apply(f, *args):
    return f(*args)


def sum_range_through_a_name(n):
    fn = range
    total = 0
    for i in fn(n):
        total += i
    return total


def builtins_passed_as_arguments(x):
    return (
        apply(abs, x),
        apply(float, x),
        apply(int, x),
        apply(len, [x, x, x]),
        apply(isinstance, x, int),
    )


def len_through_a_name(xs):
    f = len
    return f(xs)


def enumerate_and_zip_through_names(xs, ys):
    en, zp = enumerate, zip
    total = 0
    for i, (a, b) in en(zp(xs, ys)):
        total += i * a * b
    return total


def print_through_a_name(x):
    say = print
    say("value", x)
    return x


def int_with_a_base(s):
    f = int
    return f(s, base=2) + int(s, base=8)


@pytest.mark.parametrize(
    "fn, args",
    [
        (sum_range_through_a_name, (0,)),
        (sum_range_through_a_name, (5,)),
        (builtins_passed_as_arguments, (-3,)),
        (builtins_passed_as_arguments, (2.5,)),
        (len_through_a_name, ([1, 2],)),
        (enumerate_and_zip_through_names, ([1, 2, 3], [4, 5, 6])),
        (print_through_a_name, (7,)),
        (int_with_a_base, ("101",)),
    ],
)
def test_builtin_values_behave_as_in_python(fn, args):
    assert_equivalent(fn, *args)


def test_range_bound_to_a_name_over_a_graph_tensor_is_one_graph_loop():
    traced = autograph.function(sum_range_through_a_name)
    assert traced(rt.constant(5)).numpy() == 10
    assert traced(rt.constant(0)).numpy() == 0
    graph = traced.get_concrete_function(rt.constant(1)).graph
    assert [op.type for op in graph.get_operations()].count("While") == 1


def test_builtins_passed_as_arguments_work_on_graph_tensors():
    assert_graph_equivalent(builtins_passed_as_arguments, rt.constant(-3))
    assert_graph_equivalent(builtins_passed_as_arguments, rt.constant(2.5))


def test_len_through_a_name_of_a_graph_tensor_of_unknown_length():
    traced = autograph.function(
        len_through_a_name, input_signature=[rt.TensorSpec((None,), rt.int32)]
    )
    assert traced(rt.constant([1, 2, 3])).numpy() == 3


def test_print_through_a_name_prints_while_tracing(capsys):
    traced = autograph.function(print_through_a_name)
    traced(rt.constant(1))
    assert "value" in capsys.readouterr().out


def test_converted_call_routes_builtins_to_their_operators():
    graph = rt.Graph()
    with graph.as_default():
        n = graph.placeholder(rt.int32, (), "n")
        assert isinstance(converted_call(builtins.range, n), rt.Tensor)
        assert converted_call(builtins.int, n).dtype is rt.int32
        assert converted_call(builtins.float, n).dtype is rt.float32
    assert converted_call(builtins.range, 3) == range(3)
    assert converted_call(len, np.zeros(4)) == 4


def test_enumerate_and_zip_operators_give_the_builtins_objects_on_python_values():
    # What converted code calls where a `for` iterates enumerate()/zip().
    from runtime.operators import enumerate_, zip_

    numbered = enumerate_(iter("abc"), start=1)
    assert type(numbered) is enumerate and next(numbered) == (1, "a")
    assert list(numbered) == [(2, "b"), (3, "c")]
    assert type(zip_([1, 2], "xy", range(5))) is zip
    for builtin, operator, args, kwargs in [
        (enumerate, enumerate_, (), {}),
        (enumerate, enumerate_, (5,), {}),
        (enumerate, enumerate_, ([1],), {"start": 1.5}),
        (zip, zip_, (1,), {}),
        (zip, zip_, ([1],), {"fill": 0}),
    ]:
        with pytest.raises(TypeError) as expected:
            builtin(*args, **kwargs)
        with pytest.raises(TypeError, match=re.escape(str(expected.value))):
            operator(*args, **kwargs)
    with pytest.raises(ValueError, match="argument 2 is shorter"):
        list(zip_([1, 2], [3], strict=True))


def test_int_of_a_graph_tensor_with_a_base_is_a_type_error_as_in_python():
    graph = rt.Graph()
    with graph.as_default():
        n = graph.placeholder(rt.int32, (), "n")
        with pytest.raises(TypeError, match="explicit base"):
            converted_call(builtins.int, n, 2)


def len_of_nothing():
    return len()


def len_through_a_name_of_nothing():
    f = len
    return f()


def float_of_two(x):
    return float(x, 2)


def float_of_nothing():
    f = float
    return f()


@pytest.mark.parametrize(
    "fn, args",
    [
        (len_of_nothing, ()),
        (len_through_a_name_of_nothing, ()),
        (float_of_two, ("1",)),
        (float_of_nothing, ()),
    ],
)
def test_wrong_arguments_raise_what_the_builtin_raises(fn, args):
    assert_equivalent(fn, *args)


def range_with_a_keyword(n):
    fn = range
    return list(fn(n, step=2))


def len_with_a_keyword(xs):
    return len(obj=xs)


@pytest.mark.parametrize("fn", [range_with_a_keyword, len_with_a_keyword])
def test_keyword_arguments_raise_what_the_builtin_raises(fn):
    assert_equivalent(fn, [1])
