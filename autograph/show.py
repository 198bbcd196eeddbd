"""`show(obj)`: a function's original and converted code, or a graph, for reading.

`show` returns a view object that renders itself where it is looked at:

- a notebook calls its `_repr_html_` (a two-column table of `<pre>` blocks,
  lines aligned as in `autograph.tools.side_by_side`) or, for a graph,
  `_repr_svg_` (Graphviz's `dot -Tsvg` when `dot` is on PATH; without it,
  the text dump and a line that says installing Graphviz gives the picture);
- a terminal shows its `str()`/`repr()`: the two sources side by side, or
  stacked when they do not fit the terminal's width; for a graph, the text
  dump of `graph.as_graph_def()`.

In a script (no interactive prompt, no IPython) `show` also prints the text,
so `show(f)` works there as it does at a prompt.

Graphs are found by duck typing: anything with a `.graph` that has `to_dot()`
(a `ConcreteFunction`), or with `to_dot()` itself (an `rt.Graph`).

Example:
    >>> def relu(x):
    ...     if x > 0:
    ...         return x
    ...     return 0
    >>> view = show(relu)  # doctest: +ELLIPSIS
    relu (<doctest ...>:1)
    ...
    >>> "<pre" in view._repr_html_()
    True
"""

from __future__ import annotations

import functools
import html
import logging
import os
import shutil
import subprocess
import sys
import types
from typing import Any

import autograph
from autograph.pyct import parser
from autograph.tools import side_by_side

__all__ = ["CodeView", "GraphView", "show"]

_log = logging.getLogger(__name__)

DOT_TIMEOUT_S = 10.0
_TITLES = ("original", "converted")
_CELL = "vertical-align:top;padding:0 12px"
_HEAD = "text-align:left;padding:2px 12px;font-family:monospace"
_NOTE = "font-style:italic;margin:2px 0"
NO_DOT_NOTE = (
    "Graphviz's `dot` is not installed, so this is the graph as text; install "
    "Graphviz (e.g. `apt install graphviz`, `brew install graphviz` or `conda "
    "install graphviz`) to see it as a picture."
)


class CodeView:
    """A function's original and converted source, for notebooks and terminals.

    Attributes:
        name: The function's qualified name.
        location: `file:line` of its definition (the file's base name).
        original: Its source as written.
        converted: Its converted source, as `autograph.to_code` returns it.
    """

    def __init__(self, name: str, location: str, original: str, converted: str) -> None:
        self.name = name
        self.location = location
        self.original = original
        self.converted = converted

    def to_text(self, width: int | None = None) -> str:
        """The two sources side by side in `width` columns, else stacked.

        Args:
            width: The most characters a line may take; the terminal's width
                when `None`.
        """
        if width is None:
            width = shutil.get_terminal_size((100, 24)).columns
        body = side_by_side.text(self.original, self.converted, width=width)
        return f"{self.name} ({self.location})\n{body}"

    def __str__(self) -> str:
        return self.to_text()

    __repr__ = __str__

    def _repr_html_(self) -> str:
        rows = side_by_side.align(self.original, self.converted)
        columns = [
            "\n".join("" if row.left is None else row.left for row in rows),
            "\n".join("" if row.right is None else row.right for row in rows),
        ]
        head = "".join(f'<th style="{_HEAD}">{title}</th>' for title in _TITLES)
        cells = "".join(
            f'<td style="{_CELL}{";border-left:1px solid #ccc" if i else ""}">'
            f'<pre style="margin:0">{html.escape(text)}</pre></td>'
            for i, text in enumerate(columns)
        )
        caption = html.escape(f"{self.name} ({self.location})")
        return (
            '<div class="autograph-show">'
            f'<div style="font-family:monospace;font-weight:bold">{caption}</div>'
            f'<table style="border-collapse:collapse"><tr>{head}</tr>'
            f"<tr>{cells}</tr></table></div>"
        )


class GraphView:
    """A graph as SVG (when Graphviz's `dot` is installed) or as a text dump.

    Attributes:
        graph: Anything with `to_dot()` and, for the text dump,
            `as_graph_def()` (an `rt.Graph`).
        name: A title for the view.
    """

    def __init__(self, graph: Any, name: str) -> None:
        self.graph = graph
        self.name = name

    def dot(self) -> str:
        """The graph's Graphviz DOT text."""
        return self.graph.to_dot()

    def text(self) -> str:
        """The readable text dump (`as_graph_def()`), else the DOT text."""
        as_graph_def = getattr(self.graph, "as_graph_def", None)
        if as_graph_def is None:
            return self.dot()
        return str(as_graph_def())

    @functools.cached_property
    def _svg(self) -> str | None:
        return render_svg(self.dot())

    def __str__(self) -> str:
        return f"{self.name}\n{self.text()}"

    __repr__ = __str__

    def _repr_svg_(self) -> str | None:
        return self._svg

    def _repr_html_(self) -> str:
        body = self._svg
        if body is None:
            body = f'<pre style="margin:0">{html.escape(self.text())}</pre>'
            if shutil.which("dot") is None:
                body = f'<div style="{_NOTE}">{html.escape(NO_DOT_NOTE)}</div>' + body
        caption = html.escape(self.name)
        return (
            '<div class="autograph-show">'
            f'<div style="font-family:monospace;font-weight:bold">{caption}</div>'
            f"{body}</div>"
        )


def render_svg(dot_source: str, *, timeout: float = DOT_TIMEOUT_S) -> str | None:
    """SVG from Graphviz's `dot`, or `None` if it is missing, fails or hangs.

    The XML prologue is dropped, so the result can be inlined in HTML.
    """
    program = shutil.which("dot")
    if program is None:
        return None
    try:
        result = subprocess.run(
            [program, "-Tsvg"],
            input=dot_source,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as error:
        _log.info("dot failed, showing the graph as text: %s", error)
        return None
    start = result.stdout.find("<svg")
    if result.returncode != 0 or start < 0:
        _log.info("dot failed, showing the graph as text: %s", result.stderr.strip())
        return None
    return result.stdout[start:]


def show(obj: Any) -> CodeView | GraphView:
    """Original and converted code side by side, or a graph.

    Args:
        obj: A function, method, lambda, `functools.partial`, callable object,
            `autograph.to_graph`/`convert()` result or `Function` (shows its
            code); a `ConcreteFunction` or anything with a `.graph` that has
            `to_dot()`, or an `rt.Graph` (shows the graph).

    Returns:
        A view: HTML/SVG in a notebook, text in a terminal. Outside IPython
        and interactive prompts it is also printed.

    Raises:
        ConversionError: `obj`'s code cannot be read or converted.
        TypeError: `obj` is neither code nor a graph.
    """
    view = _view(obj)
    if _prints_itself():
        print(view)
    return view


def _view(obj: Any) -> CodeView | GraphView:
    graph = getattr(obj, "graph", None)
    if callable(getattr(graph, "to_dot", None)):
        return GraphView(graph, _graph_name(obj, graph))
    if callable(getattr(obj, "to_dot", None)):
        return GraphView(obj, _graph_name(obj, obj))
    function = _python_function(obj)
    parsed = parser.parse_entity(function)
    location = f"{os.path.basename(parsed.filename)}:{parsed.lineno}"
    return CodeView(
        function.__qualname__, location, parsed.source, autograph.to_code(function)
    )


def _graph_name(obj: Any, graph: Any) -> str:
    for candidate in (obj, graph):
        name = getattr(candidate, "name", None)
        if isinstance(name, str) and name:
            return name
    return type(obj).__name__


def _python_function(obj: Any) -> types.FunctionType:
    """The Python function behind `obj`, as `to_code` finds it."""
    seen = obj
    for attr in ("python_function", "__ag_python_function__"):
        obj = getattr(obj, attr, None) or obj
    while isinstance(obj, (types.MethodType, functools.partial)):
        obj = obj.__func__ if isinstance(obj, types.MethodType) else obj.func
    if isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    if not isinstance(obj, types.FunctionType):
        call = type(obj).__call__ if callable(obj) else None
        if isinstance(call, types.FunctionType) and not isinstance(obj, type):
            return call
        raise TypeError(
            "show() takes a function, method, lambda, Function, ConcreteFunction "
            f"or graph; got {type(seen).__name__}"
        )
    return obj


def _prints_itself() -> bool:
    """Whether nothing else will display the view: no prompt echoes it."""
    if hasattr(sys, "ps1"):
        return False
    ipython = sys.modules.get("IPython")
    get_ipython = getattr(ipython, "get_ipython", None)
    return not (get_ipython is not None and get_ipython() is not None)
