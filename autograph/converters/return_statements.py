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

from autograph.converters.break_statements import add_loop_test, else_guard
from autograph.core import builders as b
from autograph.core import jumps
from autograph.core.survey import Marker
from autograph.pyct import anno, transformer


class _FunctionReturns:
    """Return lowering for one function body."""

    def __init__(self, ctx: object) -> None:
        self.ctx = ctx
        self._retval = ""  # named with `do_return`, when a return needs them
        self.lowering = jumps.Lowering(
            ast.Return,
            self._replace,
            self._name_flags,
            namer=ctx.namer,
            into_loops=True,
            on_loop=self._stop_loop,
            leave=self._leave,
            carried=lambda: (self.retval,),
        )

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
        flags = b.names([self.do_return, self.retval], ast.Store)
        values = b.tuple_([b.const(False), b.ag_call("UndefinedReturnValue")])
        return b.assign(flags, values)

    def _stop_loop(self, loop: ast.stmt, flag: str) -> None:
        """A loop holding a return stops once it returned (`flag`), skipping
        its `else`."""
        add_loop_test(loop, b.not_(b.name(flag)))
        if loop.orelse:
            # else: if not do_return: <else block>
            loop.orelse = [else_guard(loop, b.not_(b.name(flag)), loop.orelse)]

    def _replace(self, stmt: ast.Return) -> list[ast.stmt]:
        # retval_ = <value>; do_return = True
        value = stmt.value if stmt.value is not None else b.const(None)
        return [
            b.assign(self.retval, value),
            b.assign(self.do_return, b.const(True)),
        ]

    def _leave(self, stmt: ast.stmt, rest: list[ast.stmt]) -> list[ast.stmt]:
        """A return that does not end the function: flags (set up right here,
        where they are first needed), the statement lowered, a final check."""
        low = self.lowering
        if jumps.never_ends(stmt):  # `while True:` ends only by a return
            # return retval_
            return [self.init_flags(), *low.block([stmt]), b.ret(b.name(self.retval))]
        # if do_return: return retval_ / else: <rest>
        check = b.if_(b.name(self.do_return), [b.ret(b.name(self.retval))], rest)
        # (at the statement holding the return: messages about a path that
        # returns nothing name it, not the `def` line)
        ast.copy_location(check, stmt)
        if isinstance(stmt, (ast.For, ast.While)):
            anno.setanno(check, anno.Basic.GUARD, "loop_returned")
        return [self.init_flags(), *low.block([stmt]), *low.tail_block([check])]


def _single_return(stmts: list[ast.stmt]) -> ast.expr | None:
    if len(stmts) == 1 and isinstance(stmts[0], ast.Return):
        value = stmts[0].value
        return value if value is not None else b.const(None)
    return None


def _has_walrus(*nodes: ast.AST) -> bool:
    """Whether `nodes` hold a walrus: in the lambda an arm of `ag__.if_exp`
    becomes, it would bind there instead of in the function."""
    return any(isinstance(n, ast.NamedExpr) for node in nodes for n in ast.walk(node))


def _returns_to_expressions(stmts: list[ast.stmt], walrus: bool = True) -> bool:
    """`if c: return a / else: return b` at the end -> `return a if c else b`.

    `walrus`: whether the function may hold a walrus (survey's kinds); the
    returned values are searched for one only then. Returns whether it
    rewrote something.
    """
    if not stmts:
        return False
    last = stmts[-1]
    if not isinstance(last, ast.If):
        return False
    changed = _returns_to_expressions(last.body, walrus)
    changed |= _returns_to_expressions(last.orelse, walrus)
    body, orelse = _single_return(last.body), _single_return(last.orelse)
    if (
        body is not None
        and orelse is not None
        and not (walrus and _has_walrus(body, orelse))
    ):
        # return <body> if <test> else <orelse>
        # (at the `if`'s line: messages about the choice name the user's `if`)
        choice = ast.copy_location(b.if_exp(last.test, body, orelse), last)
        stmts[-1] = ast.copy_location(b.ret(choice), last)
        return True
    return changed


class ReturnTransformer(transformer.Base):
    """Applies `_FunctionReturns` to every function, innermost first."""

    statements_only = True  # it rewrites statements; expressions stay

    def __init__(self, ctx: object) -> None:
        super().__init__(ctx)
        self.rewrote = False

    def _visit_function(self, node: ast.FunctionDef) -> ast.FunctionDef:
        self.generic_visit(node)
        low = _FunctionReturns(self.ctx).lowering
        body = low.tail_block(node.body)
        # (flags were set up if the flag has a name)
        walrus = ast.NamedExpr in self.ctx.kinds  # (no pass before emits one)
        if _returns_to_expressions(body, walrus) or low.moved or low.flag_named:
            self.rewrote = True
        if low.dropped:
            self.ctx.kinds.add(Marker.DROPPED_CODE)
        node.body = body
        return node

    visit_FunctionDef = _visit_function
    visit_AsyncFunctionDef = _visit_function


def transform(node: ast.AST, ctx: object) -> ast.AST:
    """Lowers the `return` statements of `node`'s functions.

    Tells the pipeline when it rewrote nothing (`ctx.rewrote`).
    """
    returns = ReturnTransformer(ctx)
    node = returns.visit(node)
    ctx.rewrote = returns.rewrote
    return node
