"""Calls to user functions go through `ag__.converted_call`.

    y = helper(x, scale=2)    ->    y = ag__.converted_call(helper, x, scale=2)
    print(y)                  ->    ag__.print_(y)
    for i, v in enumerate(y): ->    for i, v in ag__.enumerate_(y):

`converted_call` converts `helper` on first use (recursive conversion) and
caches it. Calls that certainly need no conversion stay as written, so the
output stays readable: builtins (except `print`, `range`, `len`, `int`,
`float`, which become their `ag__` overloads, and `enumerate` and `zip`
where a `for` statement iterates what they give), functions of library modules
such as `numpy` or `runtime` (`np.sum(x)`, `rt.tanh(x)`), `super()` and the
`ag__` operators themselves. With `recursive=False` only the overloads are
rewritten. `warnings.warn` and `sys._getframe`, by any name, always go
through `converted_call`: their operators keep `stacklevel` / `depth` naming
the frame they name in Python.
"""

from __future__ import annotations

import ast
import sys
import types
import warnings
from collections.abc import Container

from autograph.core import builders as b
from autograph.core.converter import LOOP_BUILTINS, OVERLOADED_BUILTINS, user_locals
from autograph.pyct import transformer
from autograph.pyct.static_analysis import activity

# Builtins that inspect their caller's frame: wrapping them changes them.
_FRAME_BUILTINS = {"super", "locals", "globals", "vars", "eval", "exec", "dir"}


def _root_name(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


class CallTreeTransformer(transformer.Base):
    """Wraps calls in `ag__.converted_call` or the builtin overloads."""

    def __init__(self, ctx: object) -> None:
        super().__init__(ctx)
        self.locals: list[set[str]] = []

    def _visit_function(self, node: ast.FunctionDef) -> ast.FunctionDef:
        self.locals.append(user_locals(node))
        self.generic_visit(node)
        self.locals.pop()
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = _visit_function

    def visit_Lambda(self, node: ast.Lambda) -> ast.Lambda:
        self.locals.append(activity.local_names(node) | self._outer_locals())
        self.generic_visit(node)
        self.locals.pop()
        return node

    def _outer_locals(self) -> set[str]:
        return self.locals[-1] if self.locals else set()

    def _is_global(self, name: str) -> bool:
        return not any(name in scope for scope in self.locals)

    def _is_builtin(self, func: ast.expr, names: Container[str]) -> bool:
        """Whether `func` names one of the builtins `names` (not shadowed)."""
        return (
            isinstance(func, ast.Name)
            and func.id in names
            and self._is_global(func.id)
            and self.ctx.is_builtin(func.id)
        )

    def visit_For(self, node: ast.For) -> ast.For:
        self.generic_visit(node)
        self._loop_builtins(node.iter)
        return node

    def _loop_builtins(self, node: ast.expr) -> None:
        """`enumerate(...)`/`zip(...)` as the iterable of a `for` (and as
        an argument of one there) -> `ag__.enumerate_(...)`/`ag__.zip_(...)`."""
        if isinstance(node, ast.Call) and self._is_builtin(node.func, LOOP_BUILTINS):
            node.func = b.ag_attr(LOOP_BUILTINS[node.func.id])  # ag__.enumerate_
            for arg in node.args:
                self._loop_builtins(arg)

    def _counts_frames(self, func: ast.expr, root: str) -> bool:
        """Whether `func` is `warnings.warn` or `sys._getframe` (by any name)."""
        value = _resolve(self.ctx.lookup(root), func)
        return value is warnings.warn or value is sys._getframe

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        func = node.func
        root = _root_name(func)
        if root == b.AG:
            return node
        if isinstance(func, ast.Name) and self._is_global(func.id):
            if self._is_builtin(func, OVERLOADED_BUILTINS):
                node.func = b.ag_attr(OVERLOADED_BUILTINS[func.id])  # ag__.print_
                return node
            if func.id in _FRAME_BUILTINS or self.ctx.is_builtin(func.id):
                return node
        if root and self._is_global(root) and self._counts_frames(func, root):
            # Through the operator that keeps `stacklevel` / `depth` naming
            # the frame it names in Python (converted code adds frames).
            call = b.ag_call("converted_call", func, *node.args, keywords=node.keywords)
            return ast.copy_location(call, node)
        if (
            isinstance(func, ast.Attribute)
            and root
            and self._is_global(root)
            and self.ctx.is_library(root)
        ):
            return node
        if not self.ctx.recursive:
            return node
        # ag__.converted_call(f, *args, **keywords)
        call = b.ag_call("converted_call", func, *node.args, keywords=node.keywords)
        return ast.copy_location(call, node)


def _resolve(value: object, func: ast.expr) -> object:
    """The value `func` (a name or `module.attr` chain) names, following
    attributes of modules only (others could run code)."""
    if isinstance(func, ast.Name):
        return value
    if not isinstance(func, ast.Attribute):
        return None
    owner = _resolve(value, func.value)
    if not isinstance(owner, types.ModuleType):
        return None
    return getattr(owner, func.attr, None)


def transform(node: ast.AST, ctx: object) -> ast.AST:
    """Rewrites the calls of `node`."""
    return CallTreeTransformer(ctx).visit(node)
