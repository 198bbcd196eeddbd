"""Lowers `break` to a flag that the loop tests before each iteration.

    while x > 0:                         break_ = False
        if x == 3:                       while not break_ and x > 0:
            break               ->           if x == 3:
        x -= 1                                   break_ = True
    else:                                    else:
        x = -1                                   x -= 1
                                         if not break_:
                                             x = -1

A loop's `else` block runs when no `break` happened, so it moves after the
loop under `if not break_:`. For `for` loops the test is attached to the
loop (`anno.Basic.EXTRA_LOOP_TEST`) and checked before the next item is drawn.
"""

from __future__ import annotations

import ast

from autograph.core import builders as b
from autograph.core import jumps
from autograph.core.survey import Marker
from autograph.pyct import anno, transformer


def add_loop_test(loop: ast.stmt, test: ast.expr) -> None:
    """Makes `loop` also stop when `test` is false (checked first)."""
    if isinstance(loop, ast.While):
        if isinstance(loop.test, ast.Constant) and loop.test.value:
            loop.test = test  # `while True:` -> while <test>:
        else:
            loop.test = b.and_([test, loop.test])  # while <test> and <loop test>:
        return
    previous = anno.getanno(loop, anno.Basic.EXTRA_LOOP_TEST, None)
    if previous is not None:
        test = b.and_([test, previous])
    anno.setanno(loop, anno.Basic.EXTRA_LOOP_TEST, test)


def else_guard(loop: ast.stmt, test: ast.expr, block: list[ast.stmt]) -> ast.If:
    """`if <test>: <block>` for the `else` block of `loop`, at the loop's
    line: its branch is named `loop_else`, which messages about it read
    (`anno.Basic.GUARD`)."""
    guard = ast.copy_location(b.if_(test, block), loop)
    anno.setanno(guard, anno.Basic.GUARD, "loop_else")
    return guard


class BreakTransformer(transformer.Base):
    """Replaces each loop's `break`s by a `break_` flag."""

    statements_only = True  # it rewrites statements; expressions stay

    def _visit_loop(self, node: ast.stmt) -> ast.stmt | list[ast.stmt]:
        self.generic_visit(node)  # inner loops own their breaks
        flag = self.ctx.namer.new_symbol("break_")
        lowering = jumps.Lowering(
            ast.Break,
            lambda s: [b.assign(flag, b.const(True))],  # break_ = True
            flag,
            namer=self.ctx.namer,
        )
        if not lowering.contains(node.body):
            # Without a break the else block always runs after the loop; moved
            # there, a `break` in it is seen by the enclosing loop, whose it is.
            after, node.orelse = node.orelse, []
            return [node, *after] if after else node
        node.body = lowering.block(node.body)
        if lowering.dropped:
            self.ctx.kinds.add(Marker.DROPPED_CODE)
        add_loop_test(node, b.not_(b.name(flag)))
        after: list[ast.stmt] = []
        if node.orelse:
            # if not break_: <else block>
            after = [else_guard(node, b.not_(b.name(flag)), node.orelse)]
            node.orelse = []
        init = b.assign(flag, b.const(False))  # break_ = False
        return [init, node, *after]

    visit_While = _visit_loop
    visit_For = _visit_loop


def transform(node: ast.AST, ctx: object) -> ast.AST:
    """Lowers the `break` statements of `node` (and moves loops' `else`)."""
    return BreakTransformer(ctx).visit(node)
