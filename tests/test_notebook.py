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


def test_the_guide_notebook_runs_in_a_kernel():
    notebook = nbformat.read(ROOT / "examples" / "guide.ipynb", as_version=4)
    client = NotebookClient(
        notebook,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(ROOT)}},
    )
    client.execute()
    text = ""  # a cell's stdout may arrive in several pieces
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if output.get("name") == "stdout":
                text += output["text"]
    lines = text.splitlines()
    position = 0
    for expected in EXPECTED:
        assert expected in lines[position:], f"missing {expected!r} in {lines}"
        position = lines.index(expected, position) + 1
