"""The vocabulary of emitted code: one builder per node shape converters emit.

Converters build the code they emit with these functions, never with
`ast.X(...)` spelled out, and write the code a call emits as a comment
beside it, so each emission site reads like the output:

    >>> import ast
    >>> ast.unparse(assign("y", ag_call("if_stmt", name("c"), name("if_body"))))
    'y = ag__.if_stmt(c, if_body)'
    >>> ast.unparse(ag_call("and_", name("a"), thunk(name("b"))))
    'ag__.and_(a, lambda: b)'
    >>> print(ast.unparse(def_("loop_body", ["i"], [ret(tuple_([name("i")]))])))
    def loop_body(i):
        return (i,)

They stand where templates would (STYLE 2; see ARCHITECTURE.md, "Builders,
not templates"): a node built here costs ~0.3 us, a template use 25-60 us
(parse, strip positions, copy the replacements), and a function's
conversion emits dozens of nodes in a budget of 1 ms. Nodes are built with
positional fields (the same on every supported version, and faster); the
nodes they receive are attached as they are, not copied. Generated nodes
carry no positions: `codegen.fill_locations` gives them their statement's.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from typing import Any

AG = "ag__"  # the name converted code uses for `runtime.operators`

# Expression contexts carry no data; one instance of each serves every node,
# as in trees from ast.parse.
_CONTEXTS = {ast.Load: ast.Load(), ast.Store: ast.Store(), ast.Del: ast.Del()}
_LOAD = _CONTEXTS[ast.Load]
_STORE = _CONTEXTS[ast.Store]

# Python 3.12+ function nodes also list their type parameters (PEP 695).
_NO_TYPE_PARAMS: dict[str, list] = (
    {"type_params": []} if "type_params" in ast.FunctionDef._fields else {}
)

# --- expressions -------------------------------------------------------------


def name(id_: str, ctx: type[ast.expr_context] = ast.Load) -> ast.Name:
    """`id_`, read (or stored, deleted: `ctx`)."""
    return ast.Name(id_, _CONTEXTS[ctx])


def const(value: Any) -> ast.Constant:
    """A literal: `True`, `None`, `'x'`, `3`."""
    return ast.Constant(value, None)


def tuple_(
    elts: Sequence[ast.expr], ctx: type[ast.expr_context] = ast.Load
) -> ast.Tuple:
    """`(a, b, ...)`, the elements attached as they are."""
    return ast.Tuple(list(elts), _CONTEXTS[ctx])


def names(ids: Sequence[str], ctx: type[ast.expr_context] = ast.Load) -> ast.Tuple:
    """`(a, b, ...)` of names: state read (or assigned, `ctx=ast.Store`)."""
    return ast.Tuple([name(i, ctx) for i in ids], _CONTEXTS[ctx])


def strings(values: Sequence[str]) -> ast.Tuple:
    """`('a', 'b', ...)`: names as data (e.g. for an operator's messages)."""
    return ast.Tuple([const(v) for v in values], _LOAD)


def one_or_tuple(elts: Sequence[ast.expr]) -> ast.expr:
    """`a` for one element, `(a, b, ...)` for several (what a body returns)."""
    return elts[0] if len(elts) == 1 else tuple_(elts)


def attr(value: ast.expr, attr_: str) -> ast.Attribute:
    """`value.attr_`."""
    return ast.Attribute(value, attr_, _LOAD)


def call(
    func: ast.expr,
    args: Sequence[ast.expr] = (),
    keywords: Sequence[ast.keyword] = (),
) -> ast.Call:
    """`func(*args, **keywords)`."""
    return ast.Call(func, list(args), list(keywords))


def keyword(arg: str, value: ast.expr) -> ast.keyword:
    """`arg=value`, an argument of a call."""
    return ast.keyword(arg, value)


def ag_attr(attr_: str) -> ast.Attribute:
    """`ag__.attr_`: an operator of `runtime.operators`."""
    return ast.Attribute(ast.Name(AG, _LOAD), attr_, _LOAD)


def ag_call(
    attr_: str, *args: ast.expr, keywords: Sequence[ast.keyword] = ()
) -> ast.Call:
    """`ag__.attr_(*args, **keywords)`."""
    return ast.Call(ag_attr(attr_), list(args), list(keywords))


def is_ag_attr(node: ast.AST, attr_: str) -> bool:
    """Whether `node` is `ag__.attr_`."""
    return (
        type(node) is ast.Attribute
        and node.attr == attr_
        and type(node.value) is ast.Name
        and node.value.id == AG
    )


def no_arguments() -> ast.arguments:
    """The parameters of a function that takes none."""
    return ast.arguments([], [], None, [], [], None, [])


def thunk(body: ast.expr) -> ast.Lambda:
    """`lambda: body`: an operand evaluated only if the operator needs it."""
    return ast.Lambda(no_arguments(), body)


def not_(expr: ast.expr) -> ast.expr:
    """`not expr` (converted to `ag__.not_` later by the logical converter).

    Only used for tests (guards, loop conditions), where truthiness is all
    that counts, so `not not x` folds to `x`.
    """
    if type(expr) is ast.UnaryOp and type(expr.op) is ast.Not:
        return expr.operand
    return ast.UnaryOp(ast.Not(), expr)


def and_(values: Sequence[ast.expr]) -> ast.expr:
    """`a and b and ...`; one value alone is itself."""
    return values[0] if len(values) == 1 else ast.BoolOp(ast.And(), list(values))


def if_exp(test: ast.expr, body: ast.expr, orelse: ast.expr) -> ast.IfExp:
    """`body if test else orelse`."""
    return ast.IfExp(test, body, orelse)


def compare(left: ast.expr, op: ast.cmpop, right: ast.expr) -> ast.Compare:
    """`left <op> right`, one comparison."""
    return ast.Compare(left, [op], [right])


def binop(left: ast.expr, op: ast.operator, right: ast.expr) -> ast.BinOp:
    """`left <op> right`."""
    return ast.BinOp(left, op, right)


def dict_(keys: Sequence[ast.expr], values: Sequence[ast.expr]) -> ast.Dict:
    """`{k: v, ...}`."""
    return ast.Dict(list(keys), list(values))


def subscript(value: ast.expr, index: ast.expr) -> ast.Subscript:
    """`value[index]`, read."""
    return ast.Subscript(value, index, _LOAD)


# --- statements --------------------------------------------------------------


def _target(target: str | ast.expr) -> ast.expr:
    return ast.Name(target, _STORE) if isinstance(target, str) else target


def assign(target: str | ast.expr, value: ast.expr) -> ast.Assign:
    """`target = value`; a str target is a name."""
    return ast.Assign([_target(target)], value, None)


def ann_assign(target: str, annotation: ast.expr) -> ast.AnnAssign:
    """`target: annotation`, with no value (the annotation of a local is
    never evaluated)."""
    return ast.AnnAssign(ast.Name(target, _STORE), annotation, None, 1)


def expr(value: ast.expr) -> ast.Expr:
    """`value` as a statement."""
    return ast.Expr(value)


def ret(value: ast.expr | None) -> ast.Return:
    """`return value` (`return` for None)."""
    return ast.Return(value)


def if_(
    test: ast.expr, body: list[ast.stmt], orelse: list[ast.stmt] | None = None
) -> ast.If:
    """`if test: body else: orelse`, the blocks attached as they are."""
    return ast.If(test, body, [] if orelse is None else orelse)


def pass_() -> ast.Pass:
    """`pass`."""
    return ast.Pass()


def raise_() -> ast.Raise:
    """`raise` (re-raises the exception being handled)."""
    return ast.Raise(None, None)


def global_(ids: list[str]) -> ast.Global:
    """`global a, b`."""
    return ast.Global(ids)


def nonlocal_(ids: list[str]) -> ast.Nonlocal:
    """`nonlocal a, b`."""
    return ast.Nonlocal(ids)


def delete(targets: list[ast.expr]) -> ast.Delete:
    """`del a, b`."""
    return ast.Delete(targets)


def try_(
    body: list[ast.stmt],
    handlers: list[ast.ExceptHandler],
    finalbody: list[ast.stmt] | None = None,
) -> ast.Try:
    """`try: body / except ...: ... / finally: finalbody` (no else block)."""
    return ast.Try(body, handlers, [], [] if finalbody is None else finalbody)


def except_base(body: list[ast.stmt]) -> ast.ExceptHandler:
    """`except BaseException: body`: catches whatever a block raises."""
    return ast.ExceptHandler(name("BaseException"), None, body)


def def_(name_: str, params: Iterable[str], body: list[ast.stmt]) -> ast.FunctionDef:
    """`def name_(*params): body`, the body attached as it is (not copied:
    it holds the user's statements, and copying them would cost
    O(size x depth))."""
    args = no_arguments()
    args.args = [ast.arg(p, None) for p in params]
    return ast.FunctionDef(name_, args, body, [], None, None, **_NO_TYPE_PARAMS)


def module(body: list[ast.stmt]) -> ast.Module:
    """A module of `body` (what is compiled)."""
    return ast.Module(body, [])


# --- shapes of the ag__ protocol -----------------------------------------------


def undefined_init(id_: str, deleted_by: str = "") -> ast.Assign:
    """`x = ag__.Undefined('x')`: the value of a variable not bound yet; with
    `deleted_by` ("del", "except"), `x = ag__.Undefined('x', deleted_by='del')`:
    one the user's code unbinds (the refusals say so)."""
    keywords = [keyword("deleted_by", const(deleted_by))] if deleted_by else []
    return assign(id_, ag_call("Undefined", const(id_), keywords=keywords))


def var_places(ids: Iterable[str]) -> ast.keyword:
    """`places=(ag__.var(lambda: a), ...)`: variables an operator's functions
    may change where they live (see runtime.operators.places)."""
    return keyword(
        "places", tuple_([ag_call("var", thunk(name(n))) for n in sorted(ids)])
    )
