"""Where generated code comes from in the user's source.

Converted code is compiled from a tree whose positions are the user's file
positions. Nodes made from templates have none; ``copy_locations`` gives them
the position of the user's statement they replace, so that the code object
(and every traceback through it) points at that statement.

Example:
    >>> import ast
    >>> user = ast.parse("x = 1").body[0]
    >>> new = ast.Expr(value=ast.Constant(value=2, kind=None))
    >>> copy_locations([new], user)
    >>> (new.lineno, new.value.lineno, new.end_col_offset)
    (1, 1, 5)
"""

from __future__ import annotations

import ast
import dataclasses
import linecache
from collections.abc import Iterable
from typing import Any

from autograph.pyct import anno, transformer

__all__ = ["OriginInfo", "copy_locations", "resolve", "source_line"]

_POSITIONS = ("lineno", "col_offset", "end_lineno", "end_col_offset")


@dataclasses.dataclass(frozen=True)
class OriginInfo:
    """The user's source location of a node.

    Attributes:
        filename: The file as the code object names it.
        lineno: 1-based line.
        col_offset: 0-based column (UTF-8 bytes, as in ``ast``).
        function_name: The user's function that contains the node.
        source_line: The text of the line, without its newline.

    Example:
        >>> str(OriginInfo("m.py", 3, 4, "f", "    return x"))
        'File "m.py", line 3, in f'
    """

    filename: str
    lineno: int
    col_offset: int
    function_name: str
    source_line: str

    def __str__(self) -> str:
        return f'File "{self.filename}", line {self.lineno}, in {self.function_name}'


def source_line(filename: str, lineno: int) -> str:
    """Line ``lineno`` of ``filename`` through ``linecache``, without its newline.

    Returns ``""`` when the line is not available.

    Example:
        >>> source_line("<no such file>", 1)
        ''
    """
    return linecache.getline(filename, lineno).rstrip("\r\n")


def _walk(nodes: Any) -> Iterable[ast.AST]:
    roots = nodes if isinstance(nodes, (list, tuple)) else [nodes]
    for root in roots:
        yield from transformer.walk(root)


def copy_locations(new_nodes: Any, from_node: ast.AST) -> None:
    """Gives every node without a ``lineno`` the positions of ``from_node``.

    Nodes that already have a ``lineno`` (e.g. user expressions inserted into a
    template) keep all their positions.

    Args:
        new_nodes: A node or a list of nodes; visited recursively.
        from_node: The user's node they stand for.

    Example:
        >>> import ast
        >>> node = ast.Pass()
        >>> copy_locations(node, ast.parse("pass").body[0])
        >>> node.lineno
        1
    """
    source = {name: getattr(from_node, name, None) for name in _POSITIONS}
    for node in _walk(new_nodes):
        if "lineno" in node._attributes and getattr(node, "lineno", None) is None:
            for name, value in source.items():
                setattr(node, name, value)


def resolve(node: ast.AST, *, filename: str, function_name: str) -> None:
    """Sets ``anno.Basic.ORIGIN`` on every node of ``node`` that has a position.

    Args:
        node: A tree whose positions are the original file's (see
            ``parser.parse_entity``).
        filename: The file those positions refer to.
        function_name: The user's function.

    Example:
        >>> import ast
        >>> tree = ast.parse("x = 1")
        >>> resolve(tree, filename="<none>", function_name="f")
        >>> anno.getanno(tree.body[0], anno.Basic.ORIGIN).lineno
        1
    """
    lines: dict[int, str] = {}
    for child in transformer.walk(node):
        lineno = getattr(child, "lineno", None)
        if lineno is None:
            continue
        if lineno not in lines:
            lines[lineno] = source_line(filename, lineno)
        origin = OriginInfo(
            filename=filename,
            lineno=lineno,
            col_offset=child.col_offset,
            function_name=function_name,
            source_line=lines[lineno],
        )
        anno.setanno(child, anno.Basic.ORIGIN, origin)
