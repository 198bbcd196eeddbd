"""Runs converters on source text, for per-converter tests."""

from __future__ import annotations

import ast
import builtins
import linecache
import textwrap

import autograph
from autograph.core.converter import Context
from autograph.core.survey import survey
from autograph.impl import codegen, transpiler
from autograph.impl.api import always_run_converted
from autograph.pyct import naming, parser


def context(node: ast.FunctionDef) -> Context:
    """A fresh conversion context for `node`, as the pipeline makes one."""
    names, kinds = survey(node)
    return Context(
        function_name=node.name,
        filename="<test>",
        namer=naming.Namer(names | transpiler.RESERVED),
        is_builtin=lambda name: hasattr(builtins, name),
        kinds=kinds,
    )


def apply(converters, source: str) -> str:
    """The source of the first function in `source` after `converters`."""
    node = parser.parse_source(textwrap.dedent(source)).body[0]
    ctx = context(node)
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


_counter = [0]


def run(source: str, *args, **namespace):
    """Defines the function in `source` (in a file-like module registered in
    linecache, as a user's would be), then runs its converted code."""
    _counter[0] += 1
    filename = f"<converter-test-{_counter[0]}>"
    text = textwrap.dedent(source)
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    env = dict(namespace)
    exec(compile(text, filename, "exec"), env)
    name = ast.parse(text).body[0].name
    with always_run_converted():
        return autograph.to_graph(env[name])(*args)
