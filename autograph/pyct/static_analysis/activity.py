"""Which simple names a piece of code reads and which it binds.

Only plain names count (`x`, not `x.y` or `x[0]`: those mutate an object the
name already refers to). Nested scopes (functions, lambdas, comprehensions)
count as reading their free names where they are defined, and bind nothing
outside except a function's own name and walrus targets in comprehensions.

    >>> import gast
    >>> stmts = gast.parse("y = x + 1\\nz += y").body
    >>> sorted(reads(stmts)), sorted(writes(stmts))
    (['x', 'y', 'z'], ['y', 'z'])
"""

from __future__ import annotations

from collections.abc import Iterable

import gast

from autograph.pyct.transformer import method_name

# Node kinds that open a scope of their own, shared by the analyses and
# converters.
FUNCTIONS = (gast.FunctionDef, gast.AsyncFunctionDef)
SCOPES = (*FUNCTIONS, gast.Lambda, gast.ClassDef)
_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


class _Collector(gast.NodeVisitor):
    """Collects names read and bound, treating nested scopes as one read."""

    def __init__(self) -> None:
        self.read: set[str] = set()
        self.written: set[str] = set()
        self.deleted: set[str] = set()
        self.walrus: set[str] = set()

    def visit_Name(self, node: gast.Name) -> None:
        if isinstance(node.ctx, gast.Load):
            self.read.add(node.id)
        elif isinstance(node.ctx, gast.Del):
            self.written.add(node.id)
            self.deleted.add(node.id)
        else:  # Store, Param
            self.written.add(node.id)
        if node.annotation is not None:
            self.visit(node.annotation)

    def visit(self, node: gast.AST) -> None:
        getattr(self, method_name(type(node)), self.generic_visit)(node)

    def generic_visit(self, node: gast.AST) -> None:
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, gast.AST):
                        self.visit(item)
            elif isinstance(value, gast.AST):
                self.visit(value)

    def visit_Constant(self, node: gast.Constant) -> None:
        pass  # no children; skips ast.NodeVisitor's deprecated-name lookup

    def visit_AugAssign(self, node: gast.AugAssign) -> None:
        if isinstance(node.target, gast.Name):
            self.read.add(node.target.id)
        self.generic_visit(node)

    def visit_Import(self, node: gast.Import) -> None:
        for alias in node.names:
            self.written.add(alias.asname or alias.name.split(".")[0])

    visit_ImportFrom = visit_Import

    def visit_Global(self, node: gast.Global) -> None:
        pass  # declarations bind nothing

    visit_Nonlocal = visit_Global

    def _visit_scope_outside(self, node: gast.AST) -> None:
        """What a nested scope evaluates where it is defined."""
        if isinstance(node, gast.Lambda):
            self._visit_all(node.args.defaults + node.args.kw_defaults)
        elif isinstance(node, gast.ClassDef):
            self._visit_all(node.bases + node.keywords + node.decorator_list)
        else:
            self._visit_all(node.args.defaults + node.args.kw_defaults)
            self._visit_all(node.decorator_list)
            self._visit_all([node.returns])

    def _visit_all(self, nodes: Iterable[gast.AST | None]) -> None:
        for n in nodes:
            if n is not None:
                self.visit(n)

    def _visit_nested(self, node: gast.AST) -> None:
        self._visit_scope_outside(node)
        inner = _Collector()
        if isinstance(node, gast.Lambda):
            inner.visit(node.args)
            inner.visit(node.body)
        elif isinstance(node, gast.ClassDef):
            inner._visit_all(node.body)
        else:
            inner.visit(node.args)
            inner._visit_all(node.body)
        declared = set() if isinstance(node, gast.Lambda) else nonlocal_and_global(node)
        self.read |= (inner.read - inner.written) | (declared & inner.read)
        if not isinstance(node, gast.Lambda):
            self.written.add(node.name)
        # `nonlocal x` / `global x` in a nested function writes the outer x.
        self.written |= declared & inner.written

    visit_FunctionDef = _visit_nested
    visit_AsyncFunctionDef = _visit_nested
    visit_Lambda = _visit_nested
    visit_ClassDef = _visit_nested

    def visit_NamedExpr(self, node: gast.NamedExpr) -> None:
        self.visit(node.value)
        self.written.add(node.target.id)
        self.walrus.add(node.target.id)

    def _visit_comprehension(self, node: gast.AST) -> None:
        generators = node.generators
        # The first iterable is evaluated in the enclosing scope.
        self.visit(generators[0].iter)
        inner = _Collector()
        for i, gen in enumerate(generators):
            if i:
                inner.visit(gen.iter)
            inner.visit(gen.target)
            inner._visit_all(gen.ifs)
        if isinstance(node, gast.DictComp):
            inner.visit(node.key)
            inner.visit(node.value)
        else:
            inner.visit(node.elt)
        # Walrus targets bind in the enclosing function, not the comprehension.
        self.read |= inner.read - (inner.written - inner.walrus)
        self.written |= inner.walrus
        self.walrus |= inner.walrus

    visit_ListComp = _visit_comprehension
    visit_SetComp = _visit_comprehension
    visit_DictComp = _visit_comprehension
    visit_GeneratorExp = _visit_comprehension


def _collect(nodes: gast.AST | Iterable[gast.AST]) -> _Collector:
    collector = _Collector()
    if isinstance(nodes, gast.AST):
        nodes = [nodes]
    for node in nodes:
        collector.visit(node)
    return collector


def reads(nodes: gast.AST | Iterable[gast.AST]) -> set[str]:
    """Names read by a node or a list of statements (in any order)."""
    return _collect(nodes).read


def writes(nodes: gast.AST | Iterable[gast.AST]) -> set[str]:
    """Names bound (assigned, deleted, imported, defined) by the nodes."""
    return _collect(nodes).written


def deletes(nodes: gast.AST | Iterable[gast.AST]) -> set[str]:
    """Names removed with `del` by the nodes."""
    return _collect(nodes).deleted


def nonlocal_and_global(fn: gast.AST) -> set[str]:
    """Names declared `nonlocal` or `global` directly in function `fn`."""
    declared: set[str] = set()
    for node in _walk_scope(fn.body):
        if isinstance(node, (gast.Global, gast.Nonlocal)):
            declared.update(node.names)
    return declared


def declarations(fn: gast.AST) -> dict[str, str]:
    """Maps each name declared in `fn` to 'global' or 'nonlocal'."""
    found: dict[str, str] = {}
    for node in _walk_scope(fn.body):
        if isinstance(node, gast.Global):
            found.update(dict.fromkeys(node.names, "global"))
        elif isinstance(node, gast.Nonlocal):
            found.update(dict.fromkeys(node.names, "nonlocal"))
    return found


def local_names(fn: gast.FunctionDef | gast.Lambda) -> set[str]:
    """Names local to function `fn`: its parameters and the names it binds."""
    collector = _Collector()
    collector.visit(fn.args)
    if isinstance(fn, gast.Lambda):
        return collector.written
    collector._visit_all(fn.body)
    return collector.written - nonlocal_and_global(fn)


def _walk_scope(stmts: Iterable[gast.AST]) -> Iterable[gast.AST]:
    """Walks statements without entering nested scopes."""
    stack = list(stmts)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (*SCOPES, *_COMPREHENSIONS)):
            continue
        stack.extend(gast.iter_child_nodes(node))
