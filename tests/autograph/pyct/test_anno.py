"""Tests for autograph.pyct.anno."""

from __future__ import annotations

import ast
import copy

import pytest

from autograph.pyct import anno, parser


def _node() -> ast.stmt:
    return parser.parse_source("x = 1").body[0]


def test_a_set_annotation_is_read_back():
    node = _node()
    anno.setanno(node, anno.Basic.QN, "x")
    assert anno.hasanno(node, anno.Basic.QN)
    assert anno.getanno(node, anno.Basic.QN) == "x"
    assert anno.keys(node) == frozenset({anno.Basic.QN})


def test_a_missing_annotation_raises_unless_a_default_is_given():
    node = _node()
    assert anno.getanno(node, anno.Basic.ORIGIN, None) is None
    assert anno.getanno(node, anno.Basic.ORIGIN, default=0) == 0
    with pytest.raises(KeyError) as caught:
        anno.getanno(node, anno.Basic.ORIGIN)
    assert caught.value.args[0] == "Assign node has no annotation Basic.ORIGIN"


def test_deleting_an_annotation_removes_it_and_a_missing_one_raises():
    node = _node()
    anno.setanno(node, anno.Static.SCOPE, "scope")
    anno.delanno(node, anno.Static.SCOPE)
    assert not anno.hasanno(node, anno.Static.SCOPE)
    assert anno.ANNO_FIELD not in node.__dict__
    with pytest.raises(KeyError):
        anno.delanno(node, anno.Static.SCOPE)


def test_copyanno_shares_the_value_and_ignores_a_missing_one():
    source, target = _node(), _node()
    value = {"x"}
    anno.setanno(source, anno.Static.LIVE_VARS_OUT, value)
    anno.copyanno(source, target, anno.Static.LIVE_VARS_OUT)
    anno.copyanno(source, target, anno.Basic.ORIGIN)
    assert anno.getanno(target, anno.Static.LIVE_VARS_OUT) is value
    assert not anno.hasanno(target, anno.Basic.ORIGIN)


def test_annotations_are_invisible_to_ast_conversion_unparse_and_compile():
    node = _node()
    anno.setanno(node, anno.Basic.SKIP_PROCESSING, True)
    assert anno.ANNO_FIELD not in node._fields
    assert parser.unparse(node) == "x = 1"
    module = ast.Module(body=[node], type_ignores=[])
    compile(ast.fix_missing_locations(module), "<anno>", "exec")


def test_deepcopy_keeps_annotations():
    node = _node()
    anno.setanno(node.value, anno.Basic.QN, "one")
    assert anno.getanno(copy.deepcopy(node).value, anno.Basic.QN) == "one"


@pytest.mark.parametrize("key", [*anno.Basic, *anno.Static])
def test_every_key_documents_itself(key):
    assert isinstance(key.value, str)
    assert len(key.value) > 20


def test_the_keys_the_converters_rely_on_exist():
    names = {key.name for key in anno.Basic}
    assert {"ORIGIN", "SKIP_PROCESSING", "EXTRA_LOOP_TEST", "DIRECTIVES", "QN"} <= names


def test_keys_print_by_name():
    assert repr(anno.Basic.ORIGIN) == "Basic.ORIGIN"
    assert repr(anno.Static.SCOPE) == "Static.SCOPE"
