"""Converting the functions of a Python file read as text, never run.

`SourceFile` parses a module's source and converts its top-level functions
and the methods of its top-level classes with `transpiler.convert_node`,
answering the compiler's two questions about free names from the module's
text instead of from live globals:

- a name bound at the module's top level (assignment, `def`, `class`,
  `import`, loop or `with` target) is not a builtin, even if it shadows one;
- a name is library code when every top-level binding of it imports a library
  module or a name from one (`import numpy as np`, `from math import sqrt`),
  or defines a class (`to_code` treats live classes the same way), so calls
  through it stay as they are, exactly as `autograph.to_code` leaves them;
- a name bound only by importing `autograph` or `set_loop_options` from it
  refers to that (so `autograph.set_loop_options(...)` is read as the
  directive it is, as `to_code` reads it).

Example:
    >>> source = '''
    ... import numpy as np
    ... def f(x):
    ...     if x > 0:
    ...         x = np.sqrt(x)
    ...     return x
    ... '''
    >>> module = SourceFile(source, "model.py")
    >>> [(function.qualname, function.lineno) for function in module.functions()]
    [('f', 3)]
    >>> print(module.convert(module.find("f")), end="")
    def f(x):
        def if_body(x):
            return np.sqrt(x)
        x = ag__.if_stmt(x > 0, if_body, None, (x,), ('x',))
        return x
"""

from __future__ import annotations

import ast
import builtins
import copy
import dataclasses
from collections.abc import Iterator
from typing import Any

import autograph
from autograph.impl import codegen, libraries, transpiler
from autograph.pyct import parser
from autograph.pyct.static_analysis import activity

__all__ = ["FunctionSource", "SourceFile"]

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
# Nodes whose bodies are a scope of their own: names bound there are not the
# module's (comprehension variables are local to the comprehension too).
_SCOPES = (*activity.SCOPES, *activity.COMPREHENSIONS)


@dataclasses.dataclass(frozen=True)
class FunctionSource:
    """A function or method found in a file.

    Attributes:
        qualname: `name` for a function, `Class.name` for a method.
        lineno: 1-based line of its `def`.
        original: Its text (decorators included), dedented.
        node: Its tree, with the file's positions; never modified.
    """

    qualname: str
    lineno: int
    original: str
    node: ast.FunctionDef | ast.AsyncFunctionDef


class SourceFile:
    """A module's source, parsed once, whose functions convert one by one.

    Args:
        source: The module's text.
        filename: The name errors use for it, as the user gave it.

    Raises:
        SyntaxError: `source` does not parse.
    """

    def __init__(self, source: str, filename: str) -> None:
        self.source = source
        self.filename = filename
        self.lines = source.splitlines()
        self.tree = parser.parse_source(source, filename)
        self.module_names, self.library_names = _top_level_names(self.tree)
        self.autograph_names = _autograph_names(self.tree)

    def functions(self) -> list[FunctionSource]:
        """Top-level functions and methods of top-level classes, in file order."""
        return [
            self._function_source(qualname, node)
            for qualname, node in _definitions(self.tree.body, prefix="")
        ]

    def find(self, qualname: str) -> FunctionSource:
        """The function named `qualname` (`f` or `Class.method`).

        When a name is defined twice, the last definition wins, as when the
        module runs.

        Raises:
            KeyError: No function has that name.
        """
        found = [f for f in self.functions() if f.qualname == qualname]
        if not found:
            raise KeyError(qualname)
        return found[-1]

    def convert(self, function: FunctionSource, *, recursive: bool = True) -> str:
        """The converted source of `function`, as `autograph.to_code` shows it.

        Raises:
            ConversionError: The function uses syntax that is not supported.
        """
        node = copy.deepcopy(function.node)
        node.decorator_list = []
        converted = transpiler.convert_node(
            node,
            filename=self.filename,
            is_builtin=self._is_builtin,
            is_library=self.library_names.__contains__,
            lookup=self.autograph_names.get,
            recursive=recursive,
        )
        return codegen.to_source(converted, located=True)

    def _is_builtin(self, name: str) -> bool:
        return name not in self.module_names and hasattr(builtins, name)

    def _function_source(self, qualname: str, node: ast.AST) -> FunctionSource:
        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        block = self.lines[first - 1 : node.end_lineno]
        indent = block[0][: len(block[0]) - len(block[0].lstrip())]
        text = "\n".join(
            line[len(indent) :] if line.startswith(indent) else line for line in block
        )
        return FunctionSource(qualname, node.lineno, text + "\n", node)


def _definitions(
    body: list[ast.stmt], prefix: str
) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    for statement in body:
        if isinstance(statement, _DEFS):
            yield prefix + statement.name, statement
        elif isinstance(statement, ast.ClassDef):
            yield from _definitions(statement.body, f"{prefix}{statement.name}.")


def _top_level_names(module: ast.Module) -> tuple[frozenset[str], frozenset[str]]:
    """All names the module binds at its top level, and its library names."""
    bound: set[str] = set()
    not_library: set[str] = set()
    library: set[str] = set()
    for node in _module_scope_nodes(module):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
            not_library.add(node.id)
        elif isinstance(node, (*_DEFS, ast.ClassDef)) or (
            isinstance(node, ast.ExceptHandler) and node.name
        ):
            # (A class the file defines is user code, as `to_code` sees it:
            # `Scale.apply(x)` is converted like a function.)
            bound.add(node.name)
            not_library.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for name, is_library in _imported(node):
                bound.add(name)
                (library if is_library else not_library).add(name)
    return frozenset(bound), frozenset(library - not_library)


def _autograph_names(module: ast.Module) -> dict[str, Any]:
    """Names bound only by importing `autograph` or a directive from it, and
    what they refer to (the directives are read statically)."""
    values: dict[str, Any] = {}
    rebound: set[str] = set()
    for node in _module_scope_nodes(module):
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                if alias.name == "autograph":
                    values[bound] = autograph
                else:
                    rebound.add(bound)
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                bound = alias.asname or alias.name
                if (
                    node.level == 0
                    and node.module == "autograph"
                    and (alias.name == "set_loop_options")
                ):
                    values[bound] = autograph.set_loop_options
                else:
                    rebound.add(bound)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            rebound.add(node.id)
        elif isinstance(node, (*_DEFS, ast.ClassDef)):
            rebound.add(node.name)
    return {name: value for name, value in values.items() if name not in rebound}


def _imported(node: ast.Import | ast.ImportFrom) -> Iterator[tuple[str, bool]]:
    """(bound name, whether it comes from a library module) per alias."""
    for alias in node.names:
        if alias.name == "*":
            continue  # the names are unknown without importing the module
        if isinstance(node, ast.Import):
            bound = alias.asname or alias.name.split(".")[0]
            yield bound, libraries.is_library_module_name(alias.name)
        else:
            absolute = node.level == 0
            yield (
                alias.asname or alias.name,
                absolute and libraries.is_library_module_name(node.module),
            )


def _module_scope_nodes(module: ast.Module) -> Iterator[ast.AST]:
    """Every node of the module's own scope; nested scopes only by their name."""
    stack: list[ast.AST] = list(reversed(module.body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _SCOPES):
            # Decorators, defaults and base classes run in the module's scope.
            stack.extend(_outer_parts(node))
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _outer_parts(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, activity.COMPREHENSIONS):
        return [node.generators[0].iter]
    parts: list[ast.AST] = list(getattr(node, "decorator_list", []))
    arguments = getattr(node, "args", None)
    if isinstance(arguments, ast.arguments):
        parts += [d for d in arguments.defaults + arguments.kw_defaults if d]
    parts += list(getattr(node, "bases", [])) + list(getattr(node, "keywords", []))
    return parts
