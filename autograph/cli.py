"""The `autograph` command: what a file's functions become, without running it.

    autograph PATH[::FUNC] ...    (also `python -m autograph`)

Each PATH is read as text and parsed; it is never imported or run, so a file
whose top level raises or has side effects still converts. `-` reads
standard input; a directory stands for the `.py` files under it. Output,
errors and exit codes are described in `EPILOG` (`autograph --help`).
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import io
import os
import sys
import tokenize
from collections.abc import Sequence
from typing import TextIO

import autograph
from autograph.errors import ConversionError
from autograph.tools import highlight, side_by_side
from autograph.tools.regular_files import FileRefusedError, open_regular, read_capped
from autograph.tools.source_file import FunctionSource, SourceFile

__all__ = ["EXIT_CONVERSION_ERROR", "EXIT_OK", "EXIT_USAGE", "main"]

EXIT_OK = 0
EXIT_CONVERSION_ERROR = 1
EXIT_USAGE = 2

STDIN = "-"
_DIFF_STYLES = ("unified", "side")
_STDIN_NAME = "<stdin>"
_SKIPPED_DIRS = {"__pycache__", "node_modules", "build", "dist"}

MAX_SOURCE_BYTES = 16 << 20
"""The most the CLI reads from one file (or standard input)."""

DESCRIPTION = f"""\
Print the converted source of FUNC, or of every top-level function and every
method of a top-level class in PATH. PATH is read as text: it is never
imported or run. Only regular files are read (not FIFOs or devices), and at
most {MAX_SOURCE_BYTES >> 20} MiB of each (and of standard input)."""
EPILOG = """\
examples:
  autograph model.py                 every function and method in model.py
  autograph model.py::train_step     one function (Class.method for a method)
  autograph --diff model.py::step    a unified diff, original -> converted
  autograph --diff=side model.py     original and converted side by side
  cat model.py | autograph -         read the source from standard input
  autograph --check src/             in CI: fail if anything cannot be converted

exit status:
  0  everything converted
  1  a function could not be converted, or a file does not parse
  2  usage error: bad arguments, a missing file or function
"""


class UsageError(Exception):
    """A mistake in the command line: exit status 2, nothing converted."""


@dataclasses.dataclass(frozen=True)
class Target:
    """One file to read and, optionally, the one function to convert in it.

    Attributes:
        path: The file, as given (`-` for standard input).
        function: `name` or `Class.method`, or `None` for every function.
    """

    path: str
    function: str | None


def build_parser() -> argparse.ArgumentParser:
    """The command's argument parser (`--help` shows the examples)."""
    parser = argparse.ArgumentParser(
        prog="autograph",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
    )
    parser.add_argument(
        "targets",
        nargs="+",
        metavar="PATH[::FUNC]",
        help="a Python file ('-' for standard input) or a directory, optionally "
        "with '::' and a function name",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--diff",
        nargs="?",
        const="unified",
        choices=_DIFF_STYLES,
        help="show what changed: --diff for a unified diff, --diff=side for "
        "original and converted side by side",
    )
    mode.add_argument(
        "--check",
        action="store_true",
        help="convert everything, print only errors; exit 1 if any function "
        "cannot be converted",
    )
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="write to FILE instead of stdout"
    )
    parser.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="highlight the output (auto: when writing to a terminal and "
        "NO_COLOR is not set)",
    )
    parser.add_argument(
        "--no-recursive",
        dest="recursive",
        action="store_false",
        help="leave calls to other functions as they are (no converted_call)",
    )
    parser.add_argument("--version", action="version", version=_version())
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command; returns the exit status (0, 1 or 2).

    Args:
        argv: The arguments, without the program name; `sys.argv[1:]` if `None`.
    """
    parser = build_parser()
    try:
        args = parser.parse_args(_bare_diff_means_unified(argv))
    except SystemExit as exit_:  # --help, --version, or a bad argument
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    try:
        return _run(args)
    except UsageError as error:
        print(f"autograph: error: {error}", file=sys.stderr)
        return EXIT_USAGE


def _bare_diff_means_unified(argv: Sequence[str] | None) -> list[str]:
    """`--diff PATH` is `--diff=unified PATH`: the option's optional value must
    not swallow the PATH that follows it."""
    argv = list(sys.argv[1:] if argv is None else argv)
    end = argv.index("--") if "--" in argv else len(argv)
    return [
        "--diff=unified"
        if arg == "--diff" and (i + 1 >= end or argv[i + 1] not in _DIFF_STYLES)
        else arg
        for i, arg in enumerate(argv[:end])
    ] + argv[end:]


def _run(args: argparse.Namespace) -> int:
    targets = [_parse_target(text) for text in args.targets]
    # Every file is read, parsed and its functions found before anything is
    # converted, so a usage error (a missing file or function) prints nothing.
    files: list[tuple[SourceFile, list[FunctionSource]]] = []
    failed = False
    for target in targets:
        found = 0
        unreadable = False
        for path in _expand(target):
            source = _read(path)
            try:
                module = SourceFile(source, _display_name(path))
            except SyntaxError as error:
                name = _display_name(path)
                print(format_syntax_error(error, source, name), file=sys.stderr)
                failed = unreadable = True
                continue
            except ValueError as error:  # e.g. a null byte, before Python 3.12
                print(f"{_display_name(path)}: error: {error}", file=sys.stderr)
                failed = unreadable = True
                continue
            functions = _select(module, target.function)
            found += len(functions)
            files.append((module, functions))
        if not found and target.function is None and not unreadable:
            print(f"autograph: {_no_functions(target.path)}", file=sys.stderr)
    single = len(targets) == 1 and targets[0].function is not None
    with _Output(None if args.check else args.output) as output:
        # Each function is written as soon as it is converted: a large file
        # shows its first functions at once.
        for module, functions in files:
            for function in functions:
                try:
                    converted = module.convert(function, recursive=args.recursive)
                except ConversionError as error:
                    output.flush()  # the error follows what came before it
                    message = format_conversion_error(error, module, function)
                    print(message, file=sys.stderr)
                    failed = True
                    continue
                if not args.check:
                    output.write(_block(module, function, converted, args, single))
    return EXIT_CONVERSION_ERROR if failed else EXIT_OK


def _no_functions(path: str) -> str:
    where = (
        f"the .py files under {path!r} define"
        if path != STDIN and os.path.isdir(path)
        else f"{_display_name(path)!r} defines"
    )
    return (
        f"nothing to convert: {where} no functions (the command converts "
        "top-level functions and the methods of top-level classes)"
    )


class _Output:
    """Where the converted blocks go, one at a time, separated by a blank
    line; a file named by `-o` is created when the first block is written
    (or, empty, at the end)."""

    def __init__(self, path: str | None) -> None:
        self._path = path
        self._file: TextIO | None = None
        self._count = 0

    def __enter__(self) -> _Output:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._path is not None and self._file is None and exc_info[0] is None:
            self._open()
        if self._file is not None:
            self._file.close()
        else:
            sys.stdout.flush()

    def write(self, block: str) -> None:
        stream = self._open() if self._path is not None else sys.stdout
        stream.write(block if not self._count else "\n" + block)
        self._count += 1
        stream.flush()

    def flush(self) -> None:
        if self._path is None:
            sys.stdout.flush()

    def _open(self) -> TextIO:
        if self._file is None:
            assert self._path is not None
            try:
                self._file = open(self._path, "w", encoding="utf-8")  # noqa: SIM115 (__exit__ closes it)
            except OSError as error:
                raise UsageError(
                    f"cannot write {self._path!r}: {error.strerror}"
                ) from None
        return self._file


def _parse_target(text: str) -> Target:
    path, separator, function = text.partition("::")
    if separator and not function:
        raise UsageError(f"no function name after '::' in {text!r}")
    if not path:
        raise UsageError(f"no file before '::' in {text!r}")
    if function and path != STDIN and os.path.isdir(path):
        raise UsageError(f"{path!r} is a directory; '::{function}' needs a file")
    return Target(path, function or None)


def _expand(target: Target) -> list[str]:
    """The files a target stands for: itself, or the `.py` files of a directory."""
    if target.path == STDIN or not os.path.isdir(target.path):
        return [target.path]
    found = []
    for root, dirs, names in os.walk(target.path):
        dirs[:] = sorted(
            d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS
        )
        found += [os.path.join(root, n) for n in sorted(names) if n.endswith(".py")]
    return found


def _display_name(path: str) -> str:
    return _STDIN_NAME if path == STDIN else path


def _read(path: str) -> str:
    """The text of `path` (or stdin), decoded as Python decodes source files."""
    try:
        if path == STDIN:
            stream = sys.stdin.buffer if hasattr(sys.stdin, "buffer") else None
            if stream is not None:
                data = read_capped(stream, MAX_SOURCE_BYTES)
            else:
                text = sys.stdin.read(MAX_SOURCE_BYTES + 1)
                if len(text) > MAX_SOURCE_BYTES:
                    raise FileRefusedError(f"larger than {MAX_SOURCE_BYTES} bytes")
                data = text.encode("utf-8")
        else:
            with open_regular(path) as file:
                data = read_capped(file, MAX_SOURCE_BYTES)
    except FileRefusedError as error:
        raise UsageError(f"cannot read {path!r}: {error}") from None
    except OSError as error:
        raise UsageError(f"cannot read {path!r}: {error.strerror}") from None
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding)
    except (SyntaxError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot decode {path!r} as Python source: {error}") from None


def _select(module: SourceFile, name: str | None) -> list[FunctionSource]:
    if name is None:
        return module.functions()
    try:
        return [module.find(name)]
    except KeyError:
        pass
    names = list(dict.fromkeys(f.qualname for f in module.functions()))
    message = f"no function {name!r} in {module.filename}"
    close = suggestions(name, names)
    if close:
        message += " (did you mean " + " or ".join(map(repr, close)) + "?)"
    if names:
        message += "; it defines: " + ", ".join(names)
    else:
        message += "; it defines no functions"
    raise UsageError(message)


def suggestions(name: str, names: Sequence[str]) -> list[str]:
    """The functions `name` may have meant: the methods called `name` (a
    method is selected as `Class.method`), else the closest spelling.

    Example:
        >>> suggestions("step", ["train", "Model.step", "Model.stop"])
        ['Model.step']
        >>> suggestions("colatz", ["collatz", "relu"])
        ['collatz']
    """
    last = name.rpartition(".")[2]
    methods = [n for n in names if n.rpartition(".")[2] == last and n != name]
    if methods:
        return methods
    close = difflib.get_close_matches(name, names, n=1)
    if close:
        return close
    # `stpe` for `Model.step`: compare the method names alone.
    by_last = {n.rpartition(".")[2]: n for n in reversed(names)}
    close = difflib.get_close_matches(last, list(by_last), n=1)
    return [by_last[close[0]]] if close else []


def _block(
    module: SourceFile,
    function: FunctionSource,
    converted: str,
    args: argparse.Namespace,
    single: bool,
) -> str:
    where = f"{module.filename}:{function.lineno}"
    header = "" if single else f"# {function.qualname} ({where})\n"
    color = _use_color(args.color, args.output)
    if args.diff == "unified":
        label = f"{module.filename}::{function.qualname}"
        diff = "".join(
            difflib.unified_diff(
                function.original.splitlines(keepends=True),
                converted.splitlines(keepends=True),
                fromfile=f"{label} (original, line {function.lineno})",
                tofile=f"{label} (converted)",
            )
        )
        if not diff:
            return f"# {function.qualname} ({where}): unchanged\n"
        return highlight.diff(diff) if color else diff
    if args.diff == "side":
        # Asked for explicitly, so never stacked, however wide.
        view = side_by_side.text(function.original, converted, width=sys.maxsize)
        return header + view + "\n"
    text = header + converted
    return highlight.python(text) if color else text


def _use_color(choice: str, output: str | None, stream: TextIO | None = None) -> bool:
    """Whether to colour: `always`, or `auto` on a terminal without NO_COLOR."""
    if choice != "auto":
        return choice == "always"
    stream = sys.stdout if stream is None else stream
    if output is not None or os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def format_conversion_error(
    error: ConversionError, module: SourceFile, function: FunctionSource
) -> str:
    """`file: in function 'f':`, then `file:line:col: error: reason` and a caret.

    The source line comes from `module` itself (standard input has no file).
    """
    lineno = error.lineno or function.lineno
    line = _line(module.lines, lineno)
    start = None
    end = None
    if error.col_offset is not None and line is not None:
        start = _char_column(line, error.col_offset)
        if error.end_col_offset is not None:
            end = _char_column(line, error.end_col_offset)
    where = f"{module.filename}:{lineno}" + ("" if start is None else f":{start + 1}")
    head = [
        f"{module.filename}: in function {function.qualname!r}:",
        f"{where}: error: {error.reason}",
    ]
    return "\n".join(head + _snippet(line, lineno, start, end))


def format_syntax_error(error: SyntaxError, source: str, filename: str) -> str:
    """`file:line:col: error: message`, the source line and a caret.

    Example:
        >>> try:
        ...     compile("x = (1 +", "m.py", "exec")
        ... except SyntaxError as error:
        ...     print(format_syntax_error(error, "x = (1 +", "m.py"))
        m.py:1:5: error: '(' was never closed
            1 | x = (1 +
              |     ^
    """
    if error.offset is None:  # not about a place in the text (a null byte)
        return f"{filename}: error: {error.msg}"
    lineno = error.lineno or 1
    line = _line(source.splitlines(), lineno)
    start = None if error.offset is None else max(error.offset - 1, 0)
    end = None if start is None else start + 1  # one caret, as Python shows it
    if error.end_lineno == lineno and error.end_offset and start is not None:
        end = max(error.end_offset - 1, start + 1)
    where = f"{filename}:{lineno}" + ("" if start is None else f":{start + 1}")
    return "\n".join(
        [f"{where}: error: {error.msg}", *_snippet(line, lineno, start, end)]
    )


def _line(lines: list[str], lineno: int) -> str | None:
    return lines[lineno - 1].rstrip() if 0 < lineno <= len(lines) else None


def _char_column(line: str, byte_offset: int) -> int:
    """An `ast` column (UTF-8 bytes) as a character index into `line`."""
    return len(line.encode("utf-8")[:byte_offset].decode("utf-8", errors="replace"))


def _snippet(
    line: str | None, lineno: int, start: int | None, end: int | None
) -> list[str]:
    """The line with its number in a gutter, and a caret under [start, end)."""
    if line is None or not line.strip():
        return []
    gutter = f"{lineno:>5} | "
    rendered = [gutter + line]
    if start is not None:
        start = min(start, len(line))
        stop = len(line) if end is None else min(end, len(line))
        # Keep tabs so the caret lines up under tab-indented code.
        pad = "".join(c if c == "\t" else " " for c in line[:start])
        rendered.append(
            " " * (len(gutter) - 2) + "| " + pad + "^" * max(1, stop - start)
        )
    return rendered


def _version() -> str:
    # Imported here: it costs ~10 ms, a few percent of every other command's
    # start-up, and only --version reads it.
    from importlib import metadata

    try:
        version = metadata.version("autograph")
    except metadata.PackageNotFoundError:
        version = getattr(autograph, "__version__", "unknown (not installed)")
    python = ".".join(map(str, sys.version_info[:3]))
    return f"autograph {version} (Python {python})"
