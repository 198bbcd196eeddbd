"""ANSI colours for Python source and diffs, with the standard `tokenize`.

Keywords, strings, numbers, comments, the names a `def`/`class` introduces
and the `ag__` operator calls each get a colour; everything else, spacing
included, is copied as it is, so stripping the escape codes gives back the
input. Text that does not tokenize (half a statement) is returned uncoloured.

Example:
    >>> python("x = 1  # one")
    'x = \\x1b[36m1\\x1b[0m  \\x1b[90m# one\\x1b[0m'
    >>> strip(python("if ag__.not_(x): pass")) == "if ag__.not_(x): pass"
    True
"""

from __future__ import annotations

import io
import keyword
import re
import tokenize

__all__ = ["RESET", "diff", "python", "strip"]

RESET = "\x1b[0m"
KEYWORD = "\x1b[1;35m"
STRING = "\x1b[32m"
NUMBER = "\x1b[36m"
COMMENT = "\x1b[90m"
DEFINITION = "\x1b[34m"
OPERATOR_CALL = "\x1b[1;33m"
ADDED = "\x1b[32m"
REMOVED = "\x1b[31m"
HUNK = "\x1b[36m"
FILE_HEADER = "\x1b[1m"

_AG = "ag__"
_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")
# Python 3.12 splits f-strings into several tokens; all of them are strings.
_STRING_TOKENS = {"STRING", "FSTRING_START", "FSTRING_MIDDLE", "FSTRING_END"}


def strip(text: str) -> str:
    """`text` without ANSI colour codes.

    Example:
        >>> strip("\\x1b[32m'a'\\x1b[0m")
        "'a'"
    """
    return _ESCAPE.sub("", text)


def python(source: str) -> str:
    """`source` with ANSI colours; uncoloured if it does not tokenize."""
    offsets = [0]
    for line in source.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    try:
        spans = list(_styled_spans(source))
    except (tokenize.TokenError, SyntaxError):
        return source
    pieces = []
    done = 0
    for (start_row, start_col), (end_row, end_col), style in spans:
        start = offsets[start_row - 1] + start_col
        end = offsets[end_row - 1] + end_col
        pieces += [source[done:start], style, source[start:end], RESET]
        done = end
    pieces.append(source[done:])
    return "".join(pieces)


def diff(text: str) -> str:
    """A unified diff with its added, removed and hunk lines coloured.

    Example:
        >>> diff("-a\\n+b\\n")
        '\\x1b[31m-a\\x1b[0m\\n\\x1b[32m+b\\x1b[0m\\n'
    """
    lines = []
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\n")
        if body.startswith(("---", "+++")):
            style = FILE_HEADER
        elif body.startswith("@@"):
            style = HUNK
        elif body.startswith("+"):
            style = ADDED
        elif body.startswith("-"):
            style = REMOVED
        else:
            lines.append(line)
            continue
        lines.append(f"{style}{body}{RESET}{line[len(body) :]}")
    return "".join(lines)


Position = tuple[int, int]


def _styled_spans(source: str) -> list[tuple[Position, Position, str]]:
    spans = []
    before: list[str] = ["", ""]  # the two previous significant tokens
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        style = _style(token, before)
        if style is not None:
            spans.append((token.start, token.end, style))
        if token.type not in (tokenize.NL, tokenize.COMMENT):
            before = [before[1], token.string]
    return spans


def _style(token: tokenize.TokenInfo, before: list[str]) -> str | None:
    kind = tokenize.tok_name[token.type]
    if kind in _STRING_TOKENS:
        return STRING
    if token.type == tokenize.NUMBER:
        return NUMBER
    if token.type == tokenize.COMMENT:
        return COMMENT
    if token.type != tokenize.NAME:
        return None
    if keyword.iskeyword(token.string):
        return KEYWORD
    if token.string == _AG or before == [_AG, "."]:
        return OPERATOR_CALL
    if before[1] in ("def", "class"):
        return DEFINITION
    return None
