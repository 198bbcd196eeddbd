"""`append`/`pop` on a list variable inside a loop become operators.

    for x in xs:                       for x in xs:
        out.append(x * 2)      ->          out = ag__.list_append(out, x * 2)

The list becomes loop state, so a graph loop can carry it as a TensorArray.
Outside loops, and on anything but a local name of the function, the methods
stay as written (rebinding a global or a closure's list would make it local).
"""

from __future__ import annotations

import ast

from autograph.core import builders as b
from autograph.core.converter import user_locals
from autograph.pyct import transformer


def _method_call(node: ast.expr, method: str) -> ast.Call | None:
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == method
        and isinstance(node.func.value, ast.Name)
        and not node.keywords
        and not any(isinstance(a, ast.Starred) for a in node.args)
    ):
        return node
    return None


class ListTransformer(transformer.Base):
    """Rewrites list append/pop statements inside loops."""

    statements_only = True  # it rewrites statements; expressions stay

    def __init__(self, ctx: object) -> None:
        super().__init__(ctx)
        self.loop_depth = 0
        self.locals: list[set[str]] = [set()]  # per enclosing function

    def _visit_loop(self, node: ast.stmt) -> ast.stmt:
        self.loop_depth += 1
        self.generic_visit(node)
        self.loop_depth -= 1
        return node

    visit_For = visit_While = _visit_loop

    def _visit_function(self, node: ast.AST) -> ast.AST:
        depth, self.loop_depth = self.loop_depth, 0
        self.locals.append(user_locals(node))
        self.generic_visit(node)
        self.locals.pop()
        self.loop_depth = depth
        return node

    def _local_call(self, node: ast.expr, method: str) -> ast.Call | None:
        """`_method_call`, inside a loop, on a local name of the function."""
        call = _method_call(node, method)
        if self.loop_depth and call and call.func.value.id in self.locals[-1]:
            return call
        return None

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _visit_function

    def visit_Expr(self, node: ast.Expr) -> ast.stmt:
        call = self._local_call(node.value, "append")
        if call is not None and len(call.args) == 1:
            # xs.append(v) -> xs = ag__.list_append(xs, v)
            xs = call.func.value.id
            return b.assign(xs, b.ag_call("list_append", b.name(xs), call.args[0]))
        call = self._local_call(node.value, "pop")
        if call is not None and len(call.args) <= 1:
            # xs.pop(i) -> xs = ag__.list_pop(xs, i)[0]
            xs = call.func.value.id
            popped = b.ag_call("list_pop", b.name(xs), *call.args)
            return b.assign(xs, b.subscript(popped, b.const(0)))
        return node

    def visit_Assign(self, node: ast.Assign) -> ast.stmt:
        call = self._local_call(node.value, "pop")
        if call is not None and len(call.args) <= 1 and len(node.targets) == 1:
            # y = xs.pop(i) -> (xs, y) = ag__.list_pop(xs, i)
            xs = call.func.value.id
            target = b.tuple_([b.name(xs, ast.Store), node.targets[0]], ast.Store)
            return b.assign(target, b.ag_call("list_pop", b.name(xs), *call.args))
        return node


def transform(node: ast.AST, ctx: object) -> ast.AST:
    """Rewrites list append/pop inside the loops of `node`."""
    return ListTransformer(ctx).visit(node)
