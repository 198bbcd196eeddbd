"""Base class for tree rewrites: a NodeTransformer that knows its context.

Converters subclass `Base` and return replacement nodes from `visit_*`
methods; a list of statements may replace one statement.
"""

from __future__ import annotations

from typing import Any

import gast


class Base(gast.NodeTransformer):
    """A gast NodeTransformer carrying the conversion context `ctx`."""

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx

    def visit_Constant(self, node: gast.Constant) -> gast.Constant:
        # No children; skips ast.NodeVisitor's slow deprecated-name lookup.
        return node

    def visit_block(self, stmts: list[gast.stmt]) -> list[gast.stmt]:
        """Visits a statement list; a visit may return None, a node or a list."""
        out: list[gast.stmt] = []
        for stmt in stmts:
            result = self.visit(stmt)
            if result is None:
                continue
            if isinstance(result, list):
                out.extend(result)
            else:
                out.append(result)
        return out
