"""Every code block in README.md runs, so the tour never rots."""

from __future__ import annotations

import doctest
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from tests.versions import UNPARSE_TEXT_OF_311

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


@UNPARSE_TEXT_OF_311
def test_readme_python_blocks_run_as_doctests():
    result = doctest.testfile(
        str(README),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
    )
    assert result.attempted > 0
    assert result.failed == 0


def _console_blocks() -> list[tuple[str, str]]:
    """(command, expected output) for each `$ ` line of the console blocks."""
    pairs = []
    for block in re.findall(r"```console\n(.*?)```", README.read_text(), re.S):
        current = None
        for line in block.splitlines():
            if line.startswith("$ "):
                current = [line[2:], []]
                pairs.append(current)
            elif current is not None:
                current[1].append(line)
    return [(cmd, "\n".join(out)) for cmd, out in pairs]


@UNPARSE_TEXT_OF_311
def test_readme_console_commands_print_what_the_readme_shows():
    pairs = _console_blocks()
    assert pairs
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for command, expected in pairs:
        argv = shlex.split(command)
        assert argv[0] == "autograph"
        done = subprocess.run(
            [sys.executable, "-m", "autograph", *argv[1:]],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == expected.strip()


def test_readme_setup_commands_are_make_targets():
    makefile = (ROOT / "Makefile").read_text()
    for target in ("demo", "test"):
        assert re.search(rf"^{target}:", makefile, re.M), target
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in ci


def _tour_as_typed_at_a_prompt() -> str:
    """The README's first Python block as a user would type it: prompts
    removed, a blank line ending each compound statement."""
    block = re.search(r"```python\n(.*?)```", README.read_text(), re.S)
    assert block is not None
    typed = []
    for line in block.group(1).splitlines():
        if line.startswith(">>> "):
            if typed and typed[-1].startswith((" ", "\t")):
                typed.append("")
            typed.append(line[4:])
        elif line.startswith("... "):
            typed.append(line[4:])
    return "\n".join(typed) + "\n"


def test_the_tour_typed_into_a_plain_python_prompt_raises_one_conversion_error():
    """A plain `python` prompt keeps no source: the first call raises one
    ConversionError that says where to put the function (API.md), not a
    warning followed by a TypeError."""
    typed = _tour_as_typed_at_a_prompt()
    assert "collatz_steps(rt.constant(27))" in typed
    done = subprocess.run(
        [sys.executable, "-i", "-q"],
        input=typed,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONSTARTUP": ""},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stderr.count("Traceback") == 1, done.stderr
    assert "autograph.errors.SourceUnavailableError: cannot convert " in done.stderr
    assert "put it in a file, an IPython session or a notebook cell" in done.stderr
    assert "Warning" not in done.stderr
    assert "TypeError" not in done.stderr
