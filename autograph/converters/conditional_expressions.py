"""Conditional expressions become `ag__.if_exp`, with lazily evaluated arms.

y = a if x > 0 else b    ->    y = ag__.if_exp(x > 0, lambda: a, lambda: b)
"""

from __future__ import annotations

import ast
from collections.abc import Set as AbstractSet

from autograph.core.converter import LazyOperands, ag_call, thunk


class ConditionalExpressionTransformer(LazyOperands):
    """Rewrites `a if c else b`."""

    def visit_IfExp(self, node: ast.IfExp) -> ast.expr:
        self.generic_visit(node)
        body, orelse = self.lazy(node.body), self.lazy(node.orelse)
        call = ag_call("if_exp", node.test, thunk(body), thunk(orelse))
        return self.with_places(call, body, orelse)


# What the pass may add to a tree (see `Context.kinds`).
EMITS = frozenset(
    {
        ast.Call,
        ast.Attribute,
        ast.Name,
        ast.Lambda,
        ast.arguments,
        ast.keyword,
        ast.Tuple,
    }
)


def needed(kinds: AbstractSet[type]) -> bool:
    """Whether a tree holding these node classes has anything to rewrite."""
    return ast.IfExp in kinds


def transform(node: ast.AST, ctx: object) -> ast.AST:
    """Rewrites the conditional expressions of `node`."""
    node = ConditionalExpressionTransformer(ctx).visit(node)
    ctx.kinds |= EMITS
    return node
