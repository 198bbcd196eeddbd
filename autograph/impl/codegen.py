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
import io
import tokenize

from autograph.pyct import parser, transformer
from autograph.pyct.unparsing import unparse

MAX_LINE = 100

# Node class -> (whether it has a position, the fields that may hold children).
_PLANS: dict[type, tuple[bool, tuple[str, ...]]] = {}


def _plan(cls: type) -> tuple[bool, tuple[str, ...]]:
    plan = ("lineno" in cls._attributes, transformer.child_fields(cls))  # type: ignore[attr-defined]
    _PLANS[cls] = plan
    return plan


def fill_locations(node: ast.AST, lineno: int = 1, col_offset: int = 0) -> None:
    """Copies positions down to nodes that have none (generated ones).

    A child without children of its own (a name, a constant: a third of a
    tree) is given its position here rather than through a call.
    """
    fields = node.__dict__  # an ast node keeps its fields and positions there
    positioned, names = _PLANS.get(type(node)) or _plan(type(node))
    if positioned:
        if fields.get("lineno") is None:
            fields["lineno"] = fields["end_lineno"] = lineno
            fields["col_offset"] = fields["end_col_offset"] = col_offset
        else:
            lineno, col_offset = fields["lineno"], fields["col_offset"]
    for field in names:
        value = fields.get(field)
        if type(value) is list:
            children = value
        elif isinstance(value, ast.AST):
            children = [value]
        else:
            continue
        for child in children:
            plan = _PLANS.get(type(child))
            if plan is None:
                if not isinstance(child, ast.AST):
                    continue
                plan = _plan(type(child))
            if plan[1]:
                fill_locations(child, lineno, col_offset)
            elif plan[0]:  # a leaf
                leaf = child.__dict__
                if leaf.get("lineno") is None:
                    leaf["lineno"] = leaf["end_lineno"] = lineno
                    leaf["col_offset"] = leaf["end_col_offset"] = col_offset


def to_source(node: ast.AST, *, located: bool = False) -> str:
    """Readable source for a converted function or lambda.

    `located`: every statement has its position already (`fill_locations`
    ran, as `convert_node` does): the unparser then needs no located copy,
    and no search for a statement without one.
    """
    text = unparse(node) if located else parser.unparse(node)
    in_strings = _lines_inside_strings(text)
    lines = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() and number not in in_strings:
            continue  # ast.unparse separates nested defs by blank lines
        fits = len(line) <= MAX_LINE or number in in_strings
        lines.extend([line] if fits else _wrap(line))
    return "\n".join(lines) + "\n"


def _lines_inside_strings(text: str) -> set[int]:
    """Line numbers that continue a multi-line string (their text is data)."""
    inside: set[int] = set()
    if '"""' not in text and "'''" not in text:
        # `ast.unparse` writes every other string on one line (newlines as
        # escapes); tokenizing would cost a third of `to_code`.
        return inside
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.STRING and token.end[0] > token.start[0]:
            inside.update(range(token.start[0] + 1, token.end[0] + 1))
    return inside


def _wrap(line: str) -> list[str]:
    """Re-emits a long statement with its expression broken over lines."""
    indent = line[: len(line) - len(line.lstrip())]
    try:
        stmt = ast.parse(line.strip()).body[0]
    except SyntaxError:
        return [line]
    value = getattr(stmt, "value", None)
    if value is None:
        return [line]
    prefix = line.strip()[: value.col_offset]  # e.g. 'return ' or '(a, b) = '
    lines = _format(value, indent, len(indent) + len(prefix))
    return [indent + prefix + lines[0], *lines[1:]]


def _format(node: ast.expr, indent: str, column: int) -> list[str]:
    """Lines for `node`; the first continues at `column`, the rest are indented.

    A node that does not fit is broken by the formatter its class has in
    `_FORMATS` (one level deeper: `indent` + 4 spaces); others stay whole.
    """
    text = unparse(node)
    if column + len(text) <= MAX_LINE:
        return [text]
    format_ = _FORMATS.get(type(node))
    if format_ is None:
        return [text]
    return format_(node, indent, column) or [text]


def _format_call(node: ast.Call, indent: str, column: int) -> list[str]:
    """Breaks after '(', the arguments packed greedily one level deeper."""
    inner = indent + "    "
    pieces = [_format(a, inner, len(inner)) for a in node.args]
    for k in node.keywords:
        head = "**" if k.arg is None else f"{k.arg}="
        value = _format(k.value, inner, len(inner) + len(head))
        pieces.append([head + value[0], *value[1:]])
    lines = [unparse(node.func) + "("]
    current = ""
    for i, piece in enumerate(pieces):
        piece = [*piece[:-1], piece[-1] + (")" if i == len(pieces) - 1 else ",")]
        if (
            len(piece) == 1
            and len(inner) + len(current) + 1 + len(piece[0]) <= MAX_LINE
        ):
            current = f"{current} {piece[0]}" if current else piece[0]
            continue
        if current:
            lines.append(inner + current)
            current = ""
        if len(piece) == 1:
            current = piece[0]
        else:
            lines.append(inner + piece[0])
            lines.extend(piece[1:])
    if current:
        lines.append(inner + current)
    if not pieces:
        lines[0] += ")"
    return lines


def _format_lambda(node: ast.Lambda, indent: str, column: int) -> list[str]:
    """Keeps the body on the lambda's line, breaking the body itself."""
    params = f" {unparse(node.args)}" if node.args.args else ""
    head = f"lambda{params}: "
    body = _format(node.body, indent, column + len(head))
    return [head + body[0], *body[1:]]


def _format_comprehension(node: ast.expr, indent: str, column: int) -> list[str]:
    """The element on the first line, each `for` clause on its own."""
    inner = indent + "    "
    opening, closing = _BRACKETS[type(node)]
    if isinstance(node, ast.DictComp):
        key = unparse(node.key)
        head = _format(node.value, inner, column + len(opening) + len(key) + 2)
        head = [f"{key}: {head[0]}", *head[1:]]
    else:
        head = _format(node.elt, inner, column + len(opening))
    clauses = []
    for gen in node.generators:
        clause = f"for {unparse(gen.target)} in {unparse(gen.iter)}"
        clauses.append(clause + "".join(f" if {unparse(c)}" for c in gen.ifs))
    lines = [opening + head[0], *head[1:]]
    lines += [inner + c for c in clauses]
    lines[-1] += closing
    return lines


def _format_sequence(node: ast.Tuple | ast.List, indent: str, column: int) -> list[str]:
    """One element per line (nothing to break in an empty one)."""
    if not node.elts:
        return []
    inner = indent + "    "
    opening, closing = ("(", ")") if isinstance(node, ast.Tuple) else ("[", "]")
    lines = [opening]
    for element in node.elts:
        item = _format(element, inner, len(inner))
        lines += [inner + item[0], *item[1:]]
        lines[-1] += ","
    lines.append(indent + closing)
    return lines


def _format_binop(node: ast.BinOp, indent: str, column: int) -> list[str]:
    """Inside parentheses, breaking before the operator."""
    inner = indent + "    "
    left = _format(node.left, inner, column + 1)
    op = _BINOPS.get(type(node.op), "?")
    right = _format(node.right, inner, len(inner) + len(op) + 1)
    right[-1] += ")"
    return ["(" + left[0], *left[1:], f"{inner}{op} {right[0]}", *right[1:]]


_BRACKETS = {
    ast.ListComp: ("[", "]"),
    ast.SetComp: ("{", "}"),
    ast.DictComp: ("{", "}"),
    ast.GeneratorExp: ("(", ")"),
}

_BINOPS = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.MatMult: "@",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.LShift: "<<",
    ast.RShift: ">>",
}

# How each kind of expression breaks over lines when it does not fit.
_FORMATS = {
    ast.Call: _format_call,
    ast.Lambda: _format_lambda,
    ast.ListComp: _format_comprehension,
    ast.SetComp: _format_comprehension,
    ast.DictComp: _format_comprehension,
    ast.GeneratorExp: _format_comprehension,
    ast.Tuple: _format_sequence,
    ast.List: _format_sequence,
    ast.BinOp: _format_binop,
}
