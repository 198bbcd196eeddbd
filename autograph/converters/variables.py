"""`del` and reads of variables that may be unbound.

Converted code passes variables between functions, so an unbound variable
must be a value: `del x` becomes `x = ag__.Undefined('x')`, and a read of a
local that is not bound on every path becomes `ag__.ld(x)`, which raises the
`UnboundLocalError` Python would have raised. Reads of surely bound names,
the common case, stay as they are (STYLE 9: no wrapper on every read).

    def f(c):                         def f(c):
        if c:                             if c:
            y = 1              ->             y = 1
        return y                          return ag__.ld(y)
"""

from __future__ import annotations

import ast
import sys

from autograph.core import builders as b
from autograph.core.converter import Context
from autograph.core.survey import Marker
from autograph.pyct import anno, transformer
from autograph.pyct.static_analysis import activity, definedness
from autograph.pyct.static_analysis.definedness import Defined

LOCALS = anno.Basic.ORIGINAL_LOCALS
CELLS = anno.Basic.CELLS
NESTED_WRITES = anno.Basic.NESTED_WRITES


class VariablesTransformer(transformer.Base):
    """Rewrites `del` of locals and reads of maybe-unbound locals."""

    def __init__(self, ctx: object, cache: activity.Cache | None = None) -> None:
        super().__init__(ctx)
        # The statements' names definedness found (the tree as it was then:
        # a function's statements are read before they are rewritten).
        self.cache = cache or activity.Cache()
        # One entry per enclosing function, innermost last.
        self.locals: list[set[str]] = []
        # Its locals that live in cells (`activity.cells`): converted code
        # reads and deletes them where they live.
        self.cells: list[set[str]] = []
        # Its locals that a `del` may unbind after a closure was made.
        self.deleted: list[set[str]] = []
        # Its locals that may be unbound at the statement being visited.
        self.maybe_unbound: list[set[str]] = []
        # Lambdas/comprehensions being visited: (function depth, own names,
        # whether Python reads outer names there as a closure).
        self.nested: list[tuple[int, set[str], bool]] = []

    def _visit_function(self, node: ast.FunctionDef) -> ast.FunctionDef:
        # Remembered for `cleanup`: lowering may drop dead code that was the
        # only binding of a local, which must stay local.
        local = self.cache.local_names(node)
        anno.setanno(node, LOCALS, local - activity.writes(node.args))
        cells = _cells(node, self.ctx, local)
        anno.setanno(node, CELLS, cells)
        # Locals that are not cells travel as explicit state: a nested
        # function cannot write them (it would be a cell).
        nested = set()
        if not self.ctx.kinds.isdisjoint(_SCOPES):  # (else none to look at)
            nested = activity.written_by_nested(node) - (local - cells)
        anno.setanno(node, NESTED_WRITES, nested)
        self.locals.append(local)
        self.cells.append(cells)
        self.deleted.append(
            activity.deletes(node.body) if ast.Delete in self.ctx.kinds else set()
        )
        self.maybe_unbound.append(set())
        node.body = self.visit_block(node.body)
        self.maybe_unbound.pop()
        self.deleted.pop()
        self.cells.pop()
        self.locals.pop()
        return node

    visit_FunctionDef = _visit_function
    visit_AsyncFunctionDef = _visit_function

    def visit(self, node: ast.AST) -> ast.AST:
        if isinstance(node, ast.stmt) and self.locals:
            must = anno.getanno(node, Defined.MUST_IN, None)
            if must is not None:
                self.maybe_unbound[-1] = self.locals[-1] - must
        return super().visit(node)

    def _visit_nested(self, node: ast.AST) -> ast.AST:
        if isinstance(node, ast.Lambda):
            own, closure = activity.local_names(node), True
        else:  # comprehensions are inlined, not closures, from 3.12 (PEP 709)
            own = {n for g in node.generators for n in activity.writes(g.target)}
            closure = sys.version_info < (3, 12)
        self.nested.append((len(self.locals), own, closure))
        self.generic_visit(node)
        self.nested.pop()
        return node

    visit_Lambda = _visit_nested
    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _visit_nested

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if not isinstance(node.ctx, ast.Load) or not self.locals:
            return node
        name = node.id
        depth = len(self.locals)
        inner = [(own, closure) for d, own, closure in self.nested if d == depth]
        if any(name in own for own, _ in inner):
            return node  # the lambda's or comprehension's own name
        if name in self.locals[-1]:
            if inner:  # read later, inside a lambda/comprehension of this function
                deleted = name in self.deleted[-1] and name not in self.cells[-1]
                if name in self.maybe_unbound[-1] or deleted:
                    closure = inner[0][1]
                    return b.ag_call("ld", node, b.const(closure))  # ag__.ld(x, True)
                return node
            if anno.getanno(node, Defined.DEFINITELY, True) is False:
                return self._load_maybe_unbound(node)
            return node
        # A free name of a nested function: check the enclosing function's,
        # where it may also be deleted after the nested function was made.
        for level in range(depth - 2, -1, -1):
            if name in self.locals[level]:
                # (A cell's `del` stays a `del`: the read raises by itself.)
                deleted = name in self.deleted[level] and name not in self.cells[level]
                if name in self.maybe_unbound[level] or deleted:
                    return b.ag_call("ld", node, b.const(True))  # ag__.ld(x, True)
                break
        return node

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.stmt:
        target = node.target
        if (
            isinstance(target, ast.Name)
            and self.locals
            and target.id in self.locals[-1]
            and anno.getanno(target, Defined.DEFINITELY, True) is False
        ):
            # x += v -> x = ag__.ld(x) + v
            read = self._load_maybe_unbound(b.name(target.id))
            return b.assign(target, b.binop(read, node.op, self.visit(node.value)))
        self.generic_visit(node)
        return node

    def _load_maybe_unbound(self, node: ast.Name) -> ast.expr:
        """`ag__.ld(x)`; for a cell, `ag__.ld_cell(lambda: x)`: read from a
        generated function, an unbound cell raises NameError, not the
        UnboundLocalError of the user's function."""
        if node.id in self.cells[-1]:
            return b.ag_call("ld_cell", b.thunk(node))
        self.ctx.kinds.add(Marker.UNBOUND_READ)  # for `cleanup`
        return b.ag_call("ld", node)

    def visit_Delete(self, node: ast.Delete) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for target in node.targets:  # in order: a later one may raise
            name = target.id if isinstance(target, ast.Name) else None
            if name is None or not self.locals or name not in self.locals[-1]:
                stmts: list[ast.stmt] = [b.delete([self.visit(target)])]
            elif name in self.cells[-1]:
                stmts = [b.delete([target])]  # `del` empties the cell
            else:
                stmts = [b.undefined_init(name)]  # x = ag__.Undefined('x')
            if (
                name is not None
                and anno.getanno(target, Defined.DEFINITELY, True) is False
            ):
                # `del x` of an unbound x raises, like reading it.
                read = self._load_maybe_unbound(b.name(name))
                stmts.insert(0, b.expr(read))  # ag__.ld(x)
            for stmt in stmts:
                if (
                    isinstance(stmt, ast.Delete)
                    and out
                    and isinstance(out[-1], ast.Delete)
                ):
                    out[-1].targets += stmt.targets
                else:
                    out.append(stmt)
        return out


# What `activity.written_by_nested` looks at: nested functions, lambdas, classes.
_SCOPES = (Marker.NESTED_FUNCTION, ast.Lambda)

# Where reads happen later than the statement they sit in.
_NESTED_SCOPES = (Marker.NESTED_FUNCTION, ast.Lambda, *activity.COMPREHENSIONS)


def transform(node: ast.AST, ctx: Context) -> ast.AST:
    """Runs definedness (Python semantics), then rewrites `node`."""
    unbound: set[str] | None = None
    cache = activity.Cache()  # the statements' names, found by definedness
    for fn in transformer.walk(node):
        if isinstance(fn, activity.FUNCTIONS):
            unbound = definedness.annotate(
                fn, cache=cache, walrus=ast.NamedExpr in ctx.kinds
            )
            break  # annotate() covers nested functions itself
    if unbound is not None and _nothing_to_rewrite(node, ctx, unbound, cache):
        ctx.rewrote = False
        return node
    return VariablesTransformer(ctx, cache).visit(node)


def _nothing_to_rewrite(
    node: ast.AST, ctx: Context, unbound: set[str], cache: activity.Cache
) -> bool:
    """Whether `node` is a function with no `del`, no nested scope and no
    read of a local that may be unbound; if so its locals are noted here,
    sparing the walk that finds nothing (the common case)."""
    if not isinstance(node, activity.FUNCTIONS):
        return False
    if ast.Delete in ctx.kinds or not ctx.kinds.isdisjoint(_NESTED_SCOPES):
        return False
    local = cache.local_names(node)
    if unbound & local:
        return False
    anno.setanno(node, LOCALS, local - activity.writes(node.args))
    anno.setanno(node, CELLS, _cells(node, ctx, local))
    anno.setanno(node, NESTED_WRITES, set())  # it has no nested function
    return True


# What `activity.cells` looks for: nested scopes, converted statements in a
# `try`/`with`, jumps in a `try`, walruses. Most functions hold none.
_CELL_TRIGGERS = frozenset(
    {
        Marker.NESTED_FUNCTION,
        ast.Lambda,
        ast.ClassDef,
        ast.With,
        ast.AsyncWith,
        ast.NamedExpr,
        *activity.TRIES,
    }
)


def _cells(
    node: ast.FunctionDef | ast.AsyncFunctionDef, ctx: Context, local: set[str]
) -> set[str]:
    """`activity.cells(node)` (`local`: its local names), without its walks
    when the tree has no trigger (`ctx.kinds`: this pass runs first, on the
    user's tree as surveyed)."""
    kinds = ctx.kinds
    if kinds.isdisjoint(_CELL_TRIGGERS):
        return set()
    return activity.cells(
        node,
        local=local,
        walrus=ast.NamedExpr in kinds,
        tries=not kinds.isdisjoint(activity.TRIES),
    )
