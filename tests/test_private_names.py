"""A leading underscore means "this module's own" (issue 14, part 2).

What one module of `autograph` or `runtime` uses from another is public there
(a small, named API per module); no module imports another's `_name`
(`from x import _name`) or reads it (`x._name`, `import x as m; m._name`).
Every import statement counts, also one inside a function. Tests are not
checked: a module's own tests may look at its private state.
"""

from __future__ import annotations

import ast
import doctest
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("autograph", "runtime")

# (module, name) pairs another module may still use, with the reason.
# Empty today: add an entry only with a reason a public name would not do.
ALLOWED: dict[tuple[str, str], str] = {}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _ours(module: str | None) -> bool:
    return module is not None and module.split(".")[0] in PACKAGES


def private_uses(source: str) -> list[tuple[int, str, str]]:
    """(line, module, name) for each private name of one of our modules that
    `source` imports or reads through a module it imported.

        >>> private_uses("from runtime.nest import _x, y")
        [(1, 'runtime.nest', '_x')]
        >>> private_uses("import runtime.dtypes as d\\nd._T.get(1)")
        [(2, 'runtime.dtypes', '_T')]
        >>> private_uses("from runtime import nest\\nnest.flatten(nest._k)")
        [(2, 'runtime.nest', '_k')]
    """
    tree = ast.parse(source)
    modules: dict[str, str] = {}  # bound name -> module (or module.attribute)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and _ours(node.module):
            for alias in node.names:
                modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                if _private(alias.name):
                    found.append((node.lineno, node.module, alias.name))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if _ours(alias.name):
                    bound = alias.asname or alias.name.split(".")[0]
                    modules[bound] = alias.name if alias.asname else bound
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and _private(node.attr)):
            continue
        chain = []
        base = node.value
        while isinstance(base, ast.Attribute):
            chain.append(base.attr)
            base = base.value
        if isinstance(base, ast.Name) and base.id in modules:
            module = ".".join([modules[base.id], *reversed(chain)])
            found.append((node.lineno, module, node.attr))
    return sorted(found)


def _files() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("path", _files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_uses_another_modules_private_names(path):
    uses = [
        f"line {line}: {module}.{name}"
        for line, module, name in private_uses(path.read_text())
        if (module, name) not in ALLOWED
    ]
    assert not uses, f"{path.relative_to(ROOT)} uses private names: {uses}"


def test_the_check_finds_a_private_import_inside_a_function():
    source = "def f():\n    from runtime.tensor import _secret\n    return _secret\n"
    assert private_uses(source) == [(2, "runtime.tensor", "_secret")]


def test_the_check_leaves_public_names_and_other_packages_alone():
    source = (
        "import numpy as np\nfrom jax._src import core\n"
        "from runtime import tensor\nnp._x, tensor.convert_to_tensor, self._y\n"
    )
    assert private_uses(source) == []


def test_the_examples_in_private_uses_docstring_hold():
    failures, _ = doctest.testmod(sys.modules[__name__], verbose=False)
    assert failures == 0
