"""The one checker that rejects what the compiler does not convert (STYLE 12).

It runs before any rewrite, so unsupported code is refused with the user's
`file:line` and a caret, never half-converted or silently run as is.
"""

from __future__ import annotations

import ast

from autograph import errors
from autograph.pyct import transformer

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)

_REASONS: dict[type, str] = {
    ast.Yield: "'yield' is not supported: generators cannot be converted; "
    "mark the generator with @autograph.do_not_convert",
    ast.YieldFrom: "'yield from' is not supported: generators cannot be converted; "
    "mark the generator with @autograph.do_not_convert",
    ast.Await: "'await' is not supported: async functions cannot be converted",
    ast.AsyncFor: "'async for' is not supported: async functions cannot be converted",
    ast.AsyncWith: "'async with' is not supported: async functions cannot be converted",
    ast.AsyncFunctionDef: "async functions cannot be converted",
    ast.ClassDef: "a class defined inside a converted function is not supported; "
    "define the class at module level (its methods are converted when called)",
}
_REASONS[ast.Match] = (
    "'match' statements are not supported; use if/elif (or move the match "
    "into a helper marked @autograph.do_not_convert)"
)


_LAZY_WALRUS = (
    "an assignment expression (:=) in an operand that Python evaluates only "
    "sometimes (the right side of 'and'/'or', a branch of 'a if c else b', an "
    "assert message) is not supported: it would bind inside the lambda that "
    "conversion makes of the operand; assign it in a statement before"
)

KINDS = frozenset({*_REASONS, ast.NamedExpr})
"""The node classes `check` looks at: a tree holding none of them passes."""


def _lazy_operands(node: ast.AST) -> list[ast.AST]:
    """The children of `node` that conversion turns into `lambda: operand`."""
    if isinstance(node, ast.BoolOp):
        return node.values[1:]
    if isinstance(node, ast.IfExp):
        return [node.body, node.orelse]
    if isinstance(node, ast.Assert) and node.msg is not None:
        return [node.msg]
    return []


def _walrus_in_lazy_operand(node: ast.AST) -> ast.NamedExpr | None:
    """The first walrus that would bind inside a lambda made by conversion.

    A walrus inside the user's own lambda (or nested function) binds there
    in Python too, and is left alone.
    """
    stack: list[tuple[ast.AST, bool]] = [(node, False)]
    while stack:
        child, lazy = stack.pop()
        if isinstance(child, ast.NamedExpr) and lazy:
            return child
        if isinstance(child, (ast.Lambda, *_SCOPES)) and child is not node:
            lazy = False  # a new scope: its walruses bind in it
        operands = {id(c) for c in _lazy_operands(child)}
        for grandchild in reversed(transformer.child_nodes(child)):
            stack.append((grandchild, lazy or id(grandchild) in operands))
    return None


def check(node: ast.AST, *, function_name: str, filename: str) -> None:
    """Raises `UnsupportedSyntaxError` at the first construct not supported.

    Args:
        node: The function (or lambda) about to be converted.
        function_name: The user's name for it, for the message.
        filename: Its file, for the message.
    """
    walrus_checked = False
    for child in transformer.walk(node):
        if type(child) is ast.NamedExpr:
            if walrus_checked:
                continue
            walrus_checked = True  # one walk finds them all
            walrus = _walrus_in_lazy_operand(node)
            if walrus is None:
                continue
            child, reason = walrus, _LAZY_WALRUS
        else:
            reason = _REASONS.get(type(child))
        if reason is None:
            continue
        if child is node and isinstance(child, ast.AsyncFunctionDef):
            reason = "async functions cannot be converted"
        raise errors.error_at(
            child,
            reason,
            function_name=function_name,
            filename=filename,
            cls=errors.UnsupportedSyntaxError,
        )
