"""Imports inside functions under runtime/ are an allow-list, each with its reason.

A function-level import hides a dependency from the reader and the import
graph; under runtime/ one is kept only where the module imported depends on
this one at import time (a cycle), as written here. Remove an entry when the
cycle goes; never add one where the import can move to the top or the code
to a lower layer (see ARCHITECTURE.md, "The lazy-import allow-list").
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# (module file, module imported) -> why it is imported inside a function.
ALLOWED = {
    ("runtime/graph.py", "runtime.graph_def"): (
        "Graph.as_graph_def/to_dot are conveniences; graph_def imports Graph"
    ),
    ("runtime/data/dataset.py", "runtime.data.graph_loop"): (
        "Dataset.reduce in a graph is graph_loop's; graph_loop imports Dataset"
    ),
}


def function_level_imports(path: Path) -> set[tuple[str, str]]:
    """(file, module) for every import statement inside a function of `path`."""
    found = set()
    tree = ast.parse(path.read_text(), str(path))
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or "."]
            else:
                continue
            rel = str(path.relative_to(ROOT))
            found.update((rel, module) for module in modules)
    return found


def _all_function_level_imports() -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for path in sorted((ROOT / "runtime").rglob("*.py")):
        found |= function_level_imports(path)
    return found


def test_every_function_level_import_under_runtime_is_allowed_with_a_reason():
    unlisted = sorted(_all_function_level_imports() - set(ALLOWED))
    assert not unlisted, f"imports inside functions without a reason: {unlisted}"


def test_the_allow_list_has_no_stale_entries():
    stale = sorted(set(ALLOWED) - _all_function_level_imports())
    assert not stale, f"allowed but no longer imported inside a function: {stale}"


# The runtime core, bottom up: each module imports only those before it
# (ARCHITECTURE.md's map); imports inside functions count, allowed ones aside.
CORE = (
    "errors",
    "dtypes",
    "shapes",
    "context",
    "nest",
    "tensor_spec",
    "source_locations",
    "formatted",
    "misuse",
    "tensor",
    "eager",
    "op_registry",
    "graph",
)


def _runtime_imports(path: Path) -> set[str]:
    """The `runtime.X...` modules `path` imports, anywhere in it, as `X...`
    (but for those under `if TYPE_CHECKING:`, for annotations only)."""
    tree = ast.parse(path.read_text(), str(path))
    typing_only = {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and ast.unparse(block.test) == "TYPE_CHECKING"
        for statement in block.body
        for node in ast.walk(statement)
    }
    found = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module == "runtime":
            names = [f"runtime.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        else:
            continue
        found.update(n[len("runtime.") :] for n in names if n.startswith("runtime."))
    return found


def test_the_runtime_core_is_layered():
    wrong = []
    for i, name in enumerate(CORE):
        rel = f"runtime/{name}.py"
        for module in _runtime_imports(ROOT / rel):
            if (rel, f"runtime.{module}") in ALLOWED:
                continue
            if module.split(".")[0] not in CORE[:i]:
                wrong.append(f"{rel} imports runtime.{module}")
    assert not wrong, wrong
