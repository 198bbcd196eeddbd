"""The layers hold (STYLE 5): pyct knows nothing above it, runtime nothing of autograph.

Every import statement counts, also one inside a function.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
# What pyct may import from the package besides itself: the error types
# (a leaf module; pyct's parser raises ConversionError).
PYCT_MAY_IMPORT = {"autograph.errors"}


def _imports(path: Path) -> set[str]:
    """The top-level package of every module `path` imports (absolute)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            found.add(node.module)
    return found


def _modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


@pytest.mark.parametrize(
    "path", _modules("autograph/pyct"), ids=lambda p: str(p.relative_to(ROOT))
)
def test_pyct_imports_only_the_standard_library_and_itself(path):
    outside = {
        name
        for name in _imports(path)
        if name.split(".")[0] not in sys.stdlib_module_names
        and name != "__future__"
        and not (name + ".").startswith("autograph.pyct.")
        and name not in PYCT_MAY_IMPORT
    }
    assert not outside, f"{path.name} imports {sorted(outside)}"


@pytest.mark.parametrize(
    "path", _modules("runtime"), ids=lambda p: str(p.relative_to(ROOT))
)
def test_runtime_never_imports_autograph(path):
    names = {name for name in _imports(path) if name.split(".")[0] == "autograph"}
    assert not names, f"{path.name} imports {sorted(names)}"


def test_pyct_code_never_names_the_operators_module():
    """`ag__` is the converter's name for `runtime.operators`: pyct takes it
    as a parameter where it needs one (the loader's leading parameters)."""
    for path in _modules("autograph/pyct"):
        tree = ast.parse(path.read_text())
        names = {
            n.value
            for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and n.value == "ag__"
        }
        names |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        assert "ag__" not in names, path.name
