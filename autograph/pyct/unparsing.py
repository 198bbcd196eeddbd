"""`ast.unparse`, the same text, in about three quarters of the time.

The standard library's unparser visits each node through
`ast.NodeVisitor.visit`, which builds the method's name and looks it up on
every node, and writes brackets and blocks through `contextlib`
context managers, a generator each. `to_code` unparses every converted
function (a sixth of its time), so `unparse` here uses a subclass of the
standard unparser that looks each node class's method up once and writes
brackets and blocks through plain context managers. Every visit method is
the standard library's own, so the text is the same byte for byte
(tests/autograph/pyct/test_unparsing.py compares them over whole files of
the standard library). Where this Python's `ast` has no `_Unparser`, the
standard `ast.unparse` is used.

    >>> import ast
    >>> unparse(ast.parse("if a:\\n  b = (c + d) * e"))
    'if a:\\n    b = (c + d) * e'
"""

from __future__ import annotations

import ast
from typing import Any

__all__ = ["unparse"]


class _Delimit:
    """Writes `start` on entry and `end` on exit (`_Unparser.delimit`)."""

    __slots__ = ("end", "unparser")

    def __init__(self, unparser: Any, start: str, end: str) -> None:
        unparser._source.append(start)
        self.unparser = unparser
        self.end = end

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        self.unparser._source.append(self.end)


class _Block:
    """Writes `:` (and `extra`) and indents inside (`_Unparser.block`)."""

    __slots__ = ("unparser",)

    def __init__(self, unparser: Any, extra: str | None) -> None:
        unparser._source.append(":")
        if extra:
            unparser._source.append(extra)
        self.unparser = unparser

    def __enter__(self) -> None:
        self.unparser._indent += 1

    def __exit__(self, *exc: object) -> None:
        self.unparser._indent -= 1


class _Nothing:
    """A context manager that does nothing (`contextlib.nullcontext()`)."""

    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


_NOTHING = _Nothing()

_Standard: Any = getattr(ast, "_Unparser", None)


if _Standard is not None:

    class _Unparser(_Standard):  # type: ignore[misc, valid-type]
        """The standard unparser with cheaper dispatch and delimiters."""

        # Node class -> the (unbound) method that writes it.
        _methods: dict[type, Any] = {}

        def traverse(self, node: Any) -> None:
            if isinstance(node, list):
                for item in node:
                    self.traverse(item)
                return
            cls = node.__class__
            method = self._methods.get(cls)
            if method is None:
                method = getattr(
                    _Unparser, "visit_" + cls.__name__, _Unparser.generic_visit
                )
                self._methods[cls] = method
            method(self, node)

        def delimit(self, start: str, end: str) -> Any:
            return _Delimit(self, start, end)

        def delimit_if(self, start: str, end: str, condition: bool) -> Any:
            return _Delimit(self, start, end) if condition else _NOTHING

        def require_parens(self, precedence: Any, node: Any) -> Any:
            if self._precedences.get(node, _TEST) > precedence:
                return _Delimit(self, "(", ")")
            return _NOTHING

        def block(self, *, extra: str | None = None) -> Any:
            return _Block(self, extra)

    _TEST = ast._Precedence.TEST

    def unparse(node: ast.AST) -> str:
        """The text `ast.unparse(node)` returns."""
        return _Unparser().visit(node)

else:  # pragma: no cover - an `ast` without the class (none known)
    unparse = ast.unparse
