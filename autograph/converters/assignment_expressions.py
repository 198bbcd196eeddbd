"""A `while` test that assigns (`:=`) is evaluated in the loop, as state.

The loop test becomes a function of the loop state (`loop_test`), so a
walrus in it would bind a local of that function and the loop would never
see the new value. The test is evaluated where Python evaluates it instead:
once before the loop and again at the end of each iteration, into a
variable that the loop carries:

    while (x := x - 1) > 0:          loop_cond = (x := x - 1) > 0
        n += 1                ->     while loop_cond:
                                         n += 1
                                         loop_cond = (x := x - 1) > 0

It runs after jump lowering, so the end of the body is reached after a
`continue` (which re-evaluates the test, as in Python); after a `break` or a
`return` the test is not evaluated again, as in Python: their flags, which
lowering put in front of the test (`not break_ and ...`), guard it.

Where a walrus is converted and where it is refused (the refusals are
`core/unsupported.py`'s):

* converted: a `while` test (here); an `if` test, a `for` iterable, and any
  expression statement or comprehension (evaluated where they stand: the
  target binds in the function, or is state of the generated body function
  that holds it, like any assignment);
* refused with `ConversionError`: an operand Python evaluates only
  sometimes, which conversion turns into a `lambda` (the right side of
  `and`/`or`, either branch of `a if c else b`, an assert's message, a
  later operand of a comparison chain). A walrus there would bind inside
  the lambda.
* a walrus in the user's own `lambda` binds in that lambda in Python too.
"""

from __future__ import annotations

import ast

from autograph.core import builders as b
from autograph.pyct import transformer


def assigns(expr: ast.expr) -> bool:
    """Whether evaluating `expr` binds a name in the enclosing function (a
    walrus outside any lambda; comprehensions bind theirs outside)."""
    stack: list[ast.AST] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.NamedExpr):
            return True
        if isinstance(node, ast.Lambda):
            continue
        stack.extend(transformer.child_nodes(node))
    return False


def _split_flags(test: ast.expr, namer: object) -> tuple[list[ast.expr], ast.expr]:
    """`not f1 and (not f2 and T)` (as jump lowering builds it) -> ([...], T)."""
    flags: list[ast.expr] = []
    while (
        isinstance(test, ast.BoolOp)
        and isinstance(test.op, ast.And)
        and len(test.values) == 2
        and _is_flag_test(test.values[0], namer)
    ):
        flags.append(test.values[0])
        test = test.values[1]
    return flags, test


def _is_flag_test(expr: ast.expr, namer: object) -> bool:
    return (
        isinstance(expr, ast.UnaryOp)
        and isinstance(expr.op, ast.Not)
        and isinstance(expr.operand, ast.Name)
        and namer.is_generated(expr.operand.id)
    )


class WhileTestTransformer(transformer.Base):
    """Moves each assigning `while` test into the loop's state."""

    statements_only = True  # it rewrites statements; expressions stay

    def visit_While(self, node: ast.While) -> ast.stmt | list[ast.stmt]:
        # Named before the inner loops, as control_flow names its functions.
        cond = self.ctx.namer.new_symbol("loop_cond") if assigns(node.test) else None
        self.generic_visit(node)
        if cond is None:
            return node
        flags, test = _split_flags(node.test, self.ctx.namer)
        # On entry the jump flags are all unset: the test alone decides.
        before = b.assign(cond, test)  # loop_cond = <test>
        again: ast.stmt = b.assign(cond, transformer.copy_node(test))
        if flags:
            # if not break_ and ...: loop_cond = <test>
            guard = b.and_([transformer.copy_node(f) for f in flags])
            again = b.if_(guard, [again])
        node.test = b.and_([*flags, b.name(cond)])  # while not break_ and loop_cond:
        node.body.append(again)
        return [before, node]


def transform(node: ast.AST, ctx: object) -> ast.AST:
    """Rewrites the `while` loops of `node` whose test holds a walrus."""
    return WhileTestTransformer(ctx).visit(node)
