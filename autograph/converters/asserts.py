"""`assert` statements become `ag__.assert_stmt` calls.

    assert x > 0, 'x must be positive'
        ->
    ag__.assert_stmt(x > 0, lambda: 'x must be positive')

The message is a lambda so that it is evaluated only on failure, as in Python.
"""

from __future__ import annotations

import ast

from autograph.core import builders as b
from autograph.pyct import transformer


class AssertTransformer(transformer.Base):
    """Rewrites `assert`."""

    statements_only = True  # it rewrites statements; expressions stay

    def visit_Assert(self, node: ast.Assert) -> ast.stmt:
        self.generic_visit(node)
        # ag__.assert_stmt(test, lambda: msg)
        args = [node.test] if node.msg is None else [node.test, b.thunk(node.msg)]
        return b.expr(b.ag_call("assert_stmt", *args))


def transform(node: ast.AST, ctx: object) -> ast.AST:
    """Rewrites the `assert` statements of `node`."""
    return AssertTransformer(ctx).visit(node)
