"""rt.GradientTape: every differentiable op against central finite
differences (float64), eagerly and in a graph with unknown dims; tape rules;
gradients through cond, while loops, TensorArrays and Function calls."""

from __future__ import annotations

import numpy as np
import pytest

import autograph
import runtime as rt
from runtime import executor

RNG = np.random.default_rng(0)


def _arr(*shape, positive=False):
    a = RNG.uniform(0.5, 1.5, shape) if positive else RNG.uniform(-1.5, 1.5, shape)
    return np.asarray(a, dtype=np.float64)


def _numeric(fn, arrays, weights):
    """Central differences of sum(fn(*arrays) * weights)."""
    grads = []
    eps = 1e-6
    for k, a in enumerate(arrays):
        g = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            plus = [x.copy() for x in arrays]
            minus = [x.copy() for x in arrays]
            plus[k][idx] += eps
            minus[k][idx] -= eps
            f_plus = np.sum(fn(*[rt.constant(x) for x in plus]).numpy() * weights)
            f_minus = np.sum(fn(*[rt.constant(x) for x in minus]).numpy() * weights)
            g[idx] = (f_plus - f_minus) / (2 * eps)
        grads.append(g)
    return grads


def _eager_grads(fn, arrays, weights):
    xs = [rt.constant(a) for a in arrays]
    with rt.GradientTape() as tape:
        tape.watch(xs)
        y = rt.reduce_sum(fn(*xs) * weights)
    return [g.numpy() for g in tape.gradient(y, xs)]


def _graph_grads(fn, arrays, weights, unknown):
    g = rt.Graph()
    with g.as_default():
        xs = [
            g.placeholder(rt.float64, [None] * a.ndim if unknown else a.shape)
            for a in arrays
        ]
        with rt.GradientTape() as tape:
            tape.watch(xs)
            y = rt.reduce_sum(fn(*xs) * weights)
        grads = tape.gradient(y, xs)
    return executor.compile(g, xs, grads)(arrays)


OPS = {
    "add_broadcast": (lambda x, y: x + y, [(2, 3), (3,)]),
    "sub_broadcast": (lambda x, y: x - y, [(2, 1), (1, 3)]),
    "mul_broadcast": (lambda x, y: x * y, [(2, 3), (2, 1)]),
    "div": (lambda x, y: x / y, [(2, 3), ("+", 3)]),
    "pow": (lambda x, y: x**y, [("+", 2, 3), (3,)]),
    "pow_scalar": (lambda x: x**3, [(4,)]),
    "maximum": (lambda x, y: rt.maximum(x, y), [(3, 4), (4,)]),
    "minimum": (lambda x, y: rt.minimum(x, y), [(3, 4), (3, 1)]),
    "abs": (rt.abs, [(5,)]),
    "negative": (rt.negative, [(2, 2)]),
    "square": (rt.square, [(3,)]),
    "exp": (rt.exp, [(2, 3)]),
    "log": (rt.log, [("+", 2, 3)]),
    "sqrt": (rt.sqrt, [("+", 4)]),
    "tanh": (rt.tanh, [(2, 3)]),
    "sigmoid": (rt.sigmoid, [(3,)]),
    "relu": (rt.relu, [(6,)]),
    "sin": (rt.sin, [(3,)]),
    "cos": (rt.cos, [(3,)]),
    "matmul": (rt.matmul, [(2, 3), (3, 4)]),
    "reduce_sum_axis": (lambda x: rt.reduce_sum(x, axis=1), [(2, 3)]),
    "reduce_mean_keepdims": (
        lambda x: rt.reduce_mean(x, axis=0, keepdims=True),
        [(3, 2)],
    ),
    "reduce_max": (lambda x: rt.reduce_max(x, axis=-1), [(2, 4)]),
    "reduce_min_all": (lambda x: rt.reduce_min(x), [(3, 3)]),
    "reduce_prod": (lambda x: rt.reduce_prod(x, axis=0), [("+", 3, 2)]),
    "reshape": (
        lambda x: rt.reshape(x, [3, 2]) * rt.constant(np.arange(6.0).reshape(3, 2)),
        [(2, 3)],
    ),
    "transpose": (lambda x: rt.transpose(x, [1, 0, 2]), [(2, 3, 2)]),
    "concat": (lambda x, y: rt.concat([x, y], axis=1), [(2, 1), (2, 3)]),
    "stack": (lambda x, y: rt.stack([x, y], axis=1), [(3,), (3,)]),
    "gather": (lambda x: rt.gather(x, [2, 0, 2], axis=0), [(3, 2)]),
    "where": (lambda x, y: rt.where(x > 0, x * 2, y), [(2, 3), (3,)]),
    "slice": (lambda x: x[1:, ::2], [(3, 4)]),
    "index": (lambda x: x[1] * x[0], [(2, 3)]),
    "pad": (lambda x: rt.pad(x, [[1, 0], [0, 2]]), [(2, 2)]),
    "expand_squeeze": (lambda x: rt.squeeze(rt.expand_dims(x, 0), 0) * x, [(3,)]),
    "cast": (lambda x: rt.cast(x, rt.float64) * 2.0, [(3,)]),
    "identity": (lambda x: rt.identity(x) * x, [(2,)]),
}


def _inputs(shapes):
    arrays = []
    for s in shapes:
        positive = s[0] == "+"
        dims = s[1:] if positive else s
        arrays.append(_arr(*dims, positive=positive))
    return arrays


@pytest.mark.parametrize("name", sorted(OPS))
def test_gradient_matches_finite_differences(name):
    fn, shapes = OPS[name]
    arrays = _inputs(shapes)
    weights = fn(*[rt.constant(a) for a in arrays]).numpy()
    weights = np.asarray(RNG.uniform(0.5, 2.0, np.shape(weights)))
    expected = _numeric(fn, arrays, weights)
    tol = 1e-4
    for got in (
        _eager_grads(fn, arrays, weights),
        _graph_grads(fn, arrays, weights, unknown=False),
        _graph_grads(fn, arrays, weights, unknown=name not in ("transpose", "matmul")),
    ):
        for g, e in zip(got, expected):
            np.testing.assert_allclose(g, e, rtol=tol, atol=tol)


def test_cast_gradient_takes_the_source_dtype():
    x = rt.constant([1.0, 2.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.cast(x, rt.float64) * 3.0
    g = tape.gradient(y, x)
    assert g.dtype is rt.float32 and g.numpy().tolist() == [3.0, 3.0]


def test_an_op_without_a_gradient_raises_naming_it():
    x = rt.constant([1.0, 2.5])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.mod(x, 2.0)
    with pytest.raises(LookupError, match="'FloorMod'"):
        tape.gradient(y, x)


def test_unconnected_sources_give_none_or_zeros():
    x, z = rt.constant(1.0), rt.constant([1.0, 2.0])
    with rt.GradientTape(persistent=True) as tape:
        tape.watch([x, z])
        y = x * 3.0
    assert tape.gradient(y, z) is None
    assert tape.gradient(y, z, unconnected_gradients="zero").numpy().tolist() == [0, 0]
    grads = tape.gradient(y, {"a": [x], "b": (z,)})
    assert grads["a"][0].numpy() == 3.0 and grads["b"][0] is None


def test_non_persistent_tape_computes_once():
    x = rt.constant(2.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert tape.gradient(y, x).numpy() == 4.0
    with pytest.raises(RuntimeError, match="persistent"):
        tape.gradient(y, x)


def test_trainable_variables_are_watched_automatically():
    v = rt.Variable(3.0)
    frozen = rt.Variable(2.0, trainable=False)
    with rt.GradientTape() as tape:
        y = v * v * frozen
    dv, df = tape.gradient(y, [v, frozen])
    assert dv.numpy() == 12.0 and df is None
    with rt.GradientTape(watch_accessed_variables=False) as tape:
        y = v * v
    assert tape.gradient(y, v) is None


def test_stop_gradient():
    x = rt.constant(3.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * rt.stop_gradient(x)
    assert tape.gradient(y, x).numpy() == 3.0


def test_sgd_apply_gradients():
    v = rt.Variable([1.0, 2.0])
    with rt.GradientTape() as tape:
        loss = rt.reduce_sum(v * v)
    grads = tape.gradient(loss, [v])
    rt.optimizers.SGD(0.25).apply_gradients(zip(grads, [v]))
    np.testing.assert_allclose(v.numpy(), [0.5, 1.0])


# -- through graphs ------------------------------------------------------------------


@autograph.function
def power_by_loop(x, n):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.ones_like(x)
        for _ in rt.range(n):
            y = y * x
    return y, tape.gradient(y, x)


def test_derivative_of_x_to_the_n_by_a_graph_loop():
    x = rt.constant([1.5, -2.0], rt.float64)
    for n in (0, 1, 3, 5):
        y, dy = power_by_loop(x, rt.constant(n))
        np.testing.assert_allclose(y.numpy(), x.numpy() ** n)
        np.testing.assert_allclose(
            dy.numpy(), n * x.numpy() ** max(n - 1, 0) if n else 0
        )
    graph = power_by_loop.get_concrete_function(x, rt.constant(3)).graph
    kinds = [op.type for op in graph.get_operations()]
    assert kinds.count("While") == 2  # the forward loop and its backward walk


@autograph.function
def branchy(x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        if x > 0:
            y = x * x * x
        else:
            y = rt.sin(x)
    return tape.gradient(y, x)


def test_gradient_of_the_branch_taken():
    assert branchy(rt.constant(2.0)).numpy() == 12.0
    np.testing.assert_allclose(
        branchy(rt.constant(-1.0)).numpy(), np.cos(-1.0), rtol=1e-6
    )


def test_variables_read_inside_a_graph_loop_and_branch():
    w = rt.Variable(2.0)

    @autograph.function
    def f(x):
        with rt.GradientTape() as tape:
            s = x
            for _ in rt.range(3):
                if s > 0:
                    s = s * w
                else:
                    s = s - w
        return tape.gradient(s, w)

    # s = x * w**3 for x > 0: d/dw = 3 x w**2
    assert f(rt.constant(1.0)).numpy() == 12.0


def test_gradient_through_a_tensor_array_in_a_loop():
    @autograph.function
    def f(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            ta = rt.TensorArray(rt.float32, size=3)
            for i in rt.range(3):
                ta = ta.write(i, x * rt.cast(i + 1, rt.float32))
            total = rt.reduce_sum(ta.stack() * ta.stack())
        return tape.gradient(total, x)

    # total = x^2 (1 + 4 + 9): d/dx = 28 x
    assert f(rt.constant(2.0)).numpy() == 56.0


def test_gradient_through_a_function_call():
    @autograph.function
    def add(a, b):
        return a + b

    v = rt.Variable(1.0)
    with rt.GradientTape() as tape:
        result = add(v, 1.0)
    assert tape.gradient(result, v).numpy() == 1.0

    @autograph.function
    def model(x):
        y = x
        for _ in rt.range(2):
            y = rt.tanh(y * v)
        return y

    x = rt.constant([0.3, -0.2], rt.float32)
    with rt.GradientTape() as tape:
        tape.watch(x)
        out = rt.reduce_sum(model(x))
    dx, dv = tape.gradient(out, [x, v])
    with rt.GradientTape() as tape:  # the same ops run eagerly
        tape.watch(x)
        y = x
        for _ in range(2):
            y = rt.tanh(y * v)
        expected = tape.gradient(rt.reduce_sum(y), [x, v])
    np.testing.assert_allclose(dx.numpy(), expected[0].numpy(), rtol=1e-6)
    np.testing.assert_allclose(dv.numpy(), expected[1].numpy(), rtol=1e-6)


def test_every_call_of_a_traced_function_is_differentiable():
    # A training loop calls the Function once per step: the calls after the
    # one that traced take the all-eager-tensor fast path, which must record
    # on the tape too (it returned None gradients from step 2 on).
    w = rt.Variable(2.0)

    @autograph.function
    def f(x):
        return x * x * w

    x = rt.constant(3.0)
    f(x)  # a warm-up call outside any tape
    for _ in range(3):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        dx, dw = tape.gradient(y, [x, w])
        assert (float(dx), float(dw)) == (12.0, 9.0)

    class Scale:  # a layer that creates its Variable on the first call
        def __init__(self):
            self.w = None

        @autograph.function
        def __call__(self, a, b):
            if self.w is None:
                self.w = rt.Variable(2.0)
            return a * b * self.w

    layer = Scale()
    for _ in range(3):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = layer(x, rt.constant(1.0))
        dx, dw = tape.gradient(y, [x, layer.w])
        assert (float(dx), float(dw)) == (2.0, 3.0)


def test_training_step_inside_a_function_updates_variables():
    w = rt.Variable([[0.0], [0.0]])
    opt = rt.optimizers.SGD(0.1)

    @autograph.function
    def step(x, y):
        with rt.GradientTape() as tape:
            loss = rt.reduce_mean(rt.square(rt.matmul(x, w) - y))
        grads = tape.gradient(loss, [w])
        opt.apply_gradients(zip(grads, [w]))
        return loss

    x = rt.constant([[1.0, 0.0], [0.0, 1.0]])
    y = rt.constant([[2.0], [-1.0]])
    losses = [float(step(x, y)) for _ in range(50)]
    assert losses[-1] < 1e-3 < losses[0]
    np.testing.assert_allclose(w.numpy().ravel(), [2.0, -1.0], atol=0.05)


def test_gradient_through_a_dataset_loop_inside_a_function():
    # The loop captures the iterator handle; its elements depend on no
    # source, so no gradient is asked of IteratorGetNext (it was: LookupError).
    w = rt.Variable(1.0)

    @autograph.function
    def weighted(ds):
        with rt.GradientTape() as tape:
            loss = 0.0
            for x in ds:
                loss += w * x
        return tape.gradient(loss, w)

    @autograph.function
    def weighted_until(ds, limit):
        with rt.GradientTape() as tape:
            loss = 0.0
            for x in ds:
                if x > limit:
                    break
                if x > 0.0:
                    loss += w * w * x
        return tape.gradient(loss, w)

    ds = rt.data.Dataset.from_tensor_slices(rt.constant([1.0, 2.0, 3.0]))
    assert float(weighted(ds)) == 6.0
    assert float(weighted_until(ds, rt.constant(2.5))) == 2 * (1.0 + 2.0)
    assert float(weighted_until(ds, rt.constant(9.0))) == 2 * 6.0


def test_a_branch_that_reads_a_variable_and_a_capped_loop():
    w = rt.Variable(3.0)

    @autograph.function
    def f(x):
        with rt.GradientTape() as tape:
            if x > 0:
                y = w * w
            else:
                y = x
        return tape.gradient(y, w, unconnected_gradients="zero")

    assert float(f(rt.constant(1.0))) == 6.0 and float(f(rt.constant(-1.0))) == 0.0

    @autograph.function
    def capped(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x
            i = rt.constant(0)
            while i < 10:
                autograph.set_loop_options(maximum_iterations=3)
                y = y * x
                i += 1
        return tape.gradient(y, x)

    assert float(capped(rt.constant(2.0))) == 32.0  # d(x**4)/dx


def test_a_graph_op_without_a_gradient_is_named_with_its_line():
    @autograph.function
    def g(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.mod(x, 2.0)
        return tape.gradient(y, x)

    with pytest.raises(LookupError, match=r"'FloorMod'.*test_gradients\.py:\d+"):
        g(rt.constant(1.0))


def test_a_source_no_branch_uses_is_unconnected():
    @autograph.function
    def g(x, z):
        with rt.GradientTape() as tape:
            tape.watch([x, z])
            # z is an input of the cond, but no gradient reaches it
            y = x * 2.0 if x > 0 else x * 3.0 + rt.stop_gradient(z)
        dx, dz = tape.gradient(y, [x, z])
        return dx, dz is None

    dx, unconnected = g(rt.constant(1.0), rt.constant(5.0))
    assert float(dx) == 2.0 and bool(unconnected)


def test_tapes_in_threads_do_not_interfere():
    import threading

    results = {}

    def work(k):
        x = rt.constant(float(k))
        for _ in range(50):
            with rt.GradientTape() as tape:
                tape.watch(x)
                y = x * x * rt.constant(2.0)
            g = tape.gradient(y, x)
        results[k] = float(g)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(1, 5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {k: 4.0 * k for k in range(1, 5)}
