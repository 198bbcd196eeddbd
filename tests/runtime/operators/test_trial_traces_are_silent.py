"""Trial traces do not repeat the user's `print` (issue 23).

A backend traces a loop body (or a branch) once more when it must learn a
type first (a loop-born name read after the loop, a return value only one
branch sets). Graph tracing prints what the body prints once, as in
TensorFlow; under JAX a print runs when the compiled function runs, so
each call prints what Python prints, and a trial trace stages none.
"""

from __future__ import annotations

import pytest

import autograph
import runtime as rt
from runtime.context import STATE
from tests.equivalence import require_jax


def loop_born_read_after(n):
    for i in range(n):
        print("body traced")
        w = i * 2
    return w


def while_loop_born(n):
    i = 0
    while i < n:
        print("body traced")
        w = i + 1
        i += 1
    return w


def branch_sets_the_return(x):
    if x > 0:
        print("body traced")
        return x
    return x * 2


CASES = [
    pytest.param(loop_born_read_after, 3, 4, id="for-loop-born"),
    pytest.param(while_loop_born, 3, 3, id="while-loop-born"),
    pytest.param(branch_sets_the_return, 3, 3, id="if-return"),
]
# How often Python prints "body traced" for each case's argument.
PYTHON_PRINTS = {loop_born_read_after: 3, while_loop_born: 3, branch_sets_the_return: 1}


def _graph(fn, arg):
    return autograph.function(fn)(rt.constant(arg)).numpy()


def _jax(fn, arg):
    jax = require_jax()
    return jax.jit(autograph.to_graph(fn))(jax.numpy.asarray(arg))


@pytest.mark.parametrize(("fn", "arg", "expected"), CASES)
def test_graph_tracing_prints_the_body_once(capsys, fn, arg, expected):
    assert int(_graph(fn, arg)) == expected
    assert capsys.readouterr().out.count("body traced") == 1


@pytest.mark.parametrize(("fn", "arg", "expected"), CASES)
def test_a_jax_run_prints_what_python_prints(capsys, fn, arg, expected):
    jax = require_jax()
    for _ in range(2):  # the call that traces, and one that only runs
        assert int(_jax(fn, arg)) == expected
        jax.effects_barrier()
        assert capsys.readouterr().out.count("body traced") == PYTHON_PRINTS[fn]


def test_converted_code_run_as_python_prints_every_iteration(capsys):
    # Only trial traces are silent: converted code forced to run as Python
    # prints as the original does.
    from autograph.impl.api import always_run_converted

    converted = autograph.to_graph(loop_born_read_after)
    with always_run_converted():
        assert converted(3) == 4
    assert capsys.readouterr().out.count("body traced") == 3
    assert STATE.trials == 0
