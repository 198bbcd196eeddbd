"""Where generated code comes from in the user's source.

Converted code is compiled from a tree whose positions are the user's file
positions (generated nodes get their statement's from
``autograph.impl.codegen.fill_locations``), so the code object and every
traceback through it point at the user's source. ``resolve`` records, for
messages, where each node of that tree comes from:

Example:
    >>> import ast
    >>> tree = ast.parse("x = 1")
    >>> resolve(tree, filename="<none>", function_name="f")
    >>> str(anno.getanno(tree.body[0], anno.Basic.ORIGIN))
    'File "<none>", line 1, in f'
"""

from __future__ import annotations

import ast
import dataclasses
import linecache

from autograph.pyct import anno, transformer

__all__ = ["OriginInfo", "resolve", "source_line"]


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
