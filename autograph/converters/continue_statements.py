"""Lowers `continue` to guards over the rest of the loop body.

    for x in xs:                         for x in xs:
        if x < 0:                 ->         if not x < 0:
            continue                             total += x
        total += x

When the statements a `continue` skips can move into the other branch of an
`if`, no flag is needed (above). Otherwise a `continue_` flag is reset at the
top of each iteration and the skipped statements run under `if not continue_:`.
"""

from __future__ import annotations

import ast

from autograph.core import builders as b
from autograph.core import jumps
from autograph.core.survey import Marker
from autograph.pyct import transformer


class ContinueTransformer(transformer.Base):
    """Replaces each loop's `continue`s by guards (and a flag if needed)."""

    statements_only = True  # it rewrites statements; expressions stay

    def _visit_loop(self, node: ast.stmt) -> ast.stmt:
        self.generic_visit(node)  # inner loops own their continues
        namer = self.ctx.namer

        def lowering(replace, flag) -> jumps.Lowering:
            return jumps.Lowering(ast.Continue, replace, flag, namer=namer)

        # The flag exists only if some guard reads it: a trial lowering of a
        # copy (with names that reserve nothing) tells, so that the flag is
        # named before any statement uses it. (Lowering rewrites statements
        # and their blocks, not expressions: the copy shares those.)
        trial = jumps.Lowering(
            ast.Continue, lambda s: [], "continue_", namer=namer.scratch()
        )
        if not trial.contains(node.body):
            return node
        trial.block(transformer.copy_blocks(node.body))
        if trial.guards_used:
            flag = namer.new_symbol("continue_")
            # continue -> continue_ = True
            low = lowering(lambda s: [b.assign(flag, b.const(True))], flag)
            body = low.block(node.body)
            node.body = [b.assign(flag, b.const(False)), *body]  # continue_ = False
        else:
            # continue -> (nothing): the code it skips is in the other branch
            low = lowering(lambda s: [], lambda: namer.new_symbol("continue_"))
            body = low.block(node.body)
            low.drop_resets()
            node.body = jumps.invert_empty_ifs(body) or [b.pass_()]
            jumps.fill_empty_blocks(node)
        if low.dropped:
            self.ctx.kinds.add(Marker.DROPPED_CODE)
        return node

    visit_While = _visit_loop
    visit_For = _visit_loop


def transform(node: ast.AST, ctx: object) -> ast.AST:
    """Lowers the `continue` statements of `node`."""
    return ContinueTransformer(ctx).visit(node)
