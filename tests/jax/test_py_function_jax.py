"""rt.py_function under JAX: an ordered callback on every run (issue 23).

Skips (with the reason) when JAX cannot be imported.
"""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax", reason="JAX is not installed (the 'jax' extra)")
jnp = jax.numpy

import autograph  # noqa: E402
import runtime as rt  # noqa: E402


def test_py_function_runs_python_on_every_call_of_the_compiled_function():
    calls = []

    def host(x):
        calls.append(float(x))
        return x.numpy() * 2

    def f(x):
        if x > 0:  # a traced `if`: the callback sits inside lax.cond
            y = rt.py_function(host, [x], rt.TensorSpec((), rt.float32))
        else:
            y = x
        return y + 1.0

    compiled = jax.jit(autograph.to_graph(f))
    assert [float(compiled(jnp.float32(v))) for v in (1.0, 2.0, -1.0)] == [
        3.0,
        5.0,
        0.0,
    ]
    assert calls == [1.0, 2.0]


def test_py_function_under_jax_needs_output_shapes():
    def f(x):
        return rt.py_function(lambda t: t, [x], rt.float32)

    with pytest.raises(TypeError, match=r"needs each output's shape"):
        jax.jit(f)(jnp.float32(1.0))
