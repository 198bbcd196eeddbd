"""The JAX backend: converted control flow under jax.jit, vmap and grad.

Skips (with the reason) when JAX cannot be imported; the `test` extra
installs it.
"""

from __future__ import annotations

import dataclasses
import re
import warnings

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="JAX is not installed (the 'jax' extra)")
jnp = jax.numpy
lax = jax.lax

import autograph  # noqa: E402
from runtime.operators import jax_backend  # noqa: E402
from tests.equivalence import assert_jax_equivalent  # noqa: E402


def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def first_negative(x):
    i = 0
    while i < x.shape[0]:
        if x[i] < 0:
            break
        i += 1
    return i


def recurrence(x, w):
    for _ in range(100):
        x = jnp.tanh(w * x)
    return x


def recurrence_lax(x, w):
    return lax.fori_loop(0, 100, lambda i, x: jnp.tanh(w * x), x)


def masked_sum(x):
    total = 0.0
    for v in x:
        if v > 0:
            total += v
    return total


def relu_ish(x):
    if x > 0:
        y = x * x
    else:
        y = -x
    return y


def traced_range_sum(n):
    total = 0
    for i in range(n):
        if i % 3 == 0:
            continue
        total += i
    return total


def test_while_and_if_on_traced_values_match_python():
    assert int(jax.jit(autograph.to_graph(collatz))(27)) == collatz(27) == 111
    assert jax.jit(autograph.to_graph(collatz)).lower(27).as_text().count("while") > 0


def test_vmap_and_jit_of_vmap():
    ns = jnp.array([27, 7, 1, 6])
    expected = [collatz(int(n)) for n in ns]
    assert jax.vmap(autograph.to_graph(collatz))(ns).tolist() == expected
    assert jax.jit(jax.vmap(autograph.to_graph(collatz)))(ns).tolist() == expected


def test_grad_jacfwd_and_compositions_through_if():
    f = autograph.to_graph(relu_ish)
    assert float(jax.jit(jax.grad(f))(3.0)) == 6.0
    assert float(jax.jit(jax.grad(f))(-3.0)) == -1.0
    assert float(jax.jacfwd(f)(2.0)) == 4.0
    xs = jnp.array([2.0, -1.0])
    np.testing.assert_allclose(jax.jit(jax.vmap(jax.grad(f)))(xs), [4.0, -1.0])


def _newton_while(a):
    x = a
    while abs(x * x - a) > 1e-5:  # the line named
        x = 0.5 * (x + a / x)
    return x


def _newton_for(a):
    x = a
    for _ in range(20):
        if abs(x * x - a) < 1e-5:
            break
        x = 0.5 * (x + a / x)
    return x


def test_grad_through_a_traced_while_names_the_loop_and_the_fix():
    # (JAX's "Reverse-mode differentiation does not work for lax.while_loop",
    # with no line of the user's.)
    line = _newton_while.__code__.co_firstlineno + 2
    with pytest.raises(ValueError) as info:
        jax.jit(jax.grad(autograph.to_graph(_newton_while)))(2.0)
    text = str(info.value)
    assert text.startswith(
        f"jax.grad cannot differentiate the loop at {__file__}:{line} in reverse "
        "mode: its trip count is traced"
    ), text
    assert "`for i in range(n)` with a Python int n" in text
    # ... which is differentiable, `break` and all:
    grad = jax.jit(jax.grad(autograph.to_graph(_newton_for)))(2.0)
    assert abs(float(grad) - 0.5 / 2**0.5) < 1e-4


def test_eager_grad_runs_python_where_values_are_concrete():
    # Outside jit the JVP tracers are concrete: the backend declines, so the
    # Python `while` runs (a lax.while_loop would refuse reverse mode).
    def halve(x):
        while x > 1.0:
            x = x / 2
        return x

    assert float(jax.grad(autograph.to_graph(halve))(8.0)) == 0.125


def test_static_range_is_one_scan_and_differentiable():
    f = autograph.to_graph(recurrence)
    text = str(jax.make_jaxpr(f)(0.5, 1.5))
    assert "scan" in text and text.count("tanh") == 1  # not unrolled
    got = jax.jit(jax.grad(f, argnums=1))(0.5, 1.5)
    want = jax.jit(jax.grad(recurrence_lax, argnums=1))(0.5, 1.5)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_state_that_becomes_traced_stages_the_rest_of_the_range():
    def f(x):
        total = 0.0  # a Python float for the first iteration
        for i in range(5):
            total = total + x * i
        return total

    text = str(jax.make_jaxpr(autograph.to_graph(f))(2.0))
    assert "scan" in text
    assert float(jax.jit(autograph.to_graph(f))(2.0)) == 20.0


def test_body_needing_a_python_int_unrolls_with_a_warning_naming_the_line():
    weights = [1.0, 2.0, 3.0]

    def f(x):
        for i in range(3):
            x = x * weights[i]
        return x

    line = f.__code__.co_firstlineno + 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert float(jax.jit(autograph.to_graph(f))(1.0)) == 6.0
    unrolled = [w for w in caught if w.category is jax_backend.UnrolledLoopWarning]
    assert len(unrolled) == 1
    assert unrolled[0].filename == __file__ and unrolled[0].lineno == line
    assert "needs the index as a Python int" in str(unrolled[0].message)


def test_enumerate_whose_body_needs_python_values_unrolls_as_before():
    # (Staged, the index is traced: a Python list indexed by it, or one the
    # body appends to, ran unrolled before enumerate() was staged: so it
    # does still, with the warning.)
    weights = [1.0, 2.0, 3.0]

    def weighted(xs):
        out = []
        for i, x in enumerate(xs):
            out.append(x * weights[i])
        return out

    line = weighted.__code__.co_firstlineno + 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = jax.jit(autograph.to_graph(weighted))(jnp.array([1.0, 1.0, 2.0]))
    np.testing.assert_allclose(got, [1.0, 2.0, 6.0])
    unrolled = [w for w in caught if w.category is jax_backend.UnrolledLoopWarning]
    assert [(w.filename, w.lineno) for w in unrolled] == [(__file__, line)]
    assert "over enumerate() of arrays is unrolled" in str(unrolled[0].message)


def _doubled_rows(xs):
    out = []
    for x in xs:
        out.append(x * 2)
    return jnp.stack(out)


def _row_sums_until(m, limit):
    sums = []
    for row in m:
        sums.append(row.sum())
        if row.sum() > limit:
            break
    return sums


def test_a_for_over_an_array_whose_body_needs_python_unrolls_as_enumerate_does():
    # `for x in xs: out.append(...)` was refused ('out' is a Python list
    # whose length changes) where `for i, x in enumerate(xs)` with the same
    # body ran unrolled: the array's length is static, so Python's loop runs.
    line = _doubled_rows.__code__.co_firstlineno + 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert_jax_equivalent(_doubled_rows, [1.0, 2.0, 3.0])
    unrolled = [w for w in caught if w.category is jax_backend.UnrolledLoopWarning]
    assert {(w.filename, w.lineno) for w in unrolled} == {(__file__, line)}
    assert "over an array is unrolled" in str(unrolled[0].message)


def test_a_traced_break_in_an_unrolled_array_loop_keeps_python_s_list():
    # Unrolled (the body appends), its traced `break` hands the rest of the
    # rows to JAX: a list whose length depends on it is refused naming it, as
    # for a range (it said the loop "iterates over a Python value").
    m = jnp.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with pytest.raises(TypeError, match="'sums' is a Python list whose length"):
        jax.jit(autograph.to_graph(_row_sums_until))(m, 2.0)


def test_while_hands_off_to_lax_when_its_test_becomes_traced():
    x = jnp.array([1.0, 2.0, -3.0, 4.0])
    f = jax.jit(autograph.to_graph(first_negative))
    assert int(f(x)) == 2
    assert int(f(jnp.ones(4))) == 4


def test_for_over_python_range_hands_off_on_a_traced_break():
    def f(x):
        total = 0.0
        for i in range(10):
            if total > x:
                break
            total += i
        return total

    assert float(jax.jit(autograph.to_graph(f))(4.0)) == f(4.0) == 6.0


def test_for_over_traced_array_is_a_scan():
    x = jnp.array([1.0, -2.0, 3.0])
    f = autograph.to_graph(masked_sum)
    assert "scan" in str(jax.make_jaxpr(f)(x))
    assert float(jax.jit(f)(x)) == 4.0
    np.testing.assert_allclose(jax.jit(jax.grad(f))(x), [1.0, 0.0, 1.0])


def test_break_and_return_in_a_for_over_a_traced_array():
    def find(x, target):
        for i in range(x.shape[0]):
            if x[i] == target:
                return i
        return -1

    def until(x):
        total = 0.0
        for v in x:
            if v < 0:
                break
            total += v
        return total

    x = jnp.array([3.0, 1.0, -1.0, 5.0])
    assert int(jax.jit(autograph.to_graph(find))(x, 1.0)) == 1
    assert int(jax.jit(autograph.to_graph(find))(x, 7.0)) == -1
    assert float(jax.jit(autograph.to_graph(until))(x)) == 4.0


def test_enumerate_and_zip_over_traced_arrays_are_one_loop_under_vmap_and_grad():
    # (A traced `return` in `enumerate(xs)` was refused as a Python loop's.)
    def find(xs, t):
        for i, x in enumerate(xs):
            if x == t:
                return i
        return -1

    def weighted_until_gap(xs, ys):
        total = 0.0
        for i, (x, y) in enumerate(zip(xs, ys), start=1):
            if x > y:
                break
            total += i * x * y
        return total

    xs = jnp.array([3.0, 1.0, 4.0, 1.0, 5.0])
    ys = jnp.array([4.0, 2.0, 3.0])  # zip stops at the shorter
    text = str(jax.make_jaxpr(autograph.to_graph(weighted_until_gap))(xs, ys))
    assert text.count("scan[") == 1 and "while[" not in text, text
    assert jax.jit(autograph.to_graph(find))(xs, 4.0) == 2
    found = jax.vmap(autograph.to_graph(find))(
        jnp.stack([xs, xs, -xs]), jnp.array([1.0, 5.0, -3.0])
    )
    np.testing.assert_array_equal(found, [1, 4, 0])
    grad = jax.jit(jax.grad(autograph.to_graph(weighted_until_gap)))(xs, ys)
    np.testing.assert_allclose(grad, [4.0, 4.0, 0.0, 0.0, 0.0])  # d/dx of 12 + 4

    def dot(xs, ys):
        total = 0.0
        for x, y in zip(xs, ys, strict=True):
            total += x * y
        return total

    # Unequal lengths: Python's loop (the builtin raises where ys ends).
    with pytest.raises(ValueError, match=r"zip\(\) argument 2 is shorter"):
        jax.jit(autograph.to_graph(dot))(xs, ys)
    assert jax.jit(autograph.to_graph(dot))(xs[:3], ys) == 26.0


def test_a_traced_return_over_an_array_vmap_does_not_batch():
    # `in_axes=(None, 0)`: `xs` reaches the function as a concrete array, so
    # Python loops over its rows; the traced `return` then continues as one
    # loop over the rest (it was refused: "iterates over a Python value").
    def first_over(xs, t):
        for i, x in enumerate(xs):
            if x > t:
                return i
        return -1

    def sum_below(xs, t):
        s = 0.0
        for x in xs:
            if x > t:
                break
            s += x
        return s

    xs = jnp.array([1.0, 3.0, 5.0])
    ts = jnp.array([0.0, 2.0, 9.0])
    for fn in (first_over, sum_below):
        got = jax.vmap(autograph.to_graph(fn), in_axes=(None, 0))(xs, ts)
        np.testing.assert_allclose(got, [fn(xs, t) for t in ts])


def test_for_over_traced_range_with_continue():
    f = jax.jit(autograph.to_graph(traced_range_sum))
    assert int(f(10)) == traced_range_sum(10)
    assert int(f(0)) == 0


def test_and_or_not_and_conditional_expression():
    def f(x, y):
        a = x > 0 and y > 0
        b = x > 0 or y > 0
        c = not x > 0
        return a, b, c, (x if y > 0 else -x)

    for x, y in [(1.0, 2.0), (-1.0, 2.0), (1.0, -2.0), (-1.0, -2.0)]:
        got = jax.jit(autograph.to_graph(f))(x, y)
        assert [bool(v) for v in got[:3]] == list(f(x, y)[:3])
        assert float(got[3]) == f(x, y)[3]


def test_branches_with_python_numbers_of_different_types_promote():
    def f(x):
        if x > 0:
            y = 1
        else:
            y = 2.5
        return y

    assert float(jax.jit(autograph.to_graph(f))(1.0)) == 1.0
    assert float(jax.jit(autograph.to_graph(f))(-1.0)) == 2.5


def test_name_first_assigned_in_a_loop():
    def f(n):
        for i in range(n):
            last = i * 2
        return last

    g = jax.jit(autograph.to_graph(f))
    assert int(g(4)) == 6
    with pytest.raises(Exception, match=r"'last' is read after the JAX loop at .*"):
        jax.block_until_ready(g(0))


def test_attribute_and_item_places_are_carried():
    class Acc:
        def __init__(self):
            self.total = 0.0

        def run(self, x):
            for v in x:
                self.total += v
            return self.total

    def g(x, d):
        if x > 0:
            d["a"] = x
        return d["a"]

    assert float(jax.jit(autograph.to_graph(Acc().run))(jnp.arange(4.0))) == 6.0
    assert float(jax.jit(autograph.to_graph(g))(2.0, {"a": 0.0})) == 2.0
    assert float(jax.jit(autograph.to_graph(g))(-2.0, {"a": 0.0})) == 0.0


def test_print_runs_with_the_values_on_every_call(capsys):
    def f(x):
        if x > 0:
            print("positive", x)
        return x

    g = jax.jit(autograph.to_graph(f))
    g(2.0)
    g(3.0)
    jax.effects_barrier()
    assert capsys.readouterr().out == "positive 2.0\npositive 3.0\n"


def test_assert_on_a_traced_value_fails_when_the_function_runs():
    def f(x):
        assert x > 0, "x must be positive"
        return x

    g = jax.jit(autograph.to_graph(f))
    assert float(g(1.0)) == 1.0
    with pytest.raises(Exception, match="x must be positive"):
        jax.block_until_ready(g(-1.0))


def test_autograph_jit():
    assert int(autograph.jit(collatz)(27)) == 111
    f = autograph.jit(recurrence, static_argnums=1)
    np.testing.assert_allclose(f(0.5, 1.5), recurrence_lax(0.5, 1.5), rtol=1e-6)


def _halve_big(i, v):
    if v > 4:  # a traced `if`: runs only converted
        v = v / 2
    return i + 1, v


def test_lax_callbacks_run_converted_through_a_lambda_or_to_graph():
    # A function passed to a `jax.lax` primitive runs as it is (as TensorFlow
    # does for `tf.while_loop`/`tf.cond`): a lambda written in converted code
    # calls it converted, and `autograph.to_graph` converts it, also a def
    # conversion already made (nested in the converted function).
    def through_lambda(x):
        return lax.while_loop(lambda s: s[0] < 3, lambda s: _halve_big(*s), (0, x))[1]

    def through_to_graph(x):
        def step(i, v):
            if v > 4:
                v = v / 2
            return i + 1, v

        converted = autograph.to_graph(step)
        return lax.fori_loop(0, 3, lambda i, v: converted(i, v)[1], x)

    def unconverted(x):
        return lax.while_loop(lambda s: s[0] < 3, lambda s: _halve_big(*s), (0, x))

    np.testing.assert_allclose(autograph.jit(through_lambda)(20.0), 2.5)
    np.testing.assert_allclose(autograph.jit(through_to_graph)(20.0), 2.5)
    with pytest.raises(jax.errors.TracerBoolConversionError):
        jax.jit(unconverted)(20.0)


def _checks(x):
    if x > 3:
        raise ValueError(f"x too big: {x}")
    assert x > -5, f"x too small: {x}"
    return x + 1


def test_autograph_jit_raises_the_users_error_with_the_values_of_the_run():
    checked = autograph.jit(_checks)
    assert int(checked(1)) == 2
    with pytest.raises(ValueError) as raised:
        checked(5)
    line = _checks.__code__.co_firstlineno
    assert str(raised.value) == (
        f"x too big: 5 (in the if branch of the JAX `if` at {__file__}:{line + 1}, "
        "which this run took)"
    )
    with pytest.raises(AssertionError, match=rf"x too small: -7 .*:{line + 3}\)"):
        checked(-7)
    # jax.jit's own attributes; under plain jax.jit the same text ends
    # JAX's JaxRuntimeError.
    assert checked.lower(1) is not None and checked.__name__ == "_checks"
    with pytest.raises(jax.errors.JaxRuntimeError) as plain:
        jax.jit(autograph.to_graph(_checks))(5)
    assert str(plain.value).rstrip().endswith("ValueError: " + str(raised.value))


def _every_other(x, steps):
    history = []
    for t in range(steps):
        x = x * 0.5 + 1.0
        if t % 2 == 0:
            history.append(x)
    return x, jnp.stack(history)


def test_a_range_loop_whose_python_effects_need_the_index_runs_as_python():
    # The state is traced, so the rest of the range would be one staged
    # loop; there `t % 2 == 0` is traced and the append in its branch is
    # refused: the loop is Python's, so it unrolls (with a warning).
    expected = _every_other(jnp.float32(1.0), 6)
    with pytest.warns(UserWarning, match="unrolled .* its body is refused: the list"):
        got = autograph.jit(_every_other, static_argnums=1)(jnp.float32(1.0), 6)
    np.testing.assert_allclose(got[0], expected[0])
    np.testing.assert_allclose(got[1], expected[1])


# -- errors name the variable and the line ----------------------------------------


def _line(fn, offset):
    return f"{__file__}:{fn.__code__.co_firstlineno + offset}"


def test_error_assigned_in_one_branch():
    def f(x):
        if x > 0:
            y = x
        return y

    message = r"'y' is assigned in the if branch of the JAX `if` at \S+:\d+ in 'f'"
    with pytest.raises(ValueError, match=message):
        jax.jit(autograph.to_graph(f))(1.0)


@dataclasses.dataclass
class _Opt:
    w: object
    lr: float  # static: a meta field, part of the pytree's structure


jax.tree_util.register_dataclass(_Opt, data_fields=["w"], meta_fields=["lr"])


def _halves_lr_in_a_branch(o, c):
    if c > 0:
        o = _Opt(o.w, o.lr / 2)
    return o.w


def _halves_lr_in_a_loop(o, n):
    for _ in range(n):
        o = _Opt(o.w * 2, o.lr / 2)
    return o.w


@pytest.mark.parametrize(
    ("fn", "says"),
    [
        (_halves_lr_in_a_branch, "(0.05,) in one branch but (0.1,) in the other)"),
        (
            _halves_lr_in_a_loop,
            "(0.1,) before the loop but (0.05,) after an iteration)",
        ),
    ],
)
def test_error_static_field_of_a_pytree_changed_says_which(fn, says):
    # A flax.struct-like dataclass whose meta field a traced `if` or loop
    # changes: it said "'o' is arrays on one path and arrays on the other".
    with pytest.raises(TypeError) as info:
        jax.jit(autograph.to_graph(fn))(_Opt(jnp.ones(2), 0.1), 3)
    text = str(info.value)
    assert text.startswith("'o' "), text
    assert "arrays on one path and arrays" not in text, text
    assert "from arrays to arrays" not in text, text
    assert f"(a _Opt has static data {says}" in text, text


def _keys_grow_in_a_loop(n):
    seen = {}
    for i in range(n):
        seen[len(seen)] = i
    return seen


def _item_by_index_in_a_loop(n):
    out = [0, 0, 0]
    for i in range(n):
        out[i] = i
    return out


@pytest.mark.parametrize(
    ("fn", "says"),
    [
        (_keys_grow_in_a_loop, "so that its keys change ([] before the iteration"),
        (_item_by_index_in_a_loop, "out[i] is assigned inside a JAX `if` or loop"),
    ],
)
def test_error_a_jax_loop_cannot_carry_suggests_jax_not_the_graph_s_api(fn, says):
    # They suggested rt.TensorArray, the graph's API, to JAX users.
    with pytest.raises(TypeError) as info:
        jax.jit(autograph.to_graph(fn))(jnp.array(2))
    text = str(info.value)
    assert says in text, text
    assert "rt." not in text and "jnp.zeros(n)" in text and ".at[i].set(v)" in text


def _big_int_in_a_branch(x):
    if x > 0:
        y = 3_000_000_000
    else:
        y = 1
    return y


def _big_int_in_a_loop(x):
    d = {"count": 0}
    while x > 0:
        d["count"] = 10**12
        x = x - 1
    return d


def _big_int_chosen(x):
    return 10**12 if x > 0 else 0


@pytest.mark.parametrize(
    ("fn", "name", "value", "what", "line"),
    [
        (_big_int_in_a_branch, "'y'", 3_000_000_000, "`if`", 1),
        (_big_int_in_a_loop, "d['count']", 10**12, "loop", 2),
        (_big_int_chosen, "the value of the `if`/`else`", 10**12, "`if`", 1),
    ],
)
def test_error_a_python_int_jax_cannot_carry_names_it(fn, name, value, what, line):
    # (JAX's "Python int 3000000000 too large to convert to int32": no name,
    # no line.)
    if jax.config.jax_enable_x64:
        pytest.skip("64-bit types are on: int64 holds it")
    with pytest.raises(OverflowError) as info:
        jax.jit(autograph.to_graph(fn))(1.0)
    text = str(info.value)
    at = _line(fn, line)
    assert text.startswith(
        f"{name} is the Python int {value} in the JAX {what} at {at}"
    )
    assert "jax_enable_x64" in text, text


def _raises_a_formatted_value_it_catches(x):
    try:
        if x > 0:
            raise ValueError(f"x={x}")
    except ValueError:
        return -1.0
    return x


def test_error_a_raise_a_try_would_catch_shows_no_tracer():
    # (It showed "ValueError('x=JitTracer(~float32[])') is raised in ...".)
    with pytest.raises(TypeError, match="cannot catch an exception") as info:
        jax.jit(autograph.to_graph(_raises_a_formatted_value_it_catches))(1.0)
    text = str(info.value)
    assert "Tracer" not in text, text
    assert text.startswith("ValueError (its message shows a traced value) is raised")


def test_error_dtype_change_names_variable_and_line():
    def f(x):
        i = jnp.int32(0)
        while x > 0:
            x = x - 1.0
            i = i + x  # int32 carried, float32 out
        return i

    with pytest.raises(TypeError) as info:
        jax.jit(autograph.to_graph(f))(jnp.float32(3.0))
    text = str(info.value) + "".join(getattr(info.value, "__notes__", []))
    assert "['i']" in text
    assert f"while building the JAX loop at {_line(f, 2)}" in text


def test_error_list_append_in_a_traced_loop():
    # (A loop of a traced trip count: one over an array's rows, of a static
    # number, runs unrolled where its body appends.)
    def f(x):
        out = []
        for i in range(x.sum().astype(int)):
            out.append(i * 2)
        return out

    with pytest.raises(
        TypeError,
        match=re.escape(
            "'out' is a Python list whose length changes in the JAX loop at "
            + _line(f, 2)
        ),
    ) as info:
        jax.jit(autograph.to_graph(f))(jnp.ones(3))
    assert "Preallocate an array" in str(info.value)


def test_error_non_scalar_condition():
    def f(x):
        if x > 0:
            x = -x
        return x

    with pytest.raises(
        TypeError,
        match=re.escape(
            f"the condition of the `if` at {_line(f, 1)} is a JAX array of shape (3,)"
        ),
    ):
        jax.jit(autograph.to_graph(f))(jnp.ones(3))


def test_error_python_value_changed_by_a_traced_loop():
    def f(x):
        mode = "a"
        while x > 0:
            x = x - 1
            mode = "b"
        return x, mode

    with pytest.raises(
        TypeError,
        match=re.escape(
            f"'mode' changes from a str ('a') to a str ('b') in the JAX loop at "
            f"{_line(f, 2)}"
        ),
    ):
        jax.jit(autograph.to_graph(f))(3)


def test_name_read_before_the_loop_assigns_it_gets_its_type_from_a_fixed_point():
    def f(x):
        total = 0.0
        for i in range(x.shape[0]):
            if i > 0:
                total += prev  # noqa: F821 - the previous iteration's
            prev = x[i]  # noqa: F841 - read in the next iteration
        return total

    assert float(jax.jit(autograph.to_graph(f))(jnp.arange(4.0))) == 3.0


def test_a_loop_that_returns_from_its_function():
    def f(x):
        i = 0
        while i < 10:
            if x * i > 20:
                return i
            i += 1
        return -1

    g = jax.jit(autograph.to_graph(f))
    assert int(g(3.0)) == f(3.0) == 7
    assert int(g(0.0)) == f(0.0) == -1


def test_nonlocal_and_nested_loops():
    def f(x):
        count = 0

        def bump():
            nonlocal count
            count += 1

        while x > 1:
            x = x / 2
            bump()
        total = 0.0
        for i in range(4):
            j = 0
            while j < i:
                total += x
                j += 1
        return count, total

    count, total = jax.jit(autograph.to_graph(f))(16.0)
    assert int(count) == 4 and float(total) == 6.0


def test_a_name_a_loop_may_have_bound_flows_through_later_ifs_and_loops():
    def f(n, x):
        for i in range(n):
            last = i * 2
        if x > 0:
            last = last + 1
        for j in range(n):
            if j > 5:
                last = j
        return last

    g = jax.jit(autograph.to_graph(f))
    for n, x in [(4, 1.0), (4, -1.0), (8, 1.0)]:
        assert int(g(n, x)) == f(n, x)
    message = f"'last' is read after the JAX loop at {_line(f, 1)}, but no iteration"
    with pytest.raises(Exception, match=re.escape(message)):
        jax.block_until_ready(g(0, 1.0))


def test_a_while_test_that_writes_a_nonlocal_runs_once_per_iteration():
    def f(x):
        calls = 0

        def more(x):
            nonlocal calls
            calls += 1
            return x > 1

        while more(x):
            x = x / 2
        return x, calls

    x, calls = jax.jit(autograph.to_graph(f))(16.0)
    assert (float(x), int(calls)) == f(16.0) == (1.0, 5)


def test_vmap_of_loops_with_break_and_of_a_scan():
    xs = jnp.array([[1.0, -2.0, 3.0], [4.0, 5.0, 6.0]])
    got = jax.vmap(autograph.to_graph(first_negative))(xs)
    assert got.tolist() == [first_negative(np.asarray(row)) for row in xs] == [1, 3]
    sums = jax.jit(jax.vmap(autograph.to_graph(masked_sum)))(xs)
    np.testing.assert_allclose(sums, [4.0, 15.0])


def test_reverse_mode_through_loops_with_break_of_static_length():
    def until(x):
        total = 0
        for v in x:
            if v < 0:
                break
            total += v * v
        return total

    def steps(w):
        x = w
        for _ in range(50):
            if x > 10.0:
                break
            x = x * w
        return x

    x = jnp.array([1.0, 2.0, -1.0, 5.0])
    assert float(jax.jit(autograph.to_graph(until))(x)) == until(np.asarray(x)) == 5.0
    np.testing.assert_allclose(
        jax.jit(jax.grad(autograph.to_graph(until)))(x), [2.0, 4.0, 0.0, 0.0]
    )
    # x = w**k for the first k with w**k > 10: w = 1.5 stops at k = 6.
    assert float(jax.jit(autograph.to_graph(steps))(1.5)) == steps(1.5)
    np.testing.assert_allclose(
        jax.jit(jax.grad(autograph.to_graph(steps)))(1.5), 6 * 1.5**5, rtol=1e-5
    )


def test_error_a_traced_if_that_returns_on_one_path_only():
    def f(x):
        if x > 0:
            return x

    with pytest.raises(ValueError) as info:
        jax.jit(autograph.to_graph(f))(1.0)
    assert str(info.value).startswith(
        f"'f' returns a value from the if branch of the JAX `if` at {_line(f, 1)} "
        "but None when its condition is false"
    )


def test_under_vmap_run_time_checks_act_only_on_lanes_that_take_the_path(capsys):
    # vmap runs both branches of a cond with a batched predicate, and a loop's
    # body for lanes that have finished: asserts, prints and unbound reads
    # must not fire there.
    def f(x):
        if x > 0:
            assert x > 0, "x must be positive here"
            print("positive", x)
        n = 0
        while n < x:
            assert n < x, "n < x in the loop"
            n += 1
        return n

    got = jax.jit(jax.vmap(autograph.to_graph(f)))(jnp.array([2.0, -1.0, 3.0]))
    jax.effects_barrier()
    assert got.tolist() == [2, 0, 3]
    assert sorted(capsys.readouterr().out.splitlines()) == [
        "positive 2.0",
        "positive 3.0",
    ]

    def g(n):
        for i in range(n):
            last = i
        if n > 0:
            return last
        return -1

    ns = jnp.array([3, 0, 2])
    assert jax.jit(jax.vmap(autograph.to_graph(g)))(ns).tolist() == [2, -1, 1]


def test_an_exception_on_a_traced_path_raises_when_that_path_runs():
    def lookup(x, d):
        if x > 0:
            return d["missing"] + x
        return x

    def checked_sum(xs):
        total = 0.0
        for v in xs:
            if v < 0:
                raise ValueError("negative value")
            total += v
        return total

    g = jax.jit(autograph.to_graph(lookup))
    assert float(g(-1.0, {})) == -1.0
    # (The statement's line, as the graph's message and README say: here the
    # `return` lowered into one expression, which stands at the `if`'s line.)
    with pytest.raises(Exception, match=re.escape(f"at {_line(lookup, 1)}, which")):
        jax.block_until_ready(g(1.0, {}))
    h = jax.jit(autograph.to_graph(checked_sum))
    assert float(h(jnp.array([1.0, 2.0]))) == 3.0
    with pytest.raises(Exception, match="negative value"):
        jax.block_until_ready(h(jnp.array([1.0, -2.0])))


def test_error_an_exception_a_try_would_catch_on_a_traced_path():
    def f(x, d):
        try:
            if x > 0:
                return d["missing"]
            return x
        except KeyError:
            return 0.0

    with pytest.raises(TypeError) as info:
        jax.jit(autograph.to_graph(f))(1.0, {})
    assert str(info.value).startswith(
        # (The line of the statement, as the graph backend's message says.)
        f"KeyError('missing') is raised in the if branch of the JAX `if` at "
        f"{_line(f, 2)}, inside the `try` at {_line(f, 1)} that handles it, but a "
        "compiled JAX function cannot catch an exception when it runs"
    )


# -- lists and dicts two names share --------------------------------------------


def returned_dict_then_updated(a, b):
    d = {"a": 0, "b": 0}
    try:
        if a > b:
            return a, d
    finally:
        d["b"] += 2  # Python's caller sees this: `d` is the object returned
    return b, d


def test_a_returned_dict_a_finally_block_updates_is_the_same_object():
    f = jax.jit(autograph.to_graph(returned_dict_then_updated))
    value, d = f(jnp.asarray(3), jnp.asarray(2))
    assert (int(value), int(d["a"]), int(d["b"])) == (3, 0, 2)


def shared_in_one_branch(a):
    d = {"b": 0}
    e = {"b": 5}
    if a > 0:
        e = d
    d["b"] += 2
    return e["b"]


def item_through_a_name_the_branch_assigns(a):
    xs = [0, 0]
    z = a
    if a < 0:
        z = 1
    else:
        ys = xs
        ys[0] += -2
    return z, xs


@pytest.mark.parametrize(
    ("f", "error", "message"),
    [
        (shared_in_one_branch, ValueError, "'e' holds the same dict as 'd'"),
    ],
)
def test_what_a_lax_cond_would_copy_or_miss_is_refused(f, error, message):
    with pytest.raises(error, match=re.escape(message)):
        jax.jit(autograph.to_graph(f))(jnp.asarray(3))


def doubles_into_a_list(x):
    out = []
    for _ in range(3):
        x = x * 2.0
        out.append(x)
    return out[-1] + len(out)


def test_eager_grad_runs_a_python_range_loop_as_python():
    # Concrete values (JVP tracers of an eager jax.grad): the Python path
    # runs every statement, so the list may grow (API.md).
    assert float(jax.grad(autograph.to_graph(doubles_into_a_list))(1.0)) == 8.0


@pytest.mark.parametrize("a", [-2, 3])
def test_an_item_changed_through_a_name_a_branch_assigns_is_carried(a):
    # The list changed is carried whole (`runtime.operators.mutations`).
    assert_jax_equivalent(item_through_a_name_the_branch_assigns, a)


def _returns_a_string(x):
    if x > 0:
        return "pos"
    return "neg"


def test_a_traced_if_that_returns_a_string_names_the_users_if_line():
    line = _returns_a_string.__code__.co_firstlineno + 1
    with pytest.raises(TypeError) as caught:
        jax.jit(autograph.to_graph(_returns_a_string))(jax.numpy.asarray(1))
    message = str(caught.value)
    # (It said "the value of the `if`/`else`": the user wrote `return`s.)
    assert message.startswith(
        "the return value of '_returns_a_string' is a str ('pos')"
    )
    assert f"test_jax_backend.py:{line}:" in message
    assert "runtime/operators" not in message and "jax/_src" not in message


def _every_traced_path_raises(a):
    d = {}
    if a > 0:
        try:
            return d["x"]
        finally:
            a = a + 1
    y = d["y"]
    return y


def test_a_function_whose_every_traced_path_raises_raises_when_it_runs():
    # No traced path sets the return value: jit gets None (as the graph
    # tracer does), and the path taken raises when the function runs.
    g = jax.jit(autograph.to_graph(_every_traced_path_raises))
    with pytest.raises(Exception, match="KeyError: 'x'"):
        jax.block_until_ready(g(jnp.asarray(3)))
    with pytest.raises(Exception, match="KeyError: 'y'"):
        jax.block_until_ready(g(jnp.asarray(-3)))


def _grows_in_a_branch(x):
    history = []
    i = 0
    while i < x:
        if i % 2 == 0:
            history.append(i)
        i += 1
    return history


def test_a_refusal_note_names_each_variable_once():
    with pytest.raises(TypeError) as refused:
        autograph.jit(_grows_in_a_branch)(jnp.int32(4))
    notes = [n for n in refused.value.__notes__ if "its variables" in n]
    assert notes and notes[0].endswith("(its variables: 'history')")


# `print` under a JAX trace prints when the compiled function runs, on the
# path taken, in order, on every call, showing the values of the run
# (it printed while tracing, on paths that do not run, unless an argument
# was itself a tracer; an f-string showed `JitTracer(~float32[])`).


def prints_a_constant_in_each_branch(x):
    if x > 0:
        print("positive")
    else:
        print("not positive")
    return x


def prints_after_a_loop_with_a_traced_return(xs):
    for x in xs:
        if x > 1:
            return x
        print("not yet", x)
    print("end")
    return -1.0


def prints_a_python_int_in_a_traced_branch(x):
    for i in range(3):
        if x > i:
            print(i)
    return x


def prints_a_traced_value_in_an_f_string(x):
    if x > 0:
        print(f"x is {x}", f"{x!s}", sep=" | ")
    print("done")
    return x


def prints_at_the_top_level_around_a_branch(x):
    print("start")
    if x > 0:
        print("positive")
    print("end", x)
    return x


def prints_in_a_traced_while_loop(n):
    i = 0
    while i < n:
        print("step", i, end=";")
        i += 1
    print()
    return i


@pytest.mark.parametrize(
    ("fn", "args"),
    [
        (prints_a_constant_in_each_branch, (-1.0,)),
        (prints_a_constant_in_each_branch, (2.0,)),
        (prints_after_a_loop_with_a_traced_return, ([0.0, 2.0, 0.5],)),
        (prints_after_a_loop_with_a_traced_return, ([0.0, 0.5],)),
        (prints_a_python_int_in_a_traced_branch, (1.5,)),
        (prints_a_traced_value_in_an_f_string, (2.5,)),
        (prints_a_traced_value_in_an_f_string, (-2.5,)),
        (prints_at_the_top_level_around_a_branch, (-1.0,)),
        (prints_at_the_top_level_around_a_branch, (3.0,)),
        (prints_in_a_traced_while_loop, (3,)),
        (prints_in_a_traced_while_loop, (0,)),
    ],
)
def test_print_prints_what_python_prints_on_every_call(fn, args):
    # (`assert_jax_equivalent` compares the output of two calls with
    # Python's: the first traces, the second only runs.)
    assert_jax_equivalent(fn, *args)


def test_print_of_a_container_shows_the_run_s_arrays(capsys):
    # A tuple shows its items' reprs: those of the run's arrays, as a
    # concrete JAX array's repr reads (not `JitTracer(~float32[])`).
    def f(x):
        if x > 0:
            print((x, 1), {"x": x})
        return x

    jax.jit(autograph.to_graph(f))(2.5)
    jax.effects_barrier()
    shown = "Array(2.5, dtype=float32)"
    assert capsys.readouterr().out == f"({shown}, 1) {{'x': {shown}}}\n"


def test_print_under_vmap_prints_for_the_lanes_on_the_path(capsys):
    got = jax.jit(jax.vmap(autograph.to_graph(prints_a_constant_in_each_branch)))(
        jnp.array([2.0, -1.0, 3.0])
    )
    jax.effects_barrier()
    assert got.tolist() == [2.0, -1.0, 3.0]
    assert sorted(capsys.readouterr().out.splitlines()) == [
        "not positive",
        "positive",
        "positive",
    ]


def test_print_to_a_file_writes_to_it_when_the_function_runs():
    import io

    log = io.StringIO()

    def f(x):
        if x > 0:
            print("positive", x, file=log)
        return x

    g = jax.jit(autograph.to_graph(f))
    g(2.0)
    g(-1.0)
    g(3.0)
    jax.effects_barrier()
    assert log.getvalue() == "positive 2.0\npositive 3.0\n"


def test_print_with_a_bad_keyword_raises_what_print_raises():
    def f(x):
        print(x, color="red")
        return x

    with pytest.raises(TypeError, match="'color' is an invalid keyword"):
        jax.jit(autograph.to_graph(f))(1.0)


def sorts_traced_values(x):
    values = [3.0, x, 1.0]
    return sorted(values)


def sorts_traced_values_in_a_branch(x):
    values = [3.0, x, 1.0]
    if x > 0:
        values.sort()
    return values


@pytest.mark.parametrize(
    ("fn", "line", "call"),
    [
        (sorts_traced_values, 2, r"sorted\(values\)"),
        (sorts_traced_values_in_a_branch, 3, r"values\.sort\(\)"),
    ],
)
def test_sorting_traced_values_says_what_to_write_naming_the_line(fn, line, call):
    # (A raw TracerBoolConversionError, naming this project's files.)
    at = f"{fn.__code__.co_filename}:{fn.__code__.co_firstlineno + line}"
    with pytest.raises(TypeError, match=rf"{call} compares JAX tracers .*jnp\.sort"):
        try:
            jax.jit(autograph.to_graph(fn))(2.0)
        except TypeError as error:
            assert f"(at {at})" in str(error), error
            raise


def _any_above_five(x):
    xs = [x, x + 1]
    if xs.count(6.0):  # (a line no message of ours rewrites)
        return x + 100
    return x


def _positives(x):
    return [v for v in x if v > 0]


def _sum_of_positives(x):
    return sum(v * 2 for v in x if v > 0)


@pytest.mark.parametrize(
    ("fn", "where"),
    [
        (_positives, "jnp.where(v > 0, v, "),
        (_sum_of_positives, "jnp.where(v > 0, v * 2, "),
    ],
)
def test_a_comprehension_filtering_traced_values_says_what_to_write(fn, where):
    # (A raw TracerBoolConversionError naming only the function.)
    at = f"{fn.__code__.co_filename}:{fn.__code__.co_firstlineno + 1}"
    with pytest.raises(jax.errors.TracerBoolConversionError) as info:
        jax.jit(autograph.to_graph(fn))(jnp.array([1.0, -1.0]))
    text = str(info.value)
    assert text.startswith("the comprehension's condition `if v > 0` tests JAX "), text
    assert where in text and f"(at {at})" in text, text


def test_jax_s_own_errors_name_the_user_s_function_and_file():
    # JAX names the function it traces by `inspect.unwrap(f).__code__`: it
    # said "f at <autograph dispatcher>:2" of every to_graph result.
    converted = autograph.to_graph(_any_above_five)
    code = _any_above_five.__code__
    with pytest.raises(jax.errors.TracerBoolConversionError) as info:
        jax.jit(converted)(1.0)
    assert f"_any_above_five at {code.co_filename}:{code.co_firstlineno}" in str(
        info.value
    )
