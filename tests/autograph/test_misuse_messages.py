"""Python builtins on graph tensors inside a converted function: the message
names what the user wrote, the line, and what to write instead (issue 23)."""

from __future__ import annotations

import inspect
import re

import pytest

import autograph
import runtime as rt


# (A `for` statement over enumerate()/zip() of tensors is one graph loop:
# tests/samples; a comprehension iterates in Python.)
def with_enumerate(t):
    products = [i * x for i, x in enumerate(t)]
    return products[0]


def with_zip(a, b):
    return [x * y for x, y in zip(a, b)]


def with_columns(m):
    out = []
    for col in zip(*m):
        out.append(col[0] + col[1])
    return out[0]


def with_max(a, b):
    return max(a, b)


def with_min(a, b):
    return min(a, b)


def with_unpacking(t):
    first, second = t
    return first + second


def with_sum(t):
    return sum(t)


def with_rows_unpacked(m):
    s = 0.0
    for a, b in m:
        s += a * b
    return s


def with_dataset_rows(dataset):
    loss = rt.constant(0)
    for x, y in dataset:
        loss += rt.abs(y - x)
    return loss


V = rt.constant([1, 2, 3])
CASES = [
    (
        with_enumerate,
        "enumerate(t)",
        (V,),
        "enumerate(t) iterates over the graph tensor t in Python; write a `for` "
        "statement over enumerate(t) (one graph loop), or loop over an index: "
        "`for i in rt.range(rt.shape(t)[0])` and read t[i]",
    ),
    (
        with_zip,
        "zip(a, b)",
        (V, V),
        "zip(a, b) iterates over graph tensors in Python; write a `for` statement "
        "over zip() of tensors only (one graph loop), or loop over an index: "
        "`for i in rt.range(rt.shape(a)[0])` and read a[i], b[i]",
    ),
    (
        # (The advice was `rt.shape(*m)[0]` and `*m[i]`: not valid code.)
        with_columns,
        "zip(*m)",
        (rt.constant([[1.0, 2.0], [3.0, 4.0]]),),
        "zip(*m) unpacks the graph tensor m into its rows in Python to give its "
        "columns; write a `for` statement over rt.transpose(m) (one graph loop "
        "over the columns), or read a column as m[:, j]",
    ),
    (
        # (Of scalars, `max` is staged: arrays compare as a Python bool.)
        with_max,
        "max(a, b)",
        (rt.constant([1, 2]), rt.constant([2, 1])),
        "max(a, b) compares graph tensors as a Python bool; write rt.maximum(a, b)",
    ),
    (
        # (Of scalars, `min` is staged: arrays compare as a Python bool.)
        with_min,
        "min(a, b)",
        (rt.constant([1, 2]), rt.constant([2, 1])),
        "min(a, b) compares graph tensors as a Python bool; write rt.minimum(a, b)",
    ),
    (
        with_unpacking,
        "first, second = t",
        (rt.constant([1, 2]),),
        "unpacking the graph tensor t into first, second iterates over it in "
        "Python; index it instead: first, second = t[0], t[1]",
    ),
    (
        with_sum,
        "sum(t)",
        (V,),
        "sum(t) iterates over the graph tensor t in Python; write rt.reduce_sum(t)",
    ),
    (
        with_rows_unpacked,
        "for a, b in m",
        (rt.constant([[1.0, 2.0], [3.0, 4.0]]),),
        "unpacking each element of m into a, b iterates over a graph tensor in "
        "Python; index it instead: `for row in m:` then a, b = row[0], row[1]",
    ),
    (
        # The guide's data as one element: not 'loop_var_1:0' any more.
        with_dataset_rows,
        "for x, y in dataset",
        (rt.data.Dataset.from_tensors([(1, 1)] * 3),),
        "unpacking each element of dataset into x, y iterates over a graph tensor "
        "in Python; index it instead: `for row in dataset:` then x, y = row[0], "
        "row[1]",
    ),
]


def double(t):
    return t * 2


def with_map_in_a_for(xs):
    s = 0
    for v in map(lambda t: t * 2, xs):
        s += v
    return s


def with_list_of_map(xs):
    return list(map(double, xs))


CASES += [
    (
        # (It named the lambda "the graph tensor", and indexed it.)
        with_map_in_a_for,
        "for v in map(",
        (V,),
        "map(lambda t: t * 2, xs) iterates over the graph tensor xs in Python, "
        "which needs its values; loop over xs itself with a `for` statement (one "
        "graph loop) and apply lambda t: t * 2 in its body",
    ),
    (
        # (It named map(double, xs) "the graph tensor".)
        with_list_of_map,
        "list(map(double, xs))",
        (V,),
        "map(double, xs) iterates over the graph tensor xs in Python, which needs "
        "its values; loop over xs itself with a `for` statement (one graph loop) "
        "and apply double in its body",
    ),
]


@pytest.mark.parametrize(
    ("fn", "written", "args", "expected"), CASES, ids=[c[0].__name__ for c in CASES]
)
def test_the_message_names_the_users_code_and_the_fix(fn, written, args, expected):
    with pytest.raises(TypeError) as info:
        autograph.function(fn)(*args)
    message = str(info.value)
    line = _line_of(fn, written)
    assert message == f"{expected} (at {__file__}:{line})"
    assert not re.search(r"'\w+:\d+'", message)  # no internal tensor names
    assert "convert the function" not in message.lower()


def _line_of(fn, written):
    """The line of `fn`'s body holding the text `written`."""
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, text in enumerate(lines) if i and written in text)


def with_percent_format(x):
    label = "loss %.3f" % x  # noqa: UP031 - the form users write
    return x, label


def with_math(x):
    import math

    return math.sqrt(x)


@pytest.mark.parametrize(
    ("fn", "written"),
    [(with_percent_format, '"loss %.3f" % x'), (with_math, "math.sqrt(x)")],
)
def test_a_tensor_used_as_a_python_float_names_the_line_and_the_fix(fn, written):
    # (Before, Python's own message: "cannot be used as a Python int", no line.)
    with pytest.raises(TypeError) as info:
        autograph.function(fn)(rt.constant(2.5))
    message = str(info.value)
    assert f"is used as a Python float at {__file__}:{_line_of(fn, written)}" in message
    assert "rt.print(value)" in message
