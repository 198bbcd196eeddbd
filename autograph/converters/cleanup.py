"""Tidies generated helper functions so converted code reads like the input.

    def if_body():                def if_body():
        y = x * 2       ->            return x * 2
        return y

Only functions the compiler generated (named by its `Namer`) are touched;
the user's own code keeps its shape.
"""

from __future__ import annotations

import gast

from autograph.pyct import transformer


class CleanupTransformer(transformer.Base):
    """Folds `name = value; return name` at the end of generated functions."""

    def visit_FunctionDef(self, node: gast.FunctionDef) -> gast.FunctionDef:
        self.generic_visit(node)
        if node.name not in self.ctx.namer.generated:
            return node
        body = node.body
        if len(body) >= 2:
            last, previous = body[-1], body[-2]
            if (
                isinstance(last, gast.Return)
                and isinstance(last.value, gast.Name)
                and isinstance(previous, gast.Assign)
                and len(previous.targets) == 1
                and isinstance(previous.targets[0], gast.Name)
                and previous.targets[0].id == last.value.id
                and not any(isinstance(s, (gast.Global, gast.Nonlocal)) for s in body)
            ):
                body[-2:] = [gast.Return(value=previous.value)]
        return node


def transform(node: gast.AST, ctx: object) -> gast.AST:
    """Tidies the generated functions in `node`."""
    return CleanupTransformer(ctx).visit(node)
