"""`del` and reads of variables that may be unbound.

Converted code passes variables between functions, so an unbound variable
must be a value: `del x` becomes `x = ag__.Undefined('x', deleted_by='del')`
(the refusals name the `del`), and a read of a local that is not bound on
every path becomes `ag__.ld(x)`, which raises the `UnboundLocalError` Python
would have raised. Reads of surely bound names,
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
from autograph.pyct.transformer import statement_fields

LOCALS = anno.Basic.ORIGINAL_LOCALS
CELLS = anno.Basic.CELLS
NESTED_WRITES = anno.Basic.NESTED_WRITES


class VariablesTransformer(transformer.Base):
    """Rewrites `del` of locals and reads of maybe-unbound locals."""

    def __init__(
        self,
        ctx: object,
        cache: activity.Cache | None = None,
        loop_stores: bool = True,
    ) -> None:
        super().__init__(ctx)
        # Whether a loop may store an item or attribute (`_stores_in_loop`;
        # if not, no function here has `loop_stored_places`).
        self.loop_stores = loop_stores
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
        # Its items and attributes a loop stores (`loop_stored_places`),
        # as written: their reads are `ag__.ld` reads.
        self.loop_places: list[set[str]] = []
        # Lambdas/comprehensions being visited: (function depth, own names,
        # whether Python reads outer names there as a closure).
        self.nested: list[tuple[int, set[str], bool]] = []
        # Per enclosing function: the names whose reads the enclosing
        # functions may rewrite (maybe unbound or deleted there), for a
        # nested function's free reads.
        self.outer_risky: list[set[str]] = []
        # Whether a statement whose reads are all surely bound may be left
        # unvisited (`_untouched`): not where a lambda may bind a walrus
        # target, which its own reads then see but the statement's names
        # (`activity.Collector`) do not.
        kinds = self.ctx.kinds
        self.skipping = ast.NamedExpr not in kinds or ast.Lambda not in kinds
        # Whether a compound statement may hold a nested function (whose
        # own reads start from its own definedness, not the statement's).
        self.defs = Marker.NESTED_FUNCTION in kinds
        # The compound statement just left unvisited, if the last one
        # visited: code after it that Python never runs (no `MUST_IN`)
        # reads with the state of its last reachable statement.
        self.skipped: ast.stmt | None = None

    def _visit_function(self, node: ast.FunctionDef) -> ast.FunctionDef:
        # Remembered for `cleanup`: lowering may drop dead code that was the
        # only binding of a local, which must stay local.
        local = self.cache.local_names(node, walrus=ast.NamedExpr in self.ctx.kinds)
        anno.setanno(node, LOCALS, local - activity.writes(node.args))
        scopes = _nested_scopes(node, self.ctx)
        cells = _cells(node, self.ctx, local, scopes, self.cache)
        anno.setanno(node, CELLS, cells)
        # Locals that are not cells travel as explicit state: a nested
        # function cannot write them (it would be a cell).
        nested = set()
        if scopes:
            nested = activity.written_by_nested(node, scopes) - (local - cells)
        anno.setanno(node, NESTED_WRITES, nested)
        outer: set[str] = set()
        if self.locals:  # (at the `def`: the enclosing functions' states)
            outer = self.outer_risky[-1] | self._risky()
        self.outer_risky.append(outer)
        self.locals.append(local)
        self.cells.append(cells)
        deleted: set[str] = set()
        if ast.Delete in self.ctx.kinds:
            for stmt in node.body:
                deleted |= self.cache.of(stmt).deleted
        self.deleted.append(deleted)
        self.maybe_unbound.append(set())
        self.loop_places.append(
            loop_stored_places(node, local)
            if self.loop_stores and self.ctx.kinds & _LOOPS_KINDS
            else set()
        )
        node.body = self.visit_block(node.body)
        self.skipped = None  # (its statements' states are its own)
        self.loop_places.pop()
        self.maybe_unbound.pop()
        self.deleted.pop()
        self.cells.pop()
        self.locals.pop()
        self.outer_risky.pop()
        return node

    visit_FunctionDef = _visit_function
    visit_AsyncFunctionDef = _visit_function

    def visit(self, node: ast.AST) -> ast.AST:
        if isinstance(node, ast.stmt) and self.locals:
            must = anno.getanno(node, Defined.MUST_IN, None)
            skipped, self.skipped = self.skipped, None
            if must is None and skipped is not None:
                must = _last_must(skipped)  # (as if it had been visited)
                if must is not None:
                    self.maybe_unbound[-1] = self.locals[-1] - must
            elif must is not None:
                self.maybe_unbound[-1] = self.locals[-1] - must
                if self._untouched(node):
                    if statement_fields(type(node)):
                        self.skipped = node
                    return node
        return super().visit(node)

    def _risky(self) -> set[str]:
        """The names of the innermost function whose reads may be rewritten
        at the statement being visited: maybe unbound there, or deleted
        somewhere (read later, inside a lambda or comprehension)."""
        risky = self.maybe_unbound[-1]
        deleted = self.deleted[-1]
        return risky | (deleted - self.cells[-1]) if deleted else risky

    def _untouched(self, node: ast.stmt) -> bool:
        """Whether the (reachable) statement `node` has nothing to rewrite:
        no `del`, no nested function, no item a loop may be the first to
        set, and no read of a name that may be unbound where it stands (the
        statement's names, which definedness found, tell; for a compound
        statement those bound on entry stay bound inside, as it deletes
        nothing)."""
        kind = type(node)
        if (
            not self.skipping
            or kind in _VISITED
            or self.loop_places[-1]
            or (self.defs and statement_fields(kind))
        ):
            return False
        found = self.cache.of(node)
        if found.deleted:
            return False
        read = found.read
        return read.isdisjoint(self._risky()) and read.isdisjoint(self.outer_risky[-1])

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

    def _visit_place(self, node: ast.Subscript | ast.Attribute) -> ast.expr:
        # A read of an item or attribute a loop of this function may be the
        # first to set: `ag__.ld(nd['born'])` checks it where it is read.
        loaded = (
            isinstance(node.ctx, ast.Load)
            and self.loop_places
            and self.loop_places[-1]
            and ast.unparse(node) in self.loop_places[-1]
        )
        self.generic_visit(node)
        if loaded:
            return b.ag_call("ld", node)
        return node

    visit_Subscript = visit_Attribute = _visit_place

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.stmt:
        target = node.target
        if (
            isinstance(target, (ast.Subscript, ast.Attribute))
            and self.loop_places
            and ast.unparse(target) in self.loop_places[-1]
        ):
            # nd['born'] += v -> nd['born'] = ag__.ld(nd['born']) + v
            load = ast.parse(ast.unparse(target), mode="eval").body
            read = self.visit(ast.copy_location(load, target))
            self.generic_visit(node)
            return b.assign(node.target, b.binop(read, node.op, node.value))
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

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> ast.ExceptHandler:
        """`except E as e:` deletes e when the handler ends, however it ends.
        Where an `if` or loop may carry e out of a generated function, that
        unbinding must be a value too: the handler binds a scratch name,
        and e is set from it and made undefined at the end (marked as the
        handler's doing, for the refusals that name it).

            except E as e:          except E as e_caught:
                body          ->        e = e_caught
                                        try:
                                            body
                                        finally:
                                            e = ag__.Undefined('e', deleted_by='except')
        """
        self.generic_visit(node)
        name = node.name
        if (
            name is None
            or not self.locals
            or name not in self.locals[-1]
            or name in self.cells[-1]  # (cells travel in place: Python's `del`)
            or self.ctx.kinds.isdisjoint(_CARRIERS)
        ):
            return node
        caught = self.ctx.namer.new_symbol(name + "_caught")
        node.name = caught
        body = [
            b.assign(name, b.name(caught)),
            b.try_(node.body, [], [b.undefined_init(name, "except")]),
        ]
        for stmt in body:
            ast.copy_location(stmt, node)
        node.body = body
        return node

    def visit_Delete(self, node: ast.Delete) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for target in node.targets:  # in order: a later one may raise
            name = target.id if isinstance(target, ast.Name) else None
            if name is None or not self.locals or name not in self.locals[-1]:
                stmts: list[ast.stmt] = [b.delete([self.visit(target)])]
            elif name in self.cells[-1]:
                stmts = [b.delete([target])]  # `del` empties the cell
            else:
                stmts = [b.undefined_init(name, "del")]  # x = ag__.Undefined('x', ...)
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


# Statements `_untouched` never skips: they rewrite or hold a function.
_VISITED = frozenset({ast.Delete, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})
_LOOPS_KINDS = frozenset({ast.For, ast.While, ast.AsyncFor})
_LOOPS_TUPLE = tuple(_LOOPS_KINDS)
# The statements that carry variables in and out of generated functions.
_CARRIERS = _LOOPS_KINDS | {ast.If}
_SCOPE_STATEMENTS = (*activity.FUNCTIONS, ast.ClassDef)
# The statements `_assigned` reads targets of.
_ASSIGNS = frozenset({ast.Assign, ast.AnnAssign})


def _last_must(node: ast.stmt) -> frozenset[str] | None:
    """The `MUST_IN` of the last statement a visit of `node` would have
    met that has one (`node` itself, or a statement of its blocks)."""
    last = None
    stack: list[ast.AST] = [node]
    while stack:  # in the visit's order
        current = stack.pop()
        must = anno.getanno(current, Defined.MUST_IN, None)
        if must is not None:
            last = must
        stack.extend(reversed(transformer.child_statements(current)))
    return last


def _place_root(node: ast.expr) -> str | None:
    """The name an item or attribute chain with constant keys starts from
    (`nd` of `nd['a'].b`), or None for another expression."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Constant):
            return None
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _holds(literal: ast.expr, place: ast.expr) -> bool:
    """Whether the literal a place's root name is assigned (`{'a': 0}`,
    `SimpleNamespace(total=0)`) holds the item or attribute `place`."""
    path: list[ast.expr] = []
    while isinstance(place, (ast.Subscript, ast.Attribute)):
        path.append(place)
        place = place.value
    for step in reversed(path):
        if isinstance(step, ast.Attribute) and isinstance(literal, ast.Call):
            found = [k.value for k in literal.keywords if k.arg == step.attr]
        elif isinstance(step, ast.Subscript) and isinstance(literal, ast.Dict):
            key = step.slice.value  # (a constant: `_place_root`)
            found = [
                v
                for k, v in zip(literal.keys, literal.values)
                if isinstance(k, ast.Constant) and k.value == key
            ]
        elif isinstance(step, ast.Subscript) and isinstance(
            literal, (ast.List, ast.Tuple)
        ):
            key = step.slice.value
            n = len(literal.elts)
            ok = type(key) is int and -n <= key < n
            found = [literal.elts[key]] if ok else []
        else:
            return False
        if not found:
            return False
        literal = found[-1]
    return True


def loop_stored_places(
    node: ast.FunctionDef | ast.AsyncFunctionDef, local: set[str]
) -> set[str]:
    """The items and attributes (as written: `nd['born']`, `ob.born`) that a
    loop of `node` may be the first to set: a loop assigns them (`=`), of a
    container a local of `node` holds (not a parameter: `self.total` keeps
    its plain reads), and no assignment outside loops sets them (a literal
    the container is made from, or the item's own). A graph loop leaves such
    an item holding an `UnboundUntilRun` when it may have set it in no
    iteration (`places.write_results`), which `ag__.ld` checks where it is
    read."""
    own = local - activity.writes(node.args)
    stored: dict[str, ast.expr] = {}
    before: set[str] = set()
    literals: dict[str, list[ast.expr]] = {}

    def walk(stmts: list[ast.AST], in_loop: bool) -> None:
        for stmt in stmts:
            kind = type(stmt)
            if kind in _ASSIGNS:
                for t in _assigned(stmt):
                    if isinstance(t, ast.Name):
                        literals.setdefault(t.id, []).append(stmt.value)
                    elif _place_root(t) in own:
                        text = ast.unparse(t)
                        if in_loop:
                            stored.setdefault(text, t)
                        else:
                            before.add(text)
                continue  # (no block)
            if isinstance(stmt, _SCOPE_STATEMENTS):
                continue
            # (the blocks: body, orelse, finalbody, handlers, cases)
            fields = transformer.statement_fields(kind)
            if fields:
                inner = in_loop or isinstance(stmt, _LOOPS_TUPLE)
                for field in fields:
                    walk(getattr(stmt, field), inner)

    walk(node.body, False)
    if not stored:
        return set()
    return {
        text
        for text, place in stored.items()
        if text not in before
        and not any(_holds(v, place) for v in literals.get(_place_root(place), ()))
    }


# Builtins whose argument's keys (its attributes: `vars`, `dir`) they see.
_KEYS_OF_ARGUMENTS = frozenset(
    {
        "len", "list", "tuple", "set", "frozenset", "dict", "sorted", "iter",
        "reversed", "enumerate", "zip", "any", "all", "sum", "min", "max",
        "vars", "dir", "bool",
    }
)  # fmt: skip
# Methods of a dict that see which keys it holds.
_KEY_METHODS = frozenset(
    {
        "get", "setdefault", "pop", "popitem", "keys", "items", "values", "copy",
        "update", "__contains__", "__len__", "__iter__",
    }
)  # fmt: skip


def presence_reads(node: ast.AST) -> set[str]:
    """The containers (as written: `d`, `self.stats`) whose keys or
    attributes `node` observes other than by reading or writing one of them:
    `len(d)`, `'k' in d`, `d.get(...)` and the other key methods, iterating
    `d` (`for k in d`, `list(d)`, `*d`, `**d`), `hasattr(o, 'k')`,
    `getattr(o, 'k', default)`, `vars(o)`, `dir(o)`, `o.__dict__`, its truth
    (`if d:`, `not d`, `bool(d)`). A staged
    loop carries an item's value, not whether it exists: it refuses an item
    it would create in such a container (`places.observed_births`).
    Passing the container to a function, or returning it, is not counted."""
    seen: list[ast.expr] = []
    for n in ast.walk(node):
        kind = type(n)
        if kind is ast.Call:
            func = n.func
            if isinstance(func, ast.Name):
                if func.id in _KEYS_OF_ARGUMENTS:
                    seen += n.args
                elif func.id == "hasattr" or (func.id == "getattr" and len(n.args) > 2):
                    seen += n.args[:1]
            elif isinstance(func, ast.Attribute) and func.attr in _KEY_METHODS:
                seen.append(func.value)
            seen += [k.value for k in n.keywords if k.arg is None]  # f(**d)
        elif kind is ast.Compare:
            seen += [
                c for op, c in zip(n.ops, n.comparators) if type(op) in _MEMBERSHIP
            ]
        elif kind in (ast.For, ast.AsyncFor, ast.comprehension):
            seen.append(n.iter)
        elif kind is ast.Starred:
            seen.append(n.value)
        elif kind is ast.Dict:
            seen += [v for k, v in zip(n.keys, n.values) if k is None]  # {**d}
        elif kind is ast.Attribute and n.attr == "__dict__":
            seen.append(n.value)
        elif kind in _TESTS:  # `if d:`, `while not d:` (it is empty or not)
            seen.append(n.test)
        elif kind is ast.UnaryOp and type(n.op) is ast.Not:
            seen.append(n.operand)
        elif kind is ast.BoolOp:
            seen += n.values
    return {ast.unparse(e) for e in seen if isinstance(e, _CONTAINERS)}


def _stores_in_loop(node: ast.AST) -> bool:
    """Whether a loop in `node` assigns (or deletes) an item or attribute:
    the places a staged loop may create, for which alone `presence_reads`
    matters. Walks statements only, not expressions (most functions with a
    loop store no item in it: they skip the walk of every node)."""
    stack = transformer.child_statements(node)
    while stack:  # outside loops: looks for one
        stmt = stack.pop()
        if type(stmt) in _LOOPS_KINDS:
            if _stores_place(stmt):
                return True
        else:
            stack += transformer.child_statements(stmt)
    return False


def _stores_place(loop: ast.stmt) -> bool:
    """Whether `loop` (its target too) or a statement in it assigns or
    deletes an item or attribute."""
    stack = [loop]
    while stack:
        stmt = stack.pop()
        kind = type(stmt)
        if kind is ast.Assign or kind is ast.Delete:
            targets = stmt.targets
        elif kind in _ONE_TARGET:
            targets = [stmt.target]
        elif kind is ast.With or kind is ast.AsyncWith:
            targets = [i.optional_vars for i in stmt.items if i.optional_vars]
        else:
            targets = None
        if targets:
            for target in targets:  # (`x = ...`: no unpacking to do)
                if type(target) is not ast.Name and any(
                    type(t) is not ast.Name for t in activity.unpacked([target])
                ):
                    return True
        stack += transformer.child_statements(stmt)
    return False


_ONE_TARGET = frozenset({ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor})
# What a target that is not a name is, once tuples and `*rest` are unpacked.
_PLACES = frozenset({ast.Subscript, ast.Attribute})


_MEMBERSHIP = (ast.In, ast.NotIn)
_TESTS = (ast.If, ast.While, ast.IfExp, ast.Assert)
_CONTAINERS = (ast.Name, ast.Attribute, ast.Subscript)


def _assigned(stmt: ast.AST) -> list[ast.expr]:
    """The targets `stmt` assigns with `=` (tuples unpacked)."""
    if isinstance(stmt, ast.Assign):
        return activity.unpacked(stmt.targets)
    if isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        return [stmt.target]
    return []


# What `activity.nested_scopes` finds: nested functions, lambdas, classes.
_SCOPES = (Marker.NESTED_FUNCTION, ast.Lambda)


def _nested_scopes(
    node: ast.FunctionDef | ast.AsyncFunctionDef, ctx: Context
) -> list[tuple[ast.AST, activity.Collector]]:
    """`activity.nested_scopes(node)`, without its walk where the tree holds
    no nested scope (`ctx.kinds`)."""
    if ctx.kinds.isdisjoint(_SCOPES):
        return []
    return activity.nested_scopes(node)


# Where reads happen later than the statement they sit in.
_NESTED_SCOPES = (Marker.NESTED_FUNCTION, ast.Lambda, *activity.COMPREHENSIONS)


def transform(node: ast.AST, ctx: Context) -> ast.AST:
    """Runs definedness (Python semantics), then rewrites `node`."""
    # (Without such a store, no function here has `loop_stored_places`.
    # Most functions with a loop hold no item or attribute at all.)
    stores = (
        bool(ctx.kinds & _LOOPS_KINDS)
        and not ctx.kinds.isdisjoint(_PLACES)
        and _stores_in_loop(node)
    )
    if stores:
        # (read by control_flow, on the user's tree)
        anno.setanno(node, anno.Basic.PRESENCE_READS, presence_reads(node))
    unbound: set[str] | None = None
    cache = activity.Cache()  # the statements' names, found by definedness
    for fn in transformer.walk(node):
        if isinstance(fn, activity.FUNCTIONS):
            unbound = definedness.annotate(
                fn,
                cache=cache,
                walrus=ast.NamedExpr in ctx.kinds,
                # (statements' MUST_IN: for reads in nested scopes only)
                states=not ctx.kinds.isdisjoint(_NESTED_SCOPES),
            )
            break  # annotate() covers nested functions itself
    if unbound is not None and _nothing_to_rewrite(node, ctx, unbound, cache, stores):
        ctx.rewrote = False
        return node
    return VariablesTransformer(ctx, cache, stores).visit(node)


def _nothing_to_rewrite(
    node: ast.AST,
    ctx: Context,
    unbound: set[str],
    cache: activity.Cache,
    loop_stores: bool,
) -> bool:
    """Whether `node` is a function with no `del`, no nested scope, no read
    of a local that may be unbound and no `loop_stored_places` (none where
    no loop stores an item or attribute: `loop_stores`); if so its locals
    are noted here, sparing the walk that finds nothing (the common case)."""
    if not isinstance(node, activity.FUNCTIONS):
        return False
    if ast.Delete in ctx.kinds or not ctx.kinds.isdisjoint(_NESTED_SCOPES):
        return False
    local = cache.local_names(node, walrus=ast.NamedExpr in ctx.kinds)
    if unbound & local:
        return False
    if loop_stores and loop_stored_places(node, local):
        return False
    anno.setanno(node, LOCALS, local - activity.writes(node.args))
    anno.setanno(node, CELLS, _cells(node, ctx, local, [], cache))
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


# What makes lazy operands (`activity.lazy_operands`).
_LAZY = frozenset({ast.BoolOp, ast.IfExp})


def _cells(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    ctx: Context,
    local: set[str],
    scopes: list[tuple[ast.AST, activity.Collector]],
    cache: activity.Cache,
) -> set[str]:
    """`activity.cells(node)` (`local`: its local names, `scopes`: its nested
    scopes, `cache`: its statements' names), without its walks when the
    tree has no trigger (`ctx.kinds`: this pass runs first, on the user's
    tree as surveyed)."""
    kinds = ctx.kinds
    if kinds.isdisjoint(_CELL_TRIGGERS):
        return set()
    return activity.cells(
        node,
        local=local,
        # (only a walrus in a lazy operand makes a cell)
        walrus=ast.NamedExpr in kinds and not kinds.isdisjoint(_LAZY),
        tries=not kinds.isdisjoint(activity.TRIES),
        withs=ast.With in kinds or ast.AsyncWith in kinds,
        scopes=scopes,
        cache=cache,
    )
