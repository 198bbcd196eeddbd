"""Tests for `show` (autograph/show.py): code side by side, graphs as SVG or text."""

from __future__ import annotations

import functools
import importlib
import os
import re
import sys
from pathlib import Path

import pytest

import autograph
from autograph.impl import api

show_module = importlib.import_module("autograph.show")
show = show_module.show


def clip(x):
    if x > 1:
        x = 1
    return x


def compare(a, b):
    if a < b and b > 0:
        return "<b>&</b>"
    return a


class Model:
    def step(self, x):
        while x > 10:
            x = x // 2
        return x


class FakeGraph:
    """Just what `show` needs of an `rt.Graph`."""

    name = "fake_graph"

    def to_dot(self) -> str:
        return "digraph { a -> b }"

    def as_graph_def(self) -> str:
        return 'node { name: "a" op: "Const" }\nnode { name: "b" input: "a" }'


class FakeConcreteFunction:
    name = "f_concrete"
    graph = FakeGraph()


@pytest.fixture
def quiet(monkeypatch):
    """As at an interactive prompt: `show` does not print."""
    monkeypatch.setattr(sys, "ps1", ">>> ", raising=False)


@pytest.fixture
def no_dot(monkeypatch):
    monkeypatch.setattr(show_module.shutil, "which", lambda name: None)


def fake_dot(directory: Path, script: str, monkeypatch) -> None:
    dot = directory / "dot"
    dot.write_text("#!/bin/sh\n" + script)
    dot.chmod(0o755)
    monkeypatch.setenv("PATH", str(directory))


# -- code -----------------------------------------------------------------------


def test_a_function_is_shown_with_original_and_converted_side_by_side(quiet):
    view = show(clip)
    lines = view.to_text(width=200).splitlines()
    line = clip.__code__.co_firstlineno
    assert lines[0] == f"clip (test_show.py:{line})"
    assert lines[1].split() == ["original", "converted"]
    assert lines[3].split() == ["def", "clip(x):", "def", "clip(x):"]
    assert lines[-1].split() == ["return", "x", "return", "x"]
    assert view.converted == autograph.to_code(clip)
    assert view.original.startswith("def clip(x):\n    if x > 1:")


def test_the_text_is_stacked_when_the_columns_do_not_fit(quiet):
    text = show(clip).to_text(width=20)
    original, converted = text.split("\n\n")
    assert original.splitlines()[1:3] == ["original", "--------"]
    assert converted.splitlines()[:3] == ["converted", "---------", "def clip(x):"]


def test_str_and_repr_are_the_text_view_at_the_terminal_width(quiet, monkeypatch):
    monkeypatch.setenv("COLUMNS", "30")
    view = show(clip)
    assert str(view) == repr(view) == view.to_text(width=30)


def test_the_html_is_a_table_of_two_escaped_pre_columns(quiet):
    page = show(compare)._repr_html_()
    assert page.count("<table") == 1 and page.count("<pre") == 2
    assert "&lt;b&gt;&amp;&lt;/b&gt;" in page
    assert "<b>" not in page
    assert "a &lt; b" in page


def test_the_html_columns_are_aligned_line_for_line(quiet):
    page = show(Model.step)._repr_html_()
    columns = re.findall(r"<pre[^>]*>(.*?)</pre>", page, flags=re.S)
    assert len(columns) == 2
    original, converted = (column.split("\n") for column in columns)
    assert len(original) == len(converted)
    assert original[0] == converted[0] == "def step(self, x):"


def test_show_prints_the_text_when_no_prompt_will_display_it(capsys):
    view = show(clip)
    assert capsys.readouterr().out == str(view) + "\n"


def test_show_prints_nothing_at_an_interactive_prompt(quiet, capsys):
    show(clip)
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize(
    "entity, name",
    [
        (Model().step, "Model.step"),
        (Model.step, "Model.step"),
        (functools.partial(clip, 3), "clip"),
        (autograph.to_graph(clip), "clip"),
        (autograph.convert()(clip), "clip"),
    ],
    ids=["bound method", "function", "partial", "to_graph", "convert"],
)
def test_show_finds_the_python_function_behind_wrappers(quiet, entity, name):
    view = show(entity)
    assert view.name == name
    assert view.converted == api.to_code(entity)


def test_show_of_a_lambda_shows_the_lambda_expression(quiet):
    square = lambda x: x * x if x > 0 else 0
    view = show(square)
    assert view.original == "lambda x: x * x if x > 0 else 0"
    assert "ag__." in view.converted


def test_show_of_something_that_is_not_code_or_a_graph_is_a_type_error(quiet):
    with pytest.raises(TypeError) as raised:
        show(42)
    assert str(raised.value) == (
        "show() takes a function, method, lambda, Function, ConcreteFunction or "
        "graph; got int"
    )


# -- graphs ---------------------------------------------------------------------


def test_a_graph_falls_back_to_its_text_dump_without_dot(quiet, no_dot):
    view = show(FakeGraph())
    assert view._repr_svg_() is None
    assert str(view) == (
        'fake_graph\nnode { name: "a" op: "Const" }\nnode { name: "b" input: "a" }'
    )
    page = view._repr_html_()
    assert "<pre" in page and "&quot;Const&quot;" in page
    # A notebook says how to get the picture.
    assert "install Graphviz (e.g. `apt install graphviz`" in page


def test_a_concrete_function_shows_its_graph_under_its_name(quiet, no_dot):
    view = show(FakeConcreteFunction())
    assert view.graph is FakeConcreteFunction.graph
    assert str(view).splitlines()[0] == "f_concrete"


@pytest.mark.skipif(os.name != "posix", reason="the fake dot is a shell script")
def test_a_graph_is_rendered_as_svg_when_dot_is_on_the_path(
    quiet, tmp_path, monkeypatch
):
    fake_dot(
        tmp_path,
        'test "$1" = -Tsvg || exit 3\n'
        'read -r line; printf \'<?xml version="1.0"?>\\n<svg>%s</svg>\\n\' "$line"\n',
        monkeypatch,
    )
    view = show(FakeGraph())
    assert view._repr_svg_() == "<svg>digraph { a -> b }</svg>\n"
    assert "<svg>digraph" in view._repr_html_()
    assert "<?xml" not in view._repr_html_()


@pytest.mark.skipif(os.name != "posix", reason="the fake dot is a shell script")
def test_a_failing_dot_falls_back_to_the_text_dump(quiet, tmp_path, monkeypatch):
    fake_dot(tmp_path, "echo 'syntax error' >&2\nexit 1\n", monkeypatch)
    view = show(FakeGraph())
    assert view._repr_svg_() is None
    assert "&quot;Const&quot;" in view._repr_html_()
    assert "install Graphviz" not in view._repr_html_()  # it is installed


@pytest.mark.skipif(os.name != "posix", reason="the fake dot is a shell script")
def test_a_hanging_dot_is_given_up_after_the_timeout(tmp_path, monkeypatch):
    fake_dot(tmp_path, "exec sleep 30\n", monkeypatch)
    assert show_module.render_svg("digraph {}", timeout=0.2) is None


def test_a_real_graph_shows_its_text_dump(quiet, no_dot):
    rt = pytest.importorskip("runtime")
    graph = rt.Graph("relu_graph")
    with graph.as_default():
        x = graph.placeholder(rt.float32, (), name="x")
        autograph.to_graph(clip)(x)
    view = show(graph)
    assert str(view) == "relu_graph\n" + str(graph.as_graph_def())
    assert "cond" in str(view)


def test_a_traced_concrete_function_shows_its_graph_and_a_function_its_code(
    quiet, no_dot
):
    rt = pytest.importorskip("runtime")
    if not hasattr(autograph, "function"):
        pytest.skip("autograph.function (the tracer) is not exported yet")
    traced = autograph.function(clip)
    concrete = traced.get_concrete_function(rt.TensorSpec((), rt.float32))
    graph_view = show(concrete)
    assert isinstance(graph_view, show_module.GraphView)
    assert str(graph_view).endswith(str(concrete.graph.as_graph_def()))
    code_view = show(traced)
    assert isinstance(code_view, show_module.CodeView)
    assert code_view.converted == autograph.to_code(clip)


# -- notebooks ------------------------------------------------------------------


_SHELL_GLOBALS = ("ps1", "ps2", "displayhook", "excepthook")


@pytest.fixture
def ipython():
    pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.hist_file = ":memory:"
    # The shell sets process-wide hooks and prompts; put them back afterwards.
    saved = {name: getattr(sys, name, None) for name in _SHELL_GLOBALS}
    shell = InteractiveShell.instance(config=config)
    yield shell
    InteractiveShell.clear_instance()
    for name, value in saved.items():
        if value is None:
            vars(sys).pop(name, None)
        else:
            setattr(sys, name, value)


CELL = """\
def relu(x):
    if x > 0:
        return x
    return 0
"""


def test_to_code_and_show_work_for_a_function_defined_in_an_ipython_cell(
    ipython, capsys
):
    assert ipython.run_cell(CELL).success
    relu = ipython.user_ns["relu"]
    assert relu.__code__.co_filename.startswith("<ipython-input-")
    code = autograph.to_code(relu)
    assert code.startswith("def relu(x):\n") and "ag__." in code
    # `autograph.show` is this function once `autograph/__init__.py` exports it
    # (until then the name is the submodule).
    entry = autograph.show if callable(autograph.show) else show
    view = entry(relu)
    assert capsys.readouterr().out == ""  # IPython displays it, show does not print
    page = view._repr_html_()
    assert "def relu(x):" in page and page.count("<pre") == 2


def test_a_cell_ending_in_show_displays_html(ipython):
    assert ipython.run_cell(CELL).success
    result = ipython.run_cell("from autograph.show import show\nshow(relu)")
    assert result.success
    data, _ = ipython.display_formatter.format(result.result)
    assert "text/html" in data and "<table" in data["text/html"]
    assert data["text/plain"].startswith("relu (<ipython-input-")
