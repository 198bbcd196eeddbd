"""`and`, `or` and `not` become `ag__.and_`, `ag__.or_`, `ag__.not_`.

    a and b or not c    ->    ag__.or_(ag__.and_(a, lambda: b), lambda: ag__.not_(c))

The right operand is a lambda: it is evaluated only when Python would.
"""

from __future__ import annotations

import gast

from autograph.pyct import templates, transformer


class LogicalExpressionTransformer(transformer.Base):
    """Rewrites boolean operators."""

    def visit_BoolOp(self, node: gast.BoolOp) -> gast.expr:
        self.generic_visit(node)
        op = "ag__.and_" if isinstance(node.op, gast.And) else "ag__.or_"
        values = node.values
        result = values[-1]
        for value in reversed(values[:-1]):
            result = templates.replace_as_expression(
                f"{op}(left, lambda: right)", left=value, right=result
            )
        return result

    def visit_UnaryOp(self, node: gast.UnaryOp) -> gast.expr:
        self.generic_visit(node)
        if isinstance(node.op, gast.Not):
            return templates.replace_as_expression(
                "ag__.not_(operand)", operand=node.operand
            )
        return node


def transform(node: gast.AST, ctx: object) -> gast.AST:
    """Rewrites the boolean operators of `node`."""
    return LogicalExpressionTransformer(ctx).visit(node)
