"""A graph `if` carries only what is used after it; empty tensors convert.

Issue 10, item 6: a variable changed in a graph `if` but not used after it is
no error; a `return` in a Python-valued `if` nested in a graph `if` that never
runs is no error; `rt.constant([])` takes any dtype; a `for` over an empty
tensor traces its body without indexing an item.
"""

import numpy as np
import pytest

import autograph
import runtime as rt
from tests.equivalence import assert_graph_equivalent


def changed_in_one_branch_and_unused(x):
    total = x
    if x > 0:
        total += 1
    return x


def changed_in_the_if_branch_of_a_loop_else(a, b):
    x = 3 % b
    z = a
    while x < a <= x:
        if x > 10:
            break
        x = z
    else:
        z += 1
    return a


def none_in_one_branch_and_unused(x):
    seen = None
    if x > 0:
        seen = x * 2  # noqa: F841 - unused on purpose
    return x + 1


def print_result_in_a_branch_and_unused(x):
    note = 0
    if x > 0:
        note = print("positive")  # noqa: F841 - unused on purpose
    return x


def changed_in_a_graph_if_inside_a_graph_loop_and_unused(n):
    total = 0
    for i in rt.range(n):
        flag = i
        if i % 2 == 0:
            flag = flag + 10
        total += i
    return total


def return_in_an_if_false_inside_a_graph_if(x):
    if x > 0:
        if False:
            return 0
        x = x + 1
    return x


def return_in_an_if_false_only(x):
    if x > 0:  # noqa: SIM102 - two statements on purpose
        if False:
            return 0
    return x


def return_in_a_nested_graph_if(x):
    if x > 0:
        if x > 5:
            return 0
        x = x + 1
    return x


@pytest.mark.parametrize(
    "fn",
    [
        changed_in_one_branch_and_unused,
        none_in_one_branch_and_unused,
        print_result_in_a_branch_and_unused,
        changed_in_a_graph_if_inside_a_graph_loop_and_unused,
        return_in_an_if_false_inside_a_graph_if,
        return_in_an_if_false_only,
        return_in_a_nested_graph_if,
    ],
)
@pytest.mark.parametrize("x", [-2, 3, 7])
def test_graph_if_with_state_not_used_after_it_matches_python(fn, x):
    assert_graph_equivalent(fn, rt.constant(x))


@pytest.mark.parametrize("a, b", [(2, 3), (5, 1)])
def test_loop_else_if_changing_a_variable_not_used_after_it(a, b):
    assert_graph_equivalent(
        changed_in_the_if_branch_of_a_loop_else, rt.constant(a), rt.constant(b)
    )


def test_a_flag_neither_branch_sets_stays_a_python_bool():
    graph = rt.Graph()
    with graph.as_default():
        pred = graph.placeholder(rt.bool, (), "pred")
        flag, value = rt.cond(pred, lambda: (False, 1), lambda: (False, 2))
    assert flag is False
    assert isinstance(value, rt.Tensor)


@pytest.mark.parametrize(
    "value, dtype, shape",
    [
        ([], rt.int32, (0,)),
        ([], rt.bool, (0,)),
        ([], rt.string, (0,)),
        ([[], []], None, (2, 0)),
        ([[], []], rt.int64, (2, 0)),
    ],
)
def test_empty_lists_become_empty_tensors_of_any_dtype(value, dtype, shape):
    t = rt.constant(value, dtype=dtype)
    assert t.shape == shape
    assert t.dtype is (dtype or rt.float32)
    graph = rt.Graph()
    with graph.as_default():
        assert rt.constant(value, dtype=dtype).shape == shape


def first_positive(xs):
    for x in xs:
        if x > 0:
            return x
    return -1


@pytest.mark.parametrize("items", [[], [0, 3, 4], [-1]])
def test_for_with_a_return_over_a_tensor_that_may_be_empty(items):
    xs = rt.constant(np.array(items, np.int32))
    assert autograph.function(first_positive)(xs).numpy() == first_positive(items)


def test_for_with_a_return_over_an_empty_tensor_of_unknown_length():
    traced = autograph.function(
        first_positive, input_signature=[rt.TensorSpec((None,), rt.int32)]
    )
    assert traced(rt.constant(np.zeros(0, np.int32))).numpy() == -1
    assert traced(rt.constant([0, 2])).numpy() == 2
