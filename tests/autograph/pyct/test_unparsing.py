"""`unparsing.unparse` writes exactly what `ast.unparse` writes."""

from __future__ import annotations

import ast
import sysconfig
from pathlib import Path

import pytest

from autograph.pyct import unparsing

ROOT = Path(__file__).resolve().parents[3]
STDLIB = Path(sysconfig.get_paths()["stdlib"])
# Files of every kind of syntax: the standard library's (its own grammar
# tests among them), this compiler and its converted-code goldens' sources.
FILES = [
    *(STDLIB / name for name in ("ast.py", "typing.py", "dataclasses.py")),
    *(STDLIB / "test" / name for name in ("test_grammar.py", "test_patma.py")),
    *sorted((ROOT / "autograph" / "converters").glob("*.py")),
    *sorted((ROOT / "tests" / "samples").glob("*.py")),
]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_the_text_is_ast_unparse_s(path):
    if not path.exists():
        pytest.skip(f"{path} is not installed")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert unparsing.unparse(tree) == ast.unparse(tree)
    for node in ast.walk(tree):  # fragments too: precedence at the top
        if isinstance(node, (ast.expr, ast.stmt)):
            assert unparsing.unparse(node) == ast.unparse(node)


@pytest.mark.parametrize(
    "source",
    [
        "(a + b) * c ** -d",
        "lambda x, *ys, k=1, **kw: (yield)",
        "f'{a!r:>{width}} {b[\"k\"]}'",
        "x = (y := 1) if not (a and b or c) else [*z]",
        "async def f():\n    async with a as (b, c):\n        await d",
        "match p:\n    case [1, *rest] | {'k': v} if v:\n        pass",
        "try:\n    pass\nexcept* E as e:\n    raise X from e",
    ],
)
def test_fragments_read_the_same(source):
    try:
        tree = ast.parse(source)
    except SyntaxError:
        pytest.skip("this Python does not parse it")
    assert unparsing.unparse(tree) == ast.unparse(tree)


def test_an_error_inside_a_bracket_propagates():
    # (the brackets' context managers must not swallow it)
    with pytest.raises((ValueError, AttributeError, TypeError)):
        unparsing.unparse(ast.BinOp(left=ast.Name("a"), op=ast.Add(), right=None))
