"""rt.TensorShape and rt.name_scope (issue 10, item 5)."""

import numpy as np
import pytest

import autograph
import runtime as rt


def test_tensor_shape_rank_dims_and_list():
    shape = rt.TensorShape([None, 3])
    assert shape.rank == 2
    assert shape.as_list() == [None, 3]
    assert shape.dims == (None, 3)
    assert len(shape) == 2 and list(shape) == [None, 3] and shape[1] == 3
    assert shape[1:] == rt.TensorShape([3])
    assert not shape.is_fully_defined()
    assert rt.TensorShape((2, 3)).is_fully_defined()
    assert shape == (None, 3) and shape == rt.TensorShape((None, 3))
    assert str(shape) == "(None, 3)" and repr(shape) == "TensorShape([None, 3])"
    assert rt.TensorShape(rt.TensorShape([4])) == rt.TensorShape([4])


def test_tensor_shape_of_unknown_rank():
    shape = rt.TensorShape(None)
    assert shape.rank is None and shape.dims is None
    assert shape.is_compatible_with((1, 2, 3))
    with pytest.raises(ValueError, match="unknown rank"):
        shape.as_list()
    with pytest.raises(ValueError, match="unknown rank"):
        len(shape)


@pytest.mark.parametrize(
    "other, expected",
    [((5, 3), True), ([None, 3], True), ((5, 4), False), ((3,), False), (None, True)],
)
def test_tensor_shape_compatibility(other, expected):
    assert rt.TensorShape([None, 3]).is_compatible_with(other) is expected
    assert (
        rt.TensorShape([None, 3]).is_compatible_with(rt.TensorShape(other)) is expected
    )


def test_tensor_shape_is_accepted_where_shapes_are():
    spec = rt.TensorSpec(rt.TensorShape([None, 2]), rt.int32)
    assert spec.shape == (None, 2)
    assert rt.zeros(rt.TensorShape([2, 1])).shape == (2, 1)


def test_name_scope_prefixes_graph_op_names():
    graph = rt.Graph()
    with graph.as_default():
        with rt.name_scope("block") as prefix:
            a = rt.constant(1) + 2
            with rt.name_scope("inner"):
                b = a * 3
            c = rt.cond(a > 1, lambda: a + 1, lambda: a - 1)
        with rt.name_scope("block"):
            d = a + 1
        e = a + 1
    assert prefix == "block/"
    assert a.op.name == "block/add"
    assert b.op.name == "block/inner/mul"
    assert c.op.name == "block/cond"
    assert d.op.name == "block_1/add"
    assert e.op.name == "add"


def test_name_scope_has_no_effect_on_eager_ops():
    with rt.name_scope("block") as prefix:
        x = rt.constant(2) + 3
    assert prefix == "block/"
    assert x.numpy() == 5


@pytest.mark.parametrize("name", ["", "a b", "a/b", 3])
def test_name_scope_rejects_invalid_names(name):
    with pytest.raises(ValueError, match="invalid name scope"), rt.name_scope(name):
        pass


def scaled(x):
    with rt.name_scope("scale"):
        y = x * 2.0
    if y > 1.0:
        with rt.name_scope("big"):
            y = y - 1.0
    return y


def test_name_scope_in_a_traced_function_runs_saves_and_loads(tmp_path):
    fn = autograph.function(scaled)
    assert fn(rt.constant(3.0)).numpy() == 5.0
    graph = fn.get_concrete_function(rt.constant(3.0)).graph
    names = [op.name for op in graph.get_operations()]
    assert "scale/mul" in names
    autograph.save(fn, str(tmp_path / "saved"))
    loaded = autograph.load(str(tmp_path / "saved"))
    np.testing.assert_allclose(loaded(rt.constant(0.25)).numpy(), 0.5)
    assert "scale/mul" in str(graph.as_graph_def())


def test_a_known_tensor_shape_converts_to_an_int32_tensor():
    assert rt.convert_to_tensor(rt.TensorShape([2, 3])).numpy().tolist() == [2, 3]
    assert rt.convert_to_tensor(rt.TensorShape([])).dtype is rt.int32
    with pytest.raises(ValueError, match=r"partially known shape \(None, 3\)"):
        rt.convert_to_tensor(rt.TensorShape([None, 3]))
