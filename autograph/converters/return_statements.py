"""Makes every `return` the last thing its function does.

Returns at the end of an `if` chain stay returns: the control-flow converter
turns such an `if` into `return ag__.if_stmt(...)`. When one branch always
returns, the statements after the `if` move into the other branch:

    def f(x):                      def f(x):
        if x < 0:                      if x < 0:
            return 0          ->           return 0
        y = x * 2                      else:
        return y                           y = x * 2
                                           return y

A `return` inside a loop (or before more code in a `with`/`try`) sets flags
instead; loops stop when `do_return` is set and the function returns after
them:

    for x in xs:
        if x > 0:
            return x
    return -1
        ->
    do_return, retval_ = (False, ag__.UndefinedReturnValue())
    for x in xs:          # + extra test: not do_return
        if x > 0:
            retval_ = x
            do_return = True
    if do_return:
        return retval_
    else:
        return -1

The flags are set up right before the statement that needs them, so code
before it (and other branches) do not carry them.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from collections.abc import Set as AbstractSet

from autograph.converters.break_statements import add_loop_test
from autograph.core import jumps
from autograph.core.converter import (
    CodeAfterReturn,
    DroppedCode,
    ag_call,
)
from autograph.pyct import transformer


class _FunctionReturns:
    """Return lowering for one function body."""

    def __init__(self, ctx: object) -> None:
        self.ctx = ctx
        self._retval = ""  # named with `do_return`, when a return needs them
        self.lowering = jumps.Lowering(
            lambda s: isinstance(s, ast.Return),
            self._replace,
            self._name_flags,
            namer=ctx.namer,
            into_loops=True,
            on_loop=self._stop_loop,
        )
        self.changed = False  # whether the tree changed
        self.dropped = False  # whether dead code was dropped

    @property
    def do_return(self) -> str:
        """The name of the flag telling that the function returned."""
        return self.lowering.flag

    @property
    def retval(self) -> str:
        """The name of the variable holding the value returned."""
        _ = self.lowering.flag  # names both
        return self._retval

    def _name_flags(self) -> str:
        """Names the flags, the first time a return needs them."""
        do_return = self.ctx.namer.new_symbol("do_return")
        self._retval = self.ctx.namer.new_symbol("retval_")
        return do_return

    def init_flags(self) -> ast.stmt:
        """`do_return, retval_ = (False, ag__.UndefinedReturnValue())`."""
        flags = ast.Tuple(
            elts=[
                jumps.name(self.do_return, ast.Store),
                jumps.name(self.retval, ast.Store),
            ],
            ctx=ast.Store(),
        )
        values = ast.Tuple(
            elts=[
                ast.Constant(value=False, kind=None),
                ag_call("UndefinedReturnValue"),
            ],
            ctx=ast.Load(),
        )
        return ast.Assign(targets=[flags], value=values, type_comment=None)

    def _stop_loop(self, loop: ast.stmt, flag: str) -> None:
        """A loop holding a return stops once it returned (`flag`), skipping
        its `else`."""
        add_loop_test(loop, jumps.not_(jumps.name(flag)))
        if loop.orelse:
            guard = jumps.not_(jumps.name(flag))
            loop.orelse = [ast.If(test=guard, body=loop.orelse, orelse=[])]

    def _replace(self, stmt: ast.Return) -> list[ast.stmt]:
        value = (
            stmt.value
            if stmt.value is not None
            else ast.Constant(value=None, kind=None)
        )
        return [
            jumps.assign(self.retval, value),
            jumps.assign(self.do_return, ast.Constant(value=True, kind=None)),
        ]

    def tail_block(self, stmts: Sequence[ast.stmt]) -> list[ast.stmt]:
        """Lowers the returns of a block that ends its function."""
        low = self.lowering
        out: list[ast.stmt] = []
        for i, stmt in enumerate(stmts):
            if not low.contains(stmt):
                out.append(stmt)
                continue
            # Every path below returns: `rest` is copied once per block.
            rest = list(stmts[i + 1 :])
            if isinstance(stmt, ast.Return):
                out.append(stmt)
                self.changed |= bool(rest)
                self.dropped |= bool(rest)
                return out  # anything after it is dead code
            if isinstance(stmt, ast.If):
                body_returns = low.always_jumps(stmt.body)
                orelse_returns = low.always_jumps(stmt.orelse)
                self.changed |= bool(rest) and (body_returns or orelse_returns)
                if body_returns and not orelse_returns:
                    stmt.orelse = stmt.orelse + rest
                    rest = []
                elif orelse_returns and not body_returns:
                    stmt.body = stmt.body + rest
                    rest = []
                elif body_returns and orelse_returns:
                    self.dropped |= bool(rest)
                    rest = []
                if not rest:
                    stmt.body = self.tail_block(stmt.body)
                    stmt.orelse = self.tail_block(stmt.orelse)
                    out.append(stmt)
                    return out
            elif isinstance(stmt, (ast.With, ast.AsyncWith)) and not rest:
                stmt.body = self.tail_block(stmt.body)
                out.append(stmt)
                return out
            elif (
                isinstance(stmt, ast.Try)
                and not rest
                and not stmt.orelse  # falling off the body runs `else`, not a return
                and (
                    not low.contains(stmt.finalbody)
                    # A finally block that always returns ends the function
                    # whatever happens before; Python runs it as it is.
                    or low.always_jumps(stmt.finalbody)
                )
            ):
                stmt.body = self.tail_block(stmt.body)
                for handler in stmt.handlers:
                    handler.body = self.tail_block(handler.body)
                stmt.finalbody = self.tail_block(stmt.finalbody)
                out.append(stmt)
                return out
            # A return that does not end the function: flags (set up right
            # here, where they are first needed) and a final check.
            out.append(self.init_flags())
            out.extend(low.block([stmt]))
            check = ast.If(
                test=jumps.name(self.do_return),
                body=[ast.Return(value=jumps.name(self.retval))],
                orelse=rest,
            )
            out.extend(self.tail_block([check]))
            self.changed = True
            return out
        return out


def _single_return(stmts: list[ast.stmt]) -> ast.expr | None:
    if len(stmts) == 1 and isinstance(stmts[0], ast.Return):
        value = stmts[0].value
        return value if value is not None else ast.Constant(value=None, kind=None)
    return None


def _has_walrus(*nodes: ast.AST) -> bool:
    """Whether `nodes` hold a walrus: in the lambda an arm of `ag__.if_exp`
    becomes, it would bind there instead of in the function."""
    return any(isinstance(n, ast.NamedExpr) for node in nodes for n in ast.walk(node))


def _returns_to_expressions(stmts: list[ast.stmt]) -> bool:
    """`if c: return a / else: return b` at the end -> `return a if c else b`.

    Returns whether it rewrote something.
    """
    if not stmts:
        return False
    last = stmts[-1]
    if not isinstance(last, ast.If):
        return False
    changed = _returns_to_expressions(last.body)
    changed |= _returns_to_expressions(last.orelse)
    body, orelse = _single_return(last.body), _single_return(last.orelse)
    if body is not None and orelse is not None and not _has_walrus(body, orelse):
        expr = ast.IfExp(test=last.test, body=body, orelse=orelse)
        stmts[-1] = ast.Return(value=expr)
        return True
    return changed


class ReturnTransformer(transformer.Base):
    """Applies `_FunctionReturns` to every function, innermost first."""

    statements_only = True  # it rewrites statements; expressions stay

    def _visit_function(self, node: ast.FunctionDef) -> ast.FunctionDef:
        self.generic_visit(node)
        returns = _FunctionReturns(self.ctx)
        body = returns.tail_block(node.body)
        if _returns_to_expressions(body) or returns.changed:
            self.ctx.kinds |= EMITS
        if returns.dropped or returns.lowering.dropped:
            self.ctx.kinds.add(DroppedCode)
        node.body = body
        return node

    visit_FunctionDef = _visit_function
    visit_AsyncFunctionDef = _visit_function


# What the pass may add to a tree (see `Context.kinds`).
# (the flags' set-up, `return a if c else b`, and what lowering adds).
EMITS = jumps.EMITS | {ast.Tuple, ast.Call, ast.Attribute, ast.IfExp, ast.Return}
_BLOCKS = (ast.If, ast.For, ast.While, ast.With, ast.Try) + (
    (ast.TryStar,) if hasattr(ast, "TryStar") else ()  # Python 3.11+
)


def needed(kinds: AbstractSet[type]) -> bool:
    """Whether some `return` may not end its function (only a `return` that
    is the last top-level statement of every function needs nothing)."""
    if CodeAfterReturn in kinds:
        return True
    return ast.Return in kinds and not kinds.isdisjoint(_BLOCKS)


def transform(node: ast.AST, ctx: object) -> ast.AST:
    """Lowers the `return` statements of `node`'s functions.

    Adds `EMITS` to `ctx.kinds` only if it rewrote something.
    """
    return ReturnTransformer(ctx).visit(node)
