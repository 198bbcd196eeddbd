"""The one checker that rejects what the compiler does not convert (STYLE 12).

It runs before any rewrite, so unsupported code is refused with the user's
`file:line` and a caret, never half-converted or silently run as is.
"""

from __future__ import annotations

import ast

from autograph import errors
from autograph.pyct import transformer

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


KINDS = frozenset(_REASONS)
"""The node classes `check` rejects: a tree holding none of them passes."""


def check(node: ast.AST, *, function_name: str, filename: str) -> None:
    """Raises `UnsupportedSyntaxError` at the first construct not supported.

    Args:
        node: The function (or lambda) about to be converted.
        function_name: The user's name for it, for the message.
        filename: Its file, for the message.
    """
    for child in transformer.walk(node):
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
