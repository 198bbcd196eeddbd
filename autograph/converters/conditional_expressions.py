"""Conditional expressions become `ag__.if_exp`, with lazily evaluated arms.

y = a if x > 0 else b    ->    y = ag__.if_exp(x > 0, lambda: a, lambda: b)
"""

from __future__ import annotations

import ast

from autograph.core import builders as b
from autograph.core.converter import LazyOperands


class ConditionalExpressionTransformer(LazyOperands):
    """Rewrites `a if c else b`."""

    def visit_IfExp(self, node: ast.IfExp) -> ast.expr:
        self.generic_visit(node)
        # ag__.if_exp(test, lambda: body, lambda: orelse)
        body, orelse = self.lazy(node.body), self.lazy(node.orelse)
        call = b.ag_call("if_exp", node.test, b.thunk(body), b.thunk(orelse))
        return self.with_places(call, body, orelse)


def transform(node: ast.AST, ctx: object) -> ast.AST:
    """Rewrites the conditional expressions of `node`."""
    return ConditionalExpressionTransformer(ctx).visit(node)
