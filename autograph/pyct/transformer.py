"""Base class for tree rewrites: a NodeTransformer that knows its context.

Converters subclass `Base` and return replacement nodes from `visit_*`
methods; a list of statements may replace one statement.
"""

from __future__ import annotations

import ast
from typing import Any

_METHOD_NAMES: dict[type, str] = {}


def method_name(cls: type) -> str:
    """'visit_' + the class name, computed once per node class."""
    name = _METHOD_NAMES.get(cls)
    if name is None:
        name = _METHOD_NAMES[cls] = "visit_" + cls.__name__
    return name


class Base(ast.NodeTransformer):
    """A ast NodeTransformer carrying the conversion context `ctx`."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx

    def visit(self, node: ast.AST) -> Any:
        """Dispatches to `visit_<Class>` (or `generic_visit`), like ast's."""
        return getattr(self, method_name(type(node)), self.generic_visit)(node)

    def generic_visit(self, node: ast.AST) -> ast.AST:
        """Visits the children of `node`, replacing them with what visits return.

        Same contract as `ast.NodeTransformer.generic_visit` (None removes a
        child from a list, a list splices in), but a list is only rebuilt when
        a visit changed something: conversion walks every tree ~10 times.
        """
        for field in node._fields:
            old = getattr(node, field, None)
            if isinstance(old, list):
                new: list[Any] | None = None
                for i, item in enumerate(old):
                    if not isinstance(item, ast.AST):
                        if new is not None:
                            new.append(item)
                        continue
                    result = self.visit(item)
                    if new is None:
                        if result is item:
                            continue
                        new = old[:i]
                    if result is None:
                        continue
                    if isinstance(result, list):
                        new.extend(result)
                    else:
                        new.append(result)
                if new is not None:
                    old[:] = new
            elif isinstance(old, ast.AST):
                result = self.visit(old)
                if result is None:
                    delattr(node, field)
                elif result is not old:
                    setattr(node, field, result)
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.Constant:
        # No children; skips ast.NodeVisitor's slow deprecated-name lookup.
        return node

    def visit_block(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        """Visits a statement list; a visit may return None, a node or a list."""
        out: list[ast.stmt] = []
        for stmt in stmts:
            result = self.visit(stmt)
            if result is None:
                continue
            if isinstance(result, list):
                out.extend(result)
            else:
                out.append(result)
        return out
