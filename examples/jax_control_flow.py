"""JAX: the same Python control flow under jax.jit, vmap and grad.

Plain `jax.jit` cannot run a Python `while` or `if` on a traced value: it
raises `TracerBoolConversionError`, and the usual fix is to rewrite the code
by hand with `lax.while_loop` and `lax.cond`. `autograph.to_graph(f)` (or
`autograph.jit(f)`) does that rewrite: the converted code dispatches on the
type of each condition, and JAX tracers get `lax` control flow.

Needs JAX (`pip install -e '.[jax]'`).

Run: python examples/jax_control_flow.py
"""

import jax
import jax.numpy as jnp

import autograph


def newton_sqrt(a):
    """Square root by Newton's method, until the step is small."""
    x = a
    steps = 0
    while jnp.abs(x * x - a) > 1e-5 * a:
        if x > a:  # a poor start: halve first
            x = x / 2
        else:
            x = (x + a / x) / 2
        steps += 1
    return x, steps


try:
    jax.jit(newton_sqrt)(2.0)
except jax.errors.TracerBoolConversionError as e:
    print("plain jax.jit:", type(e).__name__)

fast_sqrt = autograph.jit(newton_sqrt)
x, steps = fast_sqrt(2.0)
print(f"autograph.jit: sqrt(2) = {float(x):.5f} in {int(steps)} steps")

roots, counts = jax.vmap(autograph.to_graph(newton_sqrt))(jnp.array([4.0, 9.0, 100.0]))
print("vmap:", [round(float(r), 4) for r in roots])

# Reverse mode through a loop over a Python range: staged as one fori_loop
# (a scan), not unrolled 1,000 times.


def recurrence(w, x):
    for _ in range(1000):
        x = jnp.tanh(w * x + 0.1)
    return x


grad = jax.jit(jax.grad(autograph.to_graph(recurrence)))
print(f"grad through 1000 steps: {float(grad(0.9, 0.5)):.6f}")

print(autograph.to_code(newton_sqrt))
