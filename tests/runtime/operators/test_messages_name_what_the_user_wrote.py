"""Messages never name converted code's own variables (issue 10, item 7).

They say what the user wrote instead (the function's return value, the
loop's `break` condition), and a graph tensor that escapes the branch or loop
that made it is reported as that, with the line that made it.
"""

import numpy as np
import pytest

import autograph
import runtime as rt
from runtime.operators import verification

GENERATED = ("retval_", "do_return", "break_", "continue_")


def message_of(fn, *args):
    with pytest.raises((TypeError, ValueError)) as e:
        autograph.function(fn)(*args)
    text = "\n".join([str(e.value), *getattr(e.value, "__notes__", [])])
    for name in GENERATED:
        assert f"'{name}" not in text, text
    return text


@pytest.mark.parametrize(
    "name, expected",
    [
        ("retval_", "the function's return value"),
        ("retval__1", "the function's return value"),
        ("do_return", "whether the function has returned"),
        ("break_", "the loop's `break` condition"),
        ("break__2", "the loop's `break` condition"),
        ("continue_", "the loop's `continue` condition"),
        ("itr", "itr"),
        ("total", "total"),
        ("retval", "retval"),
        ("breaks", "breaks"),
    ],
)
def test_generated_names_are_labelled_by_what_they_stand_for(name, expected):
    assert verification.label(name) == expected
    assert verification.is_generated(name) is (name != expected)


def returns_int_or_float(n):
    for i in rt.range(n):
        if i > 5:
            return 1.5
        if i > 2:
            return i
    return 0


def test_a_return_value_changing_dtype_names_the_return_value():
    line = returns_int_or_float.__code__.co_firstlineno + 2
    assert message_of(returns_int_or_float, rt.constant(9)) == (
        "the function's return value has dtype float32 in the true branch but int32 "
        f"in the false branch of the graph `if` at {__file__}:{line}; cast one of "
        "them so they match"
    )


def returns_nothing_on_one_path(x):
    if x > 0:
        y = x * 2
        return y
    print("not positive")


def test_a_path_returning_nothing_names_the_function_and_the_branch():
    line = returns_nothing_on_one_path.__code__.co_firstlineno + 1
    assert message_of(returns_nothing_on_one_path, rt.constant(1)) == (
        "'returns_nothing_on_one_path' returns a value from the if branch of the "
        f"graph `if` at {__file__}:{line} but None from its else branch (that path "
        "has no `return`, or returns None); a graph `if` needs a value of the same "
        "kind from both branches: add a `return` of such a value on that path"
    )


def returns_a_pair_or_one(x):
    if x > 0:
        y = x + 1
        return y, y
    z = x - 1
    return z


def test_a_return_value_changing_structure_names_the_return_value():
    line = returns_a_pair_or_one.__code__.co_firstlineno + 1
    assert message_of(returns_a_pair_or_one, rt.constant(1)) == (
        "the function's return value is a tuple of 2 items in the true branch but a "
        f"tensor in the false branch in the graph `if` at {__file__}:{line}; both "
        "branches must give it the same structure"
    )


def breaks_on_a_tensor_in_a_python_loop(x):
    total = 0
    for v in [1, 2, 3]:
        if x > v:
            break
        total += v
    return total


def test_a_python_loop_with_a_tensor_break_lists_only_user_variables():
    code = breaks_on_a_tensor_in_a_python_loop.__code__
    at = f"{code.co_filename}:{code.co_firstlineno + 2}"
    assert message_of(breaks_on_a_tensor_in_a_python_loop, rt.constant(2)) == (
        f"this `for` loop at {at} iterates over a Python value, so it runs as Python "
        "(unrolled while tracing), but its `break` or `return` depends on a graph "
        "tensor (loop variables: 'total'); iterate over tensors (`for x in t`, "
        "`enumerate(t)`, `zip(t, u)`) or rt.range(n), to make it one graph loop"
    )


def dot_of_a_strict_zip(a, b):
    total = 0
    for x, y in zip(a, b, strict=True):
        total += x * y
    return total


def test_a_strict_zip_of_tensors_of_unequal_lengths_is_refused_at_its_loop():
    # Python raises ValueError where the shorter ends; a graph loop cannot
    # (JAX runs it as Python, unrolled: the builtin raises). Equal: one loop.
    code = dot_of_a_strict_zip.__code__
    at = f"{code.co_filename}:{code.co_firstlineno + 2}"
    assert message_of(
        dot_of_a_strict_zip, rt.constant([1, 2, 3]), rt.constant([4, 5])
    ) == (
        f"the `for` loop at {at} iterates over zip(..., strict=True) of tensors "
        "whose lengths may differ (3, 2 rows): Python raises ValueError where the "
        "shortest ends, which a graph loop cannot; drop strict=True (the loop "
        "stops at the shortest) or give the tensors equal static lengths"
    )
    total = autograph.function(dot_of_a_strict_zip)(
        rt.constant([1, 2]), rt.constant([3, 4])
    )
    assert int(total.numpy()) == 11


def one_variable_holding_a_pair(x):
    pair = (x, x)
    if x > 0:
        pair = x
    return pair


def test_one_variable_holding_a_structure_is_named():
    line = one_variable_holding_a_pair.__code__.co_firstlineno + 2
    assert message_of(one_variable_holding_a_pair, rt.constant(1)) == (
        "'pair' is a tensor in the true branch but a tuple of 2 items in the false "
        f"branch in the graph `if` at {__file__}:{line}; both branches must give it "
        "the same structure"
    )


def loop_with_a_break_changing_dtype(n):
    total = rt.constant(0)  # (a Python 0 would be widened to a float)
    for i in rt.range(n):
        if i > 3:
            break
        total = total + 0.5
    return total


def loop_with_a_break_changing_shape(n):
    x = rt.constant([1])
    for i in rt.range(n):
        if i > 3:
            break
        x = rt.concat([x, x], axis=0)
    return x


def test_the_loop_note_describes_generated_state():
    text = message_of(loop_with_a_break_changing_dtype, rt.constant(5))
    assert text.startswith("Add: cannot use 0.5 with a int32 operand")
    assert text.endswith(
        "while tracing a graph loop whose variables are the loop's `break` condition "
        "(bool), 'total' (int32) at the start; a variable keeps its dtype in a graph "
        "loop, so give it the right one before the loop (e.g. 0.0 instead of 0)"
    )


def int32_total_of_an_int64_range(n):
    total = rt.constant(0)
    for i in rt.range(n):
        total = total + i
    return total


def float32_total_of_float64_values(xs):
    total = rt.constant(0.0)
    for x in xs:
        total = total + x
    return total


@pytest.mark.parametrize(
    ("fn", "arg", "instead"),
    [
        # (It said "0.0 instead of 0", which clashes too.)
        (
            int32_total_of_an_int64_range,
            rt.constant(3, rt.int64),
            "rt.constant(0, rt.int64) instead of 0",
        ),
        (
            float32_total_of_float64_values,
            rt.constant([1.0], rt.float64),
            "rt.constant(0.0, rt.float64) instead of 0.0",
        ),
    ],
)
def test_the_loop_note_advises_the_wider_type_where_two_widths_clash(fn, arg, instead):
    text = message_of(fn, arg)
    assert text.endswith(
        "at the start; a variable keeps its dtype in a graph loop, so give it the "
        f"right one before the loop (e.g. {instead})"
    ), text


def test_the_loop_note_gives_dtype_advice_only_for_dtype_errors():
    text = message_of(loop_with_a_break_changing_shape, rt.constant(5))
    assert "loop variable 'x' changed shape from (1,) to (None,)" in text
    assert "set_loop_options(shape_invariants=[(x, (None,))])" in text
    assert text.endswith(
        "while tracing a graph loop whose variables are the loop's `break` condition "
        "(bool), 'x' (int32) at the start"
    )


def _recorder():
    # A list only a closure holds: no variable of the caller reaches it, so
    # a graph statement cannot carry what is appended to it.
    saved = []

    def record(value):
        saved.append(value)
        return saved

    return record


def keeps_a_branch_tensor_in_a_list(x):
    record = _recorder()
    if x > 0:
        doubled = x * 2
        record(doubled)
    else:
        record(x)
    return record(x)[0] + 1


def test_a_tensor_escaping_a_graph_branch_is_reported_with_its_line():
    text = message_of(keeps_a_branch_tensor_in_a_list, rt.constant(1))
    assert text.startswith("the graph tensor 'mul:0' (made at ")
    assert "test_messages_name_what_the_user_wrote.py:" in text
    assert (
        ": `doubled = x * 2`) escaped from the true branch of the graph `if` 'cond', "
        "which has finished: a tensor made inside a graph branch or loop can leave it "
        "only as a variable assigned there and used after it, not stored in a list, "
        "dict or attribute that outlives it; assign it to a variable instead"
    ) in text


def keeps_a_loop_tensor_through_a_helper(n):
    keep = _recorder()
    i = 0
    while i < n:
        keep(i * 3)
        i += 1
    return keep(0)[-2] + 1


def test_a_tensor_escaping_a_graph_loop_is_reported_with_its_line():
    text = message_of(keeps_a_loop_tensor_through_a_helper, rt.constant(3))
    assert ": `keep(i * 3)`) escaped from the body of the graph loop 'while'" in text


def conditional_of_two_dtypes(x):
    return x if x > 0 else x > 1


def or_of_two_dtypes(x):
    return (x > 0) or x


def return_after_a_loop_of_another_dtype(n):
    for i in rt.range(n):
        if i > 2:
            return i > 1
    return 3


@pytest.mark.parametrize(
    "fn, what",
    [
        (conditional_of_two_dtypes, "the value of the `if`/`else` has dtype int32"),
        (or_of_two_dtypes, "the value of the `or` has dtype bool"),
        (return_after_a_loop_of_another_dtype, "the function's return value has"),
    ],
)
def test_expressions_on_graph_tensors_name_their_value(fn, what):
    assert message_of(fn, rt.constant(5)).startswith(what)


def user_variable_named_itr(x):
    itr = 0
    for v in [1, 2, 3]:
        if x > v:
            break
        itr += v
    return itr


def test_a_user_variable_named_like_the_for_item_is_listed():
    assert "(loop variables: 'itr')" in message_of(
        user_variable_named_itr, rt.constant(2)
    )


def deletes_a_loop_variable(n):
    y = 1
    i = 0
    while i < n:
        i += 1
        if y > 0:
            i += 0
        del y
    return i


def test_a_loop_variable_deleted_in_the_loop_is_called_unbound():
    assert message_of(deletes_a_loop_variable, rt.constant(3)).startswith(
        "loop variable 'y' is unbound (deleted with `del`, or assigned on some paths "
        "only) after one iteration, which cannot be a graph loop variable\n"
    )


def test_the_shape_error_suggests_the_invariant_for_an_item_of_a_dict():
    graph = rt.Graph()
    with graph.as_default():
        x = graph.placeholder(rt.int32, (1,), "x")
        with pytest.raises(ValueError) as e:
            rt.while_loop(
                lambda d: d["k"][0] < 3,
                lambda d: {"k": rt.concat([d["k"], d["k"]], 0)},
                [{"k": x}],
                names=["d"],
            )
    assert str(e.value).startswith(
        "loop variable d['k'] changed shape from (1,) to (2,) after one iteration"
    )
    assert "set_loop_options(shape_invariants=[(d['k'], (None,))])" in str(e.value)


def replaces_a_function_in_a_loop(n):
    f = lambda: 0
    for i in range(n):
        f = lambda: i * 10  # noqa: B023 - refused: a new function each time
    return f()


def test_a_function_replaced_in_a_graph_loop_names_the_loop_and_function():
    text = message_of(replaces_a_function_in_a_loop, rt.constant(3))
    line = replaces_a_function_in_a_loop.__code__.co_firstlineno + 2
    assert text.startswith(
        f"loop variable 'f' is a function, which cannot be a graph loop variable "
        f"(the graph loop at {__file__}:{line} in 'replaces_a_function_in_a_loop'"
    ), text


def appends_a_function_in_a_loop(xs):
    fns = []
    for x in xs:
        fns.append(lambda: x + x)  # noqa: B023 - refused: not a tensor
    return len(fns)


def appends_to_a_list_of_functions_in_a_loop(n):
    fns = [lambda: 0]
    i = 0
    while i < n:
        fns.append(rt.constant(1))
        i += 1
    return len(fns)


@pytest.mark.parametrize(
    ("fn", "arg", "offset"),
    [
        (appends_a_function_in_a_loop, rt.constant([1, 2]), 2),
        (appends_to_a_list_of_functions_in_a_loop, rt.constant(2), 3),
    ],
)
def test_a_function_in_a_list_a_graph_loop_appends_to_names_the_list_and_loop(
    fn, arg, offset
):
    # It said "cannot convert function <function ...loop_body.<locals>.
    # <lambda>> to a tensor": no list, no line, a generated name.
    text = message_of(fn, arg)
    line = fn.__code__.co_firstlineno + offset
    assert text.startswith(
        f"list 'fns' holds a function, and the graph loop at {__file__}:{line} "
        f"in {fn.__name__!r} appends to it: a graph loop carries a list it appends "
        "to as a TensorArray, whose items are tensors; append only tensors to it "
        "there, or build it in a Python loop"
    ), text
    assert "loop_body" not in text, text


def appends_a_function_in_a_loop_of_traced_length(n):
    fns = []
    for i in range(n):
        fns.append(lambda: i)  # noqa: B023 - refused: not an array
    return len(fns)


def test_a_function_appended_in_a_jax_loop_names_the_list_and_loop():
    jax = pytest.importorskip("jax")
    # (Over an array's rows, of a static number, JAX runs Python's loop.)
    arg = jax.numpy.array([1, 2])
    ran = jax.jit(autograph.to_graph(appends_a_function_in_a_loop))(arg)
    assert ran == appends_a_function_in_a_loop([1, 2]) == 2
    fn = appends_a_function_in_a_loop_of_traced_length
    with pytest.raises(TypeError) as e:
        jax.jit(autograph.to_graph(fn))(jax.numpy.array(2))
    line = fn.__code__.co_firstlineno + 2
    assert str(e.value).startswith(
        f"'fns' changes from a list of 0 items to a list of 1 item in the JAX loop "
        f"at {__file__}:{line}"
    ), str(e.value)


def returns_int64_or_int32_in_a_loop(n):
    fuel = 3
    while True:
        fuel -= 1
        if fuel < 0:
            return np.array([1, 2], dtype=np.int64)
        if n > 2:
            return rt.stack([n, n])


def test_a_return_value_changing_dtype_in_a_loop_blames_no_counter():
    # The loop carries `fuel`, a Python int (int32), and the body's `if`
    # refuses the return value's dtypes (int64, int32): the message blamed
    # `fuel` ("a Python number ... its body mixes it with a value of another
    # dtype"), which has nothing to do with it.
    message = message_of(returns_int64_or_int32_in_a_loop, rt.constant(3))
    assert "a Python number before the graph loop" not in message
    line = returns_int64_or_int32_in_a_loop.__code__.co_firstlineno + 4
    assert message.startswith(
        "the function's return value has dtype int64 in the true branch but "
        f"int32 in the false branch of the graph `if` at {__file__}:{line}; cast"
    )


def returns_a_growing_history(n):
    history = []
    for i in rt.range(n):
        history.append(i)
        if i > 2:
            return rt.stack(history)
    return rt.stack(history)


def test_a_return_value_changing_shape_in_a_loop_says_what_to_write():
    # The advice was set_loop_options(shape_invariants=[(variable, ...)]),
    # which cannot name the return value.
    message = message_of(returns_a_growing_history, rt.constant(5))
    assert message.startswith("the function's return value changed shape from")
    assert "a `return` inside a graph loop gives a value the loop carries" in message
    assert "`break`, and return it after the loop" in message


def returns_none_beside_a_value_in_a_loop(n):
    x = n
    while x < 5:
        x = x + 1
        if x == 2:
            return {"value": x, "aux": None}
    return {"value": x, "aux": None}


def test_a_none_returned_inside_a_graph_loop_says_what_to_write():
    # It crashed with "cannot convert None to a tensor" (no name, no line).
    message = message_of(returns_none_beside_a_value_in_a_loop, rt.constant(0))
    assert message.startswith(
        "the function's return value['aux'] is None where a `return` inside a "
        "graph loop gives it"
    )
    assert "return a tensor there" in message
