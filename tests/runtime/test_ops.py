"""Each op against a NumPy oracle: eagerly, in a graph, and in a graph with
unknown dimensions."""

from __future__ import annotations

import math

import numpy as np
import pytest

import runtime as rt
from tests.runtime.util import assert_same, run_eager, run_graph, trace

F = np.array([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], np.float32)
G = np.array([2.0, 0.5, -3.0], np.float32)
I = np.array([[1, -2, 3], [4, 5, -6]], np.int32)  # noqa: E741
J = np.array([2, 3, 4], np.int32)
P = np.array([0.25, 1.0, 2.5], np.float32)
B = np.array([True, False, True])
C = np.array([False, False, True])
D = np.array([1.0, 2.0], np.float64)
HALVES = np.array([0.5, 1.5, 2.5, -0.5, -1.7, 2.2], np.float32)

# (id, runtime function, NumPy oracle, arguments)
CASES = [
    ("add", rt.add, np.add, (F, G)),
    ("add_ints", rt.add, np.add, (I, J)),
    ("add_float64", rt.add, np.add, (D, D)),
    (
        "add_strings",
        rt.add,
        np.add,
        (np.array(["a", "b"], object), np.array("c", object)),
    ),
    (
        "add_scalar_strings",
        rt.add,
        lambda x, y: np.array(x + y, object),
        (np.array("a", object), np.array("a", object)),
    ),
    (
        "string_length",
        rt.strings.length,
        np.vectorize(len, otypes=[np.int32]),
        (np.array(["", "ab", "abc"], object),),
    ),
    ("subtract", rt.subtract, np.subtract, (F, G)),
    ("multiply", rt.multiply, np.multiply, (I, J)),
    ("divide_floats", rt.divide, np.true_divide, (F, G)),
    ("divide_ints_gives_float64", rt.divide, np.true_divide, (I, J)),
    ("floordiv", rt.floordiv, np.floor_divide, (I, J)),
    ("floordiv_floats", rt.floordiv, np.floor_divide, (F, G)),
    ("mod", rt.mod, np.mod, (I, J)),
    ("pow", rt.pow, np.power, (P, P)),
    ("pow_ints", rt.pow, np.power, (J, J)),
    ("maximum", rt.maximum, np.maximum, (F, G)),
    ("minimum", rt.minimum, np.minimum, (I, J)),
    ("abs", rt.abs, np.abs, (I,)),
    ("negative", rt.negative, np.negative, (F,)),
    ("exp", rt.exp, np.exp, (F,)),
    ("log", rt.log, np.log, (P,)),
    ("sqrt", rt.sqrt, np.sqrt, (P,)),
    ("tanh", rt.tanh, np.tanh, (F,)),
    ("sin", rt.sin, np.sin, (F,)),
    ("cos", rt.cos, np.cos, (F,)),
    ("square", rt.square, np.square, (I,)),
    ("relu", rt.relu, lambda x: np.maximum(x, 0), (F,)),
    ("nn_relu", rt.nn.relu, lambda x: np.maximum(x, 0), (F,)),
    (
        "nn_softmax",
        rt.nn.softmax,
        lambda x: np.exp(x) / np.exp(x).sum(-1, keepdims=True),
        (F,),
    ),
    (
        "nn_softmax_axis0",
        lambda x: rt.nn.softmax(x, axis=0),
        lambda x: np.exp(x) / np.exp(x).sum(0, keepdims=True),
        (F,),
    ),
    ("square_floats", rt.square, np.square, (F,)),
    ("argmax_axis1", lambda x: rt.argmax(x, 1), lambda x: np.argmax(x, 1), (F,)),
    (
        "py_function",
        lambda x: rt.py_function(
            lambda t: np.square(t.numpy()), [x], rt.TensorSpec(x.shape, x.dtype)
        ),
        np.square,
        (F,),
    ),
    (
        "nn_dropout_rate_0_keeps_all",
        lambda x: rt.nn.dropout(x, 0.0),
        lambda x: x,
        (F,),
    ),
    ("sigmoid", rt.sigmoid, lambda x: 1 / (1 + np.exp(-x)), (F,)),
    ("matmul", rt.matmul, np.matmul, (F, F.T)),
    ("matmul_ints", rt.matmul, np.matmul, (I, I.T)),
    ("matmul_batched", rt.matmul, np.matmul, (np.stack([F, F]), F.T)),
    ("greater", rt.greater, np.greater, (F, G)),
    ("greater_equal", rt.greater_equal, np.greater_equal, (I, J)),
    ("less", rt.less, np.less, (F, G)),
    ("less_equal", rt.less_equal, np.less_equal, (I, J)),
    ("equal", rt.equal, np.equal, (I, J)),
    (
        "equal_strings",
        rt.equal,
        np.equal,
        (np.array(["a", "b"], object), np.array("a", object)),
    ),
    ("not_equal", rt.not_equal, np.not_equal, (F, G)),
    ("logical_and", rt.logical_and, np.logical_and, (B, C)),
    ("logical_or", rt.logical_or, np.logical_or, (B, C)),
    ("logical_not", rt.logical_not, np.logical_not, (B,)),
    ("reduce_sum", rt.reduce_sum, lambda x: np.sum(x, dtype=x.dtype), (I,)),
    ("reduce_sum_axis", lambda x: rt.reduce_sum(x, axis=1), lambda x: x.sum(1), (F,)),
    (
        "reduce_sum_keepdims",
        lambda x: rt.reduce_sum(x, 0, keepdims=True),
        lambda x: x.sum(0, keepdims=True),
        (F,),
    ),
    (
        "reduce_sum_negative_axis",
        lambda x: rt.reduce_sum(x, -1),
        lambda x: x.sum(-1, dtype=x.dtype),
        (I,),
    ),
    ("reduce_mean", rt.reduce_mean, np.mean, (F,)),
    (
        "reduce_mean_ints_truncates",
        lambda x: rt.reduce_mean(x, 1),
        lambda x: np.trunc(x.sum(1) / 3).astype(np.int32),
        (I,),
    ),
    ("reduce_max", lambda x: rt.reduce_max(x, [0, 1]), np.max, (F,)),
    ("reduce_min", lambda x: rt.reduce_min(x, 0), lambda x: x.min(0), (I,)),
    ("reduce_prod", rt.reduce_prod, lambda x: np.prod(x, dtype=x.dtype), (J,)),
    ("reduce_all", rt.reduce_all, np.all, (B,)),
    ("reduce_any", rt.reduce_any, np.any, (C,)),
    ("argmax", lambda x: rt.argmax(x, 1), lambda x: np.argmax(x, 1), (F,)),
    ("argmin", rt.argmin, lambda x: np.argmin(x, 0), (I,)),
    ("reshape", lambda x: rt.reshape(x, [3, -1]), lambda x: x.reshape(3, -1), (F,)),
    ("reshape_flat", lambda x: rt.reshape(x, [-1]), np.ravel, (I,)),
    ("transpose", rt.transpose, np.transpose, (F,)),
    ("transpose_perm", lambda x: rt.transpose(x, [1, 0]), np.transpose, (I,)),
    (
        "concat",
        lambda x, y: rt.concat([x, y], 0),
        lambda x, y: np.concatenate([x, y]),
        (F, F),
    ),
    (
        "concat_axis1",
        lambda x: rt.concat([x, x], axis=-1),
        lambda x: np.concatenate([x, x], -1),
        (I,),
    ),
    (
        "stack",
        lambda x, y: rt.stack([x, y], 1),
        lambda x, y: np.stack([x, y], 1),
        (G, P),
    ),
    ("gather", lambda x: rt.gather(x, [1, 0, 1]), lambda x: x[[1, 0, 1]], (F,)),
    (
        "gather_axis1",
        lambda x: rt.gather(x, [2, 0], axis=1),
        lambda x: x[:, [2, 0]],
        (I,),
    ),
    ("where_select", rt.where, np.where, (B, G, P)),
    ("where_indices", rt.where, lambda c: np.argwhere(c).astype(np.int64), (B,)),
    (
        "cast_float_to_int",
        lambda x: rt.cast(x, rt.int32),
        lambda x: x.astype(np.int32),
        (F,),
    ),
    ("cast_int_to_bool", lambda x: rt.cast(x, rt.bool), lambda x: x.astype(bool), (I,)),
    ("shape", rt.shape, lambda x: np.array(x.shape, np.int32), (F,)),
    ("size", rt.size, lambda x: np.int32(x.size), (I,)),
    ("identity", rt.identity, lambda x: x, (F,)),
    (
        "pad",
        lambda x: rt.pad(x, [[1, 0], [0, 2]]),
        lambda x: np.pad(x, [[1, 0], [0, 2]]),
        (I,),
    ),
    (
        "pad_value",
        lambda x: rt.pad(x, [[1, 1]], constant_values=9.0),
        lambda x: np.pad(x, 1, constant_values=9),
        (G,),
    ),
    ("zeros_like", rt.zeros_like, np.zeros_like, (F,)),
    ("ones_like", rt.ones_like, np.ones_like, (I,)),
    ("expand_dims", lambda x: rt.expand_dims(x, 1), lambda x: x[:, None], (G,)),
    ("squeeze", rt.squeeze, np.squeeze, (F[None],)),
    ("index", lambda x: x[1], lambda x: x[1], (F,)),
    ("index_negative", lambda x: x[-1, -2], lambda x: x[-1, -2], (I,)),
    ("slice", lambda x: x[:, 1:], lambda x: x[:, 1:], (F,)),
    ("slice_step", lambda x: x[::-2], lambda x: x[::-2], (G,)),
    (
        "newaxis_ellipsis",
        lambda x: x[..., rt.newaxis, 0],
        lambda x: x[..., None, 0],
        (I,),
    ),
    (
        "operators",
        lambda x, y: (x + y) * 2.0 - y / 4.0,
        lambda x, y: (x + y) * 2 - y / 4,
        (F, G),
    ),
    ("reflected_operators", lambda x: 1.0 - 2.0 * x, lambda x: 1 - 2 * x, (G,)),
    (
        "int_operators",
        lambda x: (x // 2) % 3 + x**2,
        lambda x: (x // 2) % 3 + x**2,
        (J,),
    ),
    ("unary_operators", lambda x: abs(-x), lambda x: abs(-x), (F,)),
    (
        "comparison_operators",
        lambda x, y: (x < y) | (x >= y + 1.0),
        lambda x, y: (x < y) | (x >= y + 1),
        (F, G),
    ),
    ("eq_operator_is_elementwise", lambda x: x == 3, lambda x: x == 3, (J,)),
    ("ne_operator_is_elementwise", lambda x: x != 3, lambda x: x != 3, (J,)),
    (
        "matmul_operator",
        lambda x: x @ x.__class__.__getitem__(x, slice(None)),
        lambda x: x @ x,
        (F[:, :2],),
    ),
    ("invert_is_logical_not", lambda x: ~x, lambda x: ~x, (B,)),
    # Python's round(), math.floor() and math.ceil() on a tensor are ops
    # (halves to even, the dtype kept, as on NumPy arrays).
    ("round", rt.round, np.round, (HALVES,)),
    ("round_builtin", round, np.round, (HALVES,)),
    ("round_builtin_digits", lambda x: round(x, 1), lambda x: np.round(x, 1), (F,)),
    ("round_ints_to_tens", lambda x: round(x, -1), lambda x: np.round(x, -1), (I,)),
    ("floor", math.floor, np.floor, (HALVES,)),
    ("ceil", math.ceil, np.ceil, (HALVES,)),
    ("floor_ints", math.floor, lambda x: x, (I,)),
    ("ceil_ints", rt.ceil, lambda x: x, (I,)),
]


@pytest.mark.parametrize(
    ("fn", "oracle", "args"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
@pytest.mark.parametrize(
    "mode", ["eager", "graph", "graph_unknown_dims", "graph_unknown_ranks"]
)
def test_op_matches_numpy(fn, oracle, args, mode):
    expected = oracle(*args)
    if mode == "eager":
        actual = run_eager(fn, *args)
    else:
        dynamic = {"graph": False, "graph_unknown_dims": True}.get(mode, "rank")
        actual = run_graph(fn, *args, dynamic=dynamic)
    assert_same(actual, expected)


def test_graph_shape_inference_fits_numpy_result_shapes():
    for name, fn, oracle, args in CASES:
        _, _, flat, _ = trace(fn, *args)
        expected = np.shape(oracle(*args))
        inferred = flat[0].shape
        assert len(inferred) == len(expected), name
        assert all(i in (None, e) for i, e in zip(inferred, expected)), name
        if name != "where_indices":
            assert inferred == expected, name


CREATION = [
    ("zeros", lambda: rt.zeros([2, 3]), np.zeros((2, 3), np.float32)),
    ("zeros_int", lambda: rt.zeros(3, rt.int32), np.zeros(3, np.int32)),
    ("ones", lambda: rt.ones([2], rt.float64), np.ones(2)),
    ("fill", lambda: rt.fill([2, 2], 7), np.full((2, 2), 7, np.int32)),
    ("eye", lambda: rt.eye(3), np.eye(3, dtype=np.float32)),
    ("eye_rectangular", lambda: rt.eye(2, 3, rt.int32), np.eye(2, 3, dtype=np.int32)),
    ("range", lambda: rt.range(5), np.arange(5, dtype=np.int32)),
    (
        "range_start_limit_delta",
        lambda: rt.range(1, 10, 3),
        np.arange(1, 10, 3, np.int32),
    ),
    (
        "range_floats",
        lambda: rt.range(0.0, 1.0, 0.25),
        np.arange(0, 1, 0.25, np.float32),
    ),
    (
        "range_dtype",
        lambda: rt.range(3, dtype=rt.float32),
        np.arange(3, dtype=np.float32),
    ),
    (
        "constant_list",
        lambda: rt.constant([[1, 2], [3, 4]]),
        np.array([[1, 2], [3, 4]], np.int32),
    ),
    ("constant_dtype", lambda: rt.constant([1, 2], rt.float64), np.array([1.0, 2.0])),
    (
        "constant_shape",
        lambda: rt.constant(0, shape=[2, 2]),
        np.zeros((2, 2), np.int32),
    ),
    (
        "convert_list_of_tensors",
        lambda: rt.convert_to_tensor([rt.constant(1), 2]),
        np.array([1, 2], np.int32),
    ),
]


@pytest.mark.parametrize(
    ("fn", "expected"), [c[1:] for c in CREATION], ids=[c[0] for c in CREATION]
)
@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_creation_op_matches_numpy(fn, expected, mode):
    actual = run_eager(fn) if mode == "eager" else run_graph(fn)
    assert_same(actual, expected)


def test_python_scalars_take_the_tensor_dtype():
    assert (rt.constant([1.0]) + 1).dtype is rt.float32
    assert (2 * rt.constant([1], rt.int64)).dtype is rt.int64
    assert (rt.constant([1.0], rt.float64) * 2.5).dtype is rt.float64


def test_python_values_get_tensorflow_default_dtypes():
    assert rt.constant(1.0).dtype is rt.float32
    assert rt.constant(1).dtype is rt.int32
    assert rt.constant(True).dtype is rt.bool
    assert rt.constant("a").dtype is rt.string
    assert rt.constant(2**40).dtype is rt.int64
    assert rt.constant(np.array([1.0])).dtype is rt.float64


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (
            lambda: rt.add(rt.constant(1), rt.constant(1.0)),
            "Add: operands must have the same dtype, got int32 and float32",
        ),
        (lambda: rt.constant([1, 2]) + 1.5, "Add: cannot use 1.5 with a int32 operand"),
        (lambda: rt.matmul([[1.0]], rt.constant([[1]])), "MatMul: cannot use"),
        (lambda: rt.exp(rt.constant(1)), "Exp does not support int32 tensors"),
        (lambda: rt.logical_and([1], [2]), "LogicalAnd does not support int32"),
        (lambda: rt.constant([1.0]) + np.array([1.0]), "got float32 and float64"),
    ],
)
def test_mismatched_dtypes_raise_type_error_naming_the_op(fn, message):
    with pytest.raises(TypeError, match=message):
        fn()


@pytest.mark.parametrize(
    ("fn", "message", "op_type"),
    [
        (
            lambda: rt.gather([1, 2, 3], [3]),
            r"indices contain 3, which is not in \[0, 3\)",
            "GatherV2",
        ),
        (lambda: rt.gather([1, 2, 3], -1), r"indices contain -1", "GatherV2"),
        (
            lambda: rt.matmul(rt.ones([2, 3]), rt.ones([2, 3])),
            r"Matrix size-incompatible: In\[0\]: \(2, 3\), In\[1\]: \(2, 3\)",
            "MatMul",
        ),
        (
            lambda: rt.concat([rt.ones([2, 3]), rt.ones([2, 4])], 0),
            "Dimension 1 in both shapes must be equal",
            "ConcatV2",
        ),
        (
            lambda: rt.add([1, 2, 3], [1, 2]),
            r"Incompatible shapes: \(3,\) vs. \(2,\)",
            "Add",
        ),
        (lambda: rt.reshape(rt.range(6), [4]), "tensor with 6 values", "Reshape"),
        (lambda: rt.constant([1, 2])[5], "index 5 is out of bounds", "StridedSlice"),
        (lambda: rt.floordiv(1, 0), "Integer division by zero", "FloorDiv"),
        (lambda: rt.range(0, 5, 0), "Requires delta != 0", "Range"),
    ],
)
@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_bad_values_raise_invalid_argument_error_naming_the_op(
    fn, message, op_type, mode
):
    with pytest.raises(rt.errors.InvalidArgumentError, match=message) as info:
        if mode == "eager":
            fn()
        else:
            run_graph(fn)
    assert info.value.op_type == op_type
    assert f"[Op:{op_type}]" in str(info.value)


def test_eager_errors_name_the_calling_line():
    with pytest.raises(rt.errors.InvalidArgumentError) as info:
        rt.gather([1, 2], [7])
    assert info.value.location.endswith(
        f"test_ops.py:{_line_of('rt.gather([1, 2], [7])')}"
    )


def _line_of(text: str) -> int:
    with open(__file__) as f:
        for number, line in enumerate(f, 1):
            if text in line and "_line_of" not in line:
                return number
    raise AssertionError(text)


def test_float_division_by_zero_gives_inf_quietly(recwarn):
    assert rt.divide(1.0, 0.0).numpy() == np.inf
    assert run_graph(lambda x: x / 0.0, np.float32(1.0)) == np.inf
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_random_uniform_with_a_seed_is_deterministic():
    a = rt.random.uniform([4], seed=3).numpy()
    b = rt.random.uniform([4], seed=3).numpy()
    np.testing.assert_array_equal(a, b)
    assert a.dtype == np.float32 and ((a >= 0) & (a < 1)).all()
    c = run_graph(lambda: rt.random.uniform([4], seed=3))
    np.testing.assert_array_equal(a, c)


def test_random_uniform_respects_bounds_and_int_dtype():
    x = rt.random.uniform([100], 5, 8, dtype=rt.int32, seed=1).numpy()
    assert x.dtype == np.int32 and x.min() >= 5 and x.max() < 8
    y = rt.random.uniform([2, 3], minval=-1.0, maxval=0.0).numpy()
    assert y.shape == (2, 3) and (y < 0).all()
    with pytest.raises(ValueError, match="needs maxval"):
        rt.random.uniform([2], dtype=rt.int32)


def test_set_seed_makes_unseeded_ops_repeatable():
    rt.random.set_seed(11)
    a = rt.random.uniform([3]).numpy()
    rt.random.set_seed(11)
    np.testing.assert_array_equal(a, rt.random.uniform([3]).numpy())


def test_stack_of_a_tensor_array_stacks_it():
    ta = rt.TensorArray(rt.int32, size=2).write(0, 5).write(1, 6)
    np.testing.assert_array_equal(rt.stack(ta).numpy(), [5, 6])


def test_registry_knows_every_op_type_a_graph_uses():
    from runtime import op_registry

    for _, fn, _, args in CASES:
        g, *_ = trace(fn, *args)
        for op in g.get_operations():
            assert op_registry.get(op.type).name == op.type
