"""Integer wrap-around in graph loops warns once at the user's line (issue 23)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import autograph
import runtime as rt
from runtime import overflow

KERNELS = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply}
EXACT = {"Add": int.__add__, "Sub": int.__sub__, "Mul": int.__mul__}


@pytest.mark.parametrize("np_type", [np.int32, np.int64])
@pytest.mark.parametrize("op", ["Add", "Sub", "Mul"])
def test_the_condition_holds_exactly_when_python_ints_leave_the_range(op, np_type):
    info = np.iinfo(np_type)
    edges = [info.max, info.min, info.max // 3, info.min // 3, 46341, -46341]
    values = [0, 1, -1, 2, -2, 3, -7, *edges, *(e + 1 for e in edges[2:])]
    for a, b in itertools.product(values, values):
        wrapped = not info.min <= EXACT[op](a, b) <= info.max
        with np.errstate(all="ignore"):
            out = KERNELS[op](np_type(a), np_type(b))
        for consts in ((None, None), (a, None), (None, b)):
            text = overflow.condition(op, info.dtype.name, "a", "b", *consts)
            if text is None:  # unchecked: int64 products
                assert not wrapped or (op, np_type) == ("Mul", np.int64)
                continue
            scope = {"a": np_type(a), "b": np_type(b), "o": out}
            with np.errstate(all="ignore"):
                assert bool(eval(text.format(o="o"), scope)) == wrapped, (a, b, text)


def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1  # wraps for 113383 in int32
        steps += 1
        if steps > 300:
            break
    return steps


def test_a_wrap_in_a_graph_loop_warns_once_at_the_users_line():
    f = autograph.function(collatz_steps)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f(rt.constant(113383))
        f(rt.constant(113383))
    wraps = [w for w in caught if w.category is overflow.IntegerOverflowWarning]
    assert len(wraps) == 1
    line = collatz_steps.__code__.co_firstlineno + 6
    assert (wraps[0].filename, wraps[0].lineno) == (__file__, line)
    assert str(wraps[0].message).startswith(
        f"int32 overflow at {__file__}:{line}: `*` wrapped around in a graph loop"
    )
    assert "rt.constant(n, rt.int64)" in str(wraps[0].message)


def test_no_warning_where_nothing_wraps():
    with warnings.catch_warnings():
        warnings.simplefilter("error", overflow.IntegerOverflowWarning)
        assert int(autograph.function(collatz_steps)(rt.constant(27))) == 111
        big = rt.constant(113383, rt.int64)
        assert int(autograph.function(collatz_steps)(big)) == 247


def test_a_python_int_beyond_int32_becomes_int64():
    assert rt.constant(2**31).dtype is rt.int64
    assert rt.constant([1, 2**40]).dtype is rt.int64
    assert rt.constant(2**31 - 1).dtype is rt.int32
