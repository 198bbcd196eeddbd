"""Tests for autograph.core.builders: each builder, and the code it emits."""

from __future__ import annotations

import ast

import pytest

from autograph.core import builders as b

x, y = b.name("x"), b.name("y")

# One line per builder: the node it builds, as source.
CASES = [
    ("name", lambda: b.name("x"), "x"),
    ("const", lambda: b.const(3), "3"),
    ("const None", lambda: b.const(None), "None"),
    ("tuple_", lambda: b.tuple_([x, b.const(1)]), "(x, 1)"),
    ("tuple_ of one", lambda: b.tuple_([x]), "(x,)"),
    ("names", lambda: b.names(["a", "b"]), "(a, b)"),
    ("names, empty", lambda: b.names([]), "()"),
    ("strings", lambda: b.strings(["a", "b"]), "('a', 'b')"),
    ("one_or_tuple of one", lambda: b.one_or_tuple([x]), "x"),
    ("one_or_tuple", lambda: b.one_or_tuple([x, y]), "(x, y)"),
    ("attr", lambda: b.attr(x, "shape"), "x.shape"),
    ("call", lambda: b.call(x, [y], [b.keyword("k", b.const(1))]), "x(y, k=1)"),
    ("ag_attr", lambda: b.ag_attr("ld"), "ag__.ld"),
    ("ag_call", lambda: b.ag_call("ld", x), "ag__.ld(x)"),
    (
        "ag_call with keywords",
        lambda: b.ag_call("for_stmt", x, keywords=[b.keyword("opts", y)]),
        "ag__.for_stmt(x, opts=y)",
    ),
    ("thunk", lambda: b.thunk(x), "lambda: x"),
    ("not_", lambda: b.not_(x), "not x"),
    ("not_ of not_ folds", lambda: b.not_(b.not_(x)), "x"),
    ("and_", lambda: b.and_([x, y]), "x and y"),
    ("and_ of one", lambda: b.and_([x]), "x"),
    ("if_exp", lambda: b.if_exp(x, y, b.const(0)), "y if x else 0"),
    ("compare", lambda: b.compare(x, ast.Lt(), y), "x < y"),
    ("binop", lambda: b.binop(x, ast.Add(), y), "x + y"),
    ("dict_", lambda: b.dict_([b.const("k")], [x]), "{'k': x}"),
    ("subscript", lambda: b.subscript(x, b.const(0)), "x[0]"),
    ("assign", lambda: b.assign("y", x), "y = x"),
    (
        "assign to a tuple",
        lambda: b.assign(b.names(["a", "b"], ast.Store), x),
        "(a, b) = x",
    ),
    ("ann_assign", lambda: b.ann_assign("x", b.ag_attr("Unbound")), "x: ag__.Unbound"),
    ("expr", lambda: b.expr(b.ag_call("ld", x)), "ag__.ld(x)"),
    ("ret", lambda: b.ret(x), "return x"),
    ("ret None", lambda: b.ret(None), "return"),
    ("if_", lambda: b.if_(x, [b.pass_()]), "if x:\n    pass"),
    (
        "if_ with else",
        lambda: b.if_(x, [b.ret(x)], [b.ret(y)]),
        "if x:\n    return x\nelse:\n    return y",
    ),
    ("raise_", b.raise_, "raise"),
    ("global_", lambda: b.global_(["g"]), "global g"),
    ("nonlocal_", lambda: b.nonlocal_(["n", "m"]), "nonlocal n, m"),
    ("delete", lambda: b.delete([b.name("x", ast.Del)]), "del x"),
    (
        "try_ and except_base",
        lambda: b.try_([b.pass_()], [b.except_base([b.raise_()])]),
        "try:\n    pass\nexcept BaseException:\n    raise",
    ),
    (
        "def_",
        lambda: b.def_("if_body", ["a", "b"], [b.ret(b.names(["a", "b"]))]),
        "def if_body(a, b):\n    return (a, b)",
    ),
    ("undefined_init", lambda: b.undefined_init("x"), "x = ag__.Undefined('x')"),
    (
        "undefined_init",
        lambda: b.undefined_init("x", "del"),
        "x = ag__.Undefined('x', deleted_by='del')",
    ),
    (
        "var_places",
        lambda: b.call(b.name("f"), [], [b.var_places(["b", "a"])]),
        "f(places=(ag__.var(lambda: a), ag__.var(lambda: b)))",
    ),
]


@pytest.mark.parametrize(
    "build, text", [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_each_builder_emits_the_code_it_names(build, text):
    node = build()
    # (Positions are given after conversion; unparse needs some. `text` as
    # this Python writes it: 3.10 puts a tuple target in parentheses.)
    assert ast.unparse(ast.fix_missing_locations(node)) == ast.unparse(ast.parse(text))
    if isinstance(node, ast.stmt):
        # It compiles: def outer(): n = m = 0; def f(): <node>
        inner = b.def_("f", [], [node])
        outer = b.def_(
            "outer", [], [b.assign("n", b.const(0)), b.assign("m", b.const(0)), inner]
        )
        module = ast.Module(body=[outer], type_ignores=[])
        compile(ast.fix_missing_locations(module), "<builders>", "exec")


def test_a_module_compiles_its_statements():
    tree = b.module([b.assign("y", b.const(1))])
    namespace: dict = {}
    exec(compile(ast.fix_missing_locations(tree), "<builders>", "exec"), namespace)
    assert namespace["y"] == 1


def test_is_ag_attr_recognizes_operators_only():
    assert b.is_ag_attr(b.ag_attr("ld"), "ld")
    assert not b.is_ag_attr(b.ag_attr("ld"), "ld_cell")
    assert not b.is_ag_attr(b.attr(b.name("np"), "ld"), "ld")
    assert not b.is_ag_attr(b.name("ld"), "ld")


def test_built_nodes_carry_no_positions():
    node = b.assign("y", b.ag_call("ld", b.name("x")))
    assert all(getattr(n, "lineno", None) is None for n in ast.walk(node))


def test_nodes_given_to_a_builder_are_attached_not_copied():
    body = [b.pass_()]
    assert b.def_("f", [], body).body is body
    assert b.thunk(x).body is x
