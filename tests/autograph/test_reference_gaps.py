"""Issue 22: the classes of TensorFlow's AutoGraph reference tests that failed.

Each test below is an issue's repro (or its equivalent) and failed before the
fix. A class that applies to the JAX backend is run there too.
"""

import re

import numpy as np
import pytest

import autograph
import runtime as rt


def _line(fn, offset):
    return f"{__file__}:{fn.__code__.co_firstlineno + offset}"


def _run(backend, fn, *args):
    """`fn` traced by the graph backend (`autograph.function`) or `jax.jit`."""
    if backend == "graph":
        return autograph.function(fn)(*[rt.constant(a) for a in args])
    jax = pytest.importorskip("jax")
    return jax.block_until_ready(jax.jit(autograph.to_graph(fn))(*args))


# -- class 9: an exception raised while tracing a branch raises when it runs ------


def raises_in_a_branch(x):
    if x > 0:
        raise ValueError("boom")
    return x


def membership_in_a_branch(x):
    if x > 0:
        y = 1 in x
    else:
        y = True
    return y


def test_a_raise_in_a_graph_branch_is_an_invalid_argument_error_with_its_message():
    f = autograph.function(raises_in_a_branch)
    assert f(rt.constant(-1)).numpy() == -1
    with pytest.raises(rt.errors.InvalidArgumentError) as info:
        f(rt.constant(1))
    assert str(info.value).startswith(
        f"ValueError: boom (in the if branch of the graph `if` at "
        f"{_line(raises_in_a_branch, 1)}, which this run took)"
    )


def test_an_op_type_error_in_a_graph_branch_is_raised_when_it_runs():
    f = autograph.function(membership_in_a_branch)
    assert f(rt.constant(-1)).numpy()
    with pytest.raises(rt.errors.InvalidArgumentError) as info:
        f(rt.constant(1))
    assert str(info.value).startswith("TypeError: ")


def changes_structure(n):
    v = rt.constant(1)
    for _ in rt.range(n):
        v = {"a": v}
    return v


def changes_structure_jax(n):
    v = 1.0
    for _ in range(n):
        v = {"a": v}
    return v


@pytest.mark.parametrize("backend", ["graph", "jax"])
def test_a_loop_variable_that_changes_structure_is_a_type_error(backend):
    fn = changes_structure if backend == "graph" else changes_structure_jax
    with pytest.raises(TypeError, match="'v'"):
        _run(backend, fn, 1)
