"""`and`, `or`, `not` and conditional expressions become `ag__` operators.

    a and b or not c    ->    ag__.or_(ag__.and_(a, lambda: b), lambda: ag__.not_(c))
    lo <= x < hi        ->    ag__.and_(lo <= x, lambda: x < hi)
    0 < x + y <= 9      ->    ag__.compare_chain(0, '<', lambda: x + y, '<=', lambda: 9)
    y = a if x > 0 else b  ->  y = ag__.if_exp(x > 0, lambda: a, lambda: b)

The right operand of `and`/`or` and the arms of `a if c else b` are lambdas:
each is evaluated only when Python would; a walrus in one sets the user's
variable, which lives in a cell:
`a or (x := b)` -> `ag__.or_(a, lambda: ag__.set_cell(lambda: x, b), places=...)`.
The two kinds of operator are one pass, one walk of the tree (they were
two, the conditional expressions' first: each rewrite looks only at its
operands' own walruses, calls and `ag__.ld` reads, which neither rewrite
changes, so the order of the two does not show in the output).
A comparison chain is an `and` in Python too: split into comparisons when its
inner operands are names or constants (which may be evaluated twice), else
`compare_chain`, which evaluates each operand once. A chain with a walrus
in an operand stays as written (the walrus would bind inside a lambda):
exact in Python, a TypeError on a graph tensor.
"""

from __future__ import annotations

import ast

from autograph.converters.assignment_expressions import assigns
from autograph.core import builders as b
from autograph.core.converter import LazyOperands
from autograph.pyct import transformer

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
    """Rewrites boolean operators and conditional expressions."""

    def visit_IfExp(self, node: ast.IfExp) -> ast.expr:
        self.generic_visit(node)
        # ag__.if_exp(test, lambda: body, lambda: orelse)
        body, orelse = self.lazy(node.body), self.lazy(node.orelse)
        call = b.ag_call("if_exp", node.test, b.thunk(body), b.thunk(orelse))
        return self.with_places(call, body, orelse)

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.expr:
        self.generic_visit(node)
        op = "and_" if isinstance(node.op, ast.And) else "or_"
        values = node.values
        result = values[-1]
        for value in reversed(values[:-1]):
            # ag__.and_(a, lambda: b)
            operand = self.lazy(result)
            call = b.ag_call(op, value, b.thunk(operand))
            result = self.with_places(call, operand)
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
            # ag__.compare_chain(a, '<', lambda: b, '<=', lambda: c)
            args: list[ast.expr] = [node.left]
            for op, operand in zip(node.ops, node.comparators):
                args += [b.const(_SYMBOLS[type(op)]), b.thunk(operand)]
            call = b.ag_call("compare_chain", *args)
            return self.with_places(call, *node.comparators)
        operands = [node.left, *node.comparators]
        # An inner operand (a name or constant) is in two comparisons: each
        # gets its own node.
        # a < b < c -> a < b and b < c
        parts = [
            b.compare(
                transformer.copy_node(operands[i]) if i else operands[i],
                op,
                operands[i + 1],
            )
            for i, op in enumerate(node.ops)
        ]
        return self.visit_BoolOp(b.and_(parts))

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.expr:
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return b.ag_call("not_", node.operand)  # ag__.not_(x)
        return node


def transform(node: ast.AST, ctx: object) -> ast.AST:
    """Rewrites the boolean operators and conditional expressions of `node`."""
    return LogicalExpressionTransformer(ctx).visit(node)
