"""The JAX backend: converted code vs hand-written `jax.lax` code.

Each workload is written twice: as plain Python control flow, run as
`jax.jit(autograph.to_graph(f))`, and by hand with `lax.while_loop` /
`fori_loop` / `scan` / `cond`. In one interleaved run the bench reports, per
workload, the run time of the compiled function and the trace+compile time
(a fresh `jax.jit(...).lower(...).compile()` each round), as ratios
converted/hand-written (targets: run time at most 1.1x, trace+compile at
most 1.5x). For contrast it also times the unrolled alternative (a Python
loop under plain `jax.jit`, traced 1,000 times) for the static recurrence.

Run: ``python bench/bench_jax.py`` (or ``make bench``). Writes
``bench/out/jax.json``. Never asserts on timings. Needs JAX (the ``jax``
extra); without it the script says so and exits.
"""

import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # before anything imports NumPy

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

try:
    import jax
    import jax.numpy as jnp
    from jax import lax
except ImportError:
    raise SystemExit("bench_jax needs JAX: pip install -e '.[jax]'") from None

import autograph
from bench._timing import compare, ratio, time_call, write_results

RUN_TARGET = 1.1
COMPILE_TARGET = 1.5
STEPS = 1000


# -- workloads, converted (plain Python) and by hand (lax) -----------------------


def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def collatz_lax(n):
    def body(s):
        n, steps = s
        n = lax.cond(n % 2 == 0, lambda n: n // 2, lambda n: 3 * n + 1, n)
        return n, steps + 1

    return lax.while_loop(lambda s: s[0] != 1, body, (n, 0))[1]


def tanh_static(x, w):
    for _ in range(STEPS):
        x = jnp.tanh(w * x + 0.1)
    return x


def tanh_static_lax(x, w):
    return lax.fori_loop(0, STEPS, lambda i, x: jnp.tanh(w * x + 0.1), x)


def tanh_traced(x, w, n):
    for _ in range(n):
        x = jnp.tanh(w * x + 0.1)
    return x


def tanh_traced_lax(x, w, n):
    return lax.fori_loop(0, n, lambda i, x: jnp.tanh(w * x + 0.1), x)


def masked_sum(xs):
    total = 0.0
    for x in xs:
        if x > 0:
            total += x * x
    return total


def masked_sum_lax(xs):
    def step(total, x):
        return lax.cond(x > 0, lambda t: t + x * x, lambda t: t, total), None

    return lax.scan(step, 0.0, xs)[0]


def loss_static(w, x):
    return jnp.sum(tanh_static(x, w))


def loss_static_lax(w, x):
    return jnp.sum(tanh_static_lax(x, w))


def tanh_unrolled(x, w):
    # The same loop under plain jax.jit: Python unrolls it, 1,000 tanh ops.
    for _ in range(STEPS):
        x = jnp.tanh(w * x + 0.1)
    return x


X = jnp.linspace(-1.0, 1.0, 256, dtype=jnp.float32)
XS = jnp.sin(jnp.arange(STEPS, dtype=jnp.float32))
W = jnp.float32(0.9)

WORKLOADS = {
    "collatz(27)": (collatz, collatz_lax, (jnp.int32(27),), {}),
    "tanh recurrence, 1000 static steps": (tanh_static, tanh_static_lax, (X, W), {}),
    "tanh recurrence, traced step count": (
        tanh_traced,
        tanh_traced_lax,
        (X, W, jnp.int32(STEPS)),
        {},
    ),
    "masked sum with if in loop (1000)": (masked_sum, masked_sum_lax, (XS,), {}),
    "jit(grad) through 1000 static steps": (
        loss_static,
        jax.grad(loss_static_lax),
        (W, X),
        {"grad": True},
    ),
}


def _converted(fn, options):
    if options.get("grad"):
        return jax.grad(autograph.to_graph(fn))
    return autograph.to_graph(fn)


def measure(converted_fn, hand_fn, args, options, compile_rounds=9):
    """Run time and trace+compile time of both versions, and their ratios."""
    converted = jax.jit(_converted(converted_fn, options))
    hand = jax.jit(hand_fn)
    got, want = converted(*args), hand(*args)
    if not jnp.allclose(got, want, rtol=1e-5, atol=1e-6):
        raise SystemExit(f"{converted_fn.__name__}: converted {got} != lax {want}")
    timings = compare(
        {
            "converted": lambda: jax.block_until_ready(converted(*args)),
            "lax": lambda: jax.block_until_ready(hand(*args)),
        },
        rounds=41,  # the machine is shared: more rounds, steadier medians
    )
    # Trace+compile, interleaved: a new function object each time so that no
    # cache of JAX's is hit.
    conv_c, hand_c = [], []
    for _ in range(compile_rounds):
        conv_c.append(
            time_call(
                lambda: (
                    jax.jit(_converted(converted_fn, options)).lower(*args).compile()
                )
            )
        )
        hand_c.append(
            time_call(lambda: jax.jit(lambda *a: hand_fn(*a)).lower(*args).compile())
        )
    run_ratio = ratio(timings, "converted", "lax")
    compile_ratio = statistics.median(conv_c) / statistics.median(hand_c)
    return {
        "converted_run_us": timings["converted"].median_s * 1e6,
        "lax_run_us": timings["lax"].median_s * 1e6,
        "run_ratio": run_ratio,
        "run_within_target": run_ratio <= RUN_TARGET,
        "converted_compile_ms": statistics.median(conv_c) * 1e3,
        "lax_compile_ms": statistics.median(hand_c) * 1e3,
        "compile_ratio": compile_ratio,
        "compile_within_target": compile_ratio <= COMPILE_TARGET,
    }


def measure_unrolled(rounds=3):
    """The unrolled alternative of the static recurrence, against lax."""
    args = (X, W)
    unrolled = jax.jit(tanh_unrolled)
    hand = jax.jit(tanh_static_lax)
    timings = compare(
        {
            "unrolled": lambda: jax.block_until_ready(unrolled(*args)),
            "lax": lambda: jax.block_until_ready(hand(*args)),
        },
        rounds=11,
    )
    unrolled_c, hand_c = [], []
    for _ in range(rounds):
        unrolled_c.append(
            time_call(
                lambda: jax.jit(lambda *a: tanh_unrolled(*a)).lower(*args).compile()
            )
        )
        hand_c.append(
            time_call(
                lambda: jax.jit(lambda *a: tanh_static_lax(*a)).lower(*args).compile()
            )
        )
    return {
        "unrolled_run_us": timings["unrolled"].median_s * 1e6,
        "lax_run_us": timings["lax"].median_s * 1e6,
        "run_ratio": ratio(timings, "unrolled", "lax"),
        "unrolled_compile_ms": statistics.median(unrolled_c) * 1e3,
        "lax_compile_ms": statistics.median(hand_c) * 1e3,
        "compile_ratio": statistics.median(unrolled_c) / statistics.median(hand_c),
    }


def main() -> None:
    """Times every workload, prints a table, writes the JSON."""
    print(f"jax {jax.__version__} on {jax.devices()[0].platform}")
    print(
        f"{'workload':38} {'converted':>11} {'lax':>11} {'run':>6}"
        f" {'compile conv':>13} {'lax':>9} {'ratio':>6}"
    )
    results = {}
    for name, (fn, hand_fn, args, options) in WORKLOADS.items():
        row = results[name] = measure(fn, hand_fn, args, options)
        print(
            f"{name:38} {row['converted_run_us']:9.1f}us {row['lax_run_us']:9.1f}us"
            f" {row['run_ratio']:5.2f}x {row['converted_compile_ms']:11.1f}ms"
            f" {row['lax_compile_ms']:7.1f}ms {row['compile_ratio']:5.2f}x"
        )
    unrolled = measure_unrolled()
    print(
        f"unrolled static recurrence (plain jax.jit): run {unrolled['run_ratio']:.2f}x"
        f" lax, compile {unrolled['unrolled_compile_ms']:.0f} ms ="
        f" {unrolled['compile_ratio']:.0f}x lax"
    )
    path = write_results(
        "jax",
        {
            "jax_version": jax.__version__,
            "run_target_ratio": RUN_TARGET,
            "compile_target_ratio": COMPILE_TARGET,
            "workloads": results,
            "unrolled_alternative": unrolled,
        },
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
