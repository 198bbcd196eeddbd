"""The guide-tour notebook runs in a real Jupyter kernel and prints its points."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]

EXPECTED = [
    "eager: [[1.0, 0.0]]",
    "graph: [[1.0, 0.0]]",
    "Tracing with <rt.Tensor 'a:0' shape=() dtype=int32>",
    "Tracing with <rt.Tensor 'a:0' shape=() dtype=float32>",
    "traces: 2",
    "Traced with 1",
    "Executed with 1",
    "Executed with 1",
    "Traced with 2",
    "Executed with 2",
    "collatz(27) steps: 111",
    "graph ops: ['While']",
    "def collatz(n):",
    "small: loss 3, 5 nodes",
    "big: loss 10000, 5 nodes",
    "d(v + 1)/dv: 1.0",
    "d(x**4)/dx at 2: 32.0",
    "w = 3.00, b = -1.00",
]


NOTEBOOK = ROOT / "examples" / "guide.ipynb"


def _printed_lines(notebook: nbformat.NotebookNode) -> list[str]:
    text = ""  # a cell's stdout may arrive in several pieces
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if output.get("name") == "stdout":
                text += output["text"]
    return text.splitlines()


def _assert_prints_the_expected_lines(lines: list[str]) -> None:
    position = 0
    for expected in EXPECTED:
        assert expected in lines[position:], f"missing {expected!r} in {lines}"
        position = lines.index(expected, position) + 1


def test_the_guide_notebook_runs_in_a_kernel():
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(ROOT)}},
    )
    client.execute()
    _assert_prints_the_expected_lines(_printed_lines(notebook))


def test_the_committed_notebook_holds_its_outputs():
    """It reads on a code-hosting page without running it (`make notebook`
    saves them): the printed lines, the loss curve and the graph picture."""
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    _assert_prints_the_expected_lines(_printed_lines(notebook))
    kinds = {
        kind
        for cell in notebook.cells
        for output in cell.get("outputs", [])
        for kind in output.get("data", {})
    }
    assert {"image/png", "image/svg+xml"} <= kinds, kinds
    unrun = [
        cell.source.splitlines()[0]
        for cell in notebook.cells
        if cell.cell_type == "code" and cell.execution_count is None
    ]
    assert not unrun, f"cells saved without running: {unrun}"
