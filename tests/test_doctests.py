"""Every docstring example in `autograph` and `runtime` runs (STYLE 14)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import autograph
import runtime
from tests.versions import TEXT_OF_311_DOCTESTS

# Modules of optional backends -> the library they import (an extra).
NEEDS = {"runtime.operators.jax_backend": "jax"}


def _modules() -> list[str]:
    names = []
    for package in (autograph, runtime):
        names.append(package.__name__)
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if info.name.endswith("__main__"):
                continue
            names.append(info.name)
    return sorted(names)


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples_run(name):
    if name in TEXT_OF_311_DOCTESTS:
        pytest.skip("its examples show Python 3.11's text")
    if name in NEEDS:
        pytest.importorskip(NEEDS[name], reason=f"{NEEDS[name]} is not installed")
    module = importlib.import_module(name)
    result = doctest.testmod(
        module,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        verbose=False,
    )
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
