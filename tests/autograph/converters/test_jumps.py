import pytest

from autograph.converters import (
    break_statements,
    continue_statements,
    control_flow,
    return_statements,
)
from tests.autograph.converters.util import apply, run, same
from tests.versions import UNPARSE_TEXT_OF_311


def test_break_becomes_a_flag_tested_by_the_loop():
    same(
        apply(
            [break_statements],
            """
            def f(x):
                while x > 0:
                    if x == 3:
                        break
                    x -= 1
                return x
        """,
        ),
        """
        def f(x):
            break_ = False
            while not break_ and x > 0:
                if x == 3:
                    break_ = True
                else:
                    x -= 1
            return x
        """,
    )


def test_loop_else_runs_only_without_a_break():
    source = """
        def f(xs):
            for x in xs:
                if x < 0:
                    break
            else:
                return 'no negative'
            return 'found'
    """
    assert run(source, [1, 2]) == "no negative"
    assert run(source, [1, -2]) == "found"


def test_break_in_a_for_loop_does_not_draw_another_item():
    source = """
        def f(it):
            for x in it:
                if x == 2:
                    break
            return next(it)
    """
    assert run(source, iter([1, 2, 3, 4])) == 3


def test_continue_as_the_end_of_an_if_needs_no_flag():
    same(
        apply(
            [continue_statements],
            """
            def f(xs):
                t = 0
                for x in xs:
                    if x < 0:
                        continue
                    t += x
                return t
        """,
        ),
        """
        def f(xs):
            t = 0
            for x in xs:
                if not x < 0:
                    t += x
            return t
        """,
    )


def test_nested_continue_uses_a_flag_reset_every_iteration():
    code = apply(
        [continue_statements],
        """
        def f(xs):
            t = 0
            for x in xs:
                if x > 0:
                    if x > 5:
                        continue
                    t += 100
                t += x
            return t
    """,
    )
    assert "continue_ = False" in code and "if not continue_:" in code
    assert (
        run(
            """
        def f(xs):
            t = 0
            for x in xs:
                if x > 0:
                    if x > 5:
                        continue
                    t += 100
                t += x
            return t
    """,
            [1, 6, -1],
        )
        == 100
    )


def test_early_return_moves_the_rest_into_the_else_branch():
    same(
        apply(
            [return_statements],
            """
            def f(x):
                if x < 0:
                    return 0
                y = x * 2
                return y
        """,
        ),
        """
        def f(x):
            if x < 0:
                return 0
            else:
                y = x * 2
                return y
        """,
    )


@UNPARSE_TEXT_OF_311
def test_return_inside_a_loop_sets_flags_and_stops_the_loop():
    code = apply(
        [return_statements, control_flow],
        """
        def f(xs):
            for x in xs:
                if x > 0:
                    return x
            return -1
    """,
    )
    assert "do_return, retval_ = (False, ag__.UndefinedReturnValue())" in code
    assert "extra_test" in code
    source = """
        def f(xs):
            for x in xs:
                if x > 0:
                    return x
            return -1
    """
    assert run(source, [-1, 2, 3]) == 2
    assert run(source, [-1]) == -1


def test_a_while_true_left_only_by_return_has_no_path_that_falls_off():
    code = apply(
        [return_statements],
        """
        def f(n):
            while True:
                n += 1
                if n > 3:
                    return n
            print('never')
    """,
    )
    assert code.rstrip().endswith("return retval_")
    assert "never" not in code
    assert "while not do_return:" in code
    source = """
        def f(n):
            while True:
                for i in range(2):
                    if i:
                        break
                else:
                    break
                n += 1
                if n > 3:
                    return n
            return -1
    """
    # (the `break` in the inner loop's `else` leaves the `while True`)
    assert "retval_ if do_return else -1" in apply([return_statements], source)
    assert run(source, 0) == 4


def test_return_from_nested_loops_leaves_all_of_them():
    source = """
        def f(grid):
            for row in grid:
                for v in row:
                    if v == 0:
                        return 'zero'
                    if v < 0:
                        break
            return 'none'
    """
    assert run(source, [[1, -1, 0], [2, 0]]) == "zero"
    assert run(source, [[1, -1, 0], [2, 3]]) == "none"


def test_bare_return_and_falling_off_the_end_give_none():
    source = """
        def f(x):
            if x > 0:
                return
            x = 1
    """
    assert run(source, 1) is None
    assert run(source, -1) is None


def test_return_inside_with_before_more_code():
    source = """
        def f(cm, x):
            with cm:
                if x:
                    return 'early'
            return 'late'
    """
    import contextlib

    assert run(source, contextlib.nullcontext(), True) == "early"
    assert run(source, contextlib.nullcontext(), False) == "late"


def test_return_inside_a_loop_skips_the_loop_else():
    source = """
        def f(xs):
            for x in xs:
                if x > 0:
                    return 'returned'
            else:
                print('else ran')
            return 'fell through'
    """
    assert run(source, [1]) == "returned"
    assert run(source, [-1]) == "fell through"


def test_break_in_an_inner_loop_else_breaks_the_outer_loop():
    source = """
        def f(n):
            count = 0
            while True:
                count += 1
                for i in range(n):
                    pass
                else:
                    break
            return count
    """
    assert run(source, 2) == 1


# A local bound only in code after a jump (dead code, which lowering drops)
# stays a local: reading it raises UnboundLocalError, as in Python.


def test_a_local_bound_only_after_a_return_stays_local():
    source = """
        def f(c):
            if c:
                return x
            return 1
            x = 2
    """
    assert run(source, False) == 1
    with pytest.raises(UnboundLocalError):
        run(source, True)


def test_a_local_bound_only_after_a_break_stays_local():
    source = """
        def f(n):
            while True:
                if n > 0:
                    return y
                break
                y = 1
            return 0
    """
    assert run(source, 0) == 0
    with pytest.raises(UnboundLocalError):
        run(source, 1)


def test_a_local_bound_only_after_a_continue_stays_local():
    source = """
        def f(n):
            total = 0
            for i in range(n):
                if i == 2:
                    total += z
                continue
                z = i
            return total
    """
    assert run(source, 2) == 0
    with pytest.raises(UnboundLocalError):
        run(source, 3)


def test_a_jump_out_of_try_skips_its_else():
    same(
        apply(
            [break_statements],
            """
            def f(xs):
                for x in xs:
                    try:
                        if x:
                            break
                    except ValueError:
                        pass
                    else:
                        x += 1
                return x
        """,
        ),
        """
        def f(xs):
            break_ = False
            for x in xs:
                try:
                    if x:
                        break_ = True
                except ValueError:
                    pass
                else:
                    if not break_:
                        x += 1
            return x
        """,
    )


@pytest.mark.parametrize(
    ("jump", "expected"), [("return x * 2", 6), ("pass", 300)], ids=["return", "none"]
)
def test_return_in_try_skips_else(jump, expected):
    source = f"""
        def f(x):
            try:
                {jump}
            except ValueError:
                pass
            else:
                return x * 100
    """
    assert run(source, 3) == expected


@pytest.mark.skipif(not hasattr(__import__("ast"), "TryStar"), reason="3.11+")
def test_jumps_in_a_try_star_body_are_lowered():
    source = """
        def f(n):
            t = 0
            for i in range(n):
                try:
                    if i == 2:
                        break
                    t += i
                except* ValueError:
                    pass
                else:
                    t += 100
            return t
    """
    assert run(source, 5) == 201


@pytest.mark.skipif(not hasattr(__import__("ast"), "TryStar"), reason="3.11+")
def test_a_jump_in_the_finally_block_of_a_try_star_discards_the_exception():
    source = """
        def f(n):
            t = 0
            for i in range(n):
                try:
                    t += 1
                    if i == 1:
                        raise ValueError(i)
                except* KeyError:
                    pass
                finally:
                    if i == 1:
                        continue
                t += 10
            return t
    """
    assert run(source, 3) == 23
