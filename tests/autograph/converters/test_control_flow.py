import ast
import types

import pytest

import autograph
from autograph.converters import control_flow
from tests.autograph.converters.util import apply, run, same
from tests.versions import UNPARSE_TEXT_OF_311


def test_if_else_assigning_one_variable_returns_it_from_both_branches():
    same(
        apply(
            [control_flow],
            """
            def f(x):
                if x > 0:
                    y = x
                else:
                    y = 0
                return y
        """,
        ),
        # (each function is tidied as it is made, `cleanup.tidy`:
        # `y = x; return y` is `return x`)
        """
        def f(x):
            def if_body():
                return x
            def else_body():
                return 0
            y = ag__.if_stmt(x > 0, if_body, else_body, (), ('y',))
            return y
        """,
    )


def test_if_without_else_passes_its_state_through():
    same(
        apply(
            [control_flow],
            """
            def f(x):
                if x < 0:
                    x = -x
                return x
        """,
        ),
        """
        def f(x):
            def if_body(x):
                return -x
            x = ag__.if_stmt(x < 0, if_body, None, (x,), ('x',))
            return x
        """,
    )


def test_variable_set_in_one_branch_only_starts_undefined():
    same(
        apply(
            [control_flow],
            """
            def f(c):
                if c:
                    y = 1
                return y
        """,
        ),
        """
        def f(c):
            y = ag__.Undefined('y')
            def if_body(y):
                return 1
            y = ag__.if_stmt(c, if_body, None, (y,), ('y',))
            return y
        """,
    )


@UNPARSE_TEXT_OF_311
def test_while_loop_carries_exactly_the_variables_it_needs():
    same(
        apply(
            [control_flow],
            """
            def f(n):
                i = 0
                total = 0
                while i < n:
                    tmp = i * 2
                    total += tmp
                    i += 1
                return total
        """,
        ),
        """
        def f(n):
            i = 0
            total = 0
            def loop_test(i, total):
                return i < n
            def loop_body(i, total):
                tmp = i * 2
                total += tmp
                i += 1
                return (i, total)
            i, total = ag__.while_stmt(loop_test, loop_body, (i, total))
            return total
        """,
    )


def test_for_loop_passes_the_item_first():
    same(
        apply(
            [control_flow],
            """
            def f(xs):
                s = 0
                for x in xs:
                    s += x
                return s
        """,
        ),
        """
        def f(xs):
            s = 0
            def loop_body(x, s):
                s += x
                return s
            s = ag__.for_stmt(xs, loop_body, (s,))
            return s
        """,
    )


def test_for_loop_target_used_after_the_loop_is_state():
    assert (
        run(
            """
        def f(xs):
            for x in xs:
                pass
            return x
    """,
            [1, 2, 3],
        )
        == 3
    )


def test_tuple_target_is_unpacked_from_the_item():
    assert (
        run(
            """
        def f(pairs):
            t = 0
            for a, b in pairs:
                t += a * b
            return t
    """,
            [(1, 2), (3, 4)],
        )
        == 14
    )


def test_if_that_ends_the_function_returns_the_if_stmt_result():
    same(
        apply(
            [control_flow],
            """
            def f(x):
                if x > 0:
                    return x
                else:
                    return -x
        """,
        ),
        """
        def f(x):
            def if_body():
                return x
            def else_body():
                return -x
            return ag__.if_stmt(x > 0, if_body, else_body)
        """,
    )


def test_an_if_ending_a_branch_of_such_an_if_gives_that_branch_s_value():
    # (Not None: an `if` whose branches both raise gives no value, which
    # the `if` around it fills with its other branch's type.)
    same(
        apply(
            [control_flow],
            """
            def f(x):
                if x > 10:
                    return x
                elif x > 7:
                    raise ValueError('r1')
                else:
                    raise KeyError('r3')
        """,
        ),
        """
        def f(x):
            def if_body():
                return x
            def else_body():
                def if_body_1():
                    raise ValueError('r1')
                def else_body_1():
                    raise KeyError('r3')
                return ag__.if_stmt(x > 7, if_body_1, else_body_1)
            return ag__.if_stmt(x > 10, if_body, else_body)
        """,
    )


def test_global_and_nonlocal_names_are_declared_not_passed():
    code = apply(
        [control_flow],
        """
        def f(x):
            global G
            if x:
                G = 1
    """,
    )
    assert "global G" in code and "('G',)" not in code


def _item_of_a_maybe_unbound_dict(a, n):
    for _ in range(n):
        sd = {"b": 0}
    while a > 0:
        sd["b"] = a
        a -= 1
    return a


def test_an_item_no_place_carries_is_named_as_the_user_wrote_it():
    # (fuzz: a refusal named "ag__.ld(sd)['b']", the read another pass
    # wrapped.) The name in `ag__.untracked` is the user's text.
    code = autograph.to_code(_item_of_a_maybe_unbound_dict)
    assert "ag__.untracked(\"sd['b']\")" in code, code


def test_a_loop_s_item_of_a_container_whose_keys_are_read_is_marked_observed():
    # A staged loop refuses to create such an item (it carries its value,
    # not whether the key exists); only loops' places of such a container
    # take the mark, so other converted code reads as before.
    def f(x, n):
        d = {"a": x}
        e = {}
        o = types.SimpleNamespace()
        if x > 0:
            d["c"] = x
        for _ in range(n):
            d["b"] = x
            e["b"] = x
            o.seen = x
        return len(d), hasattr(o, "seen"), e["b"]

    code = autograph.to_code(f)
    assert "ag__.item(\"d['b']\", d, 'b', observed=True)" in code
    assert "ag__.attr('o.seen', o, 'seen', observed=True)" in code
    assert "ag__.item(\"e['b']\", e, 'b')," in code
    assert "ag__.item(\"d['c']\", d, 'c')," in code


@pytest.mark.parametrize(
    "read",
    [
        "len(d)",
        "'k' in d",
        "'k' not in d",
        "d.get('k', 0)",
        "d.setdefault('k', 0)",
        "d.pop('k', 0)",
        "list(d)",
        "sorted(d.items())",
        "[k for k in d]",
        "{**d}",
        "f(*d)",
        "f(**d)",
        "not d",
        "d or 1",
        "1 if d else 2",
        "hasattr(d, 'k')",
        "getattr(d, 'k', 0)",
        "vars(d)",
        "d.__dict__",
    ],
)
def test_each_way_of_asking_which_keys_a_dict_holds_is_seen(read):
    from autograph.converters import variables

    assert variables.presence_reads(ast.parse(read)) == {"d"}
    assert variables.presence_reads(ast.parse("d['k'] + f(d['j'])")) == set()
    assert variables.presence_reads(ast.parse("getattr(d, 'k')")) == set()
