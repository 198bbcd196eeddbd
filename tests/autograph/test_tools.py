"""Tests for autograph/tools: reading files as text, alignment, the size report."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from autograph.tools import highlight, side_by_side, size, source_file

GENERATORS = """\
def numbers(n):
    for i in range(n):
        yield i


def total(xs):
    s = 0
    for x in xs:
        s += x
    return s
"""


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(path: Path, source: str) -> str:
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path.name


def test_source_file_lists_functions_and_methods_in_file_order():
    module = source_file.SourceFile(
        "class A:\n    def f(self):\n        pass\n    class B:\n"
        "        def g(self):\n            pass\n\n@dec\ndef h():\n    pass\n",
        "m.py",
    )
    found = [(f.qualname, f.lineno) for f in module.functions()]
    assert found == [("A.f", 2), ("A.B.g", 5), ("h", 9)]
    assert module.find("h").original == "@dec\ndef h():\n    pass\n"


def test_the_last_definition_of_a_name_wins_as_when_the_module_runs():
    module = source_file.SourceFile(
        "def f():\n    return 1\ndef f():\n    return 2\n", "m"
    )
    assert module.find("f").lineno == 3


def test_only_absolute_imports_of_library_modules_are_library_names():
    module = source_file.SourceFile(
        "import os.path\nimport numpy as np\nfrom . import local\n"
        "from mypkg import thing\nfrom math import sqrt\nsqrt = 2\n"
        "class K: pass\n[w for w in ()]\n",
        "m.py",
    )
    # (A class the file defines is user code, as `to_code` sees it.)
    assert module.library_names == {"os", "np"}
    assert {"local", "thing", "sqrt", "K"} <= module.module_names
    assert "w" not in module.module_names


def test_highlighting_only_adds_colour_codes():
    source = (
        'def f(x):\n    """Doc\n    string."""\n    s = f"{x!r:>4}"  # note\n'
        "    return ag__.if_exp(x, lambda: 1.5e3, lambda: b'\\x00')\n"
    )
    colored = highlight.python(source)
    assert colored != source
    assert highlight.strip(colored) == source
    assert f"{highlight.COMMENT}# note{highlight.RESET}" in colored
    assert f"{highlight.OPERATOR_CALL}if_exp{highlight.RESET}" in colored


def test_source_that_does_not_tokenize_is_left_uncoloured():
    assert highlight.python("x = (1 +\n") == "x = (1 +\n"


def test_side_by_side_marks_changed_added_and_removed_lines():
    rows = side_by_side.align("a\nb\nc\n", "a\n  c\nd\n")
    assert [(r.left, r.right, r.mark) for r in rows] == [
        ("a", "a", " "),
        ("b", None, "<"),
        ("c", "  c", " "),
        (None, "d", ">"),
    ]


def test_size_counts_code_lines_before_and_after_conversion(in_tmp):
    write(in_tmp / "m.py", GENERATORS)
    measures = size.measure("m.py")
    assert [(m.name, m.original, m.error is None) for m in measures] == [
        ("numbers", 3, False),
        ("total", 5, True),
    ]
    text = size.report(measures)
    assert text.splitlines()[0].split() == [
        "function",
        "where",
        "original",
        "converted",
        "ratio",
        "longest",
    ]
    assert "1 not converted" in text
