"""The context every converter receives, and the nodes converted code is made of.

`Context` carries what a converter may need about the entity being
converted: its name and file (for errors), one `Namer` for generated names,
and what its free names refer to (to tell builtins and library modules from
user code without running anything).

The builders (`ag_call`, `thunk`, `function_def`, ...) make the few node
shapes every conversion emits many times. They stand where templates would
(STYLE 2) because a template costs ~25-30 us per use (parse, then copy)
against ~2 us for these, and conversion has 1 ms for a whole function:

    >>> import ast
    >>> ast.unparse(ag_call("and_", ast.Name("a"), thunk(ast.Name("b"))))
    'ag__.and_(a, lambda: b)'
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

from autograph.pyct import anno, naming, transformer

AG = "ag__"  # the name converted code uses for `runtime.operators`
_LOAD = ast.Load()  # contexts carry no data: one serves every node


def ag_attr(attr: str) -> ast.Attribute:
    """`ag__.<attr>`."""
    # Positional arguments: the fields (value, attr, ctx) are the same on every
    # supported version, and node classes build faster that way.
    return ast.Attribute(ast.Name(AG, _LOAD), attr, _LOAD)


def ag_call(attr: str, *args: ast.expr) -> ast.Call:
    """`ag__.<attr>(*args)`."""
    return ast.Call(func=ag_attr(attr), args=list(args), keywords=[])


def thunk(body: ast.expr) -> ast.Lambda:
    """`lambda: body`: an operand evaluated only if the operator needs it."""
    return ast.Lambda(args=_no_arguments(), body=body)


def _no_arguments() -> ast.arguments:
    return ast.arguments(
        posonlyargs=[],
        args=[],
        vararg=None,
        kwonlyargs=[],
        kw_defaults=[],
        kwarg=None,
        defaults=[],
    )


# Python 3.12+ function nodes also list their type parameters (PEP 695).
_NO_TYPE_PARAMS: dict[str, list] = (
    {"type_params": []} if "type_params" in ast.FunctionDef._fields else {}
)


def function_def(name: str, params: list[str], body: list[ast.stmt]) -> ast.FunctionDef:
    """`def name(*params): body`, with `body` attached as it is (not copied)."""
    args = _no_arguments()
    args.args = [ast.arg(arg=p, annotation=None) for p in params]
    return ast.FunctionDef(
        name=name,
        args=args,
        body=body,
        decorator_list=[],
        returns=None,
        type_comment=None,
        **_NO_TYPE_PARAMS,
    )


def undefined_init(name: str) -> ast.Assign:
    """`name = ag__.Undefined('name')`: the value of a variable not bound yet."""
    target = ast.Name(id=name, ctx=ast.Store())
    value = ag_call("Undefined", ast.Constant(value=name, kind=None))
    return ast.Assign(targets=[target], value=value, type_comment=None)


def var_places(names: Iterable[str]) -> ast.keyword:
    """`places=(ag__.var(lambda: a), ...)`: variables an operator's functions
    may change where they live (see runtime.operators.places)."""
    elts = [ag_call("var", thunk(ast.Name(n, _LOAD))) for n in sorted(names)]
    return ast.keyword(arg="places", value=ast.Tuple(elts=elts, ctx=_LOAD))


def calls_anything(node: ast.AST) -> bool:
    """Whether evaluating `node` calls user code (the operators conversion
    emits, `ag__.and_` and the like, do not count; `converted_call` does)."""
    for n in transformer.walk(node):
        if isinstance(n, ast.Call):
            func = n.func
            is_operator = (
                isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
                and func.value.id == AG
                and func.attr != "converted_call"
            )
            if not is_operator:
                return True
    return False


class LazyOperands(transformer.Base):
    """Base of the converters whose operators take lazily evaluated operands
    (`and_`, `or_`, `if_exp`). A backend evaluates such an operand inside a
    graph op, so a call in it that runs a nested function writing a
    `nonlocal`/`global` variable changes state the op must carry:
    `with_places` lists those variables on the call."""

    def __init__(self, ctx: object) -> None:
        super().__init__(ctx)
        self._nested_writes: list[AbstractSet[str]] = [frozenset()]

    def _visit_function(self, node: ast.FunctionDef) -> ast.FunctionDef:
        # A user's function says what its nested functions write; the
        # functions conversion generated inside it share its variables.
        own = anno.getanno(node, anno.Basic.NESTED_WRITES, None)
        self._nested_writes.append(self._nested_writes[-1] if own is None else own)
        self.generic_visit(node)
        self._nested_writes.pop()
        return node

    visit_FunctionDef = _visit_function
    visit_AsyncFunctionDef = _visit_function

    def lazy(self, operand: ast.expr) -> ast.expr:
        """`operand`, to become `lambda: operand`, with each walrus in it
        (outside nested scopes) as `ag__.set_cell(lambda: x, value)`: in the
        lambda, `x := value` would bind a name of the lambda; the user's `x`
        lives in a cell (`activity.cells`)."""
        if ast.NamedExpr not in self.ctx.kinds:
            return operand
        setter = _CellSetter()
        operand = setter.visit(operand)
        if setter.changed:
            self.ctx.kinds.add(GeneratedCode)  # `cleanup` keeps `x` local
        return operand

    def with_places(self, call: ast.Call, *lazy: ast.expr) -> ast.Call:
        """`call`, with `places=` when a lazy operand may change variables:
        through a call of a function that writes them (`nonlocal`), or a
        walrus (`lazy`)."""
        names = set(_cells_set(lazy))
        if any(calls_anything(operand) for operand in lazy):
            names |= self._nested_writes[-1]
        if names:
            call.keywords.append(var_places(names))
        return call


class _CellSetter(ast.NodeTransformer):
    """`x := value` -> `ag__.set_cell(lambda: x, value)`, outside nested scopes."""

    def __init__(self) -> None:
        self.changed = False

    def visit_NamedExpr(self, node: ast.NamedExpr) -> ast.expr:
        self.changed = True
        value = self.visit(node.value)
        read = thunk(ast.Name(node.target.id, _LOAD))
        return ast.copy_location(ag_call("set_cell", read, value), node)

    def _scope(self, node: ast.AST) -> ast.AST:
        return node  # its walruses bind in it

    visit_Lambda = visit_FunctionDef = visit_AsyncFunctionDef = _scope
    visit_ClassDef = _scope


def _cells_set(nodes: Iterable[ast.AST]) -> set[str]:
    """The variables `ag__.set_cell` calls in `nodes` set."""
    found = set()
    for node in nodes:
        for n in transformer.walk(node):
            if (
                isinstance(n, ast.Call)
                and isinstance(n.func, ast.Attribute)
                and n.func.attr == "set_cell"
                and isinstance(n.func.value, ast.Name)
                and n.func.value.id == AG
            ):
                found.add(n.args[0].body.id)
    return found


class GeneratedCode:
    """Not a node: stands in `Context.kinds` for helper code that passes
    generated (jump flags, helper functions), which `cleanup` tidies."""


class DroppedCode:
    """Not a node: stands in `Context.kinds` once jump lowering dropped dead
    code (after a `return`, `break` or `continue`): it may have been the only
    binding of a local, which `cleanup` then keeps local."""


class NestedFunction:
    """Not a node: stands in `Context.kinds` for a `def` inside the function."""


class LoopElse:
    """Not a node: stands in `Context.kinds` for a loop with an `else` block."""


class ListMethodCall:
    """Not a node: stands in `Context.kinds` for a call of a method named
    `append` or `pop` (what the lists converter rewrites inside loops)."""


class CompareChain:
    """Not a node: stands in `Context.kinds` for a comparison chain (`a < b < c`)."""


class CodeAfterReturn:
    """Not a node: stands in `Context.kinds` for statements after a `return`
    in a function's body (dead code, which return lowering drops)."""


# Builtins that converted code routes through an operator, and the operator.
OVERLOADED_BUILTINS = {
    "print": "print_",
    "range": "range_",
    "len": "len_",
    "int": "int_",
    "float": "float_",
}


@dataclass
class Context:
    """What converters know about the entity being converted.

    Attributes:
        function_name: The user's function name (for messages).
        filename: The user's file, as shown in messages.
        namer: Generates names that clash with none of the user's.
        is_builtin: Whether a free name refers to a Python builtin.
        is_library: Whether a free name refers to a module (or an object in
            one) whose calls run as they are, unconverted.
        lookup: The value a free name refers to now (closure, then
            globals), or None; used to recognize directives such as
            `autograph.set_loop_options`, which must be known statically.
        recursive: Whether calls to user functions are converted too.
        kinds: What the tree may hold: the node classes and markers (below)
            the survey found before conversion, plus what the passes run so
            far added; each pass adds what it emits (its `EMITS`) when it
            runs. A pass runs only if the tree holds what it rewrites.
    """

    function_name: str
    filename: str
    namer: naming.Namer
    is_builtin: Callable[[str], bool] = lambda name: False
    is_library: Callable[[str], bool] = lambda name: False
    lookup: Callable[[str], Any] = lambda name: None
    recursive: bool = True
    kinds: set[type] = field(default_factory=set)
