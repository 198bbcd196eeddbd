"""The context every converter receives.

`Context` carries what a converter may need about the entity being
converted: its name and file (for errors), one `Namer` for generated names,
and what its free names refer to (to tell builtins and library modules from
user code without running anything). The nodes converters emit are built
with `core/builders.py`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

from autograph.core import builders as b
from autograph.core.survey import Marker
from autograph.pyct import anno, naming, transformer


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

    def with_places(self, call: ast.Call, *lazy: ast.expr) -> ast.Call:
        """`call`, with `places=` when a lazy operand may change variables."""
        names = self._nested_writes[-1]
        if names and any(calls_anything(operand) for operand in lazy):
            # places=(ag__.var(lambda: a), ...)
            call.keywords.append(b.var_places(names))
        return call


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
