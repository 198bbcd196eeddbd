"""Places: items, attributes and cells that converted statements carry."""

import re
import types

import pytest

import autograph
import runtime as rt
from runtime.operators import places
from runtime.operators.variables import Undefined

# -- the places themselves ----------------------------------------------------


def test_an_item_reads_writes_and_empties_its_key():
    d = {"a": 1}
    p = places.item("d['a']", d, "a")
    assert (p.get(), p.name) == (1, "d['a']")
    p.set(2)
    assert d == {"a": 2}
    p.set(p.undefined)
    assert d == {} and p.get() is p.undefined


def test_an_attribute_reads_writes_and_deletes_itself():
    box = types.SimpleNamespace(total=1)
    p = places.attr("box.total", box, "total")
    p.set(5)
    assert box.total == 5 and p.get() == 5
    p.set(Undefined("box.total"))
    assert not hasattr(box, "total") and p.get() is p.undefined


def test_a_nested_item_reads_its_container_when_it_is_read():
    x = {"a": {"b": 1}}
    p = places.item("x['a']['b']", places.item("x['a']", x, "a"), "b")
    x["a"] = {"b": 7}  # the container changes after the place was made
    assert p.get() == 7


def test_a_var_is_the_cell_a_closure_reads():
    x = 1
    p = places.var(lambda: x)
    assert p.name == "x" and p.get() == 1
    p.set(3)
    assert x == 3
    p.set(p.undefined)
    with pytest.raises(NameError):
        x  # noqa: B018 - reading the emptied cell


COUNTER = 0


def test_a_var_of_a_global_name_is_the_module_entry():
    p = places.var(lambda: COUNTER)
    assert p.name == "COUNTER"
    p.set(4)
    assert COUNTER == 4
    p.set(0)


# -- places carried by graph ops ------------------------------------------------


def one_branch_item(a):
    x = {"a": 1}
    if a > 0:
        x["b"] = a
    return x["a"]


def test_an_item_set_in_one_branch_of_a_graph_if_is_a_value_error_naming_it():
    line = one_branch_item.__code__.co_firstlineno + 2
    message = (
        "x['b'] is assigned in the if branch of the graph `if` at "
        f"{__file__}:{line} in 'one_branch_item' but not when the condition is "
        "false (the `if` has no else), so whether it exists after the `if` would "
        "depend on a graph value; assign it before the `if` too, or in an else branch"
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        autograph.function(one_branch_item)(rt.constant(1))


def item_changes_dtype(n):
    d = {"a": rt.constant(0)}  # (a Python 0 is widened, as Python gives)
    for i in rt.range(n):
        d["a"] = rt.cast(i, rt.float32)
    return d["a"]


def test_an_item_changing_dtype_in_a_graph_loop_is_named_as_written():
    message = (
        "loop variable d['a'] changed dtype from int32 to float32 after one "
        "iteration; cast it before the loop"
    )
    with pytest.raises(TypeError, match=re.escape(message)):
        autograph.function(item_changes_dtype)(rt.constant(3))


SHARED = {"k": 0}


def failing_branch(a):
    if a > 0:
        SHARED["k"] = rt.constant("not a number")
    return SHARED["k"]


def test_a_failed_graph_if_leaves_the_places_as_they_were():
    with pytest.raises(TypeError, match=re.escape("SHARED['k'] has dtype string")):
        autograph.function(failing_branch)(rt.constant(1))
    assert SHARED == {"k": 0}  # no tensor of the abandoned graph stays behind


def fibonacci_pair(n):
    pair = [0, 1]
    for _ in rt.range(n):
        pair = [pair[1], pair[0] + pair[1]]
    return pair[0]


def doubled(n):
    out = []
    for i in rt.range(n):
        out.append(i * 2)
    return out.stack()


def test_a_list_a_graph_loop_reassigns_keeps_its_structure():
    f = autograph.function(fibonacci_pair)
    assert f(rt.constant(6)).numpy() == 8
    graph = f.get_concrete_function(rt.constant(6)).graph
    assert not any("TensorArray" in op.type for op in graph.get_operations())


def test_a_list_a_graph_loop_appends_to_becomes_a_tensor_array():
    f = autograph.function(doubled)
    assert f(rt.constant(3)).numpy().tolist() == [0, 2, 4]
    graph = f.get_concrete_function(rt.constant(3)).graph
    assert any("TensorArray" in op.type for op in graph.get_operations())


def dict_state(n):
    s = {"a": 0, "b": 1.0}
    for i in rt.range(n):
        s = {"a": s["a"] + i, "b": s["b"] * 2.0}
    return s["a"], s["b"]


def test_a_dict_carried_by_a_graph_loop_keeps_its_keys():
    a, b = autograph.function(dict_state)(rt.constant(4))
    assert (a.numpy(), b.numpy()) == (6, 16.0)


def keyed_by_the_loop(n):
    d = {}
    for i in rt.range(n):
        d[i] = i
    return len(d)


def fresh_dict_each_iteration(n):
    total = 0
    for i in rt.range(n):
        tmp = {}
        tmp["a"] = i
        total += tmp["a"]
    return total


def test_an_item_a_graph_loop_cannot_carry_is_refused_naming_it():
    message = (
        "d[i] is assigned inside a graph `if` or loop with a key that changes there"
    )
    with pytest.raises(TypeError, match=re.escape(message)):
        autograph.function(keyed_by_the_loop)(rt.constant(3))
    # Plain Python, as written: the eager items of rt.range are tensors,
    # which (as in TensorFlow 2) are no dict keys.
    with pytest.raises(TypeError, match=r"Tensor is unhashable.*tensor\.ref\(\)"):
        autograph.to_graph(keyed_by_the_loop)(3)


def test_an_item_of_an_object_the_body_rebinds_travels_with_the_name():
    f = autograph.function(fresh_dict_each_iteration)
    assert f(rt.constant(4)).numpy() == 6


def bump_in_while_test(a):
    z = a

    def bump():
        nonlocal z
        z = z + 1
        return z > 2

    steps = 0
    while not bump():
        steps += 1
    return steps, z


def test_a_while_test_that_changes_a_cell_runs_once_per_iteration():
    # The test runs once in Python to pick the graph loop; that evaluation's
    # write is undone, so the graph loop's own test is the first.
    for a in (-1, 1, 5):
        steps, z = autograph.function(bump_in_while_test)(rt.constant(a))
        assert (steps.numpy(), z.numpy()) == bump_in_while_test(a)


def returns_the_dict_the_other_branch_changes(a):
    d = {"a": 0}
    if d["a"] < a:
        return d["a"], d
    d["a"] += 1
    return d["a"], d


def test_a_branch_returns_its_containers_as_they_were_when_it_ended():
    for a in (1, -1):
        value, d = autograph.function(returns_the_dict_the_other_branch_changes)(
            rt.constant(a)
        )
        expected_value, expected_d = returns_the_dict_the_other_branch_changes(a)
        assert (value.numpy(), d["a"].numpy()) == (expected_value, expected_d["a"])
