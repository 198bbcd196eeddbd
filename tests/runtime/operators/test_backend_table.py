"""One case table run over every staging backend.

Each case is a plain Python function, the arguments it is called with, and
what every backend must do: give Python's result, or refuse while tracing
(or, under JAX where user code swallows the refusal, when run) with a
message naming what to change. As JAX's own control-flow tests run one case
list over every implementation, a new backend is one more entry in
`RUNNERS`.
"""

from __future__ import annotations

import numpy as np
import pytest

import autograph
import runtime as rt


def cell_no_try(n):
    x = 1
    for i in range(n):
        w = i
    get = lambda: w  # noqa: F841 - makes `w` a cell
    x = x + w
    return x


def loop_born_read_in_try(n):
    x = 1
    try:
        for i in range(n):
            w = i
        x = x + w
    finally:
        return x  # noqa: B012 - swallows the UnboundLocalError when n == 0


def loop_in_try_body(n):
    x = 1
    try:
        i = 0
        while i < n:
            w = i
            i += 1
        x = x + w
    except ZeroDivisionError:
        x = -5
    return x


def helper():
    raise KeyError("boom")


def raise_from_helper(x):
    y = 0
    try:
        if x > 0:
            y = helper()
        else:
            y = 1
    except KeyError:
        y = 2
    return y


def _graph(fn, *args):
    result = autograph.function(fn)(*(rt.constant(a) for a in args))
    return np.asarray(result.numpy())


def _jax(fn, *args):
    jax = pytest.importorskip("jax", reason="JAX is not installed (the 'jax' extra)")
    result = jax.jit(autograph.to_graph(fn))(*args)
    return np.asarray(jax.block_until_ready(result))


RUNNERS = {"graph": _graph, "jax": _jax}

# (function, arguments, None for Python's result or a refusal's text)
CASES = [
    (cell_no_try, (3,), None),
    (loop_in_try_body, (3,), None),
    (loop_born_read_in_try, (3,), r"'w' may be unbound where it is read"),
    (raise_from_helper, (1,), r"KeyError\('boom'\) is raised in the if branch"),
]


@pytest.mark.parametrize("backend", sorted(RUNNERS))
@pytest.mark.parametrize(
    ("fn", "args", "refusal"), CASES, ids=[c[0].__name__ for c in CASES]
)
def test_every_backend_agrees_with_python(backend, fn, args, refusal):
    run = RUNNERS[backend]
    if refusal is None:
        assert run(fn, *args).tolist() == fn(*args)
        return
    with pytest.raises(Exception, match=refusal) as caught:
        run(fn, *args)
    # A refusal says what to change: never an internal error.
    assert isinstance(caught.value, TypeError) or "TypeError" in str(caught.value)
