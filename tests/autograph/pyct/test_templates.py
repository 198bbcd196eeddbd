"""Tests for autograph.pyct.templates: placeholders, ctx fix-up and checks."""

from __future__ import annotations

import ast
import copy

import pytest

from autograph.pyct import anno, loader, origin_info, parser, templates


def _expr(source: str) -> ast.expr:
    return parser.parse_source(source).body[0].value


def _stmts(source: str) -> list[ast.stmt]:
    return parser.parse_source(source).body


def _py(source: str) -> str:
    """``source`` as this Python's ``ast.unparse`` writes it (3.10 differs)."""
    return ast.unparse(ast.parse(source))


def _ctx_names(node: ast.AST) -> list[tuple[str, str]]:
    """(text, ctx) of every node that has a ctx, outermost first."""
    return [
        (parser.unparse(n), type(n.ctx).__name__)
        for n in ast.walk(node)
        if getattr(n, "ctx", None) is not None
    ]


# --- str replacements ---


def test_a_str_becomes_a_name_that_loads_where_it_is_read():
    (stmt,) = templates.replace("result = fn(arg)", fn="g", arg="x", result="y")
    assert parser.unparse(stmt) == _py("y = g(x)")
    assert _ctx_names(stmt) == [("y", "Store"), ("g", "Load"), ("x", "Load")]


def test_a_dotted_str_becomes_an_attribute_chain():
    (stmt,) = templates.replace("target = 1", target="self.state.count")
    assert parser.unparse(stmt) == _py("self.state.count = 1")
    assert _ctx_names(stmt.targets[0]) == [
        ("self.state.count", "Store"),
        ("self.state", "Load"),
        ("self", "Load"),
    ]


def test_a_str_that_is_not_a_name_is_rejected():
    with pytest.raises(ValueError) as caught:
        templates.replace("x = value", value="1 + 2")
    assert str(caught.value) == (
        "replacement for 'value' is not a (dotted) name: '1 + 2'"
    )


# --- expression replacements ---


def test_an_expression_is_copied_and_takes_the_ctx_of_its_place():
    user_target = _expr("a[i]")  # a Load expression, as read in the user's code
    (stmt,) = templates.replace("target = 0", target=user_target)
    assert parser.unparse(stmt) == _py("a[i] = 0")
    assert type(stmt.targets[0].ctx).__name__ == "Store"
    assert type(user_target.ctx).__name__ == "Load"  # the caller's node is unchanged
    assert stmt.targets[0] is not user_target


def test_one_node_inserted_twice_gives_two_independent_copies():
    value = _expr("x + 1")
    (stmt,) = templates.replace("out = (value, value)", out="y", value=value)
    first, second = stmt.value.elts
    assert first is not second
    assert parser.unparse(stmt) == _py("y = (x + 1, x + 1)")


def test_copies_keep_the_annotations_of_the_replacement():
    value = _expr("x")
    origin = origin_info.OriginInfo("m.py", 3, 4, "f", "    x")
    anno.setanno(value, anno.Basic.ORIGIN, origin)
    (stmt,) = templates.replace("y = value", value=value)
    assert anno.getanno(stmt.value, anno.Basic.ORIGIN) is origin


def test_copy_deepcopy_also_keeps_annotations():
    value = _expr("x")
    anno.setanno(value, anno.Basic.QN, "x")
    assert anno.getanno(copy.deepcopy(value), anno.Basic.QN) == "x"


def test_copy_node_copies_fields_positions_and_annotation_dicts():
    node = parser.parse_source("f(a, b=[1])").body[0]
    anno.setanno(node, anno.Basic.SKIP_PROCESSING, True)
    twin = templates.copy_node(node)
    assert ast.dump(twin) == ast.dump(node)
    assert (twin.lineno, twin.end_col_offset) == (1, 11)
    assert twin.value.args[0] is not node.value.args[0]
    anno.setanno(twin, anno.Basic.QN, "changed")
    assert not anno.hasanno(node, anno.Basic.QN)


# --- sequence replacements ---


def test_a_list_of_names_in_a_target_becomes_a_stored_tuple():
    (stmt,) = templates.replace("state = fn(state)", state=["a", "b"], fn="step")
    assert parser.unparse(stmt) == _py("a, b = step((a, b))")
    target, loaded = stmt.targets[0], stmt.value.args[0]
    assert _ctx_names(target) == [("(a, b)", "Store"), ("a", "Store"), ("b", "Store")]
    assert _ctx_names(loaded) == [("(a, b)", "Load"), ("a", "Load"), ("b", "Load")]


def test_a_one_element_list_becomes_a_one_element_tuple():
    (stmt,) = templates.replace("state = fn()", state=["a"], fn="step")
    assert parser.unparse(stmt) == _py("a, = step()")


def test_an_empty_list_becomes_the_empty_tuple():
    (stmt,) = templates.replace("state = fn(state)", state=[], fn="step")
    assert parser.unparse(stmt) == _py("() = step(())")


def test_a_list_mixing_names_and_expressions_fixes_each_elements_ctx():
    (stmt,) = templates.replace(
        "for target in items:\n    pass",
        target=["a", _expr("b.c"), _expr("d[0]"), _expr("*rest")],
        items="xs",
    )
    assert parser.unparse(stmt) == _py("for a, b.c, d[0], *rest in xs:\n    pass")
    assert [type(e.ctx).__name__ for e in stmt.target.elts] == ["Store"] * 4
    assert type(stmt.target.elts[3].value.ctx).__name__ == "Store"


def test_a_list_in_a_del_statement_deletes_each_element():
    (stmt,) = templates.replace("del target", target=["a", _expr("b[0]")])
    assert parser.unparse(stmt) == _py("del (a, b[0])")
    assert [type(e.ctx).__name__ for e in stmt.targets[0].elts] == ["Del", "Del"]


def test_an_expression_that_cannot_be_assigned_is_rejected_in_a_target():
    with pytest.raises(ValueError) as caught:
        templates.replace("target = 1", target=_expr("f()"))
    assert str(caught.value) == (
        "replacement for 'target' lands in a Store position, where a Call cannot stand"
    )


# --- statement replacements ---


def test_statements_replace_a_placeholder_that_stands_alone():
    body = _stmts("y = x * 2\nreturn y")
    (fn,) = templates.replace(
        "def fn(x):\n    before\n    body",
        fn="f",
        body=body,
        before=_stmts("x = x + 1")[0],
    )
    assert parser.unparse(fn) == _py(
        "def f(x):\n    x = x + 1\n    y = x * 2\n    return y"
    )


def test_an_empty_statement_list_removes_the_line_and_empty_blocks_get_pass():
    (stmt,) = templates.replace(
        "if test:\n    body\nelse:\n    orelse", test="c", body=[], orelse=[]
    )
    assert parser.unparse(stmt) == _py("if c:\n    pass")


def test_an_expression_for_a_statement_placeholder_becomes_an_expression_statement():
    (stmt,) = templates.replace("body", body=_expr("print(x)"))
    assert isinstance(stmt, ast.Expr)
    assert parser.unparse(stmt) == _py("print(x)")


def test_a_statement_in_an_expression_position_is_rejected():
    with pytest.raises(ValueError) as caught:
        templates.replace("y = body", body=_stmts("pass")[0])
    assert str(caught.value) == (
        "replacement for 'body' is a statement (Pass), but the placeholder stands "
        "in an expression; put it alone on its own line in the template"
    )


# --- definitions, parameters and keywords ------------------------------------------


def test_definition_parameter_and_keyword_names_are_replaced():
    (fn,) = templates.replace(
        "def fn(first, params, *va, key=1, **kw):\n    return call(arg=key)",
        fn="loop_body",
        first=ast.Name(id="self", ctx=ast.Load()),
        params=["i", "total"],
        va="rest",
        key="scale",
        kw="options",
        arg="factor",
    )
    assert parser.unparse(fn) == _py(
        "def loop_body(self, i, total, *rest, scale=1, **options):\n"
        "    return call(factor=scale)"
    )
    params = [*fn.args.args, fn.args.vararg, *fn.args.kwonlyargs, fn.args.kwarg]
    assert all(isinstance(p, ast.arg) for p in params)


def test_an_empty_parameter_list_leaves_no_parameters():
    (fn,) = templates.replace("def fn(params):\n    pass", fn="f", params=[])
    assert parser.unparse(fn) == _py("def f():\n    pass")


def test_a_list_for_a_single_parameter_slot_is_rejected():
    with pytest.raises(ValueError, match="stands for a single parameter"):
        templates.replace("def f(*va):\n    pass", va=["a", "b"])


def test_a_definition_name_must_be_an_identifier():
    with pytest.raises(ValueError) as caught:
        templates.replace("def fn():\n    pass", fn="not valid")
    assert str(caught.value) == (
        "replacement for 'fn' is not an identifier: 'not valid'"
    )
    with pytest.raises(TypeError, match="must be a str or a Name; got int"):
        templates.replace("def fn():\n    pass", fn=3)


# --- checks and positions ---


def test_a_keyword_that_is_not_a_placeholder_is_rejected_by_name():
    with pytest.raises(ValueError) as caught:
        templates.replace("y = x", x="a", extra="b", other="c")
    assert str(caught.value) == (
        "the template has no placeholder 'extra', 'other':\ny = x"
    )


def test_an_unsupported_replacement_type_is_rejected():
    with pytest.raises(TypeError) as caught:
        templates.replace("y = x", x=3)
    assert str(caught.value) == (
        "replacement for 'x' must be a str, an ast node or a list of them, got int"
    )


def test_template_nodes_have_no_positions_but_inserted_user_nodes_keep_theirs():
    user = _expr("\n\nvalue")
    (stmt,) = templates.replace("    y = f(x)", x=user)  # dedented
    assert not hasattr(stmt, "lineno")
    assert not hasattr(stmt.value.func, "lineno")
    assert stmt.value.args[0].lineno == 3


def test_a_filled_template_compiles_and_runs():
    body = templates.replace(
        "def fn(params):\n    return op(params)", fn="add", params=["a", "b"], op="max"
    )
    origin_info.copy_locations(body, parser.parse_source("pass").body[0])
    namespace = loader.load_module(ast.Module(body=body, type_ignores=[]), "<t>")
    assert namespace["add"](2, 5) == 5


# --- replace_as_expression ---


def test_replace_as_expression_returns_one_expression():
    node = templates.replace_as_expression(
        "ag__.and_(left, lambda: right)", left="a", right=_expr("b or c")
    )
    assert isinstance(node, ast.Call)
    assert parser.unparse(node) == _py("ag__.and_(a, lambda: b or c)")


def test_replace_as_expression_rejects_statements():
    with pytest.raises(ValueError) as caught:
        templates.replace_as_expression("x = 1")
    assert str(caught.value) == "template is not a single expression: 'x = 1'"
