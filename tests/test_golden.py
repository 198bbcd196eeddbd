"""Golden text for everything meant to be read: converted code of the corpus.

Regenerate with `make golden` (sets AUTOGRAPH_REGENERATE_GOLDEN=1) and review
the diff. `ast.unparse` output differs slightly before Python 3.11
(`(a, b) = ...`), so goldens are compared on 3.11+.
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
import textwrap
from pathlib import Path

import pytest

import autograph
from tests.samples import ALL_SAMPLES
from tests.versions import UNPARSE_TEXT_OF_311

GOLDEN = Path(__file__).parent / "golden" / "samples"
REGENERATE = os.environ.get("AUTOGRAPH_REGENERATE_GOLDEN") == "1"


def _function(fn):
    while isinstance(fn, functools.partial):
        fn = fn.func
    if inspect.ismethod(fn):
        fn = fn.__func__
    if not inspect.isfunction(fn):
        fn = type(fn).__call__
    return fn


def _by_module():
    modules: dict[str, list] = {}
    for sample in ALL_SAMPLES:
        fn = _function(sample.fn)
        group = modules.setdefault(fn.__module__.rsplit(".", 1)[-1], [])
        if fn not in group:
            group.append(fn)
    return modules


MODULES = _by_module()


def _render(functions) -> str:
    parts = []
    for fn in functions:
        parts.append(f"# {fn.__qualname__}\n{autograph.to_code(fn)}")
    return "\n".join(parts)


@pytest.mark.skipif(
    sys.version_info < (3, 11), reason="ast.unparse differs before 3.11"
)
@pytest.mark.parametrize("module", sorted(MODULES))
def test_golden_converted_code_of_the_sample_corpus(module):
    path = GOLDEN / f"{module}.py.txt"
    text = _render(MODULES[module])
    if REGENERATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert path.exists(), f"missing golden {path}; run `make golden`"
    assert text == path.read_text(), (
        f"{module}: converted code changed; run `make golden`"
    )


def _source_lines(fn) -> int:
    source = textwrap.dedent(inspect.getsource(fn))
    return sum(
        1
        for line in source.splitlines()
        if line.strip() and not line.strip().startswith(("#", "@"))
    )


@UNPARSE_TEXT_OF_311
def test_golden_corpus_converted_code_is_at_most_one_and_a_half_times_as_long():
    functions = [
        fn for group in MODULES.values() for fn in group if fn.__name__ != "<lambda>"
    ]
    original = sum(_source_lines(fn) for fn in functions)
    converted = sum(len(autograph.to_code(fn).splitlines()) for fn in functions)
    assert converted <= 1.5 * original, (converted, original)


@UNPARSE_TEXT_OF_311
def test_golden_corpus_converted_code_has_no_line_over_100_characters():
    for group in MODULES.values():
        for fn in group:
            for line in autograph.to_code(fn).splitlines():
                assert len(line) <= 100, (fn.__qualname__, line)
