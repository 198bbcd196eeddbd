"""Tests for autograph.pyct.origin_info."""

from __future__ import annotations

import dataclasses
import linecache

import pytest

from autograph.pyct import anno, origin_info, parser

_FILE = "<origin-info-test>"


@pytest.fixture
def registered_file():
    lines = ["def f(x):\n", "    return x + 1\n"]
    linecache.cache[_FILE] = (sum(map(len, lines)), None, lines, _FILE)
    yield _FILE
    linecache.cache.pop(_FILE, None)


def test_origin_info_is_a_frozen_record_that_prints_like_a_frame():
    origin = origin_info.OriginInfo("m.py", 3, 4, "f", "    return x")
    assert str(origin) == 'File "m.py", line 3, in f'
    with pytest.raises(dataclasses.FrozenInstanceError):
        origin.lineno = 4  # type: ignore[misc]


def test_source_line_reads_through_linecache_without_the_newline(registered_file):
    assert origin_info.source_line(registered_file, 2) == "    return x + 1"
    assert origin_info.source_line(registered_file, 99) == ""


def test_resolve_annotates_positioned_nodes_with_their_origin(registered_file):
    tree = parser.parse_source("def f(x):\n    return x + 1\n", filename=_FILE)
    origin_info.resolve(tree, filename=registered_file, function_name="f")
    ret = tree.body[0].body[0]
    origin = anno.getanno(ret, anno.Basic.ORIGIN)
    assert origin == origin_info.OriginInfo(_FILE, 2, 4, "f", "    return x + 1")
    assert anno.getanno(ret.value.right, anno.Basic.ORIGIN).col_offset == 15
    assert not anno.hasanno(tree, anno.Basic.ORIGIN)
