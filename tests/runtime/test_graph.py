"""Graphs: node names, placeholders, captures, locations and text dumps."""

from __future__ import annotations

import os
import pathlib

import numpy as np
import pytest

import runtime as rt
from runtime.graph import get_default_graph

GOLDEN = pathlib.Path(__file__).parents[1] / "golden" / "runtime"


def _check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("AUTOGRAPH_REGENERATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert text == path.read_text(), f"{name} differs; run `make golden` to review"


def _sample_graph() -> rt.Graph:
    g = rt.Graph("sample")
    with g.as_default():
        x = g.placeholder(rt.float32, (None, 3), "x")
        n = g.placeholder(rt.int32, (), "n")
        y = rt.reduce_sum(x * 2.0, axis=1)
        z = rt.cond(n > 0, lambda: y + 1.0, lambda: y)
        rt.while_loop(lambda i, acc: i < n, lambda i, acc: (i + 1, acc * z), (0, z))
        rt.print("n is", n)
    return g


def test_default_graph_is_none_eagerly_and_the_graph_being_built_inside():
    assert get_default_graph() is None
    g = rt.Graph()
    with g.as_default():
        assert get_default_graph() is g
        inner = rt.Graph()
        with inner.as_default():
            assert get_default_graph() is inner
        assert get_default_graph() is g
    assert get_default_graph() is None


def test_op_names_are_unique_within_a_graph():
    g = rt.Graph()
    with g.as_default():
        x = g.placeholder(rt.int32, (), "x")
        a = x + 1
        b = a + x
        c = rt.add(b, x, name="add")
    assert [t.op.name for t in (a, b, c)] == ["add", "add_1", "add_2"]


def test_placeholders_become_graph_inputs_and_keep_their_names():
    g = rt.Graph()
    x = g.placeholder("int64", [2, None], "x")
    x2 = g.placeholder(rt.int64, None, "x")
    assert g.inputs == [x, x2]
    assert (x.name, x.dtype, x.shape) == ("x:0", rt.int64, (2, None))
    assert x2.name == "x_1:0" and x2.shape is None


def test_get_operations_lists_ops_in_creation_order():
    g = _sample_graph()
    names = [op.name for op in g.get_operations()]
    assert names[:3] == ["x", "n", "const"]
    assert names.index("cond") < names.index("while") < names.index("print")


def test_ops_record_the_user_source_line_that_created_them():
    g = rt.Graph()
    with g.as_default():
        x = g.placeholder(rt.float32, (), "x")
        y = rt.exp(x)  # the line recorded
    location = y.op.traceback_line
    filename, line = location.rsplit(":", 1)
    assert filename == __file__
    with open(__file__) as f:
        assert "the line recorded" in f.readlines()[int(line) - 1]


def test_static_shape_errors_are_raised_while_building():
    g = rt.Graph()
    with g.as_default():
        x = g.placeholder(rt.float32, (2, 3), "x")
        with pytest.raises(
            rt.errors.InvalidArgumentError, match="size-incompatible"
        ) as e:
            rt.matmul(x, x)
    assert e.value.location.endswith(".py:" + e.value.location.rsplit(":", 1)[1])
    assert "test_graph.py" in e.value.location


def test_stateful_ops_are_chained_by_control_inputs_in_program_order():
    v = rt.Variable(1.0)
    g = rt.Graph()
    with g.as_default():
        rt.print("a")
        v.assign(2.0)
        r = v.read_value()
        v.assign_add(1.0)
    ops = {op.name: op for op in g.get_operations()}
    assert [c.name for c in ops["assign"].control_inputs] == ["print"]
    assert [c.name for c in r.op.control_inputs] == ["assign"]
    assert {c.name for c in ops["assign_add"].control_inputs} == {"assign", "read"}
    assert g.variables == {v.id: v}


def test_graph_def_is_plain_data_with_tensorflow_style_input_names():
    g = _sample_graph()
    gdef = g.as_graph_def()
    node = {n.name: n for n in gdef.node}
    assert node["mul"].op == "Mul" and node["mul"].input == ["x", "const"]
    assert node["cond"].input == ["greater", "reduce_sum"]
    branch = node["cond"].attr["then_branch"]
    assert branch.inputs == ["reduce_sum"] and branch.outputs == ["add"]
    assert node["print"].input == ["n", "^while"] or node["print"].input[0] == "n"


def test_graph_dump_golden():
    _check_golden("graph_dump.txt", str(_sample_graph().as_graph_def()))


def test_graph_dot_golden():
    dot = _sample_graph().to_dot()
    assert 'subgraph "cluster_cond/then_branch"' in dot
    assert 'subgraph "cluster_while/body"' in dot
    _check_golden("graph.dot", dot)


def test_graph_is_readable_in_reprs():
    g = _sample_graph()
    assert repr(g) == f"<rt.Graph 'sample' with {len(g.get_operations())} ops>"
    assert repr(g.get_operation_by_name("cond")) == "<rt.Operation 'cond' type=If>"
    assert g.get_tensor_by_name("cond:0").op.name == "cond"


def test_variables_created_while_building_are_recorded():
    g = rt.Graph()
    with g.as_default():
        v = rt.Variable(np.zeros(2))
    assert g.created_variables == [v]
    assert v.dtype is rt.float64


def test_variable_initial_values_must_not_be_graph_tensors_outside_a_function():
    g = rt.Graph()
    with g.as_default():
        x = g.placeholder(rt.float32, (), "x")
        with pytest.raises(ValueError, match="a graph that is not a Function's"):
            rt.Variable(x)


def test_a_graph_def_imports_back_into_a_graph_that_runs_the_same():
    from runtime import executor
    from runtime.graph_def import import_graph_def

    g = _sample_graph()
    copy = import_graph_def(g.as_graph_def(), "copy")
    assert str(copy.as_graph_def()) == str(g.as_graph_def())
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    run = executor.compile(g, g.inputs, [g.get_tensor_by_name("while:1")])
    run_copy = executor.compile(copy, copy.inputs, [copy.get_tensor_by_name("while:1")])
    np.testing.assert_array_equal(run([x, np.int32(2)]), run_copy([x, np.int32(2)]))


def test_importing_maps_variable_ids_to_new_variables():
    from runtime import executor
    from runtime.graph_def import import_graph_def

    old, new = rt.Variable(1), rt.Variable(100)
    g = rt.Graph()
    with g.as_default():
        out = old.assign_add(1)
    copy = import_graph_def(g.as_graph_def(), variable_ids={old.id: new.id})
    run = executor.compile(copy, [], [copy.get_tensor_by_name(out.name)])
    assert run([]) == [101] and old.numpy() == 1
