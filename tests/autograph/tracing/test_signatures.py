"""Fixed signatures: input_signature, get_concrete_function, ConcreteFunction."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import runtime as rt
from autograph.tracing import ConcreteFunction, function
from autograph.tracing.signatures import encode
from runtime import nest


@function(input_signature=[rt.TensorSpec(shape=[None], dtype=rt.int32)])
def next_collatz(x):
    return rt.where(x % 2 == 0, x // 2, 3 * x + 1)


def test_input_signature_traces_once_for_every_size():
    np.testing.assert_array_equal(next_collatz(rt.constant([1, 2])).numpy(), [4, 1])
    np.testing.assert_array_equal(
        next_collatz(rt.constant([1, 2, 3, 4, 5])).numpy(), [4, 1, 10, 2, 16]
    )
    assert next_collatz.tracing_count == 1


def test_input_signature_rejects_an_incompatible_shape_with_value_error():
    message = (
        "next_collatz(): argument 'x' must have a shape compatible with (None,), "
        "got shape (2, 2); pass a compatible value, or change the input_signature"
    )
    with pytest.raises(ValueError) as info:
        next_collatz(rt.constant([[1, 2], [3, 4]]))
    assert str(info.value) == message


def test_input_signature_rejects_a_wrong_dtype_with_type_error():
    message = (
        "next_collatz(): argument 'x' must be an int32 tensor, got a float32 "
        "tensor; cast it with rt.cast(x, rt.int32), or pass a compatible value, "
        "or change the input_signature"
    )
    with pytest.raises(TypeError) as info:
        next_collatz(rt.constant([1.0, 2.0]))
    assert str(info.value) == message


def test_input_signature_rejects_a_wrong_kind_of_value_with_type_error():
    with pytest.raises(
        TypeError, match=r"argument 'x' must be an int32 tensor, got str"
    ):
        next_collatz("a")


def test_input_signature_is_checked_when_called_inside_another_function():
    # Called inside another Function's trace, the function was inlined
    # without its check: a float32 or rank-2 input was computed. It raises
    # what the direct call raises (TensorFlow checks it there too).
    @function
    def outer(x):
        return next_collatz(x)

    @function
    def outer_by_keyword(v):
        return next_collatz(x=v + 1)

    np.testing.assert_array_equal(outer(rt.constant([1, 2])).numpy(), [4, 1])
    np.testing.assert_array_equal(outer([3]).numpy(), [10])
    np.testing.assert_array_equal(outer_by_keyword(rt.constant([2])).numpy(), [10])
    np.testing.assert_array_equal(outer(rt.Variable([2, 3])).numpy(), [1, 10])
    for bad in (rt.constant([1.0, 2.0]), rt.constant([[1, 2], [3, 4]])):
        with pytest.raises((TypeError, ValueError)) as direct:
            next_collatz(bad)
        with pytest.raises(type(direct.value)) as nested:
            outer(bad)
        assert str(nested.value) == str(direct.value)
    with pytest.raises(ValueError, match="compatible with"):
        outer_by_keyword(rt.constant([[2]]))


def test_input_signature_converts_python_values_that_fit():
    np.testing.assert_array_equal(next_collatz([3]).numpy(), [10])
    np.testing.assert_array_equal(next_collatz(x=[4]).numpy(), [2])


def test_input_signature_with_unknown_rank_accepts_any_shape():
    @function(input_signature=[rt.TensorSpec(shape=None, dtype=rt.float32)])
    def total(x):
        return rt.reduce_sum(x)

    assert total(rt.constant(2.0)).numpy() == 2.0
    assert total(rt.ones([2, 3])).numpy() == 6.0
    assert total.tracing_count == 1
    graph_input = total.get_concrete_function().inputs[0]
    assert graph_input.shape is None and graph_input.op.name == "x"


def test_input_signature_accepts_nested_specs():
    spec = rt.TensorSpec([2], rt.float32)

    @function(input_signature=[(spec, {"b": spec})])
    def combine(pair):
        a, rest = pair
        return a - rest["b"]

    out = combine((rt.constant([3.0, 4.0]), {"b": rt.constant([1.0, 1.0])}))
    np.testing.assert_array_equal(out.numpy(), [2.0, 3.0])
    with pytest.raises(TypeError, match=r"argument 'pair\[1\]' must have the keys"):
        combine((rt.constant([3.0, 4.0]), {"c": rt.constant([1.0, 1.0])}))


def test_input_signature_leaves_defaulted_parameters_fixed():
    @function(input_signature=[rt.TensorSpec([], rt.float32)])
    def scale(x, factor=3.0):
        return x * factor

    assert scale(rt.constant(2.0)).numpy() == 6.0
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'factor'"):
        scale(rt.constant(2.0), factor=4.0)


def test_input_signature_must_cover_parameters_without_defaults():
    with pytest.raises(TypeError) as info:

        @function(input_signature=[rt.TensorSpec([])])
        def add(a, b):
            return a + b

    assert str(info.value) == (
        "add: the parameter 'b' is not covered by the input_signature and has no "
        "default; add a TensorSpec for it"
    )


class Doubler:
    def __init__(self):
        self.traces = 0

    @function(input_signature=[rt.TensorSpec([None], rt.float32)])
    def double(self, x):
        self.traces += 1
        return x * 2

    @staticmethod
    @function(input_signature=[rt.TensorSpec([], rt.float32)])
    def half(x):
        return x / 2

    @function(input_signature=[rt.TensorSpec([]), rt.TensorSpec([])])
    def too_many(self, x):
        return x


def test_a_methods_input_signature_leaves_out_self():
    # As in TensorFlow: the specs cover the parameters after `self` (it
    # counted `self`, refusing a right one-spec signature at the decorator).
    doubler = Doubler()
    assert doubler.double(rt.constant([1.0, 2.0])).numpy().tolist() == [2.0, 4.0]
    assert doubler.double(rt.constant([1.0, 2.0, 3.0])).numpy().tolist() == [2, 4, 6]
    assert doubler.traces == 1
    assert float(Doubler.half(rt.constant(3.0))) == 1.5
    with pytest.raises(TypeError) as info:
        doubler.too_many  # noqa: B018 - binding checks the signature
    assert str(info.value) == (
        "too_many: the input_signature has 2 entries but the function takes only "
        "1 positional arguments (not counting self)"
    )


def test_input_signature_entries_must_be_tensor_specs():
    with pytest.raises(
        TypeError, match=r"input_signature entries must be rt\.TensorSpec"
    ):
        function(lambda x: x, input_signature=[3])


def test_input_signature_longer_than_the_parameters_is_rejected():
    with pytest.raises(TypeError, match="has 2 entries but the function takes only 1"):
        function(lambda x: x, input_signature=[rt.TensorSpec([])] * 2)


@function
def double(a):
    return a + a


def test_get_concrete_function_accepts_tensors_specs_and_python_values():
    from_tensor = double.get_concrete_function(rt.constant(1.0))
    from_spec = double.get_concrete_function(rt.TensorSpec([], rt.float32))
    assert isinstance(from_tensor, ConcreteFunction)
    assert from_tensor is from_spec
    from_python = double.get_concrete_function(4)
    assert from_python(4).numpy() == 8
    assert from_python().numpy() == 8


def test_get_concrete_function_does_not_run_the_graph():
    counter = rt.Variable(0)

    @function
    def bump():
        counter.assign_add(1)

    bump.get_concrete_function()
    assert counter.numpy() == 0
    bump()
    assert counter.numpy() == 1


def test_a_concrete_function_accepts_positional_and_keyword_arguments():
    concrete = double.get_concrete_function(rt.TensorSpec([], rt.float32))
    assert concrete(rt.constant(2.0)).numpy() == 4.0
    assert concrete(a=rt.constant(3.0)).numpy() == 6.0


def test_a_concrete_function_rejects_a_wrong_dtype_naming_the_argument():
    concrete = double.get_concrete_function(rt.TensorSpec([], rt.float32))
    with pytest.raises(TypeError) as info:
        concrete(rt.constant(1))
    assert str(info.value) == (
        "double(): argument 'a' must be a float32 tensor, got an int32 tensor; "
        "cast it with rt.cast(a, rt.float32), or this ConcreteFunction was traced "
        "for double(a); call the Function (or get_concrete_function) to trace "
        "another signature"
    )


def test_a_concrete_function_rejects_a_wrong_shape_naming_the_argument():
    concrete = double.get_concrete_function(rt.TensorSpec([2], rt.float32))
    with pytest.raises(
        ValueError, match=r"^double\(\): argument 'a' must have a shape"
    ):
        concrete(rt.constant([1.0, 2.0, 3.0]))


def test_a_concrete_function_keeps_its_python_arguments():
    @function
    def power(a, b):
        return a**b

    square = power.get_concrete_function(a=rt.TensorSpec(None, rt.float32), b=2)
    assert square(rt.constant(10.0)).numpy() == 100.0
    assert square(rt.constant(10.0), b=2).numpy() == 100.0
    with pytest.raises(TypeError) as info:
        square(rt.constant(10.0), b=3)
    assert str(info.value) == (
        "power(): argument 'b' was traced with the Python value 2, got int 3; this "
        "ConcreteFunction was traced for power(a, b=2); call the Function (or "
        "get_concrete_function) to trace another signature"
    )


def test_a_concrete_function_can_leave_out_objects_it_was_traced_with():
    class Model:
        weight = 2.0

    @function
    def evaluate(model, x):
        return model.weight * x

    model = Model()
    concrete = evaluate.get_concrete_function(model, rt.constant(1.0))
    assert concrete(rt.constant(10.0)).numpy() == 20.0
    assert concrete(model, rt.constant(10.0)).numpy() == 20.0
    with pytest.raises(TypeError, match=r"argument 'model' was traced with the object"):
        concrete(Model(), rt.constant(10.0))


def test_a_concrete_function_rejects_missing_and_unexpected_arguments():
    concrete = double.get_concrete_function(rt.TensorSpec([], rt.float32))
    with pytest.raises(TypeError, match=r"^double\(\) missing the tensor argument 'a'"):
        concrete()
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'b'"):
        concrete(rt.constant(1.0), b=1)


def test_a_concrete_function_exposes_its_graph_and_signature():
    concrete = double.get_concrete_function(rt.TensorSpec([3], rt.float32))
    assert isinstance(concrete.graph, rt.Graph)
    assert concrete.graph is concrete.unoptimized_graph
    assert [t.op.name for t in concrete.inputs] == ["a"]
    assert concrete.outputs == [concrete.structured_outputs]
    assert concrete.structured_input_signature == (
        (rt.TensorSpec([3], rt.float32),),
        {},
    )
    assert concrete.output_specs == rt.TensorSpec([3], rt.float32)
    assert repr(concrete).startswith("<ConcreteFunction double(a) at 0x")


def test_encode_feeds_tensors_in_nest_flatten_order():
    """`encode` is the one structure walk of the tracer written by hand (it
    runs on every call); the feeds it collects must come in the order the
    traced graph's placeholders were made in: `nest.flatten`'s."""
    pair = collections.namedtuple("pair", "b a")
    value = {
        "z": [rt.constant(1.0), np.float32(2.0)],
        "a": pair(rt.constant([3, 4]), {"y": np.array([5.0]), "x": 7}),
        10: (rt.constant(True),),
    }
    feeds: list = []
    encode(value, feeds, [])
    tensors = [
        v.numpy() if isinstance(v, rt.Tensor) else v
        for v in nest.flatten(value)
        if isinstance(v, (rt.Tensor, np.ndarray, np.generic))
    ]
    assert len(feeds) == len(tensors) == 5
    assert all(f is t for f, t in zip(feeds, tensors))
