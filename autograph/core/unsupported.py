"""The one checker that rejects what the compiler does not convert (STYLE 12).

It runs before any rewrite, so unsupported code is refused with the user's
`file:line` and a caret, never half-converted or silently run as is.
"""

from __future__ import annotations

import gast

from autograph import errors

_REASONS: dict[type, str] = {
    gast.Yield: "'yield' is not supported: generators cannot be converted; "
    "mark the generator with @autograph.do_not_convert",
    gast.YieldFrom: "'yield from' is not supported: generators cannot be converted; "
    "mark the generator with @autograph.do_not_convert",
    gast.Await: "'await' is not supported: async functions cannot be converted",
    gast.AsyncFor: "'async for' is not supported: async functions cannot be converted",
    gast.AsyncWith: "'async with' is not supported: "
    "async functions cannot be converted",
    gast.AsyncFunctionDef: "async functions cannot be converted",
    gast.ClassDef: "a class defined inside a converted function is not supported; "
    "define the class at module level (its methods are converted when called)",
}
if hasattr(gast, "Match"):
    _REASONS[gast.Match] = (
        "'match' statements are not supported; use if/elif (or move the match "
        "into a helper marked @autograph.do_not_convert)"
    )


def check(node: gast.AST, *, function_name: str, filename: str) -> None:
    """Raises `UnsupportedSyntaxError` at the first construct not supported.

    Args:
        node: The function (or lambda) about to be converted.
        function_name: The user's name for it, for the message.
        filename: Its file, for the message.
    """
    for child in gast.walk(node):
        reason = _REASONS.get(type(child))
        if reason is None:
            continue
        if child is node and isinstance(child, gast.AsyncFunctionDef):
            reason = "async functions cannot be converted"
        raise errors.error_at(
            child,
            reason,
            function_name=function_name,
            filename=filename,
            cls=errors.UnsupportedSyntaxError,
        )
