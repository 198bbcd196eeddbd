"""From converted tree to readable source, and positions for generated code.

`to_source` unparses with the standard library and wraps any line longer than
`MAX_LINE` at the argument list of its outermost call, one level deep:

    (i, total) = ag__.while_stmt(
        loop_test, loop_body, (i, total), ('i', 'total'))

`fill_locations` gives every generated node the position of the nearest
user statement that contains it, so tracebacks and errors in generated code
point at the user's line.
"""

from __future__ import annotations

import ast

import gast

from autograph.pyct import parser

MAX_LINE = 100


def fill_locations(node: gast.AST, lineno: int = 1, col_offset: int = 0) -> None:
    """Copies positions down to nodes that have none (generated ones)."""
    attrs = getattr(node, "_attributes", ())
    if "lineno" in attrs:
        if getattr(node, "lineno", None) is None:
            node.lineno = lineno
            node.col_offset = col_offset
            node.end_lineno = lineno
            node.end_col_offset = col_offset
        else:
            lineno, col_offset = node.lineno, node.col_offset
    for child in gast.iter_child_nodes(node):
        fill_locations(child, lineno, col_offset)


def to_source(node: gast.AST) -> str:
    """Readable source for a converted function or lambda."""
    lines = []
    for line in parser.unparse(node).splitlines():
        if not line.strip():
            continue  # ast.unparse separates nested defs by blank lines
        lines.extend(_wrap(line) if len(line) > MAX_LINE else [line])
    return "\n".join(lines) + "\n"


def _wrap(line: str) -> list[str]:
    """Splits a long statement after the '(' of its outermost call."""
    indent = line[: len(line) - len(line.lstrip())]
    try:
        tree = ast.parse(line.strip())
    except SyntaxError:
        return [line]
    stmt = tree.body[0]
    value = getattr(stmt, "value", None)
    if not isinstance(value, ast.Call):
        return [line]
    head = line.strip()[: value.func.end_col_offset + 1]  # up to and with '('
    args = [ast.unparse(a) for a in value.args]
    args += [ast.unparse(k) if k.arg is None else f"{k.arg}={ast.unparse(k.value)}"
             for k in value.keywords]
    inner = indent + "    "
    body = ", ".join(args)
    if len(inner) + len(body) + 1 <= MAX_LINE:
        return [indent + head, inner + body + ")"]
    return [indent + head] + [inner + a + "," for a in args] + [indent + ")"]
