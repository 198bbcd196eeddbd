"""Errors about the user's code, rendered the way Python renders a SyntaxError.

A ``ConversionError`` names the function that could not be converted, says why,
and points at the offending source with a caret, so that a user reads it like
any other Python error:

Example:
    >>> error = ConversionError(
    ...     "'yield' is not supported: generators cannot be converted",
    ...     function_name="f",
    ...     filename="model.py",
    ...     lineno=12,
    ...     col_offset=4,
    ...     end_col_offset=11,
    ...     source_line="    yield x",
    ... )
    >>> print(error)
    cannot convert 'f': 'yield' is not supported: generators cannot be converted
      File "model.py", line 12, in f
        yield x
        ^^^^^^^
    >>> error.location
    'model.py:12:5'

Column offsets follow the ``ast`` convention: 0-based, counted in UTF-8 bytes
of the source line (they are converted to characters for the caret).
"""

from __future__ import annotations

import linecache
from typing import Any

__all__ = [
    "ConversionError",
    "SourceUnavailableError",
    "UnsupportedSyntaxError",
    "error_at",
]


class ConversionError(Exception):
    """A function could not be converted.

    Attributes:
        reason: Why, in a sentence that suggests the fix.
        function_name: The user's function, or ``None`` when unknown.
        filename: The file as given (never made absolute), or ``None``.
        lineno: 1-based line in ``filename``, or ``None``.
        col_offset: 0-based start column (UTF-8 bytes, as in ``ast``), or ``None``.
        source_line: The text of line ``lineno`` (without its newline), or ``None``.
        end_col_offset: End column of the offending span on ``lineno``; ``None``
            underlines to the end of the line.

    Example:
        >>> str(ConversionError("no source", function_name="g"))
        "cannot convert 'g': no source"
    """

    def __init__(
        self,
        reason: str,
        *,
        function_name: str | None = None,
        filename: str | None = None,
        lineno: int | None = None,
        col_offset: int | None = None,
        source_line: str | None = None,
        end_col_offset: int | None = None,
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.function_name = function_name
        self.filename = filename
        self.lineno = lineno
        self.col_offset = col_offset
        self.source_line = source_line
        self.end_col_offset = end_col_offset

    def __reduce__(self) -> tuple[Any, ...]:
        # Exception pickles as cls(*self.args), which would drop the location.
        return (_rebuild, (type(self), self.reason, self._fields()))

    def _fields(self) -> dict[str, Any]:
        return {
            "function_name": self.function_name,
            "filename": self.filename,
            "lineno": self.lineno,
            "col_offset": self.col_offset,
            "source_line": self.source_line,
            "end_col_offset": self.end_col_offset,
        }

    @property
    def location(self) -> str | None:
        """``"file:line:col"`` with a 1-based character column, like a compiler.

        ``"file:line"`` when the column is unknown, ``None`` without a file.
        """
        if self.filename is None:
            return None
        if self.lineno is None:
            return self.filename
        if self.col_offset is None:
            return f"{self.filename}:{self.lineno}"
        column = _char_column(self.source_line, self.col_offset) + 1
        return f"{self.filename}:{self.lineno}:{column}"

    def __str__(self) -> str:
        if self.function_name is None:
            header = f"cannot convert: {self.reason}"
        else:
            header = f"cannot convert {self.function_name!r}: {self.reason}"
        lines = [header]
        if self.filename is not None:
            frame = f'  File "{self.filename}"'
            if self.lineno is not None:
                frame += f", line {self.lineno}"
            if self.function_name is not None:
                frame += f", in {self.function_name}"
            lines.append(frame)
            lines.extend(self._source_with_caret())
        return "\n".join(lines)

    def _source_with_caret(self) -> list[str]:
        if not self.source_line or not self.source_line.strip():
            return []
        line = self.source_line.rstrip()
        text = line.lstrip()
        indent = len(line) - len(text)
        rendered = ["    " + text]
        if self.col_offset is not None:
            start = _char_column(line, self.col_offset)
            if self.end_col_offset is None:
                end = len(line)
            else:
                end = min(_char_column(line, self.end_col_offset), len(line))
            start = max(start, indent)
            width = max(1, end - start)
            rendered.append("    " + " " * (start - indent) + "^" * width)
        return rendered


class UnsupportedSyntaxError(ConversionError):
    """The function uses syntax that conversion does not support (e.g. ``yield``).

    Example:
        >>> isinstance(UnsupportedSyntaxError("no"), ConversionError)
        True
    """


class SourceUnavailableError(ConversionError):
    """The function's source cannot be read: it was typed into the plain
    ``python`` prompt, or made by exec/eval without a linecache entry.

    `autograph.function` raises it rather than tracing the function as it is
    (where Python control flow on tensors would fail later, less clearly).

    Example:
        >>> isinstance(SourceUnavailableError("no source"), ConversionError)
        True
    """


def _rebuild(
    cls: type[ConversionError], reason: str, fields: dict[str, Any]
) -> ConversionError:
    return cls(reason, **fields)


def _char_column(line: str | None, byte_offset: int) -> int:
    """Converts an ``ast`` column (UTF-8 bytes) into a character index."""
    if not line:
        return byte_offset
    return len(line.encode("utf-8")[:byte_offset].decode("utf-8", errors="replace"))


def error_at(
    node: Any,
    reason: str,
    *,
    function_name: str | None,
    filename: str | None,
    cls: type[ConversionError] = ConversionError,
) -> ConversionError:
    """Builds an error pointing at ``node``'s source (read through ``linecache``).

    The caret spans the node when it fits on its first line, else runs to the
    end of that line. The error is returned, not raised.

    Args:
        node: An ast node whose positions are the original file's.
        reason: Why the node cannot be converted.
        function_name: The user's function.
        filename: The file the positions refer to.
        cls: ``ConversionError`` or a subclass, e.g. ``UnsupportedSyntaxError``.

    Returns:
        An instance of ``cls``.

    Example:
        >>> import ast
        >>> node = ast.parse("x = yield").body[0]
        >>> error = error_at(node, "no", function_name="f", filename="<none>")
        >>> (error.lineno, error.col_offset, error.end_col_offset)
        (1, 0, 9)
    """
    lineno = getattr(node, "lineno", None)
    col_offset = getattr(node, "col_offset", None)
    end_col_offset = None
    if lineno is not None and getattr(node, "end_lineno", None) == lineno:
        end_col_offset = getattr(node, "end_col_offset", None)
    source_line = None
    if filename is not None and lineno is not None:
        source_line = linecache.getline(filename, lineno).rstrip("\r\n") or None
    return cls(
        reason,
        function_name=function_name,
        filename=filename,
        lineno=lineno,
        col_offset=col_offset,
        source_line=source_line,
        end_col_offset=end_col_offset,
    )
