"""From a function object to an ast tree whose positions are the user's.

``parse_entity`` reads a function's source (through ``inspect`` and
``linecache``, so functions typed into IPython/Jupyter cells work too), parses
it with ``ast`` and leaves every node's ``lineno``/``col_offset``/
``end_lineno``/``end_col_offset`` equal to its position in the original file.
Code compiled from the tree therefore carries the user's line numbers.

An indented definition (a method, a nested function) is parsed inside an
``if 1:`` block rather than after dedenting it: columns then need no
correction, and multi-line strings whose lines are indented less than the
``def`` (which defeat ``textwrap.dedent``) parse as they are.

Example:
    >>> def double(x):
    ...     return 2 * x
    >>> parse_entity(double).node.name
    'double'
    >>> unparse(parse_source("y = 2 * x"))
    'y = 2 * x'
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import inspect
import linecache
import operator
import re
import tokenize
import types
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from autograph.errors import ConversionError, SourceUnavailableError
from autograph.pyct import origin_info, source_check, transformer, unparsing

__all__ = ["ParsedEntity", "parse_entity", "parse_source", "unparse"]


_BUILTIN_TYPES = (
    types.BuiltinFunctionType,
    types.MethodDescriptorType,
    types.WrapperDescriptorType,
    types.MethodWrapperType,
    types.ClassMethodDescriptorType,
)


@dataclasses.dataclass(frozen=True)
class ParsedEntity:
    """A function's tree and the source it came from.

    Attributes:
        node: The ``FunctionDef``/``AsyncFunctionDef`` (decorators removed,
            positions kept) or the ``Lambda``; positions are ``filename``'s.
        source: The entity's own text: the ``def`` block with its decorators,
            dedented, or the lambda expression. For display; ``node`` is what
            the file really parses to.
        filename: The file, as the code object names it (``co_filename``).
        lineno: 1-based line in ``filename`` where ``source`` starts.
        col_offset: Column in ``filename`` where ``source`` starts (the indent
            removed, or the lambda's column; UTF-8 bytes, as in ``ast``).
    """

    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
    source: str
    filename: str
    lineno: int
    col_offset: int


def parse_source(source: str, filename: str = "<string>") -> ast.Module:
    """Parses ``source``; positions are those of ``source`` as given.

    Example:
        >>> parse_source("x = 1").body[0].lineno
        1
    """
    return ast.parse(source, filename=filename)


def unparse(node: ast.AST | Sequence[ast.AST]) -> str:
    """Python source for an ast node or a list of nodes (no trailing newline).

    Example:
        >>> unparse(parse_source("if x:\\n  y = 1").body)
        'if x:\\n    y = 1'
    """
    if isinstance(node, (list, tuple)):
        if all(isinstance(item, ast.stmt) for item in node):
            node = ast.Module(body=list(node), type_ignores=[])
        else:
            return "\n".join(unparse(item) for item in node)
    if _has_unlocated_statement(node):
        # ast.unparse reads statements' line numbers (for type comments); a
        # fragment not yet given positions is unparsed from a located copy.
        node = ast.fix_missing_locations(transformer.copy_node(node))
    return unparsing.unparse(node)


def _has_unlocated_statement(node: ast.AST) -> bool:
    """Whether a statement in `node` has no line number. Statements sit only
    in statement blocks: the expressions (most of a tree) are not walked."""
    stack = list(node.body) if isinstance(node, ast.Module) else [node]
    while stack:
        item = stack.pop()
        if isinstance(item, ast.stmt) and getattr(item, "lineno", None) is None:
            return True
        stack.extend(transformer.child_statements(item))
    return False


def parse_entity(entity: Callable[..., Any]) -> ParsedEntity:
    """Parses a function, method or lambda into a tree with the file's positions.

    Args:
        entity: A Python function (``def`` or ``lambda``), a bound or unbound
            method, or a ``staticmethod``/``classmethod`` object. It is used as
            it is: ``__wrapped__`` is not followed.

    Returns:
        The parsed entity.

    Raises:
        ConversionError: ``entity`` is not a Python function, its source is
            not available, the source found does not define it, or it is a
            lambda that cannot be told apart from another on its line.

    Example:
        >>> square = lambda x: x * x
        >>> parsed = parse_entity(square)
        >>> parsed.source
        'lambda x: x * x'
    """
    function = _as_function(entity)
    lines, start = _find_source(function)
    parse = _parse_lambda if function.__code__.co_name == "<lambda>" else _parse_def
    try:
        return parse(function, lines, start)
    except ConversionError:
        # `linecache` may hold the file as it was before the user edited it
        # and reloaded the module (read for an earlier conversion, or a
        # traceback): checked against the disk only now, on failure, as a
        # stat per conversion would cost every conversion.
        linecache.checkcache(function.__code__.co_filename)
        fresh, start = _find_source(function)
        if fresh is lines:
            raise
        return parse(function, fresh, start)


def _as_function(entity: Any) -> Any:
    function = getattr(entity, "__func__", entity)
    if not inspect.isfunction(function):
        name = getattr(entity, "__qualname__", None) or repr(entity)
        kind = type(entity).__name__
        if isinstance(function, _BUILTIN_TYPES):
            reason = "it is a built-in (written in C), which has no Python source"
        elif hasattr(entity, "__wrapped__"):
            reason = (
                f"only Python functions and methods can be converted, got a {kind} "
                "wrapper; convert the function it wraps (its __wrapped__)"
            )
        else:
            reason = f"only Python functions and methods can be converted, got {kind}"
        raise ConversionError(reason, function_name=name)
    return function


def _find_source(function: Any) -> tuple[list[str], int]:
    """All lines of the function's file and the 0-based index where it starts.

    Read from `linecache` (which also holds notebook cells and sources from
    import loaders) at the code's first line when that line starts the
    definition, as it does for any def or lambda; otherwise, or with no
    lines there, `inspect.findsource` searches (it also checks the file on
    disk, two system calls that took a fifth of the parsing time).
    """
    code = function.__code__
    lines = linecache.getlines(code.co_filename, function.__globals__)
    start = code.co_firstlineno - 1
    if 0 <= start < len(lines) and _STARTS_DEFINITION.match(lines[start]):
        return lines, start
    try:
        lines, start = inspect.findsource(function)
    except (OSError, TypeError) as error:
        code = function.__code__
        raise SourceUnavailableError(
            f"its source code is not available ({error}): a function typed into "
            "the plain python prompt, or made by exec/eval without a linecache "
            "entry, cannot be converted; put it in a file, an IPython session or "
            "a notebook cell",
            function_name=function.__name__,
            filename=code.co_filename,
            lineno=code.co_firstlineno,
        ) from None  # the message says what `inspect` said
    return lines, start


def _error(function: Any, reason: str) -> ConversionError:
    code = function.__code__
    lineno = code.co_firstlineno
    return ConversionError(
        reason,
        function_name=function.__name__,
        filename=code.co_filename,
        lineno=lineno,
        source_line=origin_info.source_line(code.co_filename, lineno) or None,
    )


# The first line of a def, a decorated def or a line holding a lambda (the
# lines inspect.findsource accepts as a definition's start).
_STARTS_DEFINITION = re.compile(r"\s*(def\s|async\s+def\s|@|.*(?<!\w)lambda(:|\s))")

_UNREADABLE = (SyntaxError, tokenize.TokenError)
"""What reading a block out of a file can raise (a partial source)."""


_INDENTS = (" ", "\t", "\f")


def _indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t\f"))]


def _parse_block(block: Sequence[str], first_lineno: int) -> list[ast.stmt]:
    """Parses ``block`` (lines starting at file line ``first_lineno``).

    Returns the block's statements with the file's positions: the text is
    preceded by as many empty lines as precede the block in the file.
    """
    text = "".join(block)
    if block[0].startswith(_INDENTS):
        # An indented block parses inside `if 1:`, on the line before it.
        padding = "\n" * (first_lineno - 2)
        return _parse(padding + "if 1:\n" + text).body[0].body
    return _parse("\n" * (first_lineno - 1) + text).body


def _parse(text: str) -> Any:
    """`ast.parse(text)`, without its Python frame."""
    return compile(text, "<unknown>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)


_LINE = operator.itemgetter(2)  # the line of a `co_lines()` entry


def _last_code_line(code: types.CodeType) -> int:
    """The last file line that code of the function (or nested code) is on."""
    last = code.co_firstlineno
    stack = [code]
    while stack:
        current = stack.pop()
        # Lines where instructions start: the end of a statement spanning
        # lines may lie further, but on lines indented deeper than the
        # definition, which the block keeps anyway.
        # (map, filter and max run in C: a function has dozens of entries)
        last = max(last, max(filter(None, map(_LINE, current.co_lines())), default=0))
        stack.extend(c for c in current.co_consts if isinstance(c, types.CodeType))
    return last


def _def_block(
    lines: list[str], start: int, code: types.CodeType | None = None
) -> list[str]:
    """The lines of the definition starting at ``lines[start]``, by indentation.

    The block runs up to the first line, from the definition's second line
    (with ``code``, the function's code: from past its last line of code),
    that is indented no deeper than the definition's first line. That is the
    whole definition unless a string or bracketed expression goes on at a
    smaller indent before it; cut there, the block does not parse.
    """
    depth = len(_indent_of(lines[start]))
    # Where the scan starts: the index of the line after the last line of
    # code (1-based, the last line's number), or of the second line.
    after = start + 1 if code is None else _last_code_line(code)
    end = min(max(start + 1, after), len(lines))
    while end < len(lines):
        line = lines[end]
        text = line.lstrip(" \t\f")
        if text and text[0] not in "#\r\n" and len(line) - len(text) <= depth:
            break
        end += 1
    while end > start + 1 and lines[end - 1].strip()[:1] in ("", "#"):
        end -= 1  # trailing blank and comment lines belong to no one
    return lines[start:end]


def _parse_def_block(
    lines: list[str], start: int, code: types.CodeType | None = None
) -> tuple[list[str], list[ast.stmt]]:
    """`_def_block` and its statements (none where it does not parse)."""
    block = _def_block(lines, start, code)
    try:  # (not contextlib.suppress: no context manager object per call)
        return block, _parse_block(block, start + 1)
    except _UNREADABLE:
        return block, []


def _parse_def(function: Any, lines: list[str], start: int) -> ParsedEntity:
    code = function.__code__
    name = code.co_name
    # The block by indentation alone, from the definition's second line. A
    # decorated definition's `def` line is not indented deeper than its
    # decorators, and a string or bracketed expression may go on at a
    # smaller indent: such blocks are cut short and do not parse, so the
    # block is then looked for past the function's last line of code
    # (`_last_code_line`, a walk over its instructions: most functions need
    # none), and failing that by `inspect.getblock` (a tokenizer, ~10x
    # slower).
    statements: list[ast.stmt] = []
    if not lines[start].lstrip(" \t\f").startswith("@"):
        block, statements = _parse_def_block(lines, start)
    if not _defines(statements, name):
        block, statements = _parse_def_block(lines, start, code)
    if not _defines(statements, name):
        try:
            block = inspect.getblock(lines[start:])
            statements = _parse_block(block, start + 1)
        except _UNREADABLE as error:
            raise _error(function, f"its source does not parse: {error}") from error
        if not _defines(statements, name):
            raise _error(
                function,
                f"the source found does not define {name!r} (was the file changed "
                "after it was imported?)",
            )
    node = statements[0]
    node.decorator_list = []
    if not source_check.compiles_to(node, function, lines):
        raise _error(
            function,
            f"the source of {name!r} in its file is not the code it runs (was the "
            "file changed after it was imported?); reload the module or restart, "
            "then convert it",
        )
    indent = _indent_of(block[0])
    source = "".join(
        (line[len(indent) :] if line.startswith(indent) else line for line in block)
        if indent
        else block  # a module-level definition: nothing to dedent
    )
    return ParsedEntity(
        node=node,
        source=source,
        filename=function.__code__.co_filename,
        lineno=start + 1,
        col_offset=len(indent),
    )


def _defines(statements: list[ast.stmt], name: str) -> bool:
    """Whether ``statements`` is one definition of function ``name``."""
    return (
        len(statements) == 1
        and isinstance(statements[0], (ast.FunctionDef, ast.AsyncFunctionDef))
        and statements[0].name == name
    )


def _parse_lambda(function: Any, lines: list[str], start: int) -> ParsedEntity:
    code = function.__code__
    candidates: list[Any] = []
    matches: list[Any] = []
    for statements in _lambda_contexts(function, lines, start):
        candidates = _lambdas_on_line(statements, code.co_firstlineno)
        matches = _match_lambda(code, candidates)
        if matches:
            break
    if not candidates:
        raise _error(
            function,
            "no lambda found at its line (was the file changed after it was imported?)",
        )
    if not matches:
        raise _error(
            function,
            "no lambda on its line matches its code (was the file changed after "
            "it was imported?)",
        )
    if len(matches) > 1:
        raise _error(
            function,
            f"the lambda is ambiguous: {len(matches)} lambdas on this line look "
            "alike; define it on its own line or use a def",
        )
    node = matches[0]
    if not source_check.compiles_to(node, function, lines):
        raise _error(
            function,
            "the source of the lambda in its file is not the code it runs (was "
            "the file changed after it was imported?); reload the module or "
            "restart, then convert it",
        )
    return ParsedEntity(
        node=node,
        source=_segment(lines, node),
        filename=code.co_filename,
        lineno=node.lineno,
        col_offset=node.col_offset,
    )


def _lambda_contexts(
    function: Any, lines: list[str], start: int
) -> Iterator[list[ast.stmt]]:
    """Statements around a lambda, with file positions: first the block inspect
    finds (from the lambda's line to the end of its logical line), which parses
    on its own unless the lambda sits inside a multi-line expression; then the
    whole file."""
    with contextlib.suppress(*_UNREADABLE):
        yield _parse_block(inspect.getblock(lines[start:]), start + 1)
    try:
        yield ast.parse("".join(lines)).body
    except SyntaxError as error:
        raise _error(
            function, f"the source around it does not parse: {error.msg}"
        ) from error


def _lambdas_on_line(statements: Sequence[ast.stmt], lineno: int) -> list[Any]:
    return [
        node
        for statement in statements
        for node in ast.walk(statement)
        if isinstance(node, ast.Lambda) and node.lineno == lineno
    ]


def _span(node: ast.AST) -> tuple[int, int, int, int]:
    return (node.lineno, node.end_lineno, node.col_offset, node.end_col_offset)


def _code_positions(code: Any) -> set[tuple[int, int, int, int]]:
    """The source spans of the code's instructions; empty where Python keeps
    none (before 3.11, or with ``-X no_debug_ranges``)."""
    positions = getattr(code, "co_positions", None)
    if positions is None:
        return set()
    return {span for span in positions() if None not in span}


def _match_lambda(code: Any, candidates: list[Any]) -> list[Any]:
    """The candidates that compile to ``code``.

    With instruction positions (3.11+), a lambda's code always holds an
    instruction spanning exactly the lambda's body (the one computing the
    returned value), and distinct lambdas have distinct body spans. Without
    them, candidates are told apart by their parameters and by the names their
    body uses; lambdas alike in both stay ambiguous.
    """
    positions = _code_positions(code)
    if positions:
        matches = [node for node in candidates if _span(node.body) in positions]
        if matches:
            return matches
    signature = _code_signature(code)
    matches = [node for node in candidates if _node_signature(node) == signature]
    if len(matches) > 1:
        names = _code_names(code)
        matches = [node for node in matches if _node_names(node) == names]
    return matches


def _code_signature(code: Any) -> tuple[Any, ...]:
    flags = code.co_flags
    count = code.co_argcount + code.co_kwonlyargcount
    names = list(code.co_varnames)
    vararg = names[count] if flags & inspect.CO_VARARGS else None
    kwarg = names[count + bool(vararg)] if flags & inspect.CO_VARKEYWORDS else None
    return (
        tuple(names[: code.co_argcount]),
        tuple(names[code.co_argcount : count]),
        vararg,
        kwarg,
        code.co_posonlyargcount,
    )


def _node_signature(node: ast.Lambda) -> tuple[Any, ...]:
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    return (
        tuple(arg.arg for arg in positional),
        tuple(arg.arg for arg in args.kwonlyargs),
        args.vararg.arg if args.vararg else None,
        args.kwarg.arg if args.kwarg else None,
        len(args.posonlyargs),
    )


def _code_names(code: Any) -> set[str]:
    names = {
        *code.co_names,
        *code.co_varnames,
        *code.co_freevars,
        *code.co_cellvars,
    }
    for const in code.co_consts:
        if inspect.iscode(const):
            names |= _code_names(const)
    return {name for name in names if not name.startswith(".")}


def _node_names(node: ast.Lambda) -> set[str]:
    # Defaults are evaluated outside the lambda's code, so only the parameters
    # and the body count.
    params = node.args
    every = [*params.posonlyargs, *params.args, *params.kwonlyargs]
    every += [params.vararg, params.kwarg]
    names = {arg.arg for arg in every if arg is not None}
    for child in ast.walk(node.body):
        if isinstance(child, ast.Name):
            names.add(child.id)
        elif isinstance(child, ast.Attribute):
            names.add(child.attr)
    return names


def _segment(lines: Sequence[str], node: ast.AST) -> str:
    """The source text of ``node`` (positions are UTF-8 byte columns)."""
    chunk = [line.encode("utf-8") for line in lines[node.lineno - 1 : node.end_lineno]]
    chunk[-1] = chunk[-1][: node.end_col_offset]
    chunk[0] = chunk[0][node.col_offset :]
    return b"".join(chunk).decode("utf-8")
