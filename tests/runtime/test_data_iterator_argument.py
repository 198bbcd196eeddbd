"""An eager dataset iterator passed to a Function: each call draws the next
element when the graph runs (the guide's good_consume_next; issue 23)."""

from __future__ import annotations

import io
from contextlib import redirect_stdout

import pytest

import autograph
import runtime as rt


def test_next_of_an_iterator_argument_advances_on_every_call():
    @autograph.function
    def good_consume_next(iterator):
        rt.print("Value:", next(iterator))

    iterator = iter(rt.data.Dataset.from_tensor_slices([1, 2, 3]))
    out = io.StringIO()
    with redirect_stdout(out):
        for _ in range(3):
            good_consume_next(iterator)
    assert out.getvalue() == "Value: 1\nValue: 2\nValue: 3\n"
    assert len(good_consume_next.concrete_functions) == 1  # traced once
    with pytest.raises(rt.errors.OutOfRangeError, match="End of sequence"):
        good_consume_next(iterator)


def test_a_for_over_an_iterator_argument_takes_the_rest_in_one_graph_loop():
    @autograph.function
    def rest(iterator):
        total = rt.constant(0, rt.int64)  # Dataset.range gives int64
        for x in iterator:
            total += x
        return total

    iterator = iter(rt.data.Dataset.range(5))
    assert int(next(iterator)) == 0  # eagerly
    assert int(rest(iterator)) == 1 + 2 + 3 + 4
    graph = rest.get_concrete_function(iterator).graph
    assert [op.type for op in graph.get_operations()].count("While") == 1


def test_a_break_in_a_for_over_an_iterator_argument_leaves_the_rest():
    @autograph.function
    def upto(iterator, limit):
        s = rt.constant(0, rt.int64)
        for x in iterator:
            s += x
            if s > limit:
                break
        return s

    iterator = iter(rt.data.Dataset.range(10))
    assert int(upto(iterator, rt.constant(2, rt.int64))) == 0 + 1 + 2
    assert int(next(iterator)) == 3  # 0, 1 and 2 were taken, no more
    assert int(upto(iterator, rt.constant(8, rt.int64))) == 4 + 5
    assert int(next(iterator)) == 6


def test_eager_iteration_is_unchanged():
    ds = rt.data.Dataset.from_tensor_slices(([1, 2], [3.0, 4.0]))
    assert [(int(a), float(b)) for a, b in ds] == [(1, 3.0), (2, 4.0)]
    iterator = iter(ds)
    next(iterator)
    next(iterator)
    with pytest.raises(StopIteration):
        next(iterator)
