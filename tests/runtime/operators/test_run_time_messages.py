"""What a user reads when a staged `raise`/`assert` fires, and the refusals
that name the user's line: one table over the graph and JAX backends.

The message shows the values the run had (`x too big: 5`), not a traced
value's text (`JitTracer(int32[])`, `<rt.Tensor 'x:0' ...>`), with the
user's exception type and line; JAX does not log it a second time.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import re

import numpy as np
import pytest

import autograph
import runtime as rt

BACKENDS = ("graph", "jax")
HERE = re.escape(__file__.removesuffix("c"))


def _run(backend, fn, *args):
    if backend == "graph":
        result = autograph.function(fn)(*(rt.constant(a) for a in args))
        return np.asarray(rt.nest.map_structure(lambda t: t.numpy(), result)).tolist()
    jax = pytest.importorskip("jax", reason="JAX is not installed (the 'jax' extra)")
    result = jax.jit(autograph.to_graph(fn))(*(np.int32(a) for a in args))
    return np.asarray(jax.block_until_ready(result)).tolist()


def _read(backend, fn, *args):
    """The message of the error `fn(*args)` raises when the program runs:
    the graph's whole message; the last line of JAX's (its
    `JaxRuntimeError` ends with the user's exception, see README)."""
    with pytest.raises(Exception) as info:
        _run(backend, fn, *args)
    text = str(info.value)
    return text if backend == "graph" else text.splitlines()[-1]


def raises_with_value(x):
    if x > 3:
        raise ValueError(f"x too big: {x}")
    return x + 1


def raises_with_two_values(x):
    y = x * 2
    if x > 3:
        raise ValueError(f"{y} is twice {x}, and {x} > 3")
    return x


def asserts_with_value(x):
    assert x > -5, f"x too small: {x}"
    return x + 1


def raises_in_loop(n):
    total = 0
    for i in range(n):
        total += i
        if total > 4:
            raise KeyError(f"total {total} at {i}")
    return total


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("fn", "arg", "expected"),
    [
        (raises_with_value, 5, r"^ValueError: x too big: 5 \(in the if branch of"),
        (raises_with_two_values, 4, r"^ValueError: 8 is twice 4, and 4 > 3 \(in"),
        (raises_in_loop, 5, r"^KeyError: .total 6 at 3. \(in the if branch of"),
    ],
    ids=["one value", "values in order", "in a loop"],
)
def test_a_raise_when_run_shows_the_values_of_the_run(backend, fn, arg, expected):
    text = _read(backend, fn, arg)
    assert re.search(expected, text), text
    assert re.search(rf"`if` at {HERE}:\d+, which this run took\)", text), text
    assert "Tracer" not in text and "rt.Tensor" not in text


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_assert_when_run_shows_the_values_of_the_run(backend):
    text = _read(backend, asserts_with_value, -7)
    assert "x too small: -7" in text, text
    assert "Tracer" not in text and "rt.Tensor" not in text


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_raise_that_does_not_fire_changes_nothing(backend):
    assert _run(backend, raises_with_value, 2) == 3
    assert _run(backend, raises_with_two_values, 1) == 1


seen_texts: list[str] = []


def keeps_its_text(x):
    text = f"{x}|{x!r}|{x!s}"
    seen_texts.append(text)
    return x + len(text)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_string_built_from_a_traced_value_is_what_it_was(backend):
    # Noting a traced value's text must not change the text: the same
    # function traced without conversion builds the same string.
    seen_texts.clear()
    converted = _run(backend, keeps_its_text, 3)
    seen_texts.clear()
    if backend == "graph":
        plain = autograph.function(keeps_its_text, autograph=False)(rt.constant(3))
        plain = int(plain.numpy())
    else:
        import jax

        plain = int(jax.jit(keeps_its_text)(np.int32(3)))
    assert converted == plain
    assert len(seen_texts) == 1


def test_jax_logs_no_second_copy_of_a_staged_error(caplog):
    pytest.importorskip("jax", reason="JAX is not installed (the 'jax' extra)")
    with caplog.at_level(logging.DEBUG):
        text = _read("jax", raises_with_value, 5)
    assert text.startswith("ValueError: x too big: 5")
    assert not [r for r in caplog.records if "callback failed" in r.getMessage()]


def prints_with_a_format_spec(x):
    if x > 0:
        print(f"x is {x:.3}")
    return x


def prints_with_a_format_spec_outside(x):
    print(f"x is {x:.3}")
    return x


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn", [prints_with_a_format_spec, prints_with_a_format_spec_outside]
)
def test_a_format_spec_on_a_traced_value_is_refused_naming_the_line(backend, fn):
    # Refused while tracing (not when the program runs), in a branch too.
    with pytest.raises(TypeError, match=r"format spec '\.3' used on a traced") as info:
        _run(backend, fn, 2)
    fix = {
        "graph": r"rt\.print\(value\)",
        "jax": r'jax\.debug\.print\("\{:\.3\}", value\)',
    }[backend]
    text = str(info.value)
    assert re.search(rf"at {HERE}:\d+: .* when the program runs, write {fix}", text)


def biggest(a, b):
    return max(a, b) + min(a, b)


@pytest.mark.parametrize("backend", BACKENDS)
def test_max_of_traced_values_names_the_line_and_the_op(backend):
    # (Of scalars, max and min are staged: arrays compare as a Python bool,
    # which NumPy's and JAX's arrays refuse as ambiguous, and the graph's
    # names what to write.)
    if backend == "jax":
        with pytest.raises(ValueError, match="truth value of an array"):
            _run(backend, biggest, [1, 2], [2, 1])
        return
    lib = "rt"
    with pytest.raises(TypeError) as info:
        _run(backend, biggest, [1, 2], [2, 1])
    text = str(info.value)
    assert f"write {lib}.maximum(a, b) (at {__file__.removesuffix('c')}:" in text
    assert "<autograph dispatcher>" not in text


class Signed:
    def __init__(self, v):
        self.v = v

    @property
    def sign(self):
        if self.v > 0:
            return 1
        return -1

    def __add__(self, other):
        if self.v > other:
            return self.v
        return other

    def __enter__(self):
        if self.v > 0:
            return 1
        return 0

    def __exit__(self, *exc):
        return False


@dataclasses.dataclass
class Checked:
    a: int
    b: int = 0

    def __post_init__(self):
        if self.a > 2:
            self.b = 1


def reads_a_property(x):
    return Signed(x).sign


def adds(x):
    return Signed(x) + 2


def enters(x):
    with Signed(x) as s:
        return s + x


def builds_a_dataclass(x):
    return Checked(x).b


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("fn", "method", "how"),
    [
        (reads_a_property, "Signed.sign", r"reading the property \.sign"),
        (adds, "Signed.__add__", "an operator"),
        (enters, "Signed.__enter__", "`with`"),
        (builds_a_dataclass, "Checked.__post_init__", "a dataclass's class call"),
    ],
    ids=["property", "operator", "with", "__post_init__"],
)
def test_a_method_python_calls_implicitly_is_named_as_unconverted(
    backend, fn, method, how
):
    # Python calls these itself, not through converted code's calls: they run
    # as they are, and a traced `if` in them is a Python bool.
    with pytest.raises(TypeError) as info:
        _run(backend, fn, 2)
    fix = "rt.cond / rt.where" if backend == "graph" else "jnp.where / jax.lax.cond"
    assert re.match(
        rf"{re.escape(method)} \({HERE}:\d+\) uses a traced value as a Python bool"
        rf".* runs unconverted: Python calls it implicitly \({how}\).* or write "
        + re.escape(fix),
        str(info.value),
    ), str(info.value)


def floors(x):
    return math.floor(x)


def formats_with_percent(x):
    if x > 1:
        raise ValueError("too big: %.3f" % x)  # noqa: UP031 - the form users write
    return x


@pytest.mark.parametrize(
    ("backend", "fn"),
    # (A graph tensor has `__floor__`: `math.floor(t)` is the op rt.floor.)
    [("jax", floors), ("graph", formats_with_percent), ("jax", formats_with_percent)],
)
def test_a_traced_value_used_as_a_python_float_names_the_line_and_the_fix(backend, fn):
    # (Under jax.jit, JAX's ConcretizationTypeError named only the def line.)
    with pytest.raises(TypeError) as info:
        _run(backend, fn, 2)
    fix = {"graph": r"rt\.print\(value\)", "jax": r"jax\.debug\.print\("}[backend]
    assert re.search(
        rf"is used as a Python float at {HERE}:\d+ \(float\(\), a math function, "
        rf"'%' formatting\): .* when the \w+ \w*\s?runs, {fix}",
        str(info.value),
    ), str(info.value)


def any_positive(xs):
    if any(xs):
        return 1
    return 0


def all_above(x):
    if all(v > 1 for v in [x, x + 1]):
        return 1
    return 0


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("fn", "arg", "fix"),
    [
        (any_positive, [0, 1], {"graph": "rt.reduce_any(xs)", "jax": "jnp.any(xs)"}),
        (
            all_above,
            2,
            {
                "graph": "rt.reduce_all(rt.stack([v > 1 for v in [x, x + 1]]))",
                "jax": "jnp.all(jnp.stack([v > 1 for v in [x, x + 1]]))",
            },
        ),
    ],
    ids=["any of an array", "all of a generator"],
)
def test_any_or_all_of_traced_values_names_the_line_and_the_op(backend, fn, arg, fix):
    # (Under jax.jit, JAX's TracerBoolConversionError named only the def line.)
    with pytest.raises(TypeError) as info:
        _run(backend, fn, arg)
    text = str(info.value)
    assert re.search(rf"write {re.escape(fix[backend])} \(at {HERE}:\d+\)$", text), text


class Sized:
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n


class Flagged:
    def __init__(self, n):
        self.n = n

    def __bool__(self):
        return self.n > 0


def checks_a_sized_object(x):
    r = 0
    if Sized(x):
        r = 1
    return r


def checks_a_flag(x):
    r = 0
    if Flagged(x):
        r = 1
    return r


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("fn", "method", "wanted"),
    [
        (checks_a_sized_object, "Sized.__len__", "an int"),
        (checks_a_flag, "Flagged.__bool__", "a bool"),
    ],
    ids=["__len__", "__bool__"],
)
def test_a_truth_test_whose_method_gives_a_traced_value_names_it_and_the_if(
    backend, fn, method, wanted
):
    # (It was Python's "__bool__ should return bool, returned SymbolicTensor",
    # or "the symbolic tensor 'x:0' cannot be used as a Python int": no line.)
    with pytest.raises(TypeError) as info:
        _run(backend, fn, 2)
    assert re.match(
        rf"the condition of the `if` at {HERE}:\d+ is an? \w+, whose truth Python "
        rf"tests with {re.escape(method)} \({HERE}:\d+\); it returns a traced "
        rf"value, not {wanted}",
        str(info.value),
    ), str(info.value)


def enumerates_from(n):
    s = 0
    for i, v in enumerate([5, 6, 7], start=n):
        s += i * v
    return s


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_traced_value_used_as_a_python_int_names_the_variable_and_line(backend):
    # (The graph said "the symbolic tensor 'n:0' cannot be used as a Python
    # int", no line; JAX, a raw TracerIntegerConversionError.)
    with pytest.raises(TypeError) as info:
        _run(backend, enumerates_from, 2)
    line = enumerates_from.__code__.co_firstlineno + 2
    assert re.match(
        rf"'n' \(.*\) is used as a Python int at {HERE}:{line} \(an index, range\(\), "
        r"a count such as enumerate\(\)'s start\)",
        str(info.value),
    ), str(info.value)


def shared_before_a_loop(n):
    xs = [0]
    ys = xs
    for i in range(n):
        xs = [i]
    ys[0] += 5
    return xs[0]


def shared_in_a_loop_body(n):
    d = {"b": 0}
    e = {"b": 5}
    for _ in range(n):
        e = d
    d["b"] += 2
    return e["b"]


def shared_but_not_copied(n):
    xs = [0]
    ys = xs
    for i in range(n):
        xs[0] += i
    return ys[0] + xs[0]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("fn", "where"),
    [
        (shared_before_a_loop, r"'xs' holds the same list as 'ys' before a \S+ loop"),
        (shared_in_a_loop_body, r"'e' holds the same dict as 'd' in the body of a"),
    ],
)
def test_a_list_two_names_share_that_a_loop_copies_is_refused(backend, fn, where):
    # Python's later change through one name would not show in the other
    # (JAX returned 0 for shared_in_a_loop_body: a silent wrong value).
    with pytest.raises(ValueError, match=where + r".*would (hold|work on) a copy"):
        _run(backend, fn, 3)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_list_two_names_share_that_a_loop_changes_in_place_works(backend):
    assert _run(backend, shared_but_not_copied, 3) == shared_but_not_copied(3)


def test_a_saved_graph_shows_the_values_of_the_run(tmp_path):
    # The values travel as inputs of the raise op (a `template` attr that a
    # loaded graph checks and keeps); a float shows as Python shows it.
    f = autograph.function(raises_with_value)
    assert float(f(rt.constant(1.0)).numpy()) == 2.0
    autograph.save(f, str(tmp_path))
    loaded = autograph.load(str(tmp_path))
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"x too big: 5\.0 \("):
        loaded(rt.constant(5.0))


@pytest.mark.parametrize("backend", BACKENDS)
def test_each_run_shows_its_own_values(backend):
    # One trace, three runs (JAX: the compiled function's cached path too).
    if backend == "graph":
        f = autograph.function(raises_with_value)
        call = lambda v: f(rt.constant(v))
    else:
        jax = pytest.importorskip("jax")
        g = jax.jit(autograph.to_graph(raises_with_value))
        call = lambda v: jax.block_until_ready(g(np.int32(v)))
    assert int(np.asarray(call(2))) == 3
    for value in (5, 7):
        with pytest.raises(Exception) as info:
            call(value)
        assert f"ValueError: x too big: {value} (" in str(info.value)


def test_under_vmap_the_message_shows_the_lane_that_raised():
    jax = pytest.importorskip("jax", reason="JAX is not installed (the 'jax' extra)")
    f = jax.jit(jax.vmap(autograph.to_graph(raises_with_value)))
    assert f(np.arange(3, dtype=np.int32)).tolist() == [1, 2, 3]
    with pytest.raises(Exception, match=r"ValueError: x too big: 4 \(in the if"):
        f(np.arange(6, dtype=np.int32))
