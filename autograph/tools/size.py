"""How long converted code gets: `python -m autograph.tools.size [PATH ...]`.

Converts every function of the sample corpus and the examples (or of the
given files and directories), reading them as text like the CLI does, and
prints one row per function: its code lines before and after conversion
(blank and comment-only lines not counted), their ratio, and the longest
converted line; then the totals. Generated code is meant to stay close to
its input in length and shape (STYLE 9); this is the number to watch.

Functions that cannot be converted (a generator in the corpus) are listed
with the reason and left out of the totals; the exit status is 0 regardless,
since this is a report, not a check (`autograph --check` is the check).
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import os
import statistics
import sys
import tokenize
from collections.abc import Sequence

from autograph.errors import ConversionError
from autograph.tools.source_file import SourceFile

__all__ = ["Measure", "code_lines", "main", "measure"]

DEFAULT_PATHS = ("tests/samples", "examples")


@dataclasses.dataclass(frozen=True)
class Measure:
    """One function's size before and after conversion.

    Attributes:
        where: `file:line` of its `def`.
        name: `name` or `Class.method`.
        original: Code lines of the original (decorators included).
        converted: Lines of the converted source, or `None` if it failed.
        longest: Length of the longest converted line (0 if it failed).
        error: Why it could not be converted, or `None`.
    """

    where: str
    name: str
    original: int
    converted: int | None
    longest: int
    error: str | None = None


def code_lines(source: str) -> int:
    """Lines holding code: neither blank nor only a comment.

    Example:
        >>> code_lines("def f():\\n\\n    # note\\n    return 1  # one\\n")
        2
    """
    comment_lines = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if (
                token.type == tokenize.COMMENT
                and not token.line[: token.start[1]].strip()
            ):
                comment_lines.add(token.start[0])
    except (tokenize.TokenError, SyntaxError):
        pass
    return sum(
        1
        for number, line in enumerate(source.splitlines(), start=1)
        if line.strip() and number not in comment_lines
    )


def measure(path: str) -> list[Measure]:
    """The size of every function in the file `path` (empty if it does not parse)."""
    with open(path, encoding="utf-8") as file:
        source = file.read()
    try:
        module = SourceFile(source, path)
    except SyntaxError:
        return []
    measures = []
    for function in module.functions():
        where = f"{path}:{function.lineno}"
        original = code_lines(function.original)
        try:
            converted = module.convert(function)
        except ConversionError as error:
            measures.append(
                Measure(where, function.qualname, original, None, 0, error.reason)
            )
            continue
        lines = converted.splitlines()
        longest = max((len(line) for line in lines), default=0)
        measures.append(
            Measure(where, function.qualname, original, len(lines), longest)
        )
    return measures


def _files(paths: Sequence[str]) -> list[str]:
    found = []
    for path in paths:
        if os.path.isfile(path):
            found.append(path)
            continue
        for root, dirs, names in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__")))
            found += [os.path.join(root, n) for n in sorted(names) if n.endswith(".py")]
    return found


def report(measures: Sequence[Measure]) -> str:
    """The table, one row per function, then the totals.

    Example:
        >>> print(report([Measure("a.py:1", "f", 4, 6, 30)]))
        function  where   original  converted  ratio  longest
        f         a.py:1         4          6   1.50       30
        <BLANKLINE>
        1 function: 4 -> 6 code lines (x1.50)
        ratio median 1.50, max 1.50 (f); longest line 30 (f)
    """
    header = ("function", "where", "original", "converted", "ratio", "longest")
    rows = [
        (m.name, m.where, str(m.original), str(m.converted), _ratio(m), str(m.longest))
        if m.error is None
        else (m.name, m.where, str(m.original), "-", "-", f"not converted: {m.error}")
        for m in measures
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(4)]
    lines = [_row(header, widths), *(_row(row, widths) for row in rows), ""]
    done = [m for m in measures if m.error is None and m.converted is not None]
    if not done:
        return "\n".join([*lines, "no functions converted"])
    before = sum(m.original for m in done)
    after = sum(m.converted or 0 for m in done)
    ratios = [(m.converted or 0) / max(m.original, 1) for m in done]
    worst = max(done, key=lambda m: (m.converted or 0) / max(m.original, 1))
    longest = max(done, key=lambda m: m.longest)
    count = f"{len(done)} function" + ("" if len(done) == 1 else "s")
    growth = after / max(before, 1)
    summary = [
        f"{count}: {before} -> {after} code lines (x{growth:.2f})",
        f"ratio median {statistics.median(ratios):.2f}, max {max(ratios):.2f} "
        f"({worst.name}); longest line {longest.longest} ({longest.name})",
    ]
    failed = len(measures) - len(done)
    if failed:
        summary.append(f"{failed} not converted")
    return "\n".join(lines + summary)


def _ratio(m: Measure) -> str:
    return f"{(m.converted or 0) / max(m.original, 1):.2f}"


def _row(cells: Sequence[str], widths: list[int]) -> str:
    name, where, original, converted, ratio, longest = cells
    return (
        f"{name:<{widths[0]}}  {where:<{widths[1]}}  {original:>8}  "
        f"{converted:>9}  {ratio:>5}  {longest:>7}"
    ).rstrip()


def main(argv: Sequence[str] | None = None) -> int:
    """Prints the report for `argv`'s paths (default: the corpus and examples)."""
    parser = argparse.ArgumentParser(
        prog="python -m autograph.tools.size", description=__doc__.splitlines()[0]
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files or directories")
    args = parser.parse_args(argv)
    paths = args.paths or [p for p in DEFAULT_PATHS if os.path.exists(p)]
    measures = [m for path in _files(paths) for m in measure(path)]
    print(report(measures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
