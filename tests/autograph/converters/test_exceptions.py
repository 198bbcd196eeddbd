"""try/except/else/finally and jumps keep Python's meaning (issue 11).

The corpus samples of `tests/samples/exceptions.py` run with every other
sample; the ones kept out of the corpus for its line budget run here, and all
of them run under `autograph.function` too (tracing runs converted code).
"""

from __future__ import annotations

import copy
import textwrap

import pytest

import autograph
from autograph.impl import api
from tests.autograph.converters.util import apply, run, same
from tests.equivalence import (
    assert_equivalent,
    assert_graph_equivalent,
    require_graph_mode,
    run_captured,
)
from tests.samples import exceptions
from tests.versions import UNPARSE_TEXT_OF_311

ALL = exceptions.SAMPLES + exceptions.MORE_SAMPLES


def _cases(samples):
    return [
        pytest.param(s.fn, args, id=f"{s.id}-{i}")
        for s in samples
        for i, args in enumerate(s.python_args)
    ]


@pytest.mark.parametrize(("fn", "args"), _cases(exceptions.MORE_SAMPLES))
def test_converted_code_behaves_like_the_original(fn, args):
    assert_equivalent(fn, *args)


def _plain(value):
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value.numpy().tolist() if hasattr(value, "numpy") else value


@pytest.mark.parametrize(("fn", "args"), _cases(ALL))
def test_traced_code_behaves_like_the_original(fn, args):
    expected = run_captured(fn, copy.deepcopy(args), {})
    traced = run_captured(autograph.function(fn), copy.deepcopy(args), {})
    if expected.error is not None:
        assert type(traced.error) is type(expected.error)
        assert str(traced.error) == str(expected.error)
    else:
        assert traced.error is None, traced.error
        assert _plain(traced.result) == expected.result


# Those whose graph version means the same (a `raise` or a return under a
# graph `if` cannot be traced; an int condition is not a bool tensor).
GRAPH = [
    exceptions.return_in_try_skips_else,
    exceptions.break_in_try_skips_else,
    exceptions.continue_in_finally_cancels_return,
    exceptions.break_in_finally_cancels_return,
    exceptions.continue_in_finally_cancels_break,
    exceptions.finally_without_jump_raises,
    exceptions.del_in_finally_then_read,
    exceptions.cancelled_return_restores_the_pending_one,
]


@pytest.mark.parametrize(("fn", "args"), _cases([s for s in ALL if s.fn in GRAPH]))
def test_traced_code_behaves_like_the_original_on_tensors(fn, args):
    _, rt = require_graph_mode()
    assert_graph_equivalent(fn, *(rt.constant(a) for a in args))


@UNPARSE_TEXT_OF_311
def test_a_jump_in_finally_discards_the_exception_in_flight():
    from autograph.converters import return_statements

    same(
        apply(
            [return_statements],
            """
            def f(x):
                try:
                    g(x)
                finally:
                    if x:
                        return 1
                return 2
        """,
        ),
        """
        def f(x):
            do_return, retval_ = (False, ag__.UndefinedReturnValue())
            finally_jumped = False
            try:
                try:
                    g(x)
                finally:
                    if x:
                        retval_ = 1
                        do_return = True
                        finally_jumped = True
            except BaseException:
                if not finally_jumped:
                    raise
            return retval_ if do_return else 2
        """,
    )


@UNPARSE_TEXT_OF_311
def test_a_jump_in_finally_cancels_the_pending_jumps_of_other_kinds():
    from autograph.converters import break_statements, continue_statements

    same(
        apply(
            [break_statements, continue_statements],
            """
            def f(xs):
                for x in xs:
                    try:
                        if x:
                            break
                    finally:
                        continue
                return x
        """,
        ),
        """
        def f(xs):
            break_ = False
            for x in xs:
                finally_jumped = False
                try:
                    try:
                        if x:
                            break_ = True
                    finally:
                        break_ = False
                        finally_jumped = True
                except BaseException:
                    if not finally_jumped:
                        raise
            return x
        """,
    )


@UNPARSE_TEXT_OF_311
def test_a_cancelled_jump_inside_a_finally_restores_what_was_pending():
    # Inside the outer finally block a return may already be pending, so
    # the inner `break` puts back the values saved right before the inner
    # try (not `do_return = False`), and the outer finally block's flag.
    from autograph.converters import break_statements, return_statements

    same(
        apply(
            [return_statements, break_statements],
            """
            def f(x):
                try:
                    return x
                finally:
                    for _ in range(1):
                        try:
                            return 2
                        finally:
                            break
            """,
        ),
        """
        def f(x):
            do_return, retval_ = (False, ag__.UndefinedReturnValue())
            finally_jumped = False
            try:
                try:
                    retval_ = x
                    do_return = True
                finally:
                    break_ = False
                    for _ in range(1):
                        do_return_before = do_return
                        retval_before = retval_
                        finally_jumped_1 = False
                        try:
                            try:
                                retval_ = 2
                                do_return = True
                                finally_jumped = True
                            finally:
                                do_return = do_return_before
                                retval_ = retval_before
                                finally_jumped = False
                                break_ = True
                                finally_jumped_1 = True
                        except BaseException:
                            if not finally_jumped_1:
                                raise
            except BaseException:
                if not finally_jumped:
                    raise
            if do_return:
                return retval_
        """,
    )


def test_a_finally_that_always_returns_ends_the_function_as_it_is():
    from autograph.converters import return_statements

    source = """
        def f(x):
            try:
                return g(x)
            except KeyError:
                return 2
            finally:
                if x:
                    return 3
                else:
                    return 4
    """
    same(apply([return_statements], source), source)


def test_continue_alone_in_finally_compiles():
    # Its flag guards nothing, so it goes; the finally block must not be
    # left empty (an internal "Try has neither except handlers nor finalbody").
    source = """
        def f(xs):
            out = []
            for x in xs:
                try:
                    out.append(10 // x)
                finally:
                    continue
            return out
    """
    assert run(source, [1, 0, 5]) == [10, 2]


@pytest.mark.parametrize(
    ("jump", "pending"),
    [("break", "return -1"), ("continue", "return -1"), ("continue", "break")],
)
def test_each_jump_in_finally_cancels_a_pending_one(jump, pending):
    source = f"""
        def f(n):
            total = 0
            for i in range(n):
                try:
                    if i == 1:
                        {pending}
                    total += i
                finally:
                    if i < 3:
                        {jump}
                total += 100
            return total
    """
    namespace: dict = {}
    exec(compile(textwrap.dedent(source), "<src>", "exec"), namespace)
    assert run(source, 5) == namespace["f"](5)


def test_an_emptied_if_still_asks_for_its_tests_truth():
    log = []

    class Truthy:
        def __bool__(self):
            log.append("bool")
            return True

    source = """
        def f(xs, t):
            for x in xs:
                if t:
                    continue
            return len(xs)
    """
    assert run(source, [1, 2], Truthy()) == 2
    assert log == ["bool", "bool"]


@UNPARSE_TEXT_OF_311
def test_an_emptied_if_keeps_its_test_unless_a_constant():
    from autograph.converters import continue_statements

    same(
        apply(
            [continue_statements],
            """
            def f(xs, d):
                for x in xs:
                    if d[x]:
                        continue
                for x in xs:
                    if True:
                        continue
                return xs
        """,
        ),
        """
        def f(xs, d):
            for x in xs:
                not d[x]
            for x in xs:
                pass
            return xs
        """,
    )


@UNPARSE_TEXT_OF_311
def test_generated_names_never_clash_with_the_users():
    with api.always_run_converted():
        converted = autograph.to_code(exceptions.names_like_jump_flags)
    assert "do_return_flag__ = 0" in converted
    assert "retval_value__ = 10" in converted
    assert "do_return, retval_ = (False" in converted


@UNPARSE_TEXT_OF_311
def test_a_finally_that_raises_resets_the_flags_only_where_they_are_read():
    from autograph.converters import continue_statements

    source = """
        def f(xs, g):
            for x in xs:
                try:
                    try:
                        if x:
                            continue
                    finally:
                        g()
                except KeyError:
                    pass
                {after}
            return xs
    """
    # Nothing after: the flag is read by no guard, and needs no reset.
    same(
        apply([continue_statements], source.format(after="")),
        """
        def f(xs, g):
            for x in xs:
                try:
                    try:
                        not x
                    finally:
                        g()
                except KeyError:
                    pass
            return xs
        """,
    )
    same(
        apply([continue_statements], source.format(after="g()")),
        """
        def f(xs, g):
            for x in xs:
                continue_ = False
                try:
                    try:
                        if x:
                            continue_ = True
                    finally:
                        try:
                            g()
                        except BaseException:
                            continue_ = False
                            raise
                except KeyError:
                    pass
                if not continue_:
                    g()
            return xs
        """,
    )


def test_the_finally_flag_does_not_clash_with_a_users_name():
    source = """
        def f(xs):
            finally_jumped = 0
            for x in xs:
                try:
                    finally_jumped += x
                finally:
                    if x > 1:
                        break
            return finally_jumped
    """
    assert run(source, [1, 2, 3]) == 3


def return_pending_across_a_finally_in_a_graph_loop(n):
    z = 0
    for _ in range(n):  # a graph loop on a tensor `n`
        try:
            z = 4
        except ValueError:
            if z > 100:
                return 2, z
        finally:
            try:
                return n, z  # noqa: B012 - the case under test
            finally:
                z = 5
    return 0, z


def test_values_saved_before_a_try_in_a_graph_loop_are_not_loop_born():
    # Saved right before the inner try, they are assigned wherever they are
    # read: not loop variables a path through the body leaves unassigned.
    _, rt_ = require_graph_mode()
    f = autograph.function(return_pending_across_a_finally_in_a_graph_loop)
    assert [int(v) for v in f(rt_.constant(3))] == [3, 4]
    assert [int(v) for v in f(rt_.constant(0))] == [0, 0]
