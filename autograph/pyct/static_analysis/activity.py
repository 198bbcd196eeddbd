"""Which simple names a piece of code reads and which it binds.

Only plain names count (`x`, not `x.y` or `x[0]`: those mutate an object the
name already refers to). Nested scopes (functions, lambdas, comprehensions)
count as reading their free names where they are defined, and bind nothing
outside except a function's own name and walrus targets in comprehensions.

    >>> import ast
    >>> stmts = ast.parse("y = x + 1\\nz += y").body
    >>> sorted(reads(stmts)), sorted(writes(stmts))
    (['x', 'y', 'z'], ['y', 'z'])
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterable
from collections.abc import Set as AbstractSet

from autograph.pyct.transformer import (
    CHILD_FIELDS,
    Visitor,
    child_fields,
    child_nodes,
    child_statements,
    statement_fields,
)

# Node kinds that open a scope of their own, shared by the analyses and
# converters.
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
SCOPES = (*FUNCTIONS, ast.Lambda, ast.ClassDef)
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


# The names a collector has found none of (`deleted`, `walrus`, `declared`,
# `through` until it finds one: most statements have none, and four sets
# fewer per statement are a good part of the analyses' allocations).
_NO_NAMES: frozenset[str] = frozenset()


class Collector(Visitor):
    """Collects names read and bound, treating nested scopes as one read (what
    `collect` returns: its `read`, `written`, `deleted`, `walrus`,
    `declared` and `through` sets; the last four are replaced, never
    changed in place, and shared while empty: read them only)."""

    def __init__(self) -> None:
        self.read: set[str] = set()
        self.written: set[str] = set()
        self.deleted: AbstractSet[str] = _NO_NAMES
        self.walrus: AbstractSet[str] = _NO_NAMES
        # Names declared `global`/`nonlocal` in the scope being collected.
        self.declared: AbstractSet[str] = _NO_NAMES
        # Names nested scopes assign outside themselves (`nonlocal`,
        # `global`, also several levels down): they change here, but only a
        # binding of this scope's own (`written`) makes one of its locals.
        self.through: AbstractSet[str] = _NO_NAMES

    def merge(self, other: Collector) -> None:
        """Adds what `other` collected (from code in the same scope)."""
        self.read |= other.read
        self.written |= other.written
        if other.deleted:
            self.deleted = self.deleted | other.deleted
        if other.walrus:
            self.walrus = self.walrus | other.walrus
        if other.declared:
            self.declared = self.declared | other.declared
        if other.through:
            self.through = self.through | other.through

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self.read.add(node.id)
        elif isinstance(node.ctx, ast.Del):
            self.written.add(node.id)
            self.deleted = self.deleted | {node.id}
        else:
            self.written.add(node.id)

    def visit_arg(self, node: ast.arg) -> None:
        self.written.add(node.arg)
        if node.annotation is not None:
            self.visit(node.annotation)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name is not None:  # (deleted when the handler ends)
            self.written.add(node.name)
            self.deleted = self.deleted | {node.name}
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.target, ast.Name):
            self.read.add(node.target.id)
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.written.add(alias.asname or alias.name.split(".")[0])

    visit_ImportFrom = visit_Import

    def visit_Global(self, node: ast.Global) -> None:
        self.declared = self.declared | set(node.names)  # (they bind nothing)

    visit_Nonlocal = visit_Global

    def _visit_scope_outside(self, node: ast.AST) -> None:
        """What a nested scope evaluates where it is defined."""
        if isinstance(node, ast.Lambda):
            self._visit_all(node.args.defaults + node.args.kw_defaults)
        elif isinstance(node, ast.ClassDef):
            self._visit_all(node.bases + node.keywords + node.decorator_list)
        else:
            self._visit_all(node.args.defaults + node.args.kw_defaults)
            self._visit_all(node.decorator_list)
            self._visit_all([node.returns])

    def _visit_all(self, nodes: Iterable[ast.AST | None]) -> None:
        for n in nodes:
            if n is not None:
                self.visit(n)

    def _visit_nested(self, node: ast.AST) -> None:
        self._visit_scope_outside(node)
        inner = Collector()
        if isinstance(node, ast.Lambda):
            inner.visit(node.args)
            inner.visit(node.body)
        elif isinstance(node, ast.ClassDef):
            inner._visit_all(node.body)
        else:
            inner.visit(node.args)
            inner._visit_all(node.body)
        declared = inner.declared
        self.read |= (inner.read - inner.written) | (declared & inner.read)
        if not isinstance(node, ast.Lambda):
            self.written.add(node.name)
        # `nonlocal x` / `global x` in a nested function writes the outer x,
        # as does a function nested deeper whose `nonlocal x` passes through
        # one that does not bind x itself.
        changed = inner.written | inner.through
        through = (declared & changed) | (inner.through - inner.written)
        if through:
            self.through = self.through | through

    visit_FunctionDef = _visit_nested
    visit_AsyncFunctionDef = _visit_nested
    visit_Lambda = _visit_nested
    visit_ClassDef = _visit_nested

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.visit(node.value)
        self.written.add(node.target.id)
        self.walrus = self.walrus | {node.target.id}

    def _visit_comprehension(self, node: ast.AST) -> None:
        generators = node.generators
        # The first iterable is evaluated in the enclosing scope.
        self.visit(generators[0].iter)
        inner = Collector()
        for i, gen in enumerate(generators):
            if i:
                inner.visit(gen.iter)
            inner.visit(gen.target)
            inner._visit_all(gen.ifs)
        if isinstance(node, ast.DictComp):
            inner.visit(node.key)
            inner.visit(node.value)
        else:
            inner.visit(node.elt)
        # Walrus targets bind in the enclosing function, not the comprehension.
        self.read |= inner.read - (inner.written - inner.walrus)
        if inner.walrus:
            self.written |= inner.walrus
            self.walrus = self.walrus | inner.walrus

    visit_ListComp = _visit_comprehension
    visit_SetComp = _visit_comprehension
    visit_DictComp = _visit_comprehension
    visit_GeneratorExp = _visit_comprehension


def collect(nodes: ast.AST | Iterable[ast.AST]) -> Collector:
    """All of `reads`, `writes` and `deletes` of the nodes, in one walk: the
    result's `read`, `written` and `deleted` sets."""
    collector = Collector()
    if isinstance(nodes, ast.AST):
        nodes = [nodes]
    for node in nodes:
        collector.visit(node)
    return collector


# Statements that only evaluate expressions (bind nothing without a walrus),
# and those that test one before their blocks.
_EXPRESSIONS_ONLY = frozenset(
    {ast.Return, ast.Expr, ast.Raise, ast.Assert, ast.Pass, ast.Break, ast.Continue}
)
_TESTED = frozenset({ast.If, ast.While})


class Cache:
    """The names of statements, each found once, for analyses that ask often.

    `of(stmt)` is `collect(stmt)`; a compound statement's (an if, a loop, a
    try, ...) is put together from its own expressions and its blocks'
    statements, so asking about every statement of a nested tree costs one
    walk rather than one per nesting level. The statements must not change
    while the cache is in use.
    """

    def __init__(self) -> None:
        self._found: dict[ast.AST, Collector] = {}

    def of(self, node: ast.AST) -> Collector:
        """`collect(node)` for a statement (or an except handler)."""
        found = self._found.get(node)
        if found is not None:
            return found
        blocks = statement_fields(type(node))
        if not blocks or isinstance(node, SCOPES):
            found = collect(node)
        else:
            found = Collector()
            for field in child_fields(type(node)):
                value = getattr(node, field, None)
                if field in blocks:
                    for child in value:
                        found.merge(self.of(child))
                elif type(value) is list:
                    found._visit_all(v for v in value if isinstance(v, ast.AST))
                elif isinstance(value, ast.AST):
                    found.visit(value)
            if isinstance(node, ast.ExceptHandler) and node.name is not None:
                found.written.add(node.name)
                found.deleted = found.deleted | {node.name}  # (when it ends)
        self._found[node] = found
        return found

    def known(self, node: ast.AST) -> Collector | None:
        """What `of(node)` found, if it was asked already (or `put`)."""
        return self._found.get(node)

    def put(self, node: ast.AST, found: Collector) -> None:
        """Records `found`, which the caller collected from `node` itself
        (as `collect(node)` would), while walking it for its own ends."""
        self._found[node] = found

    def local_names(
        self, fn: ast.FunctionDef | ast.AsyncFunctionDef, *, walrus: bool = True
    ) -> set[str]:
        """`local_names(fn)`, from the names of its statements.

        `walrus`: whether `fn` may hold a walrus (`survey`'s kinds tell).
        Without one an expression binds nothing, so a statement not asked
        about yet that only evaluates expressions (`return`, `if`, ...) is
        not walked for its names: only its blocks are looked at, and a
        `for`'s target.
        """
        written = writes(fn.args)
        declared: set[str] = set()
        known = self._found
        stack = list(fn.body)
        while stack:
            stmt = stack.pop()
            found = known.get(stmt)
            if found is None and not walrus:
                kind = type(stmt)
                if kind in _EXPRESSIONS_ONLY:
                    continue
                if kind in _TESTED:
                    stack += stmt.body
                    stack += stmt.orelse
                    continue
                if kind is ast.For or kind is ast.AsyncFor:
                    written |= writes(stmt.target)
                    stack += stmt.body
                    stack += stmt.orelse
                    continue
            if found is None:
                found = self.of(stmt)
            written |= found.written
            declared |= found.declared
        return written - declared

    def binds(self, stmts: Iterable[ast.AST]) -> set[str]:
        """The names the statements bind in their own scope (not those their
        nested functions assign through `nonlocal`/`global`)."""
        bound: set[str] = set()
        for stmt in stmts:
            bound |= self.of(stmt).written
        return bound

    def writes(self, stmts: Iterable[ast.AST]) -> set[str]:
        """`writes(stmts)` for a list of statements."""
        written: set[str] = set()
        for stmt in stmts:
            found = self.of(stmt)
            written |= found.written | found.through
        return written


def reads(nodes: ast.AST | Iterable[ast.AST]) -> set[str]:
    """Names read by a node or a list of statements (in any order)."""
    if type(nodes) is ast.Name:  # (a loop's target, a returned name: no walk)
        return {nodes.id} if type(nodes.ctx) is ast.Load else set()
    return collect(nodes).read


def writes(nodes: ast.AST | Iterable[ast.AST]) -> set[str]:
    """Names bound (assigned, deleted, imported, defined) by the nodes, and
    those their nested functions assign through `nonlocal`/`global`."""
    kind = type(nodes)
    if kind is ast.Name:  # (a loop's target, `x += 1`: no walk)
        return set() if type(nodes.ctx) is ast.Load else {nodes.id}
    if kind is ast.arguments:
        names = _parameters(nodes)
        if names is not None:
            return names
    found = collect(nodes)
    return found.written | found.through


def _parameters(args: ast.arguments) -> set[str] | None:
    """The names of the parameters `args` declares, or None where it holds a
    default or an annotation (expressions, which may bind names too: a
    walrus)."""
    if args.defaults:
        return None
    for default in args.kw_defaults:
        if default is not None:
            return None
    names: set[str] = set()
    for group in (args.posonlyargs, args.args, args.kwonlyargs):
        for arg in group:
            if arg.annotation is not None:
                return None
            names.add(arg.arg)
    for arg in (args.vararg, args.kwarg):
        if arg is not None:
            if arg.annotation is not None:
                return None
            names.add(arg.arg)
    return names


def deletes(nodes: ast.AST | Iterable[ast.AST]) -> set[str]:
    """Names removed by the nodes: with `del`, or as an except handler's
    name when the handler ends."""
    return collect(nodes).deleted


def walrus_binds(node: ast.AST) -> tuple[set[str], set[str]]:
    """The walrus targets of an expression (or simple statement): those bound
    whenever it is evaluated, and those bound only sometimes (inside a
    comprehension past its first iterable, the right side of `and`/`or`, a
    branch of `a if c else b`). Nested functions and lambdas bind their own.

        >>> always, sometimes = walrus_binds(
        ...     ast.parse("[(b := v) for v in (c := x) if (d := v)] or (e := 1)"))
        >>> sorted(always), sorted(sometimes)
        (['c'], ['b', 'd', 'e'])
    """
    always: set[str] = set()
    sometimes: set[str] = set()
    stack: list[tuple[ast.AST, bool]] = [(node, False)]
    while stack:
        child, maybe = stack.pop()
        if isinstance(child, ast.NamedExpr):
            (sometimes if maybe else always).add(child.target.id)
        elif isinstance(child, SCOPES):
            continue
        if isinstance(child, COMPREHENSIONS):
            # Only the first iterable is evaluated whatever the items are.
            stack.append((child.generators[0].iter, maybe))
            for i, gen in enumerate(child.generators):
                inner = [gen.target, *gen.ifs] + ([gen.iter] if i else [])
                stack.extend((c, True) for c in inner)
            parts = child_nodes(child)
            stack.extend((c, True) for c in parts if isinstance(c, ast.expr))
            continue
        lazy = lazy_operands(child)
        for grandchild in child_nodes(child):
            stack.append((grandchild, maybe or any(grandchild is n for n in lazy)))
    return always, sometimes


def lazy_operands(node: ast.AST) -> list[ast.expr]:
    """The operands of `node` that Python evaluates only sometimes (the
    right side of `and`/`or`, the branches of `a if c else b`): conversion
    makes them lambdas."""
    if isinstance(node, ast.BoolOp):
        return node.values[1:]
    if isinstance(node, ast.IfExp):
        return [node.body, node.orelse]
    return []


def lazy_walrus_targets(nodes: ast.AST | Iterable[ast.AST]) -> set[str]:
    """Names a walrus binds in a lazy operand (the right side of `and`/`or`,
    a branch of `a if c else b`), outside nested scopes.

    Conversion makes such an operand a lambda, in which a walrus would bind
    a name of the lambda: these names live in cells instead (`cells`), and
    the operand sets them with `ag__.set_cell`.

        >>> sorted(lazy_walrus_targets(ast.parse(
        ...     "(a := 1) or [(b := v) for v in x] or (lambda: (c := 2))")))
        ['b']
    """
    found: set[str] = set()
    start = [nodes] if isinstance(nodes, ast.AST) else list(nodes)
    stack: list[tuple[ast.AST, bool]] = [(n, False) for n in start]
    while stack:
        child, lazy = stack.pop()
        kind = type(child)
        if kind is ast.NamedExpr and lazy:
            found.add(child.target.id)
        elif isinstance(child, SCOPES):
            continue
        # (the `lazy_operands`, without a search among the children)
        if kind is ast.BoolOp:
            values = child.values
            stack.append((values[0], lazy))
            stack.extend((value, True) for value in values[1:])
        elif kind is ast.IfExp:
            stack += ((child.test, lazy), (child.body, True), (child.orelse, True))
        else:
            stack.extend((grandchild, lazy) for grandchild in child_nodes(child))
    return found


def handled_lines(
    fn: ast.AST,
) -> dict[int, tuple[tuple[int, frozenset[str] | None], ...]]:
    """For each line an exception raised on may be handled by a `try`: the
    `try` statements around it, innermost first, as (line, the names of the
    classes it catches, or None where it may catch anything).

    A `try`'s handlers cover its body: their classes by name (None for a
    bare `except`, or a class given by an expression that is no name). A
    `finally` that jumps (`return`, or `break`/`continue` of the loop
    around the `try`) swallows whatever its body, handlers and `else` raise;
    one that raises an exception of its own replaces it.

        >>> fn = ast.parse(
        ...     "def f(a):\\n"
        ...     "  try:\\n"
        ...     "    a = 1\\n"
        ...     "  except (KeyError, errors.Bad):\\n"
        ...     "    pass"
        ... ).body[0]
        >>> handled_lines(fn)[3][0][0], sorted(handled_lines(fn)[3][0][1])
        (2, ['Bad', 'KeyError'])
    """
    found: dict[int, list[tuple[int, frozenset[str] | None]]] = {}

    def cover(stmts: list[ast.AST], entry: tuple[int, frozenset[str] | None]) -> None:
        if stmts:
            last = stmts[-1].end_lineno or stmts[-1].lineno
            for line in range(stmts[0].lineno, last + 1):
                found.setdefault(line, []).append(entry)

    for node in _statements_outside_in(fn):
        if not isinstance(node, TRIES):
            continue
        if node.handlers:
            cover(node.body, (node.lineno, _caught(node.handlers)))
        if _jumps_out(node.finalbody):
            cover([*node.body, *node.handlers, *node.orelse], (node.lineno, None))
    return {line: tuple(reversed(tries)) for line, tries in found.items()}


def unpacked(targets: list[ast.expr]) -> list[ast.expr]:
    """The targets an assignment to `targets` binds, tuples and lists
    unpacked and `*rest` unwrapped (order not kept)."""
    out, flat = list(targets), []
    while out:
        target = out.pop()
        if isinstance(target, (ast.Tuple, ast.List)):
            out.extend(target.elts)
        elif isinstance(target, ast.Starred):
            out.append(target.value)
        else:
            flat.append(target)
    return flat


def finally_blocks(fn: ast.AST) -> dict[int, tuple[int, int, int]]:
    """For each line of a `finally` block that does not jump (one that does
    swallows everything: `handled_lines`): the `try`'s line and the first
    and last lines of what it runs the block after (body, handlers,
    `else`), whose exception an exception the block raises replaces.

        >>> fn = ast.parse(
        ...     "def f(a):\\n  try:\\n    a = 1\\n  finally:\\n    a = 2"
        ... ).body[0]
        >>> finally_blocks(fn)
        {5: (2, 3, 3)}
    """
    found: dict[int, tuple[int, int, int]] = {}
    for node in _statements_outside_in(fn):  # (an inner `try` wins)
        if not isinstance(node, TRIES) or not node.finalbody:
            continue
        if _jumps_out(node.finalbody):
            continue
        guarded = [*node.body, *node.handlers, *node.orelse]
        last = max(s.end_lineno or s.lineno for s in guarded)
        entry = (node.lineno, guarded[0].lineno, last)
        block = node.finalbody
        for line in range(block[0].lineno, (block[-1].end_lineno or 0) + 1):
            found[line] = entry
    return found


def _caught(handlers: list[ast.ExceptHandler]) -> frozenset[str] | None:
    """The names of the classes the handlers catch, or None for anything."""
    caught: set[str] = set()
    for handler in handlers:
        kinds = handler.type
        for kind in kinds.elts if isinstance(kinds, ast.Tuple) else [kinds]:
            if isinstance(kind, ast.Name):
                caught.add(kind.id)
            elif isinstance(kind, ast.Attribute):
                caught.add(kind.attr)
            else:
                return None
    return frozenset(caught)


def _jumps_out(stmts: list[ast.stmt]) -> bool:
    """Whether the block holds a `return`, a `raise` of an exception (not a
    bare `raise`, which raises the one it is handling), or a `break`/
    `continue` of a loop around it (not of a loop inside it)."""
    stack: list[tuple[ast.AST, bool]] = [(s, False) for s in stmts]
    while stack:
        node, in_loop = stack.pop()
        if isinstance(node, ast.Return):
            return True
        if isinstance(node, ast.Raise) and node.exc is not None:
            return True
        if isinstance(node, (ast.Break, ast.Continue)) and not in_loop:
            return True
        if isinstance(node, SCOPES):
            continue
        inner = in_loop or isinstance(node, (ast.For, ast.AsyncFor, ast.While))
        stack.extend(
            (c, inner)
            for c in child_nodes(node)
            if isinstance(c, (ast.stmt, ast.excepthandler))
        )
    return False


def declarations(fn: ast.AST) -> dict[str, str]:
    """Maps each name declared in `fn` to 'global' or 'nonlocal'."""
    found: dict[str, str] = {}
    for node in _walk_scope(fn.body):
        if isinstance(node, ast.Global):
            found.update(dict.fromkeys(node.names, "global"))
        elif isinstance(node, ast.Nonlocal):
            found.update(dict.fromkeys(node.names, "nonlocal"))
    return found


def local_names(fn: ast.FunctionDef | ast.Lambda) -> set[str]:
    """Names local to function `fn`: its parameters and the names it binds."""
    collector = Collector()
    collector.visit(fn.args)
    if isinstance(fn, ast.Lambda):
        return collector.written
    collector._visit_all(fn.body)
    return collector.written - collector.declared


_CONVERTED = (ast.If, ast.While, ast.For)
TRIES = (ast.Try, *((ast.TryStar,) if hasattr(ast, "TryStar") else ()))


def cells(
    fn: ast.FunctionDef | ast.AsyncFunctionDef,
    *,
    local: AbstractSet[str] | None = None,
    walrus: bool = True,
    tries: bool = True,
    withs: bool = True,
    scopes: list[tuple[ast.AST, Collector]] | None = None,
    cache: Cache | None = None,
) -> set[str]:
    """Locals of `fn` that converted statements must write where they live.

    Converted statements pass the names they change explicitly, as arguments
    and results of functions, which is exact only while nothing else sees
    the name in between. Two kinds of locals are seen elsewhere:

    - names a nested function or lambda reads or writes (`nonlocal`): the
      closure sees the variable whenever it runs, so it must be one cell;
    - names a converted statement (`if`, loop) inside a `try` or `with` body
      (or a handler or `else` block before a `finally`) assigns and the
      handler, the `finally` block or what follows may read before assigning
      (`liveness.on_raise`): an exception may leave the statement half-way,
      and what it assigned before must be seen there;
    - names a walrus binds in a lazy operand (`lazy_walrus_targets`).

        >>> fn = ast.parse(
        ...     "def f(n):\\n"
        ...     "  x, y, z = 0, 0, 0\\n"
        ...     "  get = lambda: x\\n"
        ...     "  try:\\n"
        ...     "    if n: y = 1\\n"
        ...     "  finally:\\n"
        ...     "    z = y"
        ... ).body[0]
        >>> sorted(cells(fn))
        ['x', 'y']

    `local` (`local_names(fn)`, when the caller has it), `scopes`
    (`nested_scopes(fn)`, likewise: [] where `fn` holds no nested function,
    lambda or class), `walrus` (whether `fn` may hold a walrus in a lazy
    operand: `lazy_walrus_targets`), `tries` and `withs` (whether it may
    hold a `try`, a `with`) spare the walks that would find nothing:
    `survey`'s kinds tell. `cache`: the names of `fn`'s statements, when the
    caller shares them.
    """
    if local is None:
        local = local_names(fn)
    if scopes is None:
        scopes = nested_scopes(fn)
    found: set[str] = set()
    for scope, names in scopes:  # what each reads or writes from outside
        free = names.read | names.written | names.through
        found |= free - {getattr(scope, "name", None)}
    # The outermost converted statements in a `try`/`with` (statements only:
    # expressions hold none).
    guarded: list[ast.AST] = []
    stack: list[tuple[ast.AST, bool]] = []
    if tries or withs:
        stack = [(s, False) for s in fn.body]
    while stack:
        node, in_try = stack.pop()
        if isinstance(node, SCOPES):
            continue
        if in_try and isinstance(node, _CONVERTED):
            guarded.append(node)
            in_try = False
        inner = in_try or isinstance(node, (ast.With, ast.AsyncWith))
        for field in statement_fields(type(node)):
            # A `try` body's exceptions are caught by the same `try`; those of
            # its handlers and `else` block run its `finally` block.
            covered = inner or (isinstance(node, TRIES) and _seen_after(node, field))
            stack.extend((v, covered) for v in getattr(node, field))
    if guarded:
        # What such a statement assigns matters after an exception left it
        # only if a handler, a `finally` block or what follows may read it
        # before assigning it (a `finally` that starts `ob = Ns()` does not
        # need the loop's `ob`, which may be no tensor a graph can carry).
        from autograph.pyct.static_analysis import liveness  # (it builds on this)

        cache = cache or Cache()
        live = liveness.on_raise(fn, guarded, cache)
        for stmt in guarded:
            found |= cache.writes([stmt]) & live[stmt]
    if tries:
        found |= _assigned_under_jump_guards(fn)
    if walrus:
        found |= lazy_walrus_targets(fn.body)
    return found & local


def _seen_after(node: ast.AST, field: str) -> bool:
    """Whether code of the `try` statement `node` runs after an exception
    leaves its block `field`: a handler or the `finally` block."""
    return field == "body" or (bool(node.finalbody) and field in ("handlers", "orelse"))


def _assigned_under_jump_guards(fn: ast.AST) -> set[str]:
    """Names a `try` body assigns after a statement holding a jump, which a
    handler or `finally` of that `try` reads (or a handler or `else` block
    assigns, which its `finally` reads): jump lowering moves such
    statements under a flag's guard, a converted `if`, which an exception
    may leave half-way (as for the converted statements of `cells`)."""
    found: set[str] = set()
    for node in _walk_scope(fn.body):
        if isinstance(node, TRIES):
            after = _after_jumps(node.body)
            if after:
                found |= writes(after) & reads([*node.handlers, *node.finalbody])
            if node.finalbody:  # (handlers and `else` run it when they raise)
                after = [
                    *_after_jumps(node.orelse),
                    *(s for h in node.handlers for s in _after_jumps(h.body)),
                ]
                found |= writes(after) & reads(node.finalbody)
    return found


def _after_jumps(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements that follow, in their block, one holding a `return`,
    `break` or `continue` (in `body` and the blocks nested in it)."""
    found: list[ast.stmt] = []
    blocks: list[list[ast.stmt]] = [body]
    while blocks:
        block = blocks.pop()
        jumped = False
        for stmt in block:
            if jumped:
                found.append(stmt)
            elif any(isinstance(n, _JUMPS) for n in _walk_scope([stmt])):
                jumped = True
            if isinstance(stmt, SCOPES):
                continue
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list) and inner:
                    blocks.append(inner)
            blocks.extend(h.body for h in getattr(stmt, "handlers", ()))
    return found


_JUMPS = (ast.Return, ast.Break, ast.Continue)


def nested_scopes(
    fn: ast.FunctionDef | ast.AsyncFunctionDef,
) -> list[tuple[ast.AST, Collector]]:
    """The functions, lambdas and classes nested in `fn` (not those nested
    in them), each with what `collect` finds in it: the names it reads and
    binds outside itself (`cells`, `written_by_nested` want them). One walk
    of `fn`'s body, expressions included."""
    found: list[tuple[ast.AST, Collector]] = []
    fields_of = CHILD_FIELDS  # (a lookup, not a call, per node)
    stack: list = list(fn.body)
    while stack:
        node = stack.pop()
        if not isinstance(node, ast.AST):
            continue  # e.g. the names of a `global` statement
        if isinstance(node, SCOPES):
            collector = Collector()
            collector.visit(node)
            found.append((node, collector))
            continue
        kind = type(node)
        fields = fields_of.get(kind)
        values = node.__dict__
        for field in child_fields(kind) if fields is None else fields:
            value = values.get(field)
            if type(value) is list:
                stack.extend(value)
            elif value is not None:
                stack.append(value)
    return found


def written_by_nested(
    fn: ast.FunctionDef | ast.AsyncFunctionDef,
    scopes: list[tuple[ast.AST, Collector]] | None = None,
) -> set[str]:
    """Names that `fn`'s nested functions assign outside themselves
    (`nonlocal`, `global`): any call in `fn` may change them. `scopes`:
    `nested_scopes(fn)`, when the caller has it."""
    found: set[str] = set()
    for _, names in nested_scopes(fn) if scopes is None else scopes:
        found |= names.through
    return found


def _statements_outside_in(fn: ast.AST) -> Iterable[ast.AST]:
    """The statements (and except handlers) in `fn`, nested functions'
    included, each after those around it (as `ast.walk` gives them,
    without walking expressions)."""
    queue = deque(child_statements(fn))
    while queue:
        node = queue.popleft()
        yield node
        queue.extend(child_statements(node))


def _walk_scope(stmts: Iterable[ast.AST]) -> Iterable[ast.AST]:
    """Walks statements (not expressions) without entering nested scopes."""
    stack = list(stmts)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, SCOPES):
            continue
        stack.extend(child_statements(node))
