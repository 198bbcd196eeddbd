"""Signatures printed in the TensorFlow guides' layout."""

from __future__ import annotations

import textwrap

import runtime as rt
from autograph.tracing import function


def test_one_block_per_traced_signature_in_trace_order():
    @function
    def my_relu(x):
        return rt.maximum(0.0, x)

    my_relu(rt.constant(5.5))
    my_relu([1, -1])
    my_relu(rt.constant([3.0, -3.0]))
    assert my_relu.pretty_printed_concrete_signatures() == textwrap.dedent(
        """\
        my_relu(x)
          Args:
            x: float32 Tensor, shape=()
          Returns:
            float32 Tensor, shape=()

        my_relu(x=[1, -1])
          Returns:
            float32 Tensor, shape=(2,)

        my_relu(x)
          Args:
            x: float32 Tensor, shape=(2,)
          Returns:
            float32 Tensor, shape=(2,)"""
    )


def test_python_values_show_in_the_header_and_unknown_shapes_as_unknown():
    @function
    def power(a, b):
        return a**b

    square = power.get_concrete_function(a=rt.TensorSpec(None, rt.float32), b=2)
    assert str(square) == textwrap.dedent(
        """\
        ConcreteFunction power(a, b=2)
          Args:
            a: float32 Tensor, shape=<unknown>
          Returns:
            float32 Tensor, shape=<unknown>"""
    )
    assert square.pretty_printed_signature(verbose=False) == "power(a, b=2)"


def test_nested_arguments_and_results_print_with_numbered_markers():
    @function
    def split(pair, scale=1.0):
        a, b = pair
        return {"sum": (a + b) * scale, "first": a, "none": None}

    concrete = split.get_concrete_function(
        (rt.TensorSpec([2], rt.float32), rt.TensorSpec([None, 2], rt.float32))
    )
    assert concrete.pretty_printed_signature() == textwrap.dedent(
        """\
        split(pair, scale=1.0)
          Args:
            pair: (<1>, <2>)
              <1>: float32 Tensor, shape=(2,)
              <2>: float32 Tensor, shape=(None, 2)
          Returns:
            {'sum': <1>, 'first': <2>, 'none': <3>}
              <1>: float32 Tensor, shape=(None, 2)
              <2>: float32 Tensor, shape=(2,)
              <3>: None"""
    )


def test_a_function_without_results_returns_none():
    @function
    def nothing():
        pass

    nothing()
    assert nothing.pretty_printed_concrete_signatures() == (
        "nothing()\n  Returns:\n    None"
    )


def test_an_untraced_function_prints_nothing():
    @function
    def never(x):
        return x

    assert never.pretty_printed_concrete_signatures() == ""
