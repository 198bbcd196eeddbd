"""Text of values as `rt.print` (like `tf.print`) shows them.

    >>> import numpy as np
    >>> format_value(np.array([1.0, 2.5], np.float32))
    '[1 2.5]'
    >>> format_value(np.arange(10))
    '[0 1 2 ... 7 8 9]'
    >>> format_value(np.array("hi", dtype=object))
    'hi'

Numbers use the shortest text that reads back as the same value at the
tensor's precision; arrays longer than `2 * summarize` show their first and
last `summarize` items around `...`, per dimension.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["format_template", "format_value"]


def _scalar(value: Any, kind: str, np_type: Any, top: bool) -> str:
    if kind == "f":
        if np.isnan(value):
            return "nan"
        if np.isinf(value):
            return "inf" if value > 0 else "-inf"
        short, full = (6, 9) if np_type == np.float32 else (15, 17)
        text = f"{value:.{short}g}"
        if np_type(text) != value:
            text = f"{value:.{full}g}"
        return text
    if kind == "O":
        return str(value) if top else f'"{value}"'
    return str(value)


def _array(a: np.ndarray, summarize: int, depth: int) -> str:
    n = a.shape[0]
    if summarize >= 0 and n > 2 * summarize:
        index: list[int | None] = [*range(summarize), None, *range(n - summarize, n)]
    else:
        index = list(range(n))
    if a.ndim == 1:
        kind, np_type = a.dtype.kind, a.dtype.type
        items = [
            "..." if i is None else _scalar(a[i], kind, np_type, False) for i in index
        ]
        return "[" + " ".join(items) + "]"
    rows = ["..." if i is None else _array(a[i], summarize, depth + 1) for i in index]
    separator = "\n" * (a.ndim - 1) + " " * (depth + 1)
    return "[" + separator.join(rows) + "]"


def format_value(value: Any, summarize: int = 3) -> str:
    """The `tf.print` text of one NumPy value (a bare string for strings)."""
    a = np.asarray(value)
    if a.ndim == 0:
        return _scalar(
            a.item() if a.dtype.kind == "O" else a[()], a.dtype.kind, a.dtype.type, True
        )
    if a.size == 0:
        return "[]"
    return _array(a, summarize, 0)


def format_template(template: Any, values: Any, summarize: int = 3) -> str:
    """Fills a print template: ("text", s), ("tensor", k), a bracketed
    ("seq", open, close, items) / ("dict", [(key text, item)]), or
    ("join", items) written one after the other, in which ("value", k) is
    the text an f-string gives for an eager scalar (`5.0`)."""
    kind = template[0]
    if kind == "text":
        return template[1]
    if kind == "tensor":
        return format_value(values[template[1]], summarize)
    if kind == "value":  # as an f-string shows an eager tensor's value
        value = np.asarray(values[template[1]])
        if value.ndim == 0 and value.dtype.kind != "O":
            return str(value.item())
        return format_value(value, summarize)
    if kind == "join":  # a message: its text and the values it shows
        return "".join(format_template(t, values, summarize) for t in template[1])
    if kind == "seq":
        _, opening, closing, items = template
        inner = ", ".join(format_template(t, values, summarize) for t in items)
        return f"{opening}{inner}{closing}"
    pairs = ", ".join(
        f"{key}: {format_template(t, values, summarize)}" for key, t in template[1]
    )
    return "{" + pairs + "}"
