"""The context every converter receives.

`Context` carries what a converter may need about the entity being
converted: its name and file (for errors), one `Namer` for generated names,
and what its free names refer to (to tell builtins and library modules from
user code without running anything). The nodes converters emit are built
with `core/builders.py`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

from autograph.core import builders as b
from autograph.core.survey import Marker
from autograph.pyct import anno, naming, transformer
from autograph.pyct.static_analysis import activity


def calls_anything(node: ast.AST) -> bool:
    """Whether evaluating `node` calls user code (the operators conversion
    emits, `ag__.and_` and the like, do not count; `converted_call` does)."""
    for n in transformer.walk(node):
        if isinstance(n, ast.Call):
            func = n.func
            is_operator = (
                isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
                and func.value.id == b.AG
                and func.attr != "converted_call"
            )
            if not is_operator:
                return True
    return False


def user_locals(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The local names of a user's function as the `variables` pass found
    them (`anno.Basic.ORIGINAL_LOCALS`, plus its parameters), sparing a
    walk of the whole function; `activity.local_names` for other functions.
    (The locals jump lowering added since, its flags, are never called.)"""
    original = anno.getanno(node, anno.Basic.ORIGINAL_LOCALS, None)
    if original is None:
        return activity.local_names(node)
    return original | activity.writes(node.args)


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
        if ast.NamedExpr in self.ctx.kinds:
            setter = _CellSetter()
            operand = setter.visit(operand)
            if setter.changed:
                self.ctx.kinds.add(Marker.GENERATED_CODE)  # `cleanup` keeps `x` local
        if _reads_maybe_unbound(operand):
            # In the lambda, `ag__.ld(x)` of an unbound `x` would raise
            # NameError (a free variable): `cleanup` makes it `ag__.ld_cell`.
            self.ctx.kinds.add(Marker.GENERATED_CODE)
        return operand

    def with_places(self, call: ast.Call, *lazy: ast.expr) -> ast.Call:
        """`call`, with `places=` when a lazy operand may change variables:
        through a call of a function that writes them (`nonlocal`), or a
        walrus (`lazy`)."""
        # (Only a walrus makes `set_cell` calls: `lazy`.)
        names = _cells_set(lazy) if ast.NamedExpr in self.ctx.kinds else set()
        writes = self._nested_writes[-1]  # (most often none: no search)
        if writes and any(calls_anything(operand) for operand in lazy):
            names |= writes
        if names:
            # places=(ag__.var(lambda: a), ...)
            call.keywords.append(b.var_places(names))
        return call


class _CellSetter(ast.NodeTransformer):
    """`x := value` -> `ag__.set_cell(lambda: x, value)`, outside nested scopes."""

    def __init__(self) -> None:
        self.changed = False

    def visit_NamedExpr(self, node: ast.NamedExpr) -> ast.expr:
        self.changed = True
        value = self.visit(node.value)
        # ag__.set_cell(lambda: x, value)
        call = b.ag_call("set_cell", b.thunk(b.name(node.target.id)), value)
        return ast.copy_location(call, node)

    def _scope(self, node: ast.AST) -> ast.AST:
        return node  # its walruses bind in it

    visit_Lambda = visit_FunctionDef = visit_AsyncFunctionDef = _scope
    visit_ClassDef = _scope


def _reads_maybe_unbound(node: ast.AST) -> bool:
    """Whether `node` holds an `ag__.ld(x)` (a read of a maybe-unbound local)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if type(n) is ast.Call and b.is_ag_attr(n.func, "ld"):
            return True
        stack += transformer.child_nodes(n)
    return False


def _cells_set(nodes: Iterable[ast.AST]) -> set[str]:
    """The variables `ag__.set_cell` calls in `nodes` set."""
    found = set()
    for node in nodes:
        for n in transformer.walk(node):
            if isinstance(n, ast.Call) and b.is_ag_attr(n.func, "set_cell"):
                found.add(n.args[0].body.id)
    return found


# Builtins that converted code routes through an operator, and the operator.
OVERLOADED_BUILTINS = {
    "print": "print_",
    "range": "range_",
    "len": "len_",
    "int": "int_",
    "float": "float_",
    "max": "max_",
    "min": "min_",
}

# Builtins that converted code routes through an operator where a `for`
# statement iterates what they give (`for i, x in enumerate(xs)`, also
# `enumerate(zip(xs, ys))`): over arrays, a backend makes the loop one loop.
LOOP_BUILTINS = {
    "enumerate": "enumerate_",
    "zip": "zip_",
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
        kinds: What the tree may hold: the node classes and markers
            (`core/survey.Marker`) the survey found before conversion, plus
            what the passes run so far may have added (see
            `impl/transpiler.Pass`). A pass runs only if the tree holds what
            triggers it.
        rewrote: Whether the pass running now rewrote something; a pass
            that finds nothing to do sets it to False, and what it may emit
            is then not added to `kinds`.
    """

    function_name: str
    filename: str
    namer: naming.Namer
    is_builtin: Callable[[str], bool] = lambda name: False
    is_library: Callable[[str], bool] = lambda name: False
    lookup: Callable[[str], Any] = lambda name: None
    recursive: bool = True
    kinds: set[type | Marker] = field(default_factory=set)
    rewrote: bool = True
