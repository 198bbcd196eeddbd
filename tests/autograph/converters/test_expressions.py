from autograph.converters import (
    asserts,
    call_trees,
    lists,
    logical_expressions,
    variables,
)
from tests.autograph.converters.util import apply, run, same
from tests.versions import UNPARSE_TEXT_OF_311


@UNPARSE_TEXT_OF_311
def test_and_or_not_become_lazy_operators():
    same(
        apply([logical_expressions], "def f(a, b, c):\n    return a and b or not c\n"),
        """
        def f(a, b, c):
            return ag__.or_(ag__.and_(a, lambda: b), lambda: ag__.not_(c))
        """,
    )


def test_right_operand_is_not_evaluated_when_not_needed():
    assert run("def f(x):\n    return x and 1 // 0\n", 0) == 0
    assert run("def f(x):\n    return x or 1 // 0\n", 5) == 5


@UNPARSE_TEXT_OF_311
def test_conditional_expression_evaluates_only_the_taken_arm():
    same(
        apply([logical_expressions], "def f(x):\n    return 1 if x else 2\n"),
        "def f(x):\n    return ag__.if_exp(x, lambda: 1, lambda: 2)",
    )
    assert run("def f(x):\n    return 1 if x else 1 // 0\n", True) == 1


@UNPARSE_TEXT_OF_311
def test_assert_message_is_a_lambda():
    same(
        apply([asserts], "def f(x):\n    assert x > 0, 'bad'\n"),
        "def f(x):\n    ag__.assert_stmt(x > 0, lambda: 'bad')",
    )


def test_calls_to_user_functions_are_wrapped_and_print_is_overloaded():
    same(
        apply(
            [call_trees], "def f(x):\n    print(helper(x, k=1))\n    return len(x)\n"
        ),
        """
        def f(x):
            ag__.print_(ag__.converted_call(helper, x, k=1))
            return ag__.len_(x)
        """,
    )


def test_enumerate_and_zip_that_a_for_iterates_go_through_their_operators():
    # Only there (a backend makes such a loop one loop over arrays); a name
    # that shadows the builtin, and other calls, stay as written.
    same(
        apply(
            [call_trees],
            """
            def f(a, b, zip):
                for i, (x, y) in enumerate(zip(a, b), 1):
                    pass
                for p in zip(a, b):
                    pass
                return list(enumerate(a))
            """,
        ),
        """
        def f(a, b, zip):
            for i, (x, y) in ag__.enumerate_(ag__.converted_call(zip, a, b), 1):
                pass
            for p in ag__.converted_call(zip, a, b):
                pass
            return list(enumerate(a))
        """,
    )
    same(
        apply(
            [call_trees],
            "def f(a, b, c):\n    for t in zip(enumerate(a), b, c):\n        pass\n",
        ),
        """
        def f(a, b, c):
            for t in ag__.zip_(ag__.enumerate_(a), b, c):
                pass
        """,
    )


def test_list_append_in_a_loop_returns_the_list():
    same(
        apply(
            [lists],
            "def f(xs):\n    out = []\n    for x in xs:\n        out.append(x)\n    return out\n",
        ),
        """
        def f(xs):
            out = []
            for x in xs:
                out = ag__.list_append(out, x)
            return out
        """,
    )


def test_list_pop_in_a_loop_returns_the_list_and_the_value():
    assert run(
        """
        def f(stack):
            got = []
            while stack:
                x = stack.pop()
                got.append(x)
            return got
    """,
        [1, 2, 3],
    ) == [3, 2, 1]


def test_del_makes_the_name_undefined_and_a_later_read_raises():
    code = apply([variables], "def f(x):\n    del x\n    return x\n")
    assert "x = ag__.Undefined('x', deleted_by='del')" in code and "ag__.ld(x)" in code
    import pytest

    with pytest.raises(UnboundLocalError):
        run("def f(x):\n    del x\n    return x\n", 1)


def test_surely_bound_reads_are_not_wrapped():
    assert "ld" not in apply([variables], "def f(x):\n    y = x\n    return y\n")


def test_a_deleted_name_read_in_a_comprehension_raises_like_python():
    import sys

    import pytest

    source = """
        def f(y):
            del y
            return [y for k in range(1)]
    """
    expected = UnboundLocalError if sys.version_info >= (3, 12) else NameError
    with pytest.raises(expected) as info:
        run(source, 1)
    assert type(info.value) is expected


def test_a_lambda_reading_a_maybe_unbound_name_raises_name_error_when_called():
    import pytest

    source = """
        def f(c):
            if c:
                y = 1
            g = lambda: y
            return g()
    """
    assert run(source, True) == 1
    with pytest.raises(NameError) as info:
        run(source, False)
    assert type(info.value) is NameError


def test_a_while_test_reading_a_name_deleted_in_the_loop_raises_unbound_local():
    import pytest

    with pytest.raises(UnboundLocalError):
        run(
            """
            def f(n):
                x = 1
                while x > 0:
                    del x
                return n
            """,
            3,
        )
