"""Markers for tests whose expected text is that of a Python version."""

from __future__ import annotations

import sys

import pytest

UNPARSE_TEXT_OF_311 = pytest.mark.skipif(
    sys.version_info < (3, 11),
    reason="the expected text is ast.unparse's from Python 3.11 on (3.10 writes "
    "'lambda : x' and parenthesises tuple targets)",
)
"""For tests comparing generated source with a fixed text."""

INSTRUCTION_COLUMNS = pytest.mark.skipif(
    sys.version_info < (3, 11),
    reason="telling lambdas on one line apart needs instruction columns (3.11+); "
    "before, such lambdas are refused",
)

# Doctests whose expected output is version-specific text: generated source,
# or Python's own UnboundLocalError message (reproduced exactly).
TEXT_OF_311_DOCTESTS = (
    {"autograph.impl.api", "runtime.operators.variables"}
    if sys.version_info < (3, 11)
    else set()
)
