"""Turns `if`, `while` and `for` into calls of `ag__.if_stmt/while_stmt/for_stmt`.

Each body becomes a function of the variables it reads and changes (its
state), returning those the code after it needs; the call returns them:

    if x > 0:                        def if_body():
        y = x                            return x
    else:                   ->       def else_body():
        y = 0                            return 0
                                     y = ag__.if_stmt(
                                         x > 0, if_body, else_body, (), ('y',))

    while i < n:                     def loop_test(i, total):
        total += i                       return i < n
        i += 1              ->       def loop_body(i, total):
                                         total += i
                                         i += 1
                                         return (i, total)
                                     (i, total) = ag__.while_stmt(
                                         loop_test, loop_body, (i, total))

An `if` that ends its function (it holds the function's remaining `return`s,
see `return_statements`) becomes `return ag__.if_stmt(...)`. A variable that
must travel as state but is unbound before the statement starts as
`ag__.Undefined('name')`, so reading it later still raises UnboundLocalError.
On a branch that returned (it set the `do_return` flag), such a variable goes
out as `ag__.after_return(name)`: nothing but a `finally` reads it there, so
a graph `if` may give it the other branch's type. The liveness and
definedness analyses decide all of this (STYLE 4).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from autograph.core import jumps
from autograph.core.converter import (
    GeneratedCode,
    NestedFunction,
    ag_attr,
    ag_call,
    function_def,
    undefined_init,
)
from autograph.pyct import anno, transformer
from autograph.pyct.static_analysis import activity, definedness, liveness
from autograph.pyct.static_analysis.definedness import Defined
from autograph.pyct.static_analysis.liveness import Live


@dataclass
class _Scope:
    """The user function whose statements are being converted."""

    declared: dict[str, str]  # name -> 'global' | 'nonlocal'
    hoisted: set[str] = field(default_factory=set)


def _contains_return(stmts: Iterable[ast.AST]) -> bool:
    stack = list(stmts)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return):
            return True
        if isinstance(node, activity.SCOPES):
            continue
        stack.extend(transformer.child_statements(node))
    return False


def _names_tuple(names: Sequence[str]) -> ast.Tuple:
    return ast.Tuple(
        elts=[ast.Constant(value=n, kind=None) for n in names], ctx=ast.Load()
    )


def _load_tuple(names: Sequence[str]) -> ast.Tuple:
    return ast.Tuple(elts=[jumps.name(n) for n in names], ctx=ast.Load())


def _returned(
    names: Sequence[str], after_return: AbstractSet[str] = frozenset()
) -> ast.expr:
    """The expression a body returns: one name bare, several as a tuple;
    `ag__.after_return(name)` for those in `after_return`."""
    values = [
        ag_call("after_return", jumps.name(n)) if n in after_return else jumps.name(n)
        for n in names
    ]
    if len(values) == 1:
        return values[0]
    return ast.Tuple(elts=values, ctx=ast.Load())


class ControlFlowTransformer(transformer.Base):
    """Rewrites if/while/for of every function, outermost statement first."""

    statements_only = True  # it rewrites statements; expressions stay

    def __init__(self, ctx: object, cache: activity.Cache | None = None) -> None:
        super().__init__(ctx)
        self.scopes: list[_Scope] = []
        # The analyses' names of statements: statements are read before
        # they are rewritten (outermost first), so what it holds stays true.
        self.cache = cache or activity.Cache()

    # --- functions -------------------------------------------------------

    def _visit_function(self, node: ast.FunctionDef) -> ast.FunctionDef:
        kinds = self.ctx.kinds
        has_declarations = ast.Global in kinds or ast.Nonlocal in kinds
        scope = _Scope(declared=activity.declarations(node) if has_declarations else {})
        self.scopes.append(scope)
        node.body = self.visit_block(node.body)
        self.scopes.pop()
        if scope.hoisted:
            # Bound on some paths only, by code that stays Python (e.g. a try
            # block): start them undefined at the top, where it is safe.
            doc = 1 if _has_docstring(node.body) else 0
            inits = [undefined_init(n) for n in sorted(scope.hoisted)]
            node.body[doc:doc] = inits
        return node

    visit_FunctionDef = _visit_function
    visit_AsyncFunctionDef = _visit_function

    # --- helpers ---------------------------------------------------------

    @property
    def scope(self) -> _Scope:
        return self.scopes[-1]

    def _modified(self, stmts: list[ast.stmt]) -> set[str]:
        return self.cache.writes(stmts) - set(self.scope.declared)

    def _state_inits(self, node: ast.stmt, state: Iterable[str]) -> list[ast.stmt]:
        """`x = ag__.Undefined('x')` for state that may be unbound here."""
        may = anno.getanno(node, Defined.MAY_IN, frozenset())
        must = anno.getanno(node, Defined.MUST_IN, frozenset())
        before = []
        for name in state:
            if name not in may:
                before.append(undefined_init(name))
            elif name not in must:
                self.scope.hoisted.add(name)
        return before

    def _def(
        self, name: str, params: Sequence[str], body: list[ast.stmt]
    ) -> ast.FunctionDef:
        """`def name(*params): body`, declaring the scope's globals it assigns."""
        decls: list[ast.stmt] = []
        if self.scope.declared:
            writes = activity.writes(body)
            for kind, cls in (("global", ast.Global), ("nonlocal", ast.Nonlocal)):
                names = sorted(
                    n
                    for n, k in self.scope.declared.items()
                    if k == kind and n in writes
                )
                if names:
                    decls.append(cls(names=names))
        # The body is attached, not templated: it holds the user's statements,
        # which must not be copied (that would cost O(size x depth)).
        return function_def(name, list(params), decls + body)

    # --- if --------------------------------------------------------------

    def visit_If(self, node: ast.If) -> list[ast.stmt]:
        live_out = anno.getanno(node, Live.OUT, frozenset())
        live_in = anno.getanno(node, Live.BODY_IN, frozenset()) | anno.getanno(
            node, Live.ORELSE_IN, frozenset()
        )
        modified = self._modified(node.body) | self._modified(node.orelse)
        is_tail = _contains_return([node])
        outputs = [] if is_tail else sorted(modified & live_out)
        params = sorted(modified & live_in)
        inits = self._state_inits(node, params)
        namer = self.ctx.namer
        body_name = namer.new_symbol("if_body")
        # Without an else block, if_stmt returns the state as it came in;
        # write an else_body only when that is not what is needed.
        orelse_name = None
        returns = [
            self._unbound_after_return(node, b, outputs)
            for b in (node.body, node.orelse)
        ]
        if (
            node.orelse
            or (is_tail and params)
            or (outputs and outputs != params)
            or returns[1]
        ):
            orelse_name = namer.new_symbol("else_body")

        body = self.visit_block(node.body)
        orelse = self.visit_block(node.orelse)
        if outputs:
            body.append(ast.Return(value=_returned(outputs, returns[0])))
            orelse.append(ast.Return(value=_returned(outputs, returns[1])))
        defs = [self._def(body_name, params, body)]
        if orelse_name:
            defs.append(
                self._def(orelse_name, params, orelse or [ast.Return(value=None)])
            )

        args = [node.test, jumps.name(defs[0].name)]
        optional = [
            jumps.name(orelse_name)
            if orelse_name
            else ast.Constant(value=None, kind=None),
            _load_tuple(params),
            _names_tuple(outputs),
        ]
        while optional and _is_default(optional[-1]):
            optional.pop()
        call = ast.Call(func=ag_attr("if_stmt"), args=args + optional, keywords=[])
        return _located(
            node, [*inits, *defs, _assign(None if is_tail else outputs, call)]
        )

    def _unbound_after_return(
        self, node: ast.If, block: list[ast.stmt], outputs: Sequence[str]
    ) -> set[str]:
        """Outputs that may be unbound at the end of a branch that returns.

        Returning sets the return flag (`do_return = True`, see
        `return_statements`); after that the function reads none of its
        variables but in a `finally`. Such outputs go out through
        `ag__.after_return`, so that a graph `if` does not ask for them to be
        defined in both branches.
        """
        if not outputs:
            return set()
        # A guard of jump lowering, `if not do_return:`, has no else block:
        # the path around it is the one that returned.
        guard = (
            block is node.orelse
            and isinstance(node.test, ast.UnaryOp)
            and isinstance(node.test.op, ast.Not)
            and self._is_flag(node.test.operand)
        )
        if not guard and not self._returns(block):
            return set()
        must = anno.getanno(node, Defined.MUST_IN, frozenset())
        return set(outputs) - must - self.cache.writes(block)

    def _is_flag(self, node: ast.AST | None) -> bool:
        """Whether `node` is the name of a return flag (`do_return`)."""
        return (
            isinstance(node, ast.Name)
            and node.id.startswith("do_return")
            and self.ctx.namer.is_generated(node.id)
        )

    def _returns(self, block: list[ast.stmt]) -> bool:
        """Whether every path through `block` sets the return flag (or raises)."""
        for s in block:
            if (
                isinstance(s, ast.Assign)
                and self._is_flag(s.targets[0])
                and isinstance(s.value, ast.Constant)
                and s.value.value is True
            ):
                return True
            if (
                isinstance(s, ast.If)
                and self._returns(s.body)
                and self._returns(s.orelse)
            ):
                return True
            if isinstance(s, ast.Try) and (
                self._returns(s.finalbody)
                or (
                    not s.orelse
                    and self._returns(s.body)
                    and all(self._returns(h.body) for h in s.handlers)
                )
            ):
                return True
        return False

    # --- while -----------------------------------------------------------

    def visit_While(self, node: ast.While) -> list[ast.stmt]:
        live_out = anno.getanno(node, Live.OUT, frozenset())
        header = anno.getanno(node, Live.LOOP_HEADER, frozenset())
        modified = self._modified(node.body) | (
            activity.writes(node.test) - set(self.scope.declared)
        )
        state = sorted(modified & (header | live_out))
        inits = self._state_inits(node, state)
        namer = self.ctx.namer
        test_name, body_name = (
            namer.new_symbol("loop_test"),
            namer.new_symbol("loop_body"),
        )

        body = self.visit_block(node.body)
        if state:
            body.append(ast.Return(value=_returned(state)))
        test_def = self._def(test_name, state, [ast.Return(value=node.test)])
        body_def = self._def(body_name, state, body)
        # The loop variables' names are the loop functions' parameters; the
        # operator reads them from there for its messages.
        args = [jumps.name(test_def.name), jumps.name(body_def.name)]
        if state:
            args.append(_load_tuple(state))
        call = ast.Call(func=ag_attr("while_stmt"), args=args, keywords=[])
        orelse = self.visit_block(node.orelse)
        return _located(
            node, [*inits, test_def, body_def, _assign(state, call), *orelse]
        )

    # --- for -------------------------------------------------------------

    def visit_For(self, node: ast.For) -> list[ast.stmt]:
        live_out = anno.getanno(node, Live.OUT, frozenset())
        header = anno.getanno(node, Live.LOOP_HEADER, frozenset())
        targets = activity.writes(node.target)
        modified = self._modified(node.body)
        state = sorted((modified & (header | live_out)) | (targets & live_out))
        inits = self._state_inits(node, state)
        namer = self.ctx.namer
        body_name = namer.new_symbol("loop_body")
        extra_test = anno.getanno(node, anno.Basic.EXTRA_LOOP_TEST, None)
        test_name = namer.new_symbol("extra_test") if extra_test is not None else None

        body = self.visit_block(node.body)
        if isinstance(node.target, ast.Name) and node.target.id not in state:
            item = node.target.id
        else:
            item = namer.new_symbol("itr")
            body.insert(
                0,
                ast.Assign(
                    targets=[node.target], value=jumps.name(item), type_comment=None
                ),
            )
        if state:
            body.append(ast.Return(value=_returned(state)))
        defs = [self._def(body_name, [item, *state], body)]
        args = [node.iter, jumps.name(defs[0].name)]
        if state:
            args.append(_load_tuple(state))
        keywords = []
        if test_name is not None:
            test_def = self._def(test_name, state, [ast.Return(value=extra_test)])
            defs.append(test_def)
            keywords.append(
                ast.keyword(arg="extra_test", value=jumps.name(test_def.name))
            )
        call = ast.Call(func=ag_attr("for_stmt"), args=args, keywords=keywords)
        orelse = self.visit_block(node.orelse)
        return _located(node, [*inits, *defs, _assign(state, call), *orelse])


def _located(node: ast.stmt, stmts: list[ast.stmt]) -> list[ast.stmt]:
    """Generated statements take the span of the statement they replace.

    Only the top-level statements are set here; the nodes inside them that
    have no position inherit it later (`codegen.fill_locations`), and the
    user's statements keep their own.
    """
    lineno = getattr(node, "lineno", None)
    if lineno is None:
        return stmts  # a generated statement: positions come later
    for stmt in stmts:
        if getattr(stmt, "lineno", None) is None:
            stmt.lineno, stmt.col_offset = lineno, node.col_offset
            stmt.end_lineno = node.end_lineno
            stmt.end_col_offset = node.end_col_offset
    return stmts


def _is_default(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return node.value is None
    return isinstance(node, ast.Tuple) and not node.elts


def _assign(outputs: Sequence[str] | None, call: ast.expr) -> ast.stmt:
    """`outputs = call`, `call` alone (no outputs) or `return call` (None)."""
    if outputs is None:
        return ast.Return(value=call)
    if not outputs:
        return ast.Expr(value=call)
    if len(outputs) == 1:
        target: ast.expr = jumps.name(outputs[0], ast.Store)
    else:
        target = ast.Tuple(
            elts=[jumps.name(n, ast.Store) for n in outputs], ctx=ast.Store()
        )
    return ast.Assign(targets=[target], value=call, type_comment=None)


def _has_docstring(body: list[ast.stmt]) -> bool:
    first = body[0] if body else None
    return (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    )


# What the pass may add to a tree (see `Context.kinds`).
EMITS = frozenset(
    {
        ast.FunctionDef,
        ast.arguments,
        ast.arg,
        ast.Return,
        ast.Assign,
        ast.Expr,
        ast.Tuple,
        ast.Name,
        ast.Constant,
        ast.Call,
        ast.Attribute,
        ast.keyword,
        ast.Global,
        ast.Nonlocal,
        GeneratedCode,
        NestedFunction,
    }
)


def needed(kinds: AbstractSet[type]) -> bool:
    """Whether a tree holding these node classes has anything to rewrite."""
    return ast.If in kinds or ast.While in kinds or ast.For in kinds


def transform(node: ast.AST, ctx: object) -> ast.AST:
    """Runs liveness and definedness, then rewrites the control flow of `node`."""
    if not isinstance(node, activity.FUNCTIONS):
        return node  # a lambda has no statements
    cache = activity.Cache()
    liveness.annotate(node, cache)
    definedness.annotate(node, converted=True, cache=cache)
    node = ControlFlowTransformer(ctx, cache).visit(node)
    ctx.kinds |= EMITS
    return node
