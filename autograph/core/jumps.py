"""Lowering of jumps (`break`, `continue`, `return`) to flags and guards.

Functional control flow has no jumps, so each jump becomes an assignment to a
flag, and the code a jump would skip runs under a guard. Guards are avoided
where the structure allows: when one branch of an `if` always jumps, the
statements after the `if` move into the other branch instead.

    while c:                         while c:
        if a:                            if a:
            break              ->            break_ = True
        x += 1                           else:
                                             x += 1

`Lowering` is configured per jump kind by the converters that use it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence

from autograph.core.converter import GeneratedCode
from autograph.pyct import anno, transformer
from autograph.pyct.static_analysis import activity

_LOOPS = (ast.For, ast.While, ast.AsyncFor)
TRIES: tuple[type[ast.stmt], ...] = (ast.Try,) + (
    (ast.TryStar,) if hasattr(ast, "TryStar") else ()  # Python 3.11+
)


# What lowering may add to a tree (see `Context.kinds`): flag assignments,
# guards `if not flag:`, loop tests `not flag and ...`, `pass` in emptied
# blocks, the test of an emptied `if` kept for its effects.
EMITS = frozenset(
    {
        ast.Assign,
        ast.Expr,
        ast.Name,
        ast.Constant,
        ast.If,
        ast.Pass,
        ast.UnaryOp,
        ast.Not,
        ast.BoolOp,
        GeneratedCode,
    }
)

# Expression contexts carry no data; one instance of each serves every node,
# as in trees from ast.parse.
_CONTEXTS = {ast.Load: ast.Load(), ast.Store: ast.Store(), ast.Del: ast.Del()}


def name(id_: str, ctx: type[ast.expr_context] = ast.Load) -> ast.Name:
    """An ast Name node."""
    return ast.Name(id_, _CONTEXTS[ctx])  # positional: faster to build


def assign(target: str, value: ast.expr) -> ast.Assign:
    """`target = value` as an ast node."""
    return ast.Assign(targets=[name(target, ast.Store)], value=value, type_comment=None)


def not_(expr: ast.expr) -> ast.expr:
    """`not expr` (converted to `ag__.not_` later by the logical converter).

    Only used for tests (guards, loop conditions), where truthiness is all
    that counts, so `not not x` folds to `x`.
    """
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        return expr.operand
    return ast.UnaryOp(op=ast.Not(), operand=expr)


class Lowering:
    """Replaces one kind of jump within a block by a flag and guards.

    Args:
        is_jump: Whether a statement is the jump being lowered.
        replace: The statements a jump becomes (e.g. `break_ = True`).
        flag: The flag's name; `if not flag:` guards the statements a jump
            may skip.
        into_loops: Whether jumps inside nested loops are lowered too (true
            for `return`, which leaves every loop).
        on_loop: Called with each nested loop that contains a lowered jump
            (only when `into_loops`), e.g. to add an extra loop test.
    """

    def __init__(
        self,
        is_jump: Callable[[ast.stmt], bool],
        replace: Callable[[ast.stmt], list[ast.stmt]],
        flag: str,
        *,
        into_loops: bool = False,
        on_loop: Callable[[ast.stmt], None] | None = None,
    ) -> None:
        self.is_jump = is_jump
        self.replace = replace
        self.flag = flag
        self.into_loops = into_loops
        self.on_loop = on_loop
        self.guards_used = False
        self.dropped = False  # whether code after a jump was dropped

    def contains(self, node: ast.AST) -> bool:
        """Whether `node` (a statement or a list) holds a jump of this kind."""
        stack: list[ast.AST] = list(node) if isinstance(node, list) else [node]
        while stack:
            item = stack.pop()
            if isinstance(item, ast.stmt) and self.is_jump(item):
                return True
            if isinstance(item, activity.SCOPES):
                continue  # a jump in a nested function is that function's
            if isinstance(item, _LOOPS) and not self.into_loops:
                continue  # a break/continue there is that loop's
            stack.extend(transformer.child_statements(item))
        return False

    def always_jumps(self, stmts: Sequence[ast.stmt]) -> bool:
        """Whether every path through `stmts` ends in a jump of this kind."""
        for stmt in stmts:
            if self.is_jump(stmt):
                return True
            if (
                isinstance(stmt, ast.If)
                and stmt.orelse
                and self.always_jumps(stmt.body)
                and self.always_jumps(stmt.orelse)
            ):
                return True
        return False

    def block(self, stmts: Sequence[ast.stmt]) -> list[ast.stmt]:
        """Lowers the jumps of a block; see the module docstring."""
        out: list[ast.stmt] = []
        for i, stmt in enumerate(stmts):
            if not self.contains(stmt):
                out.append(stmt)
                continue
            # Every path below returns: `rest` is copied once per block.
            rest = list(stmts[i + 1 :])
            if self.is_jump(stmt):
                out.extend(self.replace(stmt))
                self.dropped |= bool(rest)
                return out  # what follows a jump never runs
            if isinstance(stmt, ast.If):
                body_jumps = self.always_jumps(stmt.body)
                orelse_jumps = self.always_jumps(stmt.orelse)
                if body_jumps and not orelse_jumps:
                    stmt.body = self.block(stmt.body)
                    stmt.orelse = self.block(stmt.orelse + rest)
                    out.append(stmt)
                    return out
                if orelse_jumps and not body_jumps:
                    stmt.body = self.block(stmt.body + rest)
                    stmt.orelse = self.block(stmt.orelse)
                    out.append(stmt)
                    return out
                stmt.body = self.block(stmt.body)
                stmt.orelse = self.block(stmt.orelse)
                out.append(stmt)
                if body_jumps and orelse_jumps:
                    self.dropped |= bool(rest)
                    return out
            else:
                self._lower_children(stmt)
                out.append(stmt)
            if rest:
                self.guards_used = True
                out.append(
                    ast.If(test=not_(name(self.flag)), body=self.block(rest), orelse=[])
                )
            return out
        return out

    def _lower_children(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, _LOOPS):
            stmt.body = self.block(stmt.body)
            stmt.orelse = self.block(stmt.orelse)
            if self.on_loop is not None:
                self.on_loop(stmt)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            stmt.body = self.block(stmt.body)
        elif isinstance(stmt, TRIES):
            # `else` runs only when the body ends without a jump.
            body_jumps = self.contains(stmt.body)
            stmt.body = self.block(stmt.body)
            for handler in stmt.handlers:
                handler.body = self.block(handler.body)
            stmt.orelse = self.block(stmt.orelse)
            if body_jumps and stmt.orelse:
                self.guards_used = True
                guard = not_(name(self.flag))
                stmt.orelse = [ast.If(test=guard, body=stmt.orelse, orelse=[])]
            stmt.finalbody = self.block(stmt.finalbody)
        else:  # e.g. `match`: rejected before conversion; keep as is
            pass


def rename(stmts: Sequence[ast.stmt], names: dict[str, str]) -> None:
    """Renames names in `stmts` and in their attached loop tests, in place.

    Lowering writes flags under placeholder names and gives them real ones
    only once it knows they are needed.
    """
    for stmt in stmts:
        for child in transformer.walk(stmt):
            if isinstance(child, ast.Name) and child.id in names:
                child.id = names[child.id]
            test = anno.getanno(child, anno.Basic.EXTRA_LOOP_TEST, None)
            if test is not None:
                rename([ast.Expr(value=test)], names)


def invert_empty_ifs(stmts: list[ast.stmt]) -> list[ast.stmt]:
    """`if c: (nothing) else: B` -> `if not c: B`; drops `if c: (nothing)`.

    Used after removing flag assignments nobody reads (e.g. a `continue` whose
    flag guards nothing), recursively over nested blocks.
    """
    out: list[ast.stmt] = []
    for stmt in stmts:
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(stmt, field, None), list) and not isinstance(
                stmt, activity.SCOPES
            ):
                setattr(stmt, field, invert_empty_ifs(getattr(stmt, field)))
        if isinstance(stmt, ast.If) and not stmt.body:
            if not stmt.orelse:
                if _may_have_effects(stmt.test):
                    out.append(ast.Expr(value=stmt.test))
                continue
            stmt.test = not_(stmt.test)
            stmt.body, stmt.orelse = stmt.orelse, []
        out.append(stmt)
    return out


def _may_have_effects(expr: ast.expr) -> bool:
    return any(
        isinstance(n, (ast.Call, ast.NamedExpr, ast.Await))
        for n in transformer.walk(expr)
    )


def fill_empty_blocks(node: ast.AST) -> None:
    """Puts `pass` into every statement list that lowering left empty."""
    for child in transformer.walk(node):
        block = getattr(child, "body", None)
        if isinstance(block, list) and not block:
            block.append(ast.Pass())
