"""The walrus operator: converted where it stands, or refused up front."""

from __future__ import annotations

import pytest

import autograph
import runtime as rt
from autograph.impl.api import always_run_converted
from tests.autograph.converters.util import convert, same
from tests.equivalence import assert_equivalent
from tests.versions import UNPARSE_TEXT_OF_311

_LAZY = (
    "an assignment expression (:=) in an assert message, or to a global "
    "variable in an operand that Python evaluates only sometimes"
)


@UNPARSE_TEXT_OF_311
def test_a_while_test_that_assigns_is_evaluated_into_loop_state():
    same(
        convert(
            "def f(x):\n    n = 0\n    while (x := x - 1) > 0:\n        n += 1\n"
            "    return n\n"
        ),
        """
        def f(x):
            n = 0
            loop_cond = (x := (x - 1)) > 0
            def loop_test(loop_cond, n, x):
                return loop_cond
            def loop_body(loop_cond, n, x):
                n += 1
                loop_cond = (x := (x - 1)) > 0
                return (loop_cond, n, x)
            loop_cond, n, x = ag__.while_stmt(loop_test, loop_body, (loop_cond, n, x))
            return n
        """,
    )


def test_a_while_test_that_assigns_stops_the_loop_in_both_modes():
    rt = pytest.importorskip("runtime")

    def countdown(x):
        n = 0
        while (x := x - 1) > 0:
            n += 1
        return n, x

    with always_run_converted():
        assert autograph.to_graph(countdown)(5) == (4, 0)
    n, x = autograph.function(countdown)(rt.constant(5))
    assert (int(n.numpy()), int(x.numpy())) == (4, 0)


def _walrus_loop_with_break(x, log):
    n = 0
    while (x := x - 1) > 0:
        log.append(x)
        if x == 3:
            break
        n += 1
    else:
        n = -n
    return n, x


def _walrus_loop_with_return(x):
    n = 0
    while (x := x - 1) > 0:
        if n > 6:
            return n * 10 + x
        n += x
    return n


@pytest.mark.parametrize("args", [(6, []), (3, []), (2, []), (1, [])])
def test_a_while_test_is_not_evaluated_again_after_a_break(args):
    assert_equivalent(_walrus_loop_with_break, *args)


@pytest.mark.parametrize("x", [9, 3, 0])
def test_a_while_test_is_not_evaluated_again_after_a_return(x):
    assert_equivalent(_walrus_loop_with_return, x)


def _lazy_walrus_in_and(a, b):
    return a > 0 and (z := b + 1) > 0, z


def _lazy_walrus_in_if_exp(a, b):
    return (y := a) if b else 0, y


def _lazy_walrus_in_nested_function(a):
    def inner(b):
        return b or (c := a), c

    return inner(a > 1)


def _lazy_walrus_in_comprehension(a, b):
    z = 1
    r = a > 0 and [(z := z + v) for v in range(b)]
    return r, z


def _lazy_walrus_in_converted_branch(a, b):
    z = 0
    if a > 0:
        y = (w := a * 2) if b > 0 else (z := b)
    else:
        y = w = 1
    return y, z, w


@pytest.mark.parametrize(
    "fn",
    [
        _lazy_walrus_in_and,
        _lazy_walrus_in_if_exp,
        _lazy_walrus_in_comprehension,
        _lazy_walrus_in_converted_branch,
    ],
)
@pytest.mark.parametrize("args", [(0, 0), (1, 0), (2, 3), (-1, 2)])
def test_a_walrus_in_an_operand_evaluated_only_sometimes_sets_the_users_variable(
    fn, args
):
    assert_equivalent(fn, *args)  # UnboundLocalError too, where Python raises


@pytest.mark.parametrize("a", [0, 1, 2])
def test_a_walrus_in_a_lazy_operand_of_a_nested_function_binds_in_it(a):
    assert_equivalent(_lazy_walrus_in_nested_function, a)


def test_a_walrus_in_a_lazy_operand_sets_a_variable_a_graph_branch_carries():
    def f(a, b):
        z = rt.constant(0)
        if a > 0:
            y = b > 0 or (z := b * 10) < 5
        else:
            y = False
        return y, z

    g = autograph.function(f)
    for a, b in [(1, -2), (1, 2), (-1, -2)]:
        y, z = g(rt.constant(a), rt.constant(b))
        assert (bool(y), int(z)) == (
            a > 0 and (b > 0 or b * 10 < 5),
            b * 10 if a > 0 and b <= 0 else 0,
        )


def _lazy_walrus_in_assert_message(a):
    assert a, (m := "no")  # noqa: RUF018
    return m


GLOBAL_TARGET = 0


def _lazy_walrus_to_a_global(a):
    global GLOBAL_TARGET
    return a or (GLOBAL_TARGET := 5)


@pytest.mark.parametrize(
    ("fn", "line", "text"),
    [
        (_lazy_walrus_in_assert_message, 1, '(m := "no")'),
        (_lazy_walrus_to_a_global, 2, "(GLOBAL_TARGET := 5)"),
    ],
    ids=["assert_message", "global"],
)
def test_a_walrus_conversion_cannot_keep_in_place_is_refused(fn, line, text):
    with pytest.raises(autograph.ConversionError) as info:
        autograph.to_graph(fn)
    error = info.value
    assert f"cannot convert '{fn.__name__}': {_LAZY}" in str(error)
    assert error.lineno == fn.__code__.co_firstlineno + line
    assert error.filename == __file__
    assert text in str(error) and "^" in str(error)


def test_a_walrus_in_the_users_own_lambda_binds_there_and_converts():
    def f(a, b):
        g = lambda v: (w := v + 1) * w
        return g(a) if b else 0

    with always_run_converted():
        assert autograph.to_graph(f)(2, True) == 9


def _walrus_in_always_evaluated_operands(x):
    n = 0
    while (x := x - 1) > 0 and n < 10:
        n += 1 if (odd := x % 2) else 2
    return n, x, odd


def _walrus_in_an_elif_test(x):
    if x > 10:
        r = 1
    elif (y := x * 3) > 5:
        r = y
    else:
        r = -1
    return r


@pytest.mark.parametrize("x", [0, 1, 7])
def test_a_walrus_in_a_first_operand_or_a_conditional_test_converts(x):
    assert_equivalent(_walrus_in_always_evaluated_operands, x)
    for value in (x, x + 2, 30):
        assert_equivalent(_walrus_in_an_elif_test, value)


def test_a_walrus_in_an_elif_test_traces():
    rt = pytest.importorskip("runtime")
    from tests.equivalence import assert_graph_equivalent

    for value in (1, 3, 30):
        assert_graph_equivalent(_walrus_in_an_elif_test, rt.constant(value))


def _walrus_in_a_comprehension_that_may_not_run(a, log):
    x = a
    if a == 0:
        log.append(sum([(x := a + 5) for k in range(0)]))
        x *= 2  # reads the x from before the if: the comprehension never ran
        log.append(x)


@pytest.mark.parametrize("a", [0, 1])
def test_a_comprehension_walrus_does_not_kill_what_comes_before(a):
    # It binds only if the comprehension iterates: x stays live into the if.
    assert_equivalent(_walrus_in_a_comprehension_that_may_not_run, a, [])
