"""Runs converters on source text, for per-converter tests."""

from __future__ import annotations

import builtins
import textwrap

import gast

from autograph.core.converter import Context
from autograph.impl import codegen, transpiler
from autograph.pyct import naming, parser


def apply(converters, source: str) -> str:
    """The source of the first function in `source` after `converters`."""
    node = parser.parse_source(textwrap.dedent(source)).body[0]
    ctx = Context(
        function_name=node.name,
        filename="<test>",
        namer=naming.Namer(transpiler._reserved_names(node)),
        is_builtin=lambda name: hasattr(builtins, name),
    )
    for converter in converters:
        node = converter.transform(node, ctx)
    return codegen.to_source(node)


def convert(source: str) -> str:
    """The source of the first function in `source` after the whole pipeline."""
    node = parser.parse_source(textwrap.dedent(source)).body[0]
    return codegen.to_source(transpiler.convert_node(node, filename="<test>"))


def same(actual: str, expected: str) -> None:
    """Compares generated source with an expected (dedented) text."""
    assert actual.strip() == textwrap.dedent(expected).strip(), actual


def run(source: str, *args, **namespace):
    """Converts the function in `source`, runs it, returns its result."""
    import runtime.operators as ag__

    code = convert(source)
    env = {"ag__": ag__, **namespace}
    exec(compile(code, "<converted>", "exec"), env)
    name = gast.parse(textwrap.dedent(source)).body[0].name
    return env[name](*args)
