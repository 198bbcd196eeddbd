"""Shrinks a failing generated program to the lines its failure needs.

``minimize(source, inputs, tensor)`` deletes statements (a line with its
indented block) and unwraps compound statements (a header replaced by its
body) for as long as the program still compiles and ``check_program`` still
gives the same ``kind_of_failure`` on one of the inputs. Greedy, top-down,
repeated to a fixed point: enough to turn a 40-line program into the
3 to 8 lines of a repro in a minute.

Usage (on a campaign's report, see campaign.py):
    python -m tests.program_gen.minimize REPORT.json "part of a class name"
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

from tests.program_gen import HELPERS
from tests.program_gen.check import check_program

_CLAUSES = ("else", "elif", "try", "except", "finally")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _block_end(lines: list[str], i: int) -> int:
    """The index after line ``i`` and the lines indented under it."""
    j = i + 1
    while j < len(lines) and _indent(lines[j]) > _indent(lines[i]):
        j += 1
    return j


def _candidates(lines: list[str], i: int) -> list[list[str]]:
    """Smaller programs: without statement ``i``, or with it unwrapped."""
    j = _block_end(lines, i)
    smaller = [lines[:i] + lines[j:]]
    header = lines[i].strip()
    if header.endswith(":") and j > i + 1 and not header.startswith(_CLAUSES):
        shift = _indent(lines[i + 1]) - _indent(lines[i])
        smaller.append(
            lines[:i] + [line[shift:] for line in lines[i + 1 : j]] + lines[j:]
        )
    return smaller


def minimize(
    source: str,
    inputs: Sequence[tuple[int, int]],
    tensor: bool = False,
    backend: str = "graph",
) -> tuple[str, tuple[int, int] | None]:
    """The smallest program found that fails like ``source``.

    Args:
        source: A module from ``programs()`` whose check fails.
        inputs: The input pairs it fails on.
        tensor: Whether it is a tensor-mode program.
        backend: The staging backend of check (b) (``check.BACKENDS``).

    Returns:
        The minimized module source and one input pair it fails on (None if
        ``source`` did not fail at all).
    """
    head, body = source.split("\ndef program", 1)
    signature, *lines = body.split("\n")
    lines = [line for line in lines if line.strip()]
    target = check_program(source, inputs, tensor, backend).kind_of_failure

    def failing_input(candidate: list[str]) -> tuple[int, int] | None:
        text = "\n".join([f"{head}\ndef program{signature}", *candidate]) + "\n"
        try:
            compile(text, "<candidate>", "exec")
        except SyntaxError:
            return None
        for pair in inputs:
            verdict = check_program(text, [pair], tensor, backend)
            if verdict.kind != "ok" and verdict.kind_of_failure == target:
                return pair
        return None

    changed = True
    while changed:
        changed = False
        i = 0
        while i < len(lines):
            for candidate in _candidates(lines, i):
                if failing_input(candidate):
                    lines, changed = candidate, True
                    break
            else:
                i += 1
    text = "\n".join([f"{head}\ndef program{signature}", *lines]) + "\n"
    return text, failing_input(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", help="a campaign's JSON report")
    parser.add_argument("failure", help="part of the failure class's name")
    args = parser.parse_args()
    with open(args.report) as f:
        report = json.load(f)
    key, entry = next((k, v) for k, v in report["classes"].items() if args.failure in k)
    example = entry["example"]
    source = HELPERS + "\ndef program" + example["body"]
    inputs = [tuple(pair) for pair in example["inputs"]]
    mode = report["mode"]
    backend = "jax" if mode == "jax" else "graph"
    text, pair = minimize(source, inputs, mode != "python", backend)
    print(key)
    print(f"inputs: {pair}")
    print("def program" + text.split("\ndef program", 1)[1])


if __name__ == "__main__":
    main()
