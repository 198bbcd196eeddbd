"""Tidies generated helper functions so converted code reads like the input.

    def if_body():                def if_body():
        y = x * 2       ->            return x * 2
        return y

Only functions the compiler generated (named by its `Namer`) are touched;
the user's own code keeps its shape. Where the converted function holds no
nested function of the user's, control_flow tidies each function as it
makes it (`tidy`), and this pass only sees to the user's function: the
locals whose bindings all moved into generated functions stay local.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from collections.abc import Set as AbstractSet

from autograph.core import builders as b
from autograph.core.survey import Marker
from autograph.pyct import anno, transformer
from autograph.pyct.naming import Namer
from autograph.pyct.static_analysis import activity


def _names(node: ast.expr | None) -> list[str] | None:
    """`x` -> ['x'], `(a, b)` -> ['a', 'b'], anything else -> None."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Tuple) and all(isinstance(e, ast.Name) for e in node.elts):
        return [e.id for e in node.elts]
    return None


# The operators that return the state of a converted statement: a tuple of
# the names it changes, as many as the tuple assigned from it.
_STATE_OPERATORS = ("if_stmt", "while_stmt", "for_stmt")


def _same_shape(target: ast.expr, returned: ast.expr) -> bool:
    """A name assigned and a name returned, or a tuple assigned and a tuple
    returned: `(a,) = x; return a` unpacks, it does not return `x`."""
    return isinstance(target, ast.Tuple) == isinstance(returned, ast.Tuple)


def _is_pure(node: ast.expr) -> bool:
    """Evaluating it has no effect and can't fail: a name or a constant."""
    return isinstance(node, (ast.Name, ast.Constant))


class CleanupTransformer(transformer.Base):
    """Folds the assignments that end a generated function into its return.

    x = expr; return x                 ->  return expr
    (a, b) = call(); return (a, b)     ->  return call()
    a = 1; b = y; return (a, b)        ->  return (1, y)   (pure values only)
    """

    statements_only = True  # it rewrites statements; expressions stay

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        self.generic_visit(node)
        if anno.hasanno(node, anno.Basic.ORIGINAL_LOCALS):
            self.user_function(node)
        elif self.ctx.namer.is_generated(node.name):
            tidy(node, self.ctx.namer)
        return node

    def user_function(self, node: ast.FunctionDef) -> None:
        """Keeps the lost locals of a user's function local, and reads of
        maybe-unbound ones in its generated functions right."""
        original_locals = anno.getanno(node, anno.Basic.ORIGINAL_LOCALS)
        cells = anno.getanno(node, anno.Basic.CELLS, frozenset())
        self._keep_locals(node, original_locals, cells)
        if Marker.UNBOUND_READ in self.ctx.kinds:
            _free_reads_in_cells(node.body)

    def _keep_locals(
        self, node: ast.FunctionDef, names: set[str], cells: AbstractSet[str]
    ) -> None:
        """Keeps local every local whose bindings all left the function.

        Python treats a name as local if it is bound anywhere in the function,
        even after a `return`; reading it unbound raises UnboundLocalError
        rather than reading a global of the same name. Its bindings may have
        left: dropped as dead code by jump lowering, or moved into the
        functions of a converted statement. It is bound again at the top: to
        an Undefined, or, for a variable that lives in a cell (which the
        generated functions write as `nonlocal`), by an annotation, which
        makes it local without giving it a value.
        """
        lost = set(names)
        # First the names the function's own assignments bind (`x = ...`,
        # `(a, b) = ag__.for_stmt(...)`): the usual case then needs no walk.
        for stmt in node.body:
            if type(stmt) is ast.Assign:
                lost.difference_update(_assigned_names(stmt))
        if lost:
            # One walk of the function's own scope finds both what it still
            # binds there and what it reads (free reads of the generated
            # functions included): only a read would find a global instead,
            # and a name the generated functions take as a parameter or
            # assign is theirs (those binding every such name are skipped).
            found = _OwnScope(lost - cells, self.ctx.namer)
            for stmt in node.body:
                found.visit(stmt)
            lost -= found.written
            lost &= cells | found.read
        lost = sorted(lost)
        if lost:
            # x: ag__.Unbound (a cell) or x = ag__.Undefined('x')
            node.body[:0] = [
                b.ann_assign(n, b.ag_attr("Unbound"))
                if n in cells
                else b.undefined_init(n)
                for n in lost
            ]


def tidy(node: ast.FunctionDef, namer: Namer) -> None:
    """Folds the assignments that end generated function `node` into its
    return (see `CleanupTransformer`). control_flow calls it on each function
    it makes, where the function it converts holds no nested function of the
    user's (`anno.Basic.TIDIED`); this pass does it elsewhere."""
    body = node.body
    if not body or any(isinstance(s, (ast.Global, ast.Nonlocal)) for s in body):
        return
    last = body[-1]
    returned = _names(last.value) if isinstance(last, ast.Return) else None
    if not returned or len(body) < 2:
        return
    previous = body[-2]
    if (
        isinstance(previous, ast.Assign)
        and len(previous.targets) == 1
        and _names(previous.targets[0]) == returned
        and _same_shape(previous.targets[0], last.value)
        and (
            isinstance(last.value, ast.Name)
            or _makes_tuple(previous.value, len(returned), namer)
        )
        and _unused_before(body[:-2], returned)
    ):
        # return <value> (at the assignment's line: generated parts of
        # the value, such as `ag__.list_pop(xs)[0]`, take it, and an
        # error they raise names it, not the generated function's line)
        body[-2:] = [ast.copy_location(b.ret(previous.value), previous)]
        return
    _fold_pure(body, returned)


def _makes_tuple(value: ast.expr, n: int, namer: Namer) -> bool:
    """Whether `value` is a call the compiler generated (a control-flow
    operator, a generated function), which returns a tuple of exactly the
    unpacked names: only then is `(a, b) = value; return (a, b)` the same
    as `return value` (unpacking a user's value checks its length and
    makes a tuple of any iterable), or a tuple display of `n` items."""
    if isinstance(value, ast.Tuple):
        return len(value.elts) == n and not any(
            isinstance(e, ast.Starred) for e in value.elts
        )
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    if isinstance(func, ast.Name):
        return namer.is_generated(func.id)
    return any(b.is_ag_attr(func, op) for op in _STATE_OPERATORS)


def _unused_before(stmts: list[ast.stmt], names: list[str]) -> bool:
    return not (activity.reads(stmts) & set(names))


def _fold_pure(body: list[ast.stmt], returned: list[str]) -> None:
    """Folds `name = <name or constant>` statements right before the return."""
    values: dict[str, ast.expr] = {}
    start = len(body) - 1
    while start > 0:
        stmt = body[start - 1]
        if not (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and stmt.targets[0].id in returned
            and stmt.targets[0].id not in values
            and _is_pure(stmt.value)
        ):
            break
        # A value must not read a name assigned earlier in the group.
        values[stmt.targets[0].id] = stmt.value
        start -= 1
    if not values:
        return
    group = body[start:-1]
    assigned: set[str] = set()
    for stmt in group:
        if activity.reads(stmt.value) & assigned:
            return
        assigned.add(stmt.targets[0].id)
    if activity.reads(body[:start]) & assigned:
        return  # e.g. a nested function reads them: keep the bindings
    # return (<value or name>, ...)
    elts = [values.get(n) or b.name(n) for n in returned]
    body[start:] = [b.ret(b.one_or_tuple(elts))]


class _OwnScope(activity.Collector):
    """`activity.collect` of a function's statements, for `_keep_locals`:
    what it binds in its own scope and what it reads (free reads of its
    nested functions included) -- except that a generated function binding
    all of `names` itself (as parameters, or by an assignment in its body:
    a loop's `loop_body(i, ...)`, an `if_body` assigning `y`) is not walked.
    Its reads of them, and those of functions inside it, are its own, and
    all it binds outside is its name, so what is found of `names` is the
    same in `read` and `written` (not in `through`, which it does not need).
    (Half of the generated functions, holding most of the code.)
    """

    def __init__(self, names: AbstractSet[str], namer: Namer) -> None:
        super().__init__()
        self.names = names
        self.namer = namer

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        if not self.namer.is_generated(node.name):
            super().visit_FunctionDef(node)
            return
        unbound = _not_bound_by(node, self.names)
        self.written.add(node.name)  # (it has no decorators or defaults)
        if not unbound and unbound is not None:
            return
        # Its own scope, walked the same way for what it does not bind.
        inner = _OwnScope(self.names if unbound is None else unbound, self.namer)
        inner.visit(node.args)
        for stmt in node.body:
            inner.visit(stmt)
        declared = inner.declared
        self.read |= (inner.read - inner.written) | (declared & inner.read)
        changed = inner.written | inner.through
        self.through |= (declared & changed) | (inner.through - inner.written)


def _not_bound_by(node: ast.FunctionDef, names: AbstractSet[str]) -> set[str] | None:
    """Those of `names` that `node` surely does not make its locals: neither
    parameters nor assigned by a statement of its body (not in a block).
    None where it declares a `global` or `nonlocal` name."""
    missing = names - {a.arg for a in node.args.args}
    for stmt in node.body:
        kind = type(stmt)
        if kind is ast.Assign:
            missing.difference_update(_assigned_names(stmt))
        elif kind is ast.Global or kind is ast.Nonlocal:
            return None
    return missing


def _assigned_names(stmt: ast.Assign) -> Iterator[str]:
    """The names `stmt` binds as a name or an item of a tuple target
    (`x = ...`, `(a, b) = ag__.for_stmt(...)`)."""
    for target in stmt.targets:
        if type(target) is ast.Name:
            yield target.id
        elif type(target) is ast.Tuple:
            yield from (e.id for e in target.elts if type(e) is ast.Name)


def _free_reads_in_cells(nodes: list[ast.AST]) -> None:
    """`ag__.ld(x)` -> `ag__.ld_cell(lambda: x)` where a generated function
    reads `x` of the user's function: unbound there, `x` is a free variable
    whose read raises NameError before `ld` could raise UnboundLocalError.

    A read is left as it is where an enclosing generated function (or
    lambda) binds `x` (a parameter holds an Undefined value, which `ld`
    reads fine). What a function binds is found only when a read in it
    asks (most of the lambdas, `places=` thunks and operands, hold none).
    """
    bound: dict[ast.AST, set[str]] = {}  # function -> the names it binds
    stack: list[tuple[ast.AST, tuple[ast.AST, ...]]] = [(n, ()) for n in nodes]
    while stack:
        node, scopes = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if anno.hasanno(node, anno.Basic.ORIGINAL_LOCALS):
                continue  # a nested user function: converted on its own
            scopes = (*scopes, node)
            stack.extend((c, scopes) for c in node.body)
            continue
        if isinstance(node, ast.Lambda):  # an operand made lazy by conversion
            stack.append((node.body, (*scopes, node)))
            continue
        if isinstance(node, ast.Call) and scopes and _is_ld(node):
            name = node.args[0].id
            for scope in reversed(scopes):
                names = bound.get(scope)
                if names is None:
                    names = bound[scope] = activity.local_names(scope)
                if name in names:
                    break
            else:
                # ag__.ld(x) -> ag__.ld_cell(lambda: x)
                node.func = b.ag_attr("ld_cell")
                node.args = [b.thunk(node.args[0])]
            continue
        stack.extend((c, scopes) for c in transformer.child_nodes(node))


def _is_ld(node: ast.Call) -> bool:
    """`ag__.ld(name)` (a read in the function's own scope, not a closure's)."""
    return (
        b.is_ag_attr(node.func, "ld")
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Name)
    )


def transform(node: ast.AST, ctx: object) -> ast.AST:
    """Tidies the generated functions in `node`."""
    cleaner = CleanupTransformer(ctx)
    if anno.hasanno(node, anno.Basic.TIDIED):
        # control_flow tidied its functions, and `node` holds no other
        # function of the user's: no walk to find them.
        if isinstance(node, ast.FunctionDef):
            cleaner.user_function(node)
        return node
    return cleaner.visit(node)
