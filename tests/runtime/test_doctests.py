"""The runtime's docstring examples run as doctests."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import runtime

MODULES = [
    "runtime",
    *sorted(
        info.name
        for info in pkgutil.walk_packages(runtime.__path__, "runtime.")
        if not info.name.startswith("runtime.operators")
    ),
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} doctest failures in {name}"
