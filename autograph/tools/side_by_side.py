"""Original and converted code in two aligned columns.

Lines are matched on their stripped text (conversion re-indents the blocks it
moves into generated functions), so a statement that survives conversion sits
beside itself. Between the columns, as in `diff -y`: nothing for lines that
match, `|` for changed ones, `<` for lines only on the left and `>` for lines
only on the right. When the two columns do not fit the width, they are
stacked instead.

Example:
    >>> print(text("x = 1\\ny = 2\\n", "x = 1\\nz = 3\\n", width=40))
    original   converted
    --------   ---------
    x = 1      x = 1
    y = 2    | z = 3
"""

from __future__ import annotations

import dataclasses
import difflib

__all__ = ["Row", "align", "text"]

_GAP = 3  # the marker and a space on either side


@dataclasses.dataclass(frozen=True)
class Row:
    """One line of the aligned view.

    Attributes:
        left: The original line, or `None` where the original has no line.
        right: The converted line, or `None` where the converted has no line.
        mark: `" "` same statement, `"|"` changed, `"<"` removed, `">"` added.
    """

    left: str | None
    right: str | None
    mark: str


def align(left: str, right: str) -> list[Row]:
    """Rows pairing `left`'s lines with `right`'s.

    Example:
        >>> [row.mark for row in align("a\\nb\\n", "a\\nc\\nd\\n")]
        [' ', '|', '>']
    """
    left_lines, right_lines = left.splitlines(), right.splitlines()
    matcher = difflib.SequenceMatcher(
        None,
        [line.strip() for line in left_lines],
        [line.strip() for line in right_lines],
        autojunk=False,
    )
    rows = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            rows += [
                Row(a, b, " ") for a, b in zip(left_lines[i1:i2], right_lines[j1:j2])
            ]
            continue
        olds, news = left_lines[i1:i2], right_lines[j1:j2]
        for k in range(max(len(olds), len(news))):
            old = olds[k] if k < len(olds) else None
            new = news[k] if k < len(news) else None
            rows.append(Row(old, new, _mark(old, new)))
    return rows


def _mark(old: str | None, new: str | None) -> str:
    if old is None:
        return ">"
    return "<" if new is None else "|"


def text(
    left: str,
    right: str,
    *,
    width: int,
    titles: tuple[str, str] = ("original", "converted"),
) -> str:
    """The two sources side by side in `width` columns, or stacked if too wide.

    Args:
        left: The original source.
        right: The converted source.
        width: The most characters a line may take.
        titles: The columns' headings.

    Returns:
        The view, without a trailing newline.

    Example:
        >>> print(text("x = 1\\n", "x = 1\\ny = 2\\n", width=10))
        original
        --------
        x = 1
        <BLANKLINE>
        converted
        ---------
        x = 1
        y = 2
    """
    rows = align(left, right)
    left_width = max([len(titles[0])] + [len(row.left or "") for row in rows])
    right_width = max([len(titles[1])] + [len(row.right or "") for row in rows])
    if left_width + _GAP + right_width > width:
        return "\n\n".join(
            "\n".join([title, "-" * len(title), *source.splitlines()])
            for title, source in zip(titles, (left, right))
        )
    header = [
        (titles[0], " ", titles[1]),
        ("-" * len(titles[0]), " ", "-" * len(titles[1])),
    ]
    lines = [
        f"{a:<{left_width}} {mark} {b}".rstrip()
        for a, mark, b in header
        + [(row.left or "", row.mark, row.right or "") for row in rows]
    ]
    return "\n".join(lines)
