"""rt.cond and rt.while_loop: eager Python semantics, graph nodes, checks."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
from tests.runtime.util import run_graph, trace

# -- eager: exactly the plain-Python equivalent ----------------------------------


def test_eager_cond_runs_only_the_chosen_branch():
    calls = []
    result = rt.cond(
        rt.constant(False),
        lambda: calls.append("t") or 1,
        lambda: calls.append("f") or 2,
    )
    assert (result, calls) == (2, ["f"])


def test_cond_on_a_python_bool_runs_python_even_while_tracing():
    with rt.Graph().as_default() as g:
        assert rt.cond(True, lambda: "yes", lambda: "no") == "yes"
    assert g.get_operations() == []


def test_eager_while_loop_returns_the_final_loop_vars():
    assert rt.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + i), (0, 0)) == (
        4,
        6,
    )


def test_eager_while_loop_accepts_a_single_loop_var():
    assert rt.while_loop(lambda x: x < 10, lambda x: x * 2, 1) == 16
    assert rt.while_loop(lambda x: x < 10, lambda x: x * 2, [1]) == (16,)


def test_eager_while_loop_stops_at_maximum_iterations_without_testing_again():
    tests = []

    def cond(i):
        tests.append(i)
        return True

    assert rt.while_loop(cond, lambda i: i + 1, (0,), maximum_iterations=3) == (3,)
    assert tests == [0, 1, 2]


def test_eager_while_loop_on_tensors_matches_python():
    x = rt.constant([2.0, 1.0])
    (result,) = rt.while_loop(
        lambda x: rt.reduce_sum(x) > 1, lambda x: (rt.tanh(x),), [x]
    )
    expected = np.array([2.0, 1.0], np.float32)
    while expected.sum() > 1:
        expected = np.tanh(expected)
    np.testing.assert_allclose(result.numpy(), expected)


# -- graph: one node, same results ---------------------------------------------------


def test_graph_cond_is_one_node_named_cond_with_subgraph_attrs():
    g, *_ = trace(lambda x: rt.cond(x > 0, lambda: x * 2, lambda: -x), np.int32(3))
    ops = g.get_operations()
    assert [op.type for op in ops].count("If") == 1
    cond_op = g.get_operation_by_name("cond")
    assert isinstance(cond_op.attrs["then_branch"], rt.Graph)
    assert isinstance(cond_op.attrs["else_branch"], rt.Graph)
    assert cond_op.attrs["then_branch"].name == "cond/then_branch"


def test_further_cond_and_while_nodes_are_numbered():
    def fn(x):
        a = rt.cond(x > 0, lambda: x, lambda: -x)
        b = rt.cond(x > 1, lambda: a, lambda: x)
        (c,) = rt.while_loop(lambda v: v < 10, lambda v: (v + 1,), (b,))
        (d,) = rt.while_loop(lambda v: v < 20, lambda v: (v + 1,), (c,))
        return d

    g, *_ = trace(fn, np.int32(1))
    names = [op.name for op in g.get_operations() if op.type in ("If", "While")]
    assert names == ["cond", "cond_1", "while", "while_1"]


@pytest.mark.parametrize("value", [3, -3])
def test_graph_cond_computes_the_chosen_branch(value):
    fn = lambda x: rt.cond(x > 0, lambda: x * 2, lambda: x - 1)
    assert run_graph(fn, np.int32(value)) == (value * 2 if value > 0 else value - 1)


def test_graph_cond_returns_nested_structures():
    def fn(x):
        return rt.cond(
            x > 0,
            lambda: {"a": (x, x + 1), "b": [x * 2]},
            lambda: {"a": (-x, x), "b": [x]},
        )

    assert run_graph(fn, np.int32(2)) == {"a": (2, 3), "b": [4]}


def test_graph_cond_allows_different_shapes_and_merges_them():
    _, _, (out,), _ = trace(
        lambda x: rt.cond(x > 0, lambda: rt.stack([x]), lambda: rt.stack([x, x])),
        np.int32(1),
    )
    assert out.shape == (None,)
    np.testing.assert_array_equal(
        run_graph(
            lambda x: rt.cond(x > 0, lambda: rt.stack([x]), lambda: rt.stack([x, x])),
            np.int32(-1),
        ),
        [-1, -1],
    )


def test_python_scalars_in_a_branch_take_the_other_branch_dtype():
    fn = lambda x: rt.cond(x > 0, lambda: x * 2.0, lambda: 0)
    result = run_graph(fn, np.float32(-1.0))
    assert result == 0.0 and result.dtype == np.float32


def test_graph_cond_passes_through_none_from_both_branches():
    fn = lambda x: rt.cond(x > 0, lambda: (x, None), lambda: (x + 1, None))
    assert run_graph(fn, np.int32(1)) == (1, None)


def test_graph_cond_captures_outer_tensors_as_subgraph_inputs():
    def fn(x, y):
        return rt.cond(x > 0, lambda: y * 2, lambda: y)

    g, (_, y), _, _ = trace(fn, np.int32(1), np.int32(5))
    op = g.get_operation_by_name("cond")
    assert [t.name for t in op.inputs[1:]] == [y.name]
    assert (
        len(op.attrs["then_branch"].inputs) == len(op.attrs["else_branch"].inputs) == 1
    )
    assert run_graph(fn, np.int32(1), np.int32(5)) == 10


def test_nested_cond_captures_through_every_level():
    def fn(x, y):
        return rt.cond(
            x > 0, lambda: rt.cond(x > 5, lambda: y * 10, lambda: y * 2), lambda: y
        )

    assert [run_graph(fn, np.int32(v), np.int32(3)) for v in (9, 1, -1)] == [30, 6, 3]


def test_graph_while_loop_is_one_node_named_while():
    g, *_ = trace(
        lambda n: rt.while_loop(lambda i: i < n, lambda i: i + 1, [0]), np.int32(5)
    )
    assert [op.type for op in g.get_operations()].count("While") == 1
    op = g.get_operation_by_name("while")
    assert (
        op.attrs["cond"].name == "while/cond" and op.attrs["body"].name == "while/body"
    )


def test_graph_while_loop_computes_like_python():
    def fn(n):
        return rt.while_loop(
            lambda i, s: i < n, lambda i, s: (i + 1, s + i * i), (0, 0)
        )

    assert run_graph(fn, np.int32(5)) == (5, 30)


def test_graph_while_loop_converts_python_values_at_loop_start():
    _, _, flat, _ = trace(
        lambda n: rt.while_loop(
            lambda i, x: i < n, lambda i, x: (i + 1, x * 2.0), (0, 1.0)
        ),
        np.int32(3),
    )
    assert [t.dtype for t in flat] == [rt.int32, rt.float32]


def test_graph_while_loop_honours_maximum_iterations():
    fn = lambda n: rt.while_loop(
        lambda i: i < 100, lambda i: i + 1, [0], maximum_iterations=n
    )
    assert run_graph(fn, np.int32(7)) == (7,)
    assert run_graph(
        lambda: rt.while_loop(
            lambda i: True, lambda i: i + 2, [0], maximum_iterations=4
        )
    ) == (8,)


def test_nested_graph_while_loops_run():
    def fn(n):
        def outer_body(i, total):
            _, total = rt.while_loop(
                lambda j, t: j < i, lambda j, t: (j + 1, t + 1), (0, total)
            )
            return i + 1, total

        return rt.while_loop(lambda i, t: i < n, outer_body, (0, 0))

    assert run_graph(fn, np.int32(4)) == (4, 6)


def test_loop_body_can_capture_outer_tensors():
    def fn(x, step):
        return rt.while_loop(lambda v: v < 20, lambda v: v + step, [x])

    assert run_graph(fn, np.int32(1), np.int32(7)) == (22,)


def test_shape_invariants_let_a_loop_variable_grow():
    def fn(n):
        return rt.while_loop(
            lambda i, v: i < n,
            lambda i, v: (i + 1, rt.concat([v, rt.stack([i])], 0)),
            (0, rt.zeros([0], rt.int32)),
            shape_invariants=[(), (None,)],
        )

    _, v = run_graph(fn, np.int32(3))
    np.testing.assert_array_equal(v, [0, 1, 2])


def test_tensor_array_is_a_loop_variable_of_a_graph_loop():
    def fn(n):
        ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True)
        _, ta = rt.while_loop(
            lambda i, ta: i < n,
            lambda i, ta: (i + 1, ta.write(i, rt.cast(i, rt.float32) * 0.5)),
            (0, ta),
        )
        return ta.stack(), ta.size()

    _, _, (stacked, _), _ = trace(fn, np.int32(4))
    assert stacked.shape == (None,)
    values, n = run_graph(fn, np.int32(4))
    np.testing.assert_array_equal(values, [0.0, 0.5, 1.0, 1.5])
    assert n == 4


def test_tensor_array_keeps_element_shape_through_the_loop():
    def fn(x):
        ta = rt.TensorArray(rt.int32, size=3)
        _, ta = rt.while_loop(
            lambda i, ta: i < 3, lambda i, ta: (i + 1, ta.write(i, x * i)), (0, ta)
        )
        return ta.stack()

    _, _, (out,), _ = trace(fn, np.array([1, 2], np.int32))
    assert out.shape == (3, 2)
    np.testing.assert_array_equal(
        run_graph(fn, np.array([1, 2], np.int32)), [[0, 0], [1, 2], [2, 4]]
    )


def test_effects_in_branches_run_only_with_their_branch(capsys):
    def fn(x):
        return rt.cond(
            x > 0, lambda: rt.print("pos") or x, lambda: rt.print("neg") or x
        )

    run_graph(fn, np.int32(1))
    run_graph(fn, np.int32(-1))
    assert capsys.readouterr().out == "pos\nneg\n"


def test_effects_in_a_loop_body_run_every_iteration_in_order(capsys):
    v = rt.Variable(0)

    def body(i):
        v.assign_add(i)
        rt.print("i =", i, "v =", v)
        return i + 1

    run_graph(lambda n: rt.while_loop(lambda i: i < n, body, [0]), np.int32(3))
    assert capsys.readouterr().out == "i = 0 v = 0\ni = 1 v = 1\ni = 2 v = 3\n"
    assert v.numpy() == 3


# -- checks and their messages -----------------------------------------------------


def _in_graph(fn):
    with rt.Graph().as_default() as g:
        x = g.placeholder(rt.int32, (), "x")
        return fn(x)


@pytest.mark.parametrize(
    ("fn", "error", "message"),
    [
        (
            lambda x: rt.cond(x, lambda: 1, lambda: 2),
            TypeError,
            "the condition of rt.cond must be a bool scalar, got a int32 tensor",
        ),
        (
            lambda x: rt.cond(rt.stack([x > 0]), lambda: 1, lambda: 2),
            ValueError,
            r"the condition of rt.cond must be a scalar, got shape \(1,\)",
        ),
        (
            lambda x: rt.cond(x > 0, lambda: (x, x), lambda: x),
            ValueError,
            "the true branch returns a tuple of 2 items but the false branch returns a "
            "tensor; both branches must return the same structure",
        ),
        (
            lambda x: rt.cond(
                x > 0, lambda: (x, [x]), lambda: (x, x), names=("a", "b")
            ),
            ValueError,
            "'b' is a list of 1 item in the true branch but a tensor in the false "
            "branch; "
            "both branches must give it the same structure",
        ),
        (
            lambda x: rt.cond(
                x > 0, lambda: (x, 1), lambda: (x, 1.5), names=("a", "y")
            ),
            TypeError,
            "'y' has dtype int32 in the true branch but float32 in the false branch; "
            "cast one of them so they match",
        ),
        (
            lambda x: rt.cond(x > 0, lambda: (x, 1), lambda: (x, 1.5)),
            TypeError,
            "output 1 has dtype int32 in the true branch but float32 in the false "
            "branch",
        ),
        (
            lambda x: rt.cond(
                x > 0, lambda: (x, None), lambda: (x, x), names=("a", "b")
            ),
            ValueError,
            "'b' is None in the true branch but a tensor in the false branch; "
            "give it a "
            "value in both branches",
        ),
        (
            lambda x: rt.cond(x > 0, lambda: object(), lambda: 1),
            TypeError,
            "output 0 is an object in the true branch, which cannot be the result of a "
            "graph cond",
        ),
        (
            lambda x: rt.while_loop(
                lambda v: v < 3, lambda v: rt.cast(v, rt.float32), [x], names=("x",)
            ),
            TypeError,
            "loop variable 'x' changed dtype from int32 to float32 after one "
            "iteration; "
            "cast it before the loop",
        ),
        (
            lambda x: rt.while_loop(
                lambda v: v < 3, lambda v: rt.cast(v, rt.float32), [x]
            ),
            TypeError,
            "loop variable 0 changed dtype from int32 to float32",
        ),
        (
            lambda x: rt.while_loop(
                lambda v: v < 3, lambda v: rt.stack([v, v]), [x], names=("x",)
            ),
            ValueError,
            r"loop variable 'x' changed shape from \(\) to \(2,\) after one "
            "iteration; keep its shape the same in every iteration, or allow the "
            r"change \(None for a size that changes\): call "
            r"autograph.set_loop_options\(shape_invariants=\[\(x, None\)\]\) first "
            "in the loop body, or pass shape_invariants to rt.while_loop",
        ),
        (
            lambda x: rt.while_loop(
                lambda v: v < 3, lambda v: (v, v), [x], names=("x",)
            ),
            ValueError,
            r"the loop body returned 2 values for 1 loop variables \('x'\)",
        ),
        (
            lambda x: rt.while_loop(
                lambda a, b: a < 3, lambda a, b: (a, [b]), [x, x], names=("a", "b")
            ),
            TypeError,
            "loop variable 'b' is a tensor before the loop but a list of 1 item "
            "after one "
            "iteration; it must keep the same structure",
        ),
        (
            lambda x: rt.while_loop(lambda v: v, lambda v: v, [x]),
            TypeError,
            "the condition of rt.while_loop must be a bool scalar, got a int32 tensor",
        ),
        (
            lambda x: rt.while_loop(
                lambda v, w: v < 3, lambda v, w: (v, w), [x, None], names=("v", "w")
            ),
            ValueError,
            "loop variable 'w' is None before the loop; give it a tensor value "
            "before the loop",
        ),
        (
            lambda x: rt.while_loop(
                lambda v: v < 3, lambda v: v, [x], shape_invariants=[(2,)]
            ),
            ValueError,
            r"loop variable 0 has shape \(\), which does not fit its shape invariant",
        ),
    ],
)
def test_control_flow_checks_raise_pinned_messages(fn, error, message):
    with pytest.raises(error, match=message):
        _in_graph(fn)


def test_names_parallel_to_flattened_leaves_name_each_leaf():
    with pytest.raises(TypeError, match="'second' has dtype int32 in the true branch"):
        _in_graph(
            lambda x: rt.cond(
                x > 0, lambda: ((x, 1),), lambda: ((x, 1.5),), names=("first", "second")
            )
        )


def test_names_parallel_to_top_level_values_name_nested_leaves_by_path():
    with pytest.raises(TypeError, match=r"'pair\[1\]' has dtype int32"):
        _in_graph(
            lambda x: rt.cond(
                x > 0, lambda: ((x, 1),), lambda: ((x, 1.5),), names=("pair",)
            )
        )
