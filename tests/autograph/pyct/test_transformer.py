"""Tests for autograph.pyct.transformer: child fields, walks and visitors."""

from __future__ import annotations

import ast
import copy
import sys
from pathlib import Path

import pytest

from autograph.pyct import anno, origin_info, parser, transformer


def test_contexts_operators_and_names_are_not_children():
    tree = ast.parse("y = -x + f(a, k=1)").body[0]
    kinds = {type(n).__name__ for n in transformer.walk(tree)}
    assert kinds == {
        "Assign",
        "Name",
        "BinOp",
        "UnaryOp",
        "Call",
        "keyword",
        "Constant",
    }


def test_every_node_that_ast_walk_finds_is_found_but_contexts_and_operators():
    tree = ast.parse(Path(transformer.__file__).with_name("parser.py").read_text())
    skipped = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)
    expected = [n for n in ast.walk(tree) if not isinstance(n, skipped)]
    assert sorted(map(id, transformer.walk(tree))) == sorted(map(id, expected))


def test_statement_fields_are_the_blocks_of_statements_only():
    assert transformer.statement_fields(ast.For) == ("body", "orelse")
    assert transformer.statement_fields(ast.Try) == (
        "body",
        "handlers",
        "orelse",
        "finalbody",
    )
    assert transformer.statement_fields(ast.ExceptHandler) == ("body",)
    assert transformer.statement_fields(ast.Lambda) == ()
    try_stmt = ast.parse("try:\n  a\nexcept E:\n  b\nfinally:\n  c").body[0]
    found = [type(n).__name__ for n in transformer.child_statements(try_stmt)]
    assert found == ["Expr", "ExceptHandler", "Expr"]


@pytest.mark.skipif(sys.version_info < (3, 12), reason="type aliases are 3.12+")
def test_a_type_aliases_name_is_a_child_node():
    tree = ast.parse("type Pair = tuple[int, int]").body[0]
    names = [n.id for n in transformer.walk(tree) if isinstance(n, ast.Name)]
    assert names == ["Pair", "tuple", "int", "int"]


def test_a_visitor_that_overrides_visit_still_sees_every_child():
    class Counter(transformer.Visitor):
        def __init__(self) -> None:
            self.seen = 0

        def visit(self, node: ast.AST) -> None:
            self.seen += 1
            super().visit(node)

    tree = ast.parse("def f(x):\n    return [y + 1 for y in x]")
    counter = Counter()
    counter.visit(tree)
    assert counter.seen == sum(1 for _ in transformer.walk(tree))


def test_a_transformer_replaces_and_splices_children():
    class Doubler(transformer.Base):
        def visit_Expr(self, node: ast.Expr) -> list[ast.stmt]:
            return [node, ast.Expr(ast.Constant(2))]

        def visit_Pass(self, node: ast.Pass) -> None:
            return None

    tree = ast.parse("if c:\n    a\n    pass\n    b")
    Doubler(None).visit(tree)
    body = tree.body[0].body
    assert [ast.unparse(s) for s in body] == ["a", "2", "b", "2"]


def test_generic_visits_pass_over_leaves_but_visit_what_has_a_method():
    class Names(transformer.Visitor):
        def __init__(self) -> None:
            self.seen: list[str] = []

        def visit_Name(self, node: ast.Name) -> None:
            self.seen.append(node.id)

    class Renamer(transformer.Base):
        def visit_Name(self, node: ast.Name) -> ast.Name:
            return ast.Name(id=node.id.upper(), ctx=node.ctx)

    # (a dict's None key and a `global` statement's names are no nodes)
    source = "def f(a):\n    global g\n    return {**a, 'k': (b, 1)}, c"
    tree = ast.parse(source)
    names = Names()
    names.visit(tree)
    assert names.seen == ["a", "b", "c"]
    assert transformer.Base(None).visit(tree) is tree  # (a leaf: unchanged)
    Renamer(None).visit(tree)
    assert ast.unparse(tree.body[0].body[1]) == "return ({**A, 'k': (B, 1)}, C)"
    assert transformer.Visitor._table is not Names._table
    assert Names._table[ast.Constant] is transformer.Visitor._leaf
    assert Names._table[ast.Name] is Names.visit_Name


# --- copy_node ---


def test_copy_node_copies_fields_positions_and_annotation_dicts():
    node = parser.parse_source("f(a, b=[1])").body[0]
    anno.setanno(node, anno.Basic.SKIP_PROCESSING, True)
    twin = transformer.copy_node(node)
    assert ast.dump(twin) == ast.dump(node)
    assert (twin.lineno, twin.end_col_offset) == (1, 11)
    assert twin.value.args[0] is not node.value.args[0]
    anno.setanno(twin, anno.Basic.QN, "changed")
    assert not anno.hasanno(node, anno.Basic.QN)


def test_copy_node_shares_annotation_values():
    value = parser.parse_source("x").body[0].value
    origin = origin_info.OriginInfo("m.py", 3, 4, "f", "    x")
    anno.setanno(value, anno.Basic.ORIGIN, origin)
    assert anno.getanno(transformer.copy_node(value), anno.Basic.ORIGIN) is origin


def test_copy_deepcopy_also_keeps_annotations():
    value = parser.parse_source("x").body[0].value
    anno.setanno(value, anno.Basic.QN, "x")
    assert anno.getanno(copy.deepcopy(value), anno.Basic.QN) == "x"


def test_copy_node_of_a_list_copies_each_item():
    stmts = parser.parse_source("a = 1\nb = 2").body
    copies = transformer.copy_node(stmts)
    assert [ast.dump(c) for c in copies] == [ast.dump(s) for s in stmts]
    assert all(c is not s for c, s in zip(copies, stmts))
