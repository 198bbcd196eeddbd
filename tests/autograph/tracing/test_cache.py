"""The trace cache: which calls share a trace, and which trace anew."""

from __future__ import annotations

import collections
import gc
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import runtime as rt
from autograph.tracing import function, matching


def counting():
    """A Function that ignores its arguments (tracing_count counts traces)."""

    @function
    def identity(x, *rest, **options):
        return 0

    return identity


def test_tensors_with_the_same_dtype_and_shape_share_a_trace():
    f = counting()
    f(rt.constant(1.0))
    f(rt.constant(2.0))
    assert f.tracing_count == 1


@pytest.mark.parametrize(
    "other",
    [
        pytest.param(lambda: rt.constant(1), id="dtype"),
        pytest.param(lambda: rt.constant([1.0]), id="rank"),
        pytest.param(lambda: rt.constant([1.0, 2.0]), id="size"),
    ],
)
def test_a_new_tensor_dtype_or_shape_traces_again(other):
    f = counting()
    f(rt.constant([1.0]) if other().shape == () else rt.constant(1.0))
    f(other())
    assert f.tracing_count == 2


@pytest.mark.filterwarnings("ignore::autograph.tracing.RetracingWarning")
def test_python_scalars_are_keyed_by_type_and_value():
    f = counting()
    for value in (1, 1.0, True, 1, 1.0, True, 2, "a", None, None):
        f(value)
    assert f.tracing_count == 6


def test_nan_arguments_reuse_their_trace():
    # NaN != NaN: keyed by value, every call would trace anew. One trace
    # serves them all (TensorFlow retraces each time).
    f = counting()
    f(float("nan"))
    f(float("nan"))
    f([-float("nan")])
    f([float("nan")])
    assert f.tracing_count == 2


def test_minus_zero_has_its_own_trace():
    # 0.0 == -0.0, but code may tell them apart (copysign, 1 / x, atan2).
    @function
    def signed(x, k):
        return x * math.copysign(1.0, k)

    x = rt.constant(2.0)
    assert [float(signed(x, k)) for k in (0.0, -0.0, 0.0, -0.0)] == [2, -2, 2, -2]
    assert signed.tracing_count == 2
    concrete = signed.get_concrete_function(x, -0.0)
    assert float(concrete(x, -0.0)) == -2.0
    with pytest.raises(TypeError, match=r"Python value -0\.0, got float 0\.0"):
        concrete(x, 0.0)


@pytest.mark.filterwarnings("ignore::autograph.tracing.RetracingWarning")
def test_containers_are_keyed_by_structure_and_items():
    f = counting()
    x = rt.constant(1.0)
    f([x, 2])
    f([rt.constant(5.0), 2])
    assert f.tracing_count == 1
    f((x, 2))
    f([x, 3])
    f([x, 2, 2])
    f({"a": x})
    f({"a": x})
    f({"b": x})
    assert f.tracing_count == 6


def test_dict_key_order_is_part_of_the_trace_key():
    # A second call with the keys in another order reused the first trace,
    # so a function that reads the order (the first item) gave the first
    # caller's answer (TensorFlow shares the bug). Each order now traces.
    f = counting()
    f({"a": rt.constant(1.0), "b": 2})
    f({"a": rt.constant(3.0), "b": 2})
    assert f.tracing_count == 1
    f({"b": 2, "a": rt.constant(3.0)})
    assert f.tracing_count == 2

    def first_value(d):
        for k in d:
            return d[k]

    g = function(first_value)
    for d in (
        {"b": rt.constant(2), "a": rt.constant(1)},
        {"a": rt.constant(1), "b": rt.constant(2)},
    ):
        assert int(g(d)) == int(first_value(d))
    assert g.tracing_count == 2
    # (a trace with unknown dimensions serves only its own order too)
    h = function(first_value)
    spec = rt.TensorSpec([None], rt.int32)
    h.get_concrete_function({"b": spec, "a": spec})
    assert int(h({"a": rt.constant([1]), "b": rt.constant([2])})[0]) == 1
    assert int(h({"b": rt.constant([2]), "a": rt.constant([1])})[0]) == 2
    assert h.tracing_count == 2


def test_namedtuples_are_keyed_by_their_type():
    pair = collections.namedtuple("pair", "a b")
    f = counting()
    f(pair(rt.constant(1.0), 2))
    f((rt.constant(1.0), 2))
    assert f.tracing_count == 2


class Model:
    weight = 2.0


def test_other_objects_are_keyed_by_identity():
    @function
    def evaluate(model, x):
        return model.weight * x

    model = Model()
    x = rt.constant(10.0)
    assert evaluate(model, x).numpy() == 20.0
    model.weight = 3.0  # same object: the trace (and its constant 2.0) is reused
    assert evaluate(model, x).numpy() == 20.0
    assert evaluate(Model(), x).numpy() == 20.0
    assert evaluate.tracing_count == 2


def test_a_trace_keyed_on_a_dead_object_is_never_reused():
    f = counting()
    f(Model())  # dies at once
    gc.collect()
    model = Model()
    f(model)
    assert f.tracing_count == 2
    assert len(f.concrete_functions) == 1
    del model
    gc.collect()
    assert f.concrete_functions == []


def test_objects_without_weak_references_are_held_by_the_trace():
    marker = object()
    f = counting()
    f(marker)
    f(marker)
    assert f.tracing_count == 1


def test_keyword_and_positional_calls_share_a_trace():
    @function
    def affine(x, w, b=0.0):
        return x * w + b

    x, w = rt.constant([1.0, 2.0]), rt.constant([3.0, 4.0])
    expected = [3.0, 8.0]
    np.testing.assert_array_equal(affine(x, w).numpy(), expected)
    np.testing.assert_array_equal(affine(x, w=w).numpy(), expected)
    np.testing.assert_array_equal(affine(w=w, x=x).numpy(), expected)
    np.testing.assert_array_equal(affine(x, w, 0.0).numpy(), expected)
    assert affine.tracing_count == 1
    np.testing.assert_array_equal(affine(w=x, x=w).numpy(), expected)


def test_keyword_arguments_given_out_of_order_feed_the_right_inputs():
    @function
    def sub(a, b):
        return a - b

    a, b = rt.constant(10.0), rt.constant(1.0)
    assert sub(b=b, a=a).numpy() == 9.0
    assert sub(b=a, a=b).numpy() == -9.0
    assert sub(a, b).numpy() == 9.0
    assert sub.tracing_count == 1


def test_varargs_and_kwargs_are_part_of_the_signature():
    @function
    def total(*xs, **weights):
        out = 0.0
        for x in xs:
            out = out + x
        for name in sorted(weights):
            out = out + weights[name]
        return out

    one = rt.constant(1.0)
    assert total(one, one, a=one).numpy() == 3.0
    assert total(one, one, a=rt.constant(5.0)).numpy() == 7.0
    assert total.tracing_count == 1
    total(one, a=one)
    assert total.tracing_count == 2


def test_a_trace_with_unknown_dimensions_serves_matching_shapes():
    @function
    def square(x):
        return x * x

    square.get_concrete_function(rt.TensorSpec([None], rt.float32))
    np.testing.assert_array_equal(square(rt.constant([2.0])).numpy(), [4.0])
    np.testing.assert_array_equal(square(rt.constant([1.0, 3.0])).numpy(), [1.0, 9.0])
    assert square.tracing_count == 1
    square(rt.constant([[1.0]]))
    assert square.tracing_count == 2


def test_the_most_specific_matching_trace_is_chosen():
    @function
    def shape_of(x):
        return rt.constant(str(x.shape))

    shape_of.get_concrete_function(rt.TensorSpec(None, rt.float32))
    shape_of.get_concrete_function(rt.TensorSpec([None, 2], rt.float32))
    assert shape_of(rt.ones([3, 2])).numpy() == "(None, 2)"
    assert shape_of(rt.ones([3, 3])).numpy() == "None"
    assert shape_of(rt.ones([3])).numpy() == "None"
    assert shape_of.tracing_count == 2


@pytest.mark.filterwarnings("ignore::autograph.tracing.diagnostics.RetracingWarning")
def test_a_retrace_tries_only_traces_with_unknown_dimensions(monkeypatch):
    # A retrace must cost the same at 4,000 traces as at 10: it looks up the
    # exact key, and tries as a more general match only the traces that
    # have an unknown dimension (fully known ones serve their own key only).
    @function
    def first(x):
        return x[0]

    first.get_concrete_function(rt.TensorSpec([None, 3], rt.float32))
    for n in range(1, 60):
        first(np.zeros(n, np.float32))
    tried = []
    real_accepts = matching.accepts
    monkeypatch.setattr(
        matching, "accepts", lambda *a: tried.append(1) or real_accepts(*a)
    )
    first(np.zeros(100, np.float32))
    assert first.tracing_count == 61
    assert len(tried) == 1  # the one trace with a None dimension


def test_calls_with_eager_tensors_only_skip_the_key_encoding(monkeypatch):
    # The hot path of `f(x)` and `f(x, y)` keys on the NumPy dtypes and
    # shapes directly; encode runs only for the first call of a signature.
    from autograph.tracing import polymorphic

    encoded = []
    real_encode = polymorphic.encode
    monkeypatch.setattr(
        polymorphic, "encode", lambda *a: encoded.append(1) or real_encode(*a)
    )

    @function
    def add(x, y=None):
        return x + 1 if y is None else x + y

    one, pair = rt.constant(1.0), rt.constant([1, 2])
    assert float(add(one)) == 2.0
    assert add(pair, pair).numpy().tolist() == [2, 4]
    first = len(encoded)
    for _ in range(3):
        assert float(add(one)) == 2.0
        assert add(pair, pair).numpy().tolist() == [2, 4]
    assert len(encoded) == first
    assert add.tracing_count == 2
    assert add(rt.constant(1)).numpy() == 2  # another dtype still traces
    assert add(pair, y=pair).numpy().tolist() == [2, 4]  # keywords: usual path
    assert add.tracing_count == 3


def test_unsupported_numpy_dtypes_raise_type_error_naming_the_argument():
    @function
    def f(x):
        return x

    with pytest.raises(TypeError, match=r"^f\(\): argument 'x': unsupported NumPy"):
        f(np.zeros(2, np.float16))


def test_binding_errors_name_the_function():
    @function
    def f(x):
        return x

    with pytest.raises(TypeError, match=r"^f\(\): missing a required argument: 'x'"):
        f()
    with pytest.raises(TypeError, match=r"^f\(\): too many positional arguments"):
        f(1, 2)


_DTYPES = {"float32": np.float32, "float64": np.float64, "int32": np.int32}
_SIGNATURES = st.tuples(
    st.sampled_from(sorted(_DTYPES)),
    st.lists(st.integers(min_value=0, max_value=3), max_size=3).map(tuple),
)


@pytest.mark.filterwarnings("ignore::autograph.tracing.RetracingWarning")
@settings(max_examples=40, deadline=None)
@given(st.lists(_SIGNATURES, min_size=1, max_size=8))
def test_one_trace_per_distinct_dtype_and_shape_and_results_match_eager(calls):
    @function
    def affine(x):
        return x * 2 + 1

    for dtype, shape in calls:
        value = np.arange(int(np.prod(shape)), dtype=_DTYPES[dtype]).reshape(shape)
        x = rt.constant(value)
        np.testing.assert_array_equal(affine(x).numpy(), (x * 2 + 1).numpy())
    assert affine.tracing_count == len(set(calls))
