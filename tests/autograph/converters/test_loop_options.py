"""`autograph.set_loop_options`: lifted out of the loop body into `opts=`.

Issue 10, item 5: called first in a loop body, it sets the options of the
graph loop (shape invariants, maximum iterations); a Python loop ignores them.
"""

import numpy as np
import pytest

import autograph
import autograph as ag
import runtime as rt
from autograph import set_loop_options as loop_options
from autograph.impl.api import always_run_converted
from tests.equivalence import assert_equivalent


def grow(n):
    x = rt.constant([1.0])
    while rt.reduce_sum(x) < rt.cast(n, rt.float32):
        autograph.set_loop_options(shape_invariants=[(x, (None,))])
        x = rt.concat([x, x], axis=0)
    return x


def grow_in_a_for(n):
    x = rt.constant([[0]])
    for i in rt.range(n):
        ag.set_loop_options(shape_invariants=[(x, rt.TensorShape([None, 1]))])
        x = rt.concat([x, rt.reshape(i, (1, 1))], axis=0)
    return x


def capped_sum(n, cap):
    total = 0
    for i in rt.range(n):
        loop_options(maximum_iterations=cap)
        total += i
    return total


def capped_while(n):
    i, total = 0, 0
    while i < n:
        autograph.set_loop_options(maximum_iterations=3)
        total += i
        i += 1
    return total


def pair_grows(n):
    pair = (rt.constant([1]), rt.constant(0))
    first = pair[0]
    while pair[1] < n:
        autograph.set_loop_options(shape_invariants=[(first, (None,))])
        pair = (rt.concat([pair[0], pair[0]], axis=0), pair[1] + 1)
    return pair


def test_the_call_becomes_the_loop_operators_opts():
    code = autograph.to_code(grow)
    assert "set_loop_options" not in code
    assert (
        "x = ag__.while_stmt(loop_test, loop_body, (x,), "
        "opts={'shape_invariants': [(x, (None,))]})"
    ) in code
    assert "opts={'maximum_iterations': cap})" in autograph.to_code(capped_sum)


def test_shape_invariants_let_a_graph_while_variable_grow():
    assert autograph.function(grow)(rt.constant(8)).numpy().tolist() == [1.0] * 8
    graph = autograph.function(grow).get_concrete_function(rt.constant(1)).graph
    assert [op.type for op in graph.get_operations()].count("While") == 1


def test_shape_invariants_as_a_tensor_shape_in_a_graph_for():
    result = autograph.function(grow_in_a_for)(rt.constant(3))
    assert result.numpy().tolist() == [[0], [0], [1], [2]]


def test_shape_invariants_apply_to_a_tensor_inside_a_tuple_loop_variable():
    first, count = autograph.function(pair_grows)(rt.constant(2))
    assert first.numpy().tolist() == [1, 1, 1, 1]
    assert count.numpy() == 2


def test_maximum_iterations_caps_a_graph_loop():
    assert autograph.function(capped_sum)(rt.constant(10), 3).numpy() == 3
    assert autograph.function(capped_sum)(rt.constant(10), rt.constant(4)).numpy() == 6
    assert autograph.function(capped_while)(rt.constant(10)).numpy() == 3


def test_a_python_loop_ignores_the_options():
    with always_run_converted():
        assert autograph.to_graph(capped_while)(10) == 45
        assert autograph.to_graph(capped_sum)(10, 3).numpy() == 45
    assert_equivalent(capped_while, 10)


def test_without_the_invariant_the_shape_error_suggests_set_loop_options():
    def grows(n):
        x = rt.constant([1.0])
        while rt.reduce_sum(x) < rt.cast(n, rt.float32):
            x = rt.concat([x, x], axis=0)
        return x

    with pytest.raises(ValueError) as e:
        autograph.function(grows)(rt.constant(8))
    assert (
        "loop variable 'x' changed shape from (1,) to (2,) after one iteration; keep "
        "its shape the same in every iteration, or allow the change (None for a size "
        "that changes): call autograph.set_loop_options(shape_invariants=[(x, "
        "(None,))]) first in the loop body, or pass shape_invariants to rt.while_loop"
    ) in str(e.value)


def test_an_invariant_for_a_value_that_is_no_loop_variable_is_an_error():
    def wrong(n):
        x = rt.constant([1.0])
        y = rt.constant([2.0])
        while rt.reduce_sum(x) < rt.cast(n, rt.float32):
            autograph.set_loop_options(shape_invariants=[(y, (None,))])
            x = x + 1.0
        return x

    with pytest.raises(ValueError) as e:
        autograph.function(wrong)(rt.constant(8))
    assert (
        "shape_invariants entry 0 of autograph.set_loop_options names the tensor "
        "'const_1:0' that is not a variable of this loop; give (variable, shape) "
        "pairs for variables the loop changes"
    ) in str(e.value)


def test_an_invariant_that_is_not_a_pair_is_a_type_error():
    def wrong(n):
        x = rt.constant([1.0])
        while rt.reduce_sum(x) < rt.cast(n, rt.float32):
            autograph.set_loop_options(shape_invariants=[x])
            x = x + 1.0
        return x

    with pytest.raises(
        TypeError, match="must be a \\(variable, shape\\) pair; entry 0"
    ):
        autograph.function(wrong)(rt.constant(8))


def test_set_loop_options_outside_a_loop_does_nothing():
    assert autograph.set_loop_options(maximum_iterations=3) is None
    assert autograph.set_loop_options() is None


def set_loop_options(**kwargs):
    # The user's own function of that name: a plain call, not the directive.
    RECORDED.append(kwargs)


RECORDED = []


def calls_its_own_function(n):
    total = 0
    for i in range(n):
        set_loop_options(maximum_iterations=1)
        total += i
    return total


def not_first_in_the_body(n):
    total = 0
    for i in range(n):
        total += i
        autograph.set_loop_options(maximum_iterations=1)
    return total


def unknown_option(n):
    total = 0
    for i in range(n):
        autograph.set_loop_options(parallel_iterations=1)
        total += i
    return total


def positional_option(n):
    total = 0
    for i in range(n):
        autograph.set_loop_options(1)
        total += i
    return total


def only_the_directive(n):
    for _ in range(n):
        autograph.set_loop_options(maximum_iterations=2)
    return n


@pytest.mark.parametrize(
    "fn", [not_first_in_the_body, unknown_option, positional_option, only_the_directive]
)
def test_calls_that_are_not_lifted_behave_as_in_python(fn):
    assert_equivalent(fn, 3)


def test_only_autograph_set_loop_options_is_lifted():
    assert (
        "converted_call(set_loop_options, maximum_iterations=1)"
        in autograph.to_code(calls_its_own_function)
    )
    RECORDED.clear()
    with always_run_converted():
        assert autograph.to_graph(calls_its_own_function)(3) == 3
    assert RECORDED == [{"maximum_iterations": 1}] * 3
    for fn in (not_first_in_the_body, unknown_option, positional_option):
        assert "autograph.set_loop_options(" in autograph.to_code(fn), fn.__name__
    assert "    pass" in autograph.to_code(only_the_directive)


def test_a_name_bound_to_the_directive_in_a_closure_is_lifted():
    slo = autograph.set_loop_options

    def capped(n):
        total = 0
        for i in rt.range(n):
            slo(maximum_iterations=2)
            total += i + 1
        return total

    assert "opts={'maximum_iterations': 2}" in autograph.to_code(capped)
    assert autograph.function(capped)(rt.constant(5)).numpy() == 3


def test_a_local_name_is_not_resolved_statically():
    def local(n):
        slo = print
        total = 0
        for i in range(n):
            slo(end="")
            total += i
        return total

    assert "opts=" not in autograph.to_code(local)
    np.testing.assert_equal(autograph.to_graph(local)(3), 3)


CLI_SOURCE = """
import autograph
import autograph as ag
import runtime as rt
from autograph import set_loop_options as slo


def spelled_three_ways(n):
    x = rt.constant([1])
    while rt.size(x) < n:
        autograph.set_loop_options(shape_invariants=[(x, (None,))])
        x = rt.concat([x, x], axis=0)
    for i in rt.range(n):
        ag.set_loop_options(maximum_iterations=2)
        x = x + i
    for i in rt.range(n):
        slo(maximum_iterations=3)
        x = x - i
    return x
"""


def test_the_command_line_tool_reads_the_directive_from_the_imports(tmp_path):
    from autograph.tools.source_file import SourceFile

    module = SourceFile(CLI_SOURCE, "model.py")
    code = module.convert(module.find("spelled_three_ways"))
    assert "set_loop_options" not in code and "slo(" not in code
    assert "opts={'shape_invariants': [(x, (None,))]}" in code
    assert "opts={'maximum_iterations': 2}" in code
    assert "opts={'maximum_iterations': 3}" in code
    path = tmp_path / "model_for_to_code.py"
    path.write_text(CLI_SOURCE)
    namespace = {}
    exec(compile(CLI_SOURCE, str(path), "exec"), namespace)
    import linecache

    linecache.updatecache(str(path))
    assert code == autograph.to_code(namespace["spelled_three_ways"])


def test_the_command_line_tool_does_not_lift_a_rebound_name():
    from autograph.tools.source_file import SourceFile

    source = CLI_SOURCE.replace(
        "from autograph import set_loop_options as slo",
        "from autograph import set_loop_options as slo\nslo = print",
    )
    module = SourceFile(source, "model.py")
    assert "converted_call(slo, maximum_iterations=3)" in module.convert(
        module.find("spelled_three_ways")
    )


def invariant_of_a_name_bound_in_the_loop(n):
    total = 0
    for i in range(n):
        autograph.set_loop_options(shape_invariants=[(late, ())])  # noqa: F821 - bound later
        late = i
        total += late
    return total


def test_a_call_reading_a_name_unbound_at_loop_start_stays_and_raises_as_in_python():
    code = autograph.to_code(invariant_of_a_name_bound_in_the_loop)
    assert (
        "opts=lambda: {'shape_invariants': [(ag__.ld_cell(lambda: late), ())]}" in code
    )
    assert "autograph.set_loop_options(shape_invariants=" in code
    assert_equivalent(invariant_of_a_name_bound_in_the_loop, 0)
    assert_equivalent(invariant_of_a_name_bound_in_the_loop, 2)


CALLS = []


def limit():
    CALLS.append("limit")
    return 5


def options_from_a_user_function(n):
    total = 0
    for i in range(n):
        autograph.set_loop_options(maximum_iterations=limit())
        total += i
    return total


def test_a_call_with_user_code_is_lifted_lazily_and_stays_for_python_loops():
    code = autograph.to_code(options_from_a_user_function)
    assert "opts=lambda: {'maximum_iterations': ag__.converted_call(limit)}" in code
    CALLS.clear()
    with always_run_converted():
        assert autograph.to_graph(options_from_a_user_function)(3) == 3
    assert CALLS == ["limit"] * 3  # a Python loop evaluates it once per iteration
    assert_equivalent(options_from_a_user_function, 3)


def test_library_calls_in_the_arguments_are_lifted():
    assert "opts={'shape_invariants': [(x, rt.TensorShape([None, 1]))]}" in (
        autograph.to_code(grow_in_a_for)
    )


# Issue 22, class 1: a directive whose arguments call a helper, or reach
# TensorShape through another module's name, was left in the body (a no-op).


def shp():
    return rt.TensorShape([None])


def invariant_from_a_helper(n):
    v = rt.constant([0, 0])
    i = 0
    while i < n:
        autograph.set_loop_options(shape_invariants=[(v, shp())])
        v = rt.concat((v, [i]), 0)
        i += 1
    return v


def invariant_through_a_module(n):
    v = rt.constant([0, 0])
    for i in rt.range(n):
        autograph.set_loop_options(shape_invariants=[(v, OTHER.rt.TensorShape([None]))])
        v = rt.concat((v, [i]), 0)
    return v


def capped_by_a_helper(n):
    total = 0
    i = 0
    while i < n:
        autograph.set_loop_options(maximum_iterations=limit() - 2)
        total += i
        i += 1
    return total


OTHER = __import__("types").SimpleNamespace(rt=rt)


@pytest.mark.parametrize("fn", [invariant_from_a_helper, invariant_through_a_module])
def test_shape_invariants_computed_by_user_code_are_honoured(fn):
    result = autograph.function(fn)(rt.constant(2))
    assert result.numpy().tolist() == [0, 0, 0, 1]
    graph = autograph.function(fn).get_concrete_function(rt.constant(1)).graph
    assert [op.type for op in graph.get_operations()].count("While") == 1


@pytest.mark.parametrize("backend", ["graph", "jax"])
def test_maximum_iterations_computed_by_user_code_is_honoured(backend):
    if backend == "graph":
        result = autograph.function(capped_by_a_helper)(rt.constant(10))
    else:
        jax = pytest.importorskip("jax")
        result = jax.jit(autograph.to_graph(capped_by_a_helper))(10)
    assert int(np.asarray(result)) == 0 + 1 + 2


class _Shim:
    # A namespace that re-exports the directive (as a compatibility layer
    # would: `tf.autograph.experimental.set_loop_options`).
    experimental = __import__("types").SimpleNamespace(
        set_loop_options=autograph.set_loop_options
    )
    set_loop_options = staticmethod(autograph.set_loop_options)


SHIM = _Shim()


def through_a_namespace(n):
    x = rt.constant([1])
    while rt.size(x) < n:
        SHIM.experimental.set_loop_options(shape_invariants=[(x, (None,))])
        x = rt.concat([x, x], axis=0)
    for i in rt.range(n):
        _Shim.set_loop_options(maximum_iterations=2)
        x = x + i
    return x


def test_the_directive_is_recognised_by_what_it_resolves_to():
    code = autograph.to_code(through_a_namespace)
    assert "set_loop_options" not in code
    assert autograph.function(through_a_namespace)(rt.constant(4)).numpy().tolist() == [
        2,
        2,
        2,
        2,
    ]
