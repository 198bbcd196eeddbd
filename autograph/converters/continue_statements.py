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
from collections.abc import Set as AbstractSet

from autograph.core import jumps
from autograph.core.converter import DroppedCode
from autograph.pyct import transformer


class ContinueTransformer(transformer.Base):
    """Replaces each loop's `continue`s by guards (and a flag if needed)."""

    statements_only = True  # it rewrites statements; expressions stay

    def _visit_loop(self, node: ast.stmt) -> ast.stmt:
        self.generic_visit(node)  # inner loops own their continues
        # The flag gets a name only if some guard reads it; until then the
        # assignments that set it are kept here, and named (or dropped) below.
        markers: list[ast.Assign] = []

        def replace(stmt: ast.stmt) -> list[ast.stmt]:
            markers.append(jumps.assign("", ast.Constant(value=True, kind=None)))
            return [markers[-1]]

        lowering = jumps.Lowering(
            lambda s: isinstance(s, ast.Continue),
            replace,
            lambda: self.ctx.namer.new_symbol("continue_"),
            namer=self.ctx.namer,
        )
        if not lowering.contains(node.body):
            return node
        body = lowering.block(node.body)
        if lowering.dropped:
            self.ctx.kinds.add(DroppedCode)
        if lowering.guards_used:
            flag = lowering.flag
            for marker in markers:
                marker.targets[0].id = flag
            reset = jumps.assign(flag, ast.Constant(value=False, kind=None))
            node.body = [reset, *body]
        else:
            _remove(body, {id(m) for m in markers})
            lowering.drop_resets()
            node.body = jumps.invert_empty_ifs(body) or [ast.Pass()]
            jumps.fill_empty_blocks(node)
        return node

    visit_While = _visit_loop
    visit_For = _visit_loop


def _remove(stmts: list[ast.stmt], ids: set[int]) -> None:
    stmts[:] = [s for s in stmts if id(s) not in ids]
    for stmt in stmts:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            block = getattr(stmt, field, None)
            if isinstance(block, list):
                _remove(block, ids)
        for handler in getattr(stmt, "handlers", ()):
            _remove(handler.body, ids)


# What the pass may add to a tree (see `Context.kinds`).
EMITS = jumps.EMITS


def needed(kinds: AbstractSet[type]) -> bool:
    """Whether a tree holding these node classes has anything to rewrite."""
    return ast.Continue in kinds


def transform(node: ast.AST, ctx: object) -> ast.AST:
    """Lowers the `continue` statements of `node`."""
    node = ContinueTransformer(ctx).visit(node)
    ctx.kinds |= EMITS
    return node
