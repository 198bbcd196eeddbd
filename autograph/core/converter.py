"""The context every converter receives, and the names of converted code.

`Context` carries what a converter may need about the entity being
converted: its name and file (for errors), one `Namer` for generated names,
and what its free names refer to (to tell builtins and library modules from
user code without running anything).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field

from autograph.pyct import naming

AG = "ag__"  # the name converted code uses for `runtime.operators`


def ag_attr(attr: str) -> ast.Attribute:
    """`ag__.<attr>`."""
    base = ast.Name(id=AG, ctx=ast.Load())
    return ast.Attribute(value=base, attr=attr, ctx=ast.Load())


def ag_call(attr: str, *args: ast.expr) -> ast.Call:
    """`ag__.<attr>(*args)`."""
    return ast.Call(func=ag_attr(attr), args=list(args), keywords=[])


def undefined_init(name: str) -> ast.Assign:
    """`name = ag__.Undefined('name')`: the value of a variable not bound yet."""
    target = ast.Name(id=name, ctx=ast.Store())
    value = ag_call("Undefined", ast.Constant(value=name, kind=None))
    return ast.Assign(targets=[target], value=value, type_comment=None)


class GeneratedCode:
    """Not a node: stands in `Context.kinds` for helper code that passes
    generated (jump flags, helper functions), which `cleanup` tidies."""


class LoopElse:
    """Not a node: stands in `Context.kinds` for a loop with an `else` block."""


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
    recursive: bool = True
    kinds: set[type] = field(default_factory=set)
