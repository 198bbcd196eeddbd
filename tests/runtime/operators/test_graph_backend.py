"""Converted control flow on graph tensors builds graph ops (and clear errors)."""

import re

import numpy as np
import pytest

import autograph
import runtime as rt
from runtime import executor
from runtime.graph import Graph
from tests.equivalence import assert_graph_equivalent


def trace(f, *args):
    """Traces the converted `f` on placeholders like `args`; returns (run, graph)."""
    converted = autograph.to_graph(f)
    graph = Graph()
    with graph.as_default():
        inputs = [
            graph.placeholder(rt.convert_to_tensor(a).dtype, np.shape(a), f"arg{i}")
            for i, a in enumerate(args)
        ]
        out = converted(*inputs)
    outs = list(out) if isinstance(out, tuple) else [out]
    compiled = executor.compile(graph, inputs, outs)
    return (lambda *vals: compiled([np.asarray(v) for v in vals])), graph


def op_types(graph):
    return [op.type for op in graph.get_operations()]


def relu(x):
    if x > 0:
        y = x
    else:
        y = 0.0
    return y


def test_if_on_a_graph_tensor_is_one_cond_node():
    run, graph = trace(relu, np.float32(1))
    assert op_types(graph).count("If") == 1
    assert [op.name for op in graph.get_operations() if op.type == "If"] == ["cond"]
    assert run(np.float32(3))[0] == 3
    assert run(np.float32(-3))[0] == 0


def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def test_while_on_a_graph_tensor_is_one_while_node():
    run, graph = trace(collatz, np.int32(1))
    assert op_types(graph).count("While") == 1
    assert run(np.int32(27))[0] == 111


def sum_skip(n):
    total = 0
    for i in range(n):
        if i % 3 == 0:
            continue
        if i > 10:
            break
        total += i
    return total


def test_break_and_continue_work_in_a_graph_loop_over_builtin_range():
    run, graph = trace(sum_skip, np.int32(1))
    assert op_types(graph).count("While") == 1
    assert run(np.int32(20))[0] == sum_skip(20)
    assert run(np.int32(5))[0] == sum_skip(5)


def first_negative(xs):
    i = 0
    for x in xs:
        if x < 0:
            return i
        i += 1
    return -1


def test_early_return_inside_a_graph_loop():
    run, _ = trace(first_negative, np.array([1, 2], np.int32))
    assert run(np.array([1, 2], np.int32))[0] == -1
    assert run(np.array([1, -2], np.int32))[0] == 1


def squares(n):
    out = []
    for i in rt.range(n):
        out.append(i * i)
    return rt.stack(out)


def test_a_list_appended_in_a_graph_loop_becomes_a_tensor_array():
    run, _ = trace(squares, np.int32(1))
    np.testing.assert_array_equal(run(np.int32(4))[0], [0, 1, 4, 9])


def in_range(x):
    return x > 0 and x < 10


def test_and_is_lazy_in_a_graph():
    run, graph = trace(in_range, np.int32(1))
    assert "If" in op_types(graph)
    assert run(np.int32(5))[0] and not run(np.int32(50))[0]


def ternary(x):
    return x * 2 if x > 0 else -x


def test_conditional_expression_is_a_cond():
    run, _ = trace(ternary, np.int32(1))
    assert run(np.int32(-4))[0] == 4 and run(np.int32(3))[0] == 6


def one_branch(x):
    if x > 0:
        y = x
    return y


def test_name_defined_in_one_branch_only_is_a_value_error_naming_it():
    # (It said "must also be defined in the else branch", with no line, of
    # an `if` with no else.)
    line = one_branch.__code__.co_firstlineno + 1
    message = (
        rf"^'y' is assigned in the if branch of the graph `if` at \S+:{line} in "
        r"'one_branch' but not when the condition is false \(the `if` has no "
        r"else\), and it is used after the `if`; assign it before the `if` too, "
        r"or in an else branch$"
    )
    with pytest.raises(ValueError, match=message):
        trace(one_branch, np.int32(1))


def used_after(n):
    for i in rt.range(n):
        last = i * 2
    return last


def test_name_first_assigned_in_a_graph_loop_is_carried_from_its_first_assignment():
    run, _ = trace(used_after, np.int32(1))
    assert run(np.int32(3))[0] == 4 and run(np.int32(1))[0] == 0


def test_name_no_iteration_assigned_raises_when_read_naming_it_and_the_loop():
    run, _ = trace(used_after, np.int32(1))
    line = used_after.__code__.co_firstlineno + 1
    message = (
        f"'last' is read after the graph loop at {__file__}:{line}, but no "
        "iteration has assigned it (Python: UnboundLocalError); give 'last' a "
        "value before the loop"
    )
    with pytest.raises(rt.errors.InvalidArgumentError, match=re.escape(message)):
        run(np.int32(0))


def for_target_after(n):
    for i in rt.range(n):
        pass
    return i


def unread_after(n):
    total = 0
    for i in rt.range(n):
        step = i * 2
        total += step
    return total


def read_in_a_later_iteration(n):
    total = 0
    for i in rt.range(n):
        if i > 0:
            total += prev * 10  # noqa: F821 - assigned by an earlier iteration
        prev = i  # noqa: F841 - read by the next iteration
    return total


def first_assigned_in_while(n):
    i = 0
    while i < n:
        square = i * i
        i += 1
    return square


def bound_by_break_or_else(n):
    # Python knows `w` is bound after the loop (by the break or the else);
    # the graph knows it only when it runs: reads are checked, never fail.
    for i in rt.range(n):
        if (w := i) > 1:
            break
    else:
        w = -1
    return w + 1


def born_in_two_loops(n):
    for i in rt.range(n):
        w = i
    for j in rt.range(n - 2):
        w = w * 10  # the first loop assigned it (n > 0)
    return w


def born_in_an_inner_loop(n):
    total = 0
    for i in rt.range(n):
        for j in rt.range(i):
            w = j
        if i > 1:
            total += w  # the inner loop ran (i > 1)
    return total


def read_in_code_python_never_runs(n):
    x = 0
    for i in rt.range(n):
        w = i
        return w
    else:
        return -1
    x += w  # dead in Python, traced in a graph branch
    return x


@pytest.mark.parametrize(
    "f, n, expected",
    [
        (bound_by_break_or_else, 0, 0),
        (bound_by_break_or_else, 1, 0),
        (bound_by_break_or_else, 5, 3),
        (born_in_two_loops, 1, 0),
        (born_in_two_loops, 4, 300),
        (born_in_an_inner_loop, 4, 3),
        (read_in_code_python_never_runs, 0, -1),
        (read_in_code_python_never_runs, 3, 0),
        (for_target_after, 3, 2),
        (unread_after, 0, 0),
        (unread_after, 3, 6),
        (read_in_a_later_iteration, 0, 0),
        (read_in_a_later_iteration, 3, 10),
        (first_assigned_in_while, 3, 4),
    ],
)
def test_names_born_in_graph_loops_compute_what_python_does(f, n, expected):
    assert f(n) == expected  # the Python oracle
    run, _ = trace(f, np.int32(1))
    assert run(np.int32(n))[0] == expected


@pytest.mark.parametrize("f", [for_target_after, first_assigned_in_while])
def test_born_name_read_after_zero_iterations_raises_when_the_graph_runs(f):
    run, _ = trace(f, np.int32(1))
    with pytest.raises(rt.errors.InvalidArgumentError, match="no iteration has"):
        run(np.int32(0))


def test_a_second_graph_loop_keeps_an_earlier_loops_unbound_name_checked():
    run, _ = trace(born_in_two_loops, np.int32(1))
    with pytest.raises(rt.errors.InvalidArgumentError, match="'w' is read after"):
        run(np.int32(0))


def changes_dtype(n):
    x = rt.constant(0)  # (a Python 0 would be widened, as Python does)
    for i in rt.range(n):
        x = rt.cast(x, rt.float32)
    return x


def test_loop_variable_changing_dtype_is_a_type_error_naming_it():
    with pytest.raises(TypeError, match="'x'") as info:
        trace(changes_dtype, np.int32(1))
    assert "int32" in str(info.value) and "float32" in str(info.value)


def python_loop_tensor_return(xs):
    for i in range(3):
        if xs[i] < 0:
            return i
    return -1


def test_tensor_return_in_a_python_range_loop_continues_as_a_graph_loop():
    run, graph = trace(python_loop_tensor_return, np.array([1, 2, 3], np.int32))
    assert "While" in op_types(graph)
    for xs, expected in (([1, -2, 3], 1), ([-1, 2, 3], 0), ([1, 2, 3], -1)):
        assert run(np.array(xs, np.int32))[0] == expected


def python_list_loop_tensor_return(xs):
    for i in [0, 1, 2]:
        if xs[i] < 0:
            return i
    return -1


def test_tensor_return_in_a_python_list_loop_is_a_type_error_with_the_fix():
    with pytest.raises(
        TypeError, match=r"iterate over tensors \(.*\) or rt.range\(n\)"
    ):
        trace(python_list_loop_tensor_return, np.array([1, 2, 3], np.int32))


def python_while_tensor_break(n):
    i = 0
    total = 0
    while True:
        total += i
        if i >= n:
            break
        i += 1
    return total


def test_a_python_while_whose_condition_becomes_a_tensor_continues_as_a_graph_loop():
    run, graph = trace(python_while_tensor_break, np.int32(1))
    assert "While" in op_types(graph)
    assert run(np.int32(4))[0] == 10 and run(np.int32(0))[0] == 0


def positive(x):
    assert x > 0, "x must be positive"
    return x


def test_assert_on_a_graph_tensor_is_checked_when_the_graph_runs():
    run, _ = trace(positive, np.int32(1))
    assert run(np.int32(2))[0] == 2
    with pytest.raises(rt.errors.InvalidArgumentError, match="x must be positive"):
        run(np.int32(-2))


def shout(x):
    if x > 0:
        print("traced", x)
        rt.print("positive", x)
    return x


def test_print_runs_while_tracing_and_rt_print_every_run(capsys):
    run, _ = trace(shout, np.int32(1))
    assert capsys.readouterr().out.startswith("traced <rt.Tensor")
    run(np.int32(3))
    run(np.int32(-3))
    run(np.int32(4))
    assert capsys.readouterr().out == "positive 3\npositive 4\n"


def python_if(x, flag):
    if flag:
        x = x + 1
    return x


def test_a_python_condition_leaves_no_cond_node():
    converted = autograph.to_graph(python_if)
    graph = Graph()
    with graph.as_default():
        x = graph.placeholder(rt.int32, (), "x")
        converted(x, True)
    assert "If" not in op_types(graph)


def returns_from_a_graph_while(n):
    i = 0
    while i < n:
        if i > 2:
            return i * 10
        i += 1
    return -1


def test_a_return_in_a_graph_while_learns_its_type_from_a_traced_body():
    # The body is traced on tensors to learn the return value's type: on the
    # Python values before the loop (i = 0), `i > 2` would take one branch.
    run, _ = trace(returns_from_a_graph_while, np.int32(1))
    assert run(np.int32(5))[0] == 30 and run(np.int32(2))[0] == -1


def return_never_traced_in_while(n):
    i = 0
    while i < n:
        if 2.0 > 1.0:  # a Python condition: the return below never runs
            i += 1
            continue
        else:
            return i * 100
    return i


def return_never_traced_in_for(n):
    total = 0
    for i in rt.range(n):
        if True:
            total += i
        else:
            return -1
    return total


@pytest.mark.parametrize(
    "f, n, expected",
    [(return_never_traced_in_while, 4, 4), (return_never_traced_in_for, 4, 6)],
)
def test_a_return_no_traced_path_takes_stays_out_of_the_graph_loop(f, n, expected):
    run, _ = trace(f, np.int32(1))
    assert run(np.int32(n))[0] == expected == f(n)


def counts_variable_updates(n, v):
    k = 0
    while v.assign_add(1) < n:
        k += 1
    return k


def test_a_graph_while_test_that_updates_a_variable_runs_once_per_iteration():
    v = rt.Variable(0)
    f = autograph.function(counts_variable_updates)
    assert f(rt.constant(3), v).numpy() == 2 and v.numpy() == 3


def chain_with_a_computed_middle(a, b):
    if 0 < (a + b) <= a:
        return 1
    return 2


@pytest.mark.parametrize("a, b", [(3, -1), (1, 1), (-1, 2)])
def test_a_comparison_chain_with_a_computed_operand_is_graph_logic(a, b):
    run, _ = trace(chain_with_a_computed_middle, np.int32(1), np.int32(1))
    assert run(np.int32(a), np.int32(b))[0] == chain_with_a_computed_middle(a, b)


def chain_logging_its_operands(log):
    def v(k):
        log.append(k)
        return k

    return v(1) < v(2) < v(0) < v(5)


def test_a_comparison_chain_evaluates_each_operand_once_and_stops_early():
    from tests.equivalence import assert_equivalent

    assert_equivalent(chain_logging_its_operands, [])


def return_in_a_loop_no_trace_takes_then_more_code(a):
    x = 0
    if a < 0:
        for x in range(a, 0):
            if 0 == 0:  # a Python condition: the return below never runs
                break
            else:
                return a, x
        else:
            x = a
    x = x + 1
    return a, x


@pytest.mark.parametrize("a", [0, -2])
def test_a_tail_if_returning_a_value_no_trace_set_gives_the_other_branch(a):
    run, _ = trace(return_in_a_loop_no_trace_takes_then_more_code, np.int32(1))
    got = run(np.int32(a))
    assert tuple(int(v) for v in got) == return_in_a_loop_no_trace_takes_then_more_code(
        a
    )


def unbound_read_in_the_else_branch(a):
    x = 0
    if x <= a:
        x = 1
    else:
        for _ in range(x):  # a Python loop that runs zero times here
            w = a
        x = x + w
    return x


def test_an_error_python_raises_in_a_branch_is_raised_when_that_branch_runs():
    run, _ = trace(unbound_read_in_the_else_branch, np.int32(1))
    assert run(np.int32(3))[0] == 1  # the other branch traced, and never ran
    with pytest.raises(rt.errors.InvalidArgumentError) as info:
        run(np.int32(-1))
    assert str(info.value).startswith(
        "UnboundLocalError: cannot access local variable 'w' where "
        "it is not associated with a value (in the else branch of the graph `if` at "
    )


def born_behind_a_python_condition(n):
    total = 0
    for i in rt.range(n):
        if 2 < 1:  # a Python condition: never assigns
            late = i
        total += i
    return total, late


def test_a_loop_born_name_no_traced_path_assigns_stays_unbound():
    with pytest.raises(UnboundLocalError, match="'late'"):
        trace(born_behind_a_python_condition, np.int32(1))


def unbound_read_whose_value_is_dropped(a):
    x = 0
    while a < 0:
        late = a
        a += 1
    x = x + late  # raises in Python even though x is overwritten next
    x = a
    return x


def test_reading_a_loop_born_name_raises_even_when_its_value_is_unused():
    run, _ = trace(unbound_read_whose_value_is_dropped, np.int32(1))
    assert run(np.int32(-2))[0] == 0
    with pytest.raises(rt.errors.InvalidArgumentError, match="'late' is read after"):
        run(np.int32(3))


# -- exceptions raised on a traced path -------------------------------------


def raises_in_loop_body(n):
    total = 0
    for i in rt.range(n):
        total += 1
        raise KeyError("stop")
    return total


def raises_value_error_in_branch(x):
    if x > 2:
        raise ValueError("too big")
    return x


def test_a_raise_in_a_graph_loop_body_raises_only_when_an_iteration_runs():
    f = autograph.function(raises_in_loop_body)
    assert int(f(rt.constant(0))) == 0  # Python: 0, no iteration
    with pytest.raises(rt.errors.InvalidArgumentError, match="KeyError: 'stop'"):
        f(rt.constant(2))


def test_any_exception_the_users_branch_raises_raises_when_the_branch_runs():
    f = autograph.function(raises_value_error_in_branch)
    assert int(f(rt.constant(1))) == 1
    with pytest.raises(rt.errors.InvalidArgumentError, match="ValueError: too big"):
        f(rt.constant(3))


def caught_branch_raise(x):
    try:
        if x > 2:
            raise KeyError("big")
    except KeyError:
        x = -x
    return x


def caught_loop_raise(n):
    total = 0
    try:
        for i in rt.range(n):
            total += 1
            raise ValueError("stop")
    except Exception:  # also catches the refusal while tracing
        total = 100
    return total


def caught_then_raises_another(x):
    try:
        if x > 2:
            raise KeyError("big")
    except Exception:  # also catches the refusal while tracing
        raise ValueError("other") from None
    return x


def test_a_raise_a_try_around_a_graph_statement_would_catch_is_refused():
    with pytest.raises(TypeError, match=r"inside the `try` at .*a graph cannot catch"):
        autograph.function(caught_branch_raise)(rt.constant(3))
    with pytest.raises(TypeError, match="ValueError\\('stop'\\) is raised in the body"):
        autograph.function(caught_loop_raise)(rt.constant(3))
    # The refusal, not the error user code raised on catching it.
    with pytest.raises(TypeError, match=r"KeyError\('big'\) is raised in the if"):
        autograph.function(caught_then_raises_another)(rt.constant(3))


def uncaught_kind(x):
    try:
        if x > 2:
            raise ValueError("big")
    except KeyError:
        x = -x
    return x


def raise_in_a_with_block(x):
    with rt.name_scope("check"):
        if x > 2:
            raise ValueError("big")
    return x


@pytest.mark.parametrize("f", [uncaught_kind, raise_in_a_with_block])
def test_a_raise_no_handler_catches_still_becomes_an_assert(f):
    g = autograph.function(f)
    assert int(g(rt.constant(1))) == 1
    with pytest.raises(rt.errors.InvalidArgumentError, match="ValueError: big"):
        g(rt.constant(3))


def returns_only_where_no_trace_goes(n):
    for i in rt.range(n):
        try:
            pass
        except KeyError:
            return i
    d = {}
    return d["missing"]


def test_a_function_whose_traced_paths_all_raise_traces_and_raises_when_run():
    f = autograph.function(returns_only_where_no_trace_goes)
    with pytest.raises(rt.errors.InvalidArgumentError, match="KeyError: 'missing'"):
        f(rt.constant(2))


def born_in_a_loop_and_captured(n):
    def last():
        return w  # a closure: w lives in a cell

    for i in rt.range(n):
        w = i * 2
    return last() + w


def test_a_loop_born_name_in_a_cell_keeps_its_checked_placeholder():
    f = autograph.function(born_in_a_loop_and_captured)
    assert int(f(rt.constant(3))) == 8
    with pytest.raises(rt.errors.InvalidArgumentError, match="'w' is read after"):
        f(rt.constant(0))


def loop_born_read_in_a_try_that_returns_in_finally(n):
    x = 1
    try:
        for i in rt.range(n):
            w = i
        x = x + w
    finally:
        return x  # noqa: B012 - swallows the UnboundLocalError, as intended


def test_a_loop_born_read_a_try_would_handle_is_refused_while_tracing():
    f = autograph.function(loop_born_read_in_a_try_that_returns_in_finally)
    with pytest.raises(TypeError, match=r"'w' may be unbound .* a graph cannot catch"):
        f(rt.constant(3))


def item_changed_in_a_try_else_inside_a_loop(n):
    d = {"a": 0}
    for i in rt.range(n):
        try:
            pass
        except KeyError:
            pass
        else:
            if i >= 0:
                d["a"] += 1
    return d["a"]


def test_an_item_a_try_else_changes_in_a_graph_loop_is_carried():
    f = autograph.function(item_changed_in_a_try_else_inside_a_loop)
    assert [int(f(rt.constant(n))) for n in (0, 3)] == [0, 3]


# -- lists and dicts two names share --------------------------------------------


def returned_dict_then_updated(a, b):
    d = {"a": 0, "b": 0}
    try:
        if a > b:
            return a, d
    finally:
        d["b"] += 2  # Python's caller sees this: `d` is the object returned
    return b, d


def test_a_returned_dict_a_finally_block_updates_is_the_same_object():
    f = autograph.function(returned_dict_then_updated)
    value, d = f(rt.constant(3), rt.constant(2))
    assert (int(value), int(d["a"]), int(d["b"])) == (3, 0, 2)
    value, d = f(rt.constant(1), rt.constant(2))
    assert (int(value), int(d["b"])) == (2, 2)


def shared_in_one_branch(a):
    d = {"b": 0}
    e = {"b": 5}
    if a > 0:
        e = d
    d["b"] += 2
    return e["b"]


def shared_in_a_loop_body(n):
    d = {"b": 0}
    e = {"b": 5}
    for i in rt.range(n):
        e = d
    d["b"] += 2
    return e["b"]


def shared_before_a_loop(n):
    xs = [0]
    ys = xs
    i = 0
    while i < n:
        xs = [i]
        i += 1
    ys[0] += 5
    return xs[0]


def shared_with_the_return_value(a):
    xs = [0]
    ys = xs
    if a > 5:
        ys = [a]
    elif a < -5:
        return -1, xs  # the return value holds the list too
    ys[0] += 2
    return a, xs


@pytest.mark.parametrize(
    ("f", "where"),
    [
        (shared_in_one_branch, "'e' holds the same dict as 'd' in the if branch"),
        (shared_with_the_return_value, "'ys' holds the same list as 'xs' in the else"),
        (shared_in_a_loop_body, "'e' holds the same dict as 'd' in the body of"),
        (shared_before_a_loop, "'xs' holds the same list as 'ys' before a graph"),
    ],
)
def test_a_list_or_dict_two_names_share_on_one_path_only_is_refused(f, where):
    # After the statement one name would hold a copy: Python's later change
    # through the other name would not show in it (a silent wrong value).
    with pytest.raises(
        ValueError, match=re.escape(where) + ".*would (hold|work on) a copy"
    ):
        autograph.function(f)(rt.constant(3))


def own_lists_in_each_branch(a):
    xs = [0, 0]
    if a > 0:
        xs = [a, 1]
    else:
        xs = [1, a]
    xs[0] += 1
    return xs


def test_lists_each_branch_makes_are_not_refused():
    xs = autograph.function(own_lists_in_each_branch)(rt.constant(3))
    assert [int(v) for v in xs] == [4, 1]


def item_through_a_name_the_branch_assigns(a):
    xs = [0, 0]
    z = a
    if a < 0:
        z = 1
    else:
        ys = xs
        ys[0] += -2  # changes xs[0], which no place of the `if` carries
    return z, xs


@pytest.mark.parametrize("a", [-2, 3])
def test_an_item_changed_through_a_name_a_branch_assigns_is_carried(a):
    # The list changed is carried whole (`runtime.operators.mutations`).
    assert_graph_equivalent(item_through_a_name_the_branch_assigns, rt.constant(a))


def born_in_a_branch_loop(a, n):
    def show():
        return w  # a closure: w lives in a cell

    if a > 0:
        for i in rt.range(n):
            w = i * 2
        x = w + 1
    else:
        raise ValueError("not positive")
    return x, show()


def test_a_name_a_loop_in_one_branch_may_bind_stays_checked_after_the_if():
    f = autograph.function(born_in_a_branch_loop)
    assert [int(v) for v in f(rt.constant(1), rt.constant(3))] == [5, 4]
    with pytest.raises(rt.errors.InvalidArgumentError, match="no iteration has"):
        f(rt.constant(1), rt.constant(0))
    with pytest.raises(rt.errors.InvalidArgumentError, match="not positive"):
        f(rt.constant(-1), rt.constant(3))


def returned_list_changed_in_both_branches(a, b):
    xs = [0, 0]
    ys = xs
    if a > b:
        try:
            ys = xs
            ys[0] -= 5  # not carried as a place: `ys` is assigned here
        finally:
            return 1, xs  # noqa: B012 - the case under test
    else:
        ys[0] += 7  # must not see the other branch's -5
    return 2, xs


def test_each_branch_starts_from_the_items_as_they_were_before_the_if():
    # The list comes out of the `if` as the object Python returns, holding
    # what the branch taken left; a trial trace of one branch changes nothing.
    f = autograph.function(returned_list_changed_in_both_branches)
    value, xs = f(rt.constant(6), rt.constant(0))
    assert (int(value), [int(v) for v in xs]) == (1, [-5, 0])
    value, xs = f(rt.constant(0), rt.constant(6))
    assert (int(value), [int(v) for v in xs]) == (2, [7, 0])


def item_changed_in_the_branch_not_taken_last(a, b):
    xs = [0, 0]
    ys = xs
    z = -3
    if b > 0:
        if z > 100:  # a Python `if`: `ys` is assigned in the graph branch
            ys = [5, 0]
        ys[0] += -2
    return xs


@pytest.mark.parametrize("b", [1, -1])
def test_a_change_the_next_branch_undid_is_still_carried(b):
    f = item_changed_in_the_branch_not_taken_last
    assert_graph_equivalent(f, rt.constant(6), rt.constant(b))


def returned_from_a_graph_loop_then_updated(n):
    xs = [0, 0]
    try:
        for i in range(n):
            return i, xs
    finally:
        xs[0] += 4  # Python's caller sees this: `xs` is the list returned
    return -1, xs


def test_a_list_returned_from_a_graph_loop_is_the_same_object():
    f = autograph.function(returned_from_a_graph_loop_then_updated)
    value, xs = f(rt.constant(3))
    assert (int(value), [int(v) for v in xs]) == (0, [4, 0])
    value, xs = f(rt.constant(0))
    assert (int(value), [int(v) for v in xs]) == (-1, [4, 0])


def two_names_only_earlier_iterations_assign(a):
    y = a
    x = 2
    for i0 in range(a, 5):
        for i1 in []:  # a Python loop that never runs: `w1` stays unbound
            w1 = 1.5
        y = y + w1
        for i2 in range(0):
            w4 = 3
        x = x + w4
    return x, y


def test_a_type_guess_for_one_name_holds_while_another_is_unknown():
    # Tried as float32 first, `w1` fails (`y + w1`); as int32 the trace reads
    # `w4`, unknown too: that guess holds. The run then says which name no
    # iteration assigned, where Python raises UnboundLocalError.
    f = autograph.function(two_names_only_earlier_iterations_assign)
    with pytest.raises(rt.errors.InvalidArgumentError, match="'w1' is read"):
        f(rt.constant(0))
    assert [int(v) for v in f(rt.constant(7))] == [2, 7]


def raises_where_an_input_is_not_an_output(a):
    d = {"n": 0}
    w = a * 2
    if a > 2:
        d["n"] = w  # a place; `w` is an input of the `if`, not an output
    else:
        raise KeyError("always")
    return d["n"]


def test_a_branch_that_raises_gives_the_outputs_not_the_inputs():
    f = autograph.function(raises_where_an_input_is_not_an_output)
    assert int(f(rt.constant(3))) == 6
    with pytest.raises(rt.errors.InvalidArgumentError, match="KeyError: 'always'"):
        f(rt.constant(0))


def changed_through_a_shared_loop_variable(a):
    xs = [0, 0]
    ys = xs
    for i0 in range(a, 1):
        ys[0] += 1  # the body's `ys` is the loop's copy, not `xs`'s list
        ys = xs
    return xs


def test_a_loop_variable_shared_before_the_loop_is_refused_even_if_it_comes_out():
    f = autograph.function(changed_through_a_shared_loop_variable)
    with pytest.raises(ValueError, match="the loop's body would work on a copy"):
        f(rt.constant(0))


def doubles_used_as_a_list(n):
    out = []
    for i in rt.range(n):
        out.append(i * 2)
    total = 0
    for v in out:
        total += v
    return len(out), out[-1], out[1], total


def test_a_list_appended_in_a_graph_loop_is_used_as_a_list_after_it():
    # Carried as a TensorArray, it supported only rt.stack: len(), an index
    # and a `for` over it raised TypeErrors about 'TensorArray'.
    expected = (4, 6, 2, 12)
    converted = autograph.to_graph(doubles_used_as_a_list)
    assert converted(4) == expected
    result = autograph.function(doubles_used_as_a_list)(rt.constant(4))
    assert tuple(int(v) for v in result) == expected


def sliced(n):
    out = []
    for i in rt.range(n):
        out.append(i * 2)
    return out[1:]


def test_slicing_a_list_carried_as_a_tensor_array_is_refused_naming_it():
    with pytest.raises(TypeError) as info:
        autograph.function(sliced)(rt.constant(4))
    assert re.fullmatch(
        r"slicing the list 'out' at .*test_graph_backend\.py:\d+ is not supported: "
        r"a graph loop appended to it, so it is an rt\.TensorArray after the loop; "
        r"slice rt\.stack\(out\) instead",
        str(info.value),
    )


_FLAG = rt.Variable(False)
_COUNT = rt.Variable(3)
_VECTOR = rt.Variable([1, 2, 3])


def _toggle():
    if _FLAG:
        _FLAG.assign(False)
    else:
        _FLAG.assign(True)
    return _FLAG.read_value()


def _countdown():
    k = 0
    while _COUNT:
        _COUNT.assign_sub(1)
        k += 1
    _COUNT.assign(3)
    return k


def _pick(x):
    return x if _FLAG else -x


def _not_and(x):
    if not _FLAG and x > 1:
        x = x + 10
    if _FLAG and x > 1:
        x = x + 100
    return x


def _loops(x):
    s = 0
    for i in range(_COUNT):
        s += x
    for v in _VECTOR:
        s += v * x
    return s


@pytest.mark.parametrize("f", [_toggle, _countdown, _pick, _not_and, _loops])
def test_a_variable_as_a_condition_or_iterable_is_the_tensor_it_reads(f):
    # A Function refused them ("a graph tensor is used as a Python bool ...;
    # use it as the condition of an `if`/`while` statement", `range(var)` an
    # internal NeedsValueError); TensorFlow's AutoGraph stages them, as
    # tf.is_tensor(variable) holds. Each call reads the Variable then.
    args = (rt.constant(2),) if f in (_pick, _not_and, _loops) else ()
    function = autograph.function(f)
    for _ in range(2):
        _FLAG.assign(False)
        expected = int(f(*args))
        _FLAG.assign(False)
        assert int(function(*args)) == expected
        _FLAG.assign(True)
        expected = int(f(*args))
        _FLAG.assign(True)
        assert int(function(*args)) == expected
    assert function.tracing_count == 1
    kinds = {
        op.type for op in function.get_concrete_function(*args).graph.get_operations()
    }
    assert kinds & {"If", "While"}
