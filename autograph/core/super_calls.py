"""Zero-argument `super()` gets its arguments spelled out.

    def name(self):                        def name(self):
        if flag:                     ->        if flag:
            return super().name()                  return super(__class__, self).name()

Python's `super()` reads the class cell `__class__` and the first argument
of the function it is written in. Conversion moves the bodies of converted
statements into functions of their own, where `super()` would find their
first argument (or none), so the arguments are written out first, while
the statement is still in the user's function. `__class__` reaches the
converted code as a free variable (the original method's cell).

This runs before the pipeline, only for functions that have the class cell
and where `super` is the builtin.
"""

from __future__ import annotations

import ast

from autograph.core import builders as b
from autograph.pyct import transformer

__all__ = ["transform"]


def _first_parameter(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    positional = [*fn.args.posonlyargs, *fn.args.args]
    return positional[0].arg if positional else None


def _is_bare_super(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "super"
        and not node.args
        and not node.keywords
    )


def transform(node: ast.FunctionDef | ast.Lambda) -> bool:
    """Spells out the arguments of every `super()` in `node` (in place), for
    the function each is written in; returns whether it changed anything.

    A `super()` in a function without a positional parameter, or in a
    lambda or class body, is left as it is (Python raises there too, or it
    is not moved).
    """
    changed = False
    first = _first_parameter(node) if isinstance(node, ast.FunctionDef) else None
    # (node, the first parameter of the function it is in)
    stack: list[tuple[ast.AST, str | None]] = [
        (child, first) for child in transformer.child_nodes(node)
    ]
    while stack:
        child, owner = stack.pop()
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inner = _first_parameter(child)
            stack.extend((c, inner) for c in child.body)
            stack.extend((c, owner) for c in child.decorator_list)
            stack.extend((c, owner) for c in child.args.defaults)
            stack.extend((c, owner) for c in child.args.kw_defaults if c)
            continue
        if isinstance(child, (ast.Lambda, ast.ClassDef)):
            continue  # a lambda's own `super()`; a class body stays Python
        if owner is not None and _is_bare_super(child):
            # super() -> super(__class__, self)
            child.args = [
                ast.copy_location(b.name("__class__"), child),
                ast.copy_location(b.name(owner), child),
            ]
            changed = True
        stack.extend((c, owner) for c in transformer.child_nodes(child))
    return changed
