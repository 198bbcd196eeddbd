"""Eager and symbolic tensors: properties, Python protocols, reprs."""

from __future__ import annotations

import copy
import re

import numpy as np
import pytest

import runtime as rt
from runtime.tensor import EagerTensor, SymbolicTensor, is_symbolic, stands_for_tensor
from tests.runtime.util import run_eager, run_graph


def _symbolic(shape=(None, 3), dtype=rt.float32):
    g = rt.Graph()
    return g, g.placeholder(dtype, shape, "x")


def test_eager_repr_shows_shape_dtype_and_value():
    assert repr(rt.constant([1.0, 2.0])) == (
        "<rt.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>"
    )
    assert repr(rt.constant(3)) == "<rt.Tensor: shape=(), dtype=int32, numpy=3>"


def test_eager_str_reads_like_tensorflow():
    assert str(rt.constant([1, 2])) == "rt.Tensor([1 2], shape=(2,), dtype=int32)"


def test_symbolic_repr_names_the_op_output():
    g, x = _symbolic()
    with g.as_default():
        y = x + 1.0
    assert repr(y) == "<rt.Tensor 'add:0' shape=(None, 3) dtype=float32>"
    assert y.name == "add:0" and y.op.name == "add" and y.graph is g


def test_tensors_are_eager_or_symbolic_by_type():
    _, x = _symbolic()
    assert type(rt.constant(1)) is EagerTensor and isinstance(x, rt.Tensor)
    assert type(x) is SymbolicTensor
    assert is_symbolic(x) and not is_symbolic(rt.constant(1)) and not is_symbolic(1)


def test_eager_scalars_convert_to_python_values():
    assert bool(rt.constant(True)) is True
    assert int(rt.constant(3)) == 3 and float(rt.constant(2.5)) == 2.5
    assert [10, 20, 30][rt.constant(1)] == 20
    assert f"{rt.constant(2.5):.2f}" == "2.50"


def test_index_of_a_float_tensor_is_a_type_error():
    with pytest.raises(TypeError, match="only integer scalar tensors"):
        [1, 2][rt.constant(1.0)]


def test_eager_tensors_have_len_and_iterate_over_the_first_dimension():
    x = rt.constant([[1, 2], [3, 4]])
    assert len(x) == 2
    assert [row.numpy().tolist() for row in x] == [[1, 2], [3, 4]]
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(rt.constant(1))


def test_bool_of_a_symbolic_tensor_says_to_convert_or_use_cond():
    _, x = _symbolic(())
    with pytest.raises(TypeError, match=r"autograph.*rt\.cond"):
        bool(x)


def test_len_of_a_symbolic_tensor_needs_a_static_first_dimension():
    _, x = _symbolic((4, None))
    assert len(x) == 4
    _, y = _symbolic((None, 3))
    with pytest.raises(TypeError, match=r"rt.shape\(x\)\[0\]"):
        len(y)


def test_iterating_a_symbolic_tensor_is_a_type_error():
    _, x = _symbolic((3,))
    with pytest.raises(TypeError, match=r"list\(x\) iterates over the graph tensor x"):
        list(x)
    with pytest.raises(TypeError, match="iterating over the symbolic tensor 'x:0'"):
        x.__iter__()  # a line that says nothing we recognise: the generic text


def test_symbolic_tensors_have_no_numpy_value():
    _, x = _symbolic()
    with pytest.raises(TypeError, match="no NumPy value"):
        np.asarray(x)
    assert not hasattr(x, "numpy")


def test_symbolic_tensor_outside_its_graph_is_rejected():
    _, x = _symbolic()
    with pytest.raises(TypeError, match="outside the graph"):
        rt.add(x, 1.0)
    with (
        pytest.raises(ValueError, match="escaped from another graph"),
        rt.Graph().as_default(),
    ):
        rt.add(x, 1.0)


def test_equality_is_elementwise_and_tensors_are_unhashable():
    x = rt.constant([1, 2])
    np.testing.assert_array_equal((x == [1, 3]).numpy(), [True, False])
    assert (x == None) is False  # noqa: E711
    assert (x != None) is True  # noqa: E711
    assert x in [x]
    # As in TensorFlow 2 (a hash by identity made `t in {2, 5}` silently
    # False for a graph tensor, whose `==` is elementwise).
    _, y = _symbolic(shape=())
    unhashable = re.escape(
        "Tensor is unhashable. Instead, use tensor.ref() as the key."
    )
    for t in (x, rt.constant(2), y):
        with pytest.raises(TypeError, match=f"^{unhashable}$"):
            hash(t)
        with pytest.raises(TypeError, match=unhashable):
            _ = t in {2, 5}
        with pytest.raises(TypeError, match=unhashable):
            _ = {t: 1}


def test_ref_is_a_key_for_the_tensor_itself():
    x, same_value = rt.constant([1, 2]), rt.constant([1, 2])
    _, y = _symbolic()
    keys = {x.ref(), x.ref(), same_value.ref(), y.ref()}
    assert len(keys) == 3 and x.ref() in keys and rt.constant(1).ref() not in keys
    assert x.ref() == x.ref() and x.ref() != same_value.ref() and x.ref() != x
    assert x.ref().deref() is x and {y.ref(): "y"}[y.ref()] == "y"
    assert repr(x.ref()) == f"<Reference wrapping {x!r}>"


def test_numpy_arrays_on_the_left_defer_to_tensor_operators():
    result = np.array([1.0, 2.0], np.float32) + rt.constant([1.0, 1.0])
    assert isinstance(result, EagerTensor)


def test_tensors_survive_deep_copies_unchanged():
    x = rt.constant([1, 2])
    assert copy.deepcopy([x])[0] is x


def test_indexing_with_tensor_indices_works_eagerly_and_in_graphs():
    x = rt.constant([[1, 2, 3], [4, 5, 6]])
    assert x[rt.constant(1), rt.constant(-1)].numpy() == 6
    g = rt.Graph()
    with g.as_default():
        i = g.placeholder(rt.int32, (), "i")
        y = x[i]
        z = x[:, i:]
    assert y.shape == (3,) and z.shape == (2, None)


@pytest.mark.parametrize(
    "key",
    [[0, 1], 1.5, True, (Ellipsis, Ellipsis)],
    ids=["list", "float", "bool", "2x..."],
)
def test_invalid_indices_are_rejected(key):
    with pytest.raises((TypeError, rt.errors.InvalidArgumentError)):
        rt.constant([[1, 2]])[key]


def test_tensors_are_immutable():
    with pytest.raises(TypeError):
        rt.constant([1, 2])[0] = 3


def test_convert_to_tensor_checks_a_requested_dtype():
    assert rt.convert_to_tensor(1, rt.float32).dtype is rt.float32
    with pytest.raises(TypeError, match="expected a int32 tensor but got a float32"):
        rt.convert_to_tensor(rt.constant(1.0), rt.int32)
    with pytest.raises(TypeError, match=r"cannot convert 1\.5"):
        rt.convert_to_tensor(1.5, rt.int32)


def test_convert_to_tensor_in_a_graph_captures_eager_values_as_constants():
    g = rt.Graph()
    eager = rt.constant([1, 2])
    with g.as_default():
        a = rt.convert_to_tensor(eager)
        b = rt.convert_to_tensor(eager)
        c = rt.convert_to_tensor(np.float64(2.0))
    assert a is b and a.op.type == "Const" and c.dtype is rt.float64


def test_stands_for_tensor_covers_tensors_and_registered_conversions():
    v = rt.Variable(1.0)
    cases = [rt.constant(1.0), v, rt.TensorShape([2]), 1.0, [1.0], np.float32(1)]
    assert [stands_for_tensor(c) for c in cases] == [
        True,
        True,
        True,
        False,
        False,
        False,
    ]


def test_numpy_value_is_the_value_numpy_returns():
    t = rt.constant([1, 2])
    assert t.numpy_value is t.numpy()


def test_divmod_of_tensors_is_floordiv_and_mod_eagerly_and_in_a_graph():
    # (Found by issue 20's probes: `q, r = divmod(t, 3)` raised TypeError.)
    def fn(x, y):
        return (*divmod(x, y), *divmod(x, 3), *divmod(7, y))

    x, y = np.array([7, -7, 9], np.int32), np.array([3, 2, -4], np.int32)
    expected = [x // y, x % y, x // 3, x % 3, 7 // y, 7 % y]
    for run in (run_eager, run_graph):
        for got, want in zip(run(fn, x, y), expected):
            np.testing.assert_array_equal(got, want)
