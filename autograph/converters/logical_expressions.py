"""`and`, `or` and `not` become `ag__.and_`, `ag__.or_`, `ag__.not_`.

    a and b or not c    ->    ag__.or_(ag__.and_(a, lambda: b), lambda: ag__.not_(c))
    lo <= x < hi        ->    ag__.and_(lo <= x, lambda: x < hi)
    0 < x + y <= 9      ->    ag__.compare_chain(0, '<', lambda: x + y, '<=', lambda: 9)

The right operand is a lambda: it is evaluated only when Python would; a
walrus in it sets the user's variable, which lives in a cell:
`a or (x := b)` -> `ag__.or_(a, lambda: ag__.set_cell(lambda: x, b), places=...)`.
A comparison chain is an `and` in Python too: split into comparisons when its
inner operands are names or constants (which may be evaluated twice), else
`compare_chain`, which evaluates each operand once. A chain with a walrus
in an operand stays as written (the walrus would bind inside a lambda):
exact in Python, a TypeError on a graph tensor.
"""

from __future__ import annotations

import ast
from collections.abc import Set as AbstractSet

from autograph.converters.assignment_expressions import assigns
from autograph.core.converter import CompareChain, LazyOperands, ag_call, thunk
from autograph.pyct import templates

_SYMBOLS = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Is: "is",
    ast.IsNot: "is not",
}


class LogicalExpressionTransformer(LazyOperands):
    """Rewrites boolean operators."""

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.expr:
        self.generic_visit(node)
        op = "and_" if isinstance(node.op, ast.And) else "or_"
        values = node.values
        result = values[-1]
        for value in reversed(values[:-1]):
            operand = self.lazy(result)
            result = self.with_places(ag_call(op, value, thunk(operand)), operand)
        return result

    def visit_Compare(self, node: ast.Compare) -> ast.expr:
        self.generic_visit(node)
        inner = node.comparators[:-1]
        if len(node.ops) < 2 or (
            ast.NamedExpr in self.ctx.kinds
            and any(assigns(n) for n in node.comparators)
        ):
            return node  # a walrus would bind inside a lambda: as written
        if not all(isinstance(n, (ast.Name, ast.Constant)) for n in inner):
            # An inner operand may not be evaluated twice: the operator
            # evaluates each once, lazily, as Python's chain does.
            args: list[ast.expr] = [node.left]
            for op, operand in zip(node.ops, node.comparators):
                args += [ast.Constant(value=_SYMBOLS[type(op)]), thunk(operand)]
            return self.with_places(ag_call("compare_chain", *args), *node.comparators)
        operands = [node.left, *node.comparators]
        # An inner operand (a name or constant) is in two comparisons: each
        # gets its own node.
        parts = [
            ast.Compare(
                left=templates.copy_node(operands[i]) if i else operands[i],
                ops=[op],
                comparators=[operands[i + 1]],
            )
            for i, op in enumerate(node.ops)
        ]
        return self.visit_BoolOp(ast.BoolOp(op=ast.And(), values=parts))

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.expr:
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ag_call("not_", node.operand)
        return node


# What the pass may add to a tree (see `Context.kinds`).
EMITS = frozenset(
    {
        ast.Call,
        ast.Attribute,
        ast.Name,
        ast.Lambda,
        ast.arguments,
        ast.Compare,
        ast.keyword,
        ast.Tuple,
    }
)


def needed(kinds: AbstractSet[type]) -> bool:
    """Whether a tree holding these node classes has anything to rewrite."""
    return not kinds.isdisjoint((ast.BoolOp, ast.Not, CompareChain))


def transform(node: ast.AST, ctx: object) -> ast.AST:
    """Rewrites the boolean operators of `node`."""
    node = LogicalExpressionTransformer(ctx).visit(node)
    ctx.kinds |= EMITS
    return node
