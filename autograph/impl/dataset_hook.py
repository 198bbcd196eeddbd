"""Installs `to_graph` as the runtime's dataset-function converter, lazily.

`runtime` never imports `autograph`, so `autograph` hands `runtime.data` the
function that converts `Dataset.map`/`filter`/`reduce` functions
(`set_function_converter`). `import autograph` loads neither the runtime nor
NumPy (issue 24), so the hand-over waits for the runtime: it happens at once
if `runtime.data.dataset` is already imported, and otherwise when it is (a
finder on `sys.meta_path` that finds nothing itself, only wraps the loader's
`exec_module`, and leaves once it has done its work).
"""

from __future__ import annotations

import importlib.util
import sys
import types
from collections.abc import Callable, Sequence
from typing import Any

import autograph

__all__ = ["convert", "install"]

DATASET_MODULE = "runtime.data.dataset"


def convert(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`autograph.to_graph(fn)`, the converter `runtime.data` is given."""
    return autograph.to_graph(fn)


def install() -> None:
    """Gives `runtime.data` the converter now, or when it is imported."""
    module = sys.modules.get(DATASET_MODULE)
    if module is not None:
        module.set_function_converter(convert)
    elif not any(isinstance(finder, _Watcher) for finder in sys.meta_path):
        sys.meta_path.insert(0, _Watcher())


class _Watcher:
    """Wraps the loader of `runtime.data.dataset` when it is imported."""

    def __init__(self) -> None:
        self._finding = False

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: Any = None
    ) -> Any:
        if fullname != DATASET_MODULE or self._finding:
            return None
        self._finding = True
        try:  # the spec the other finders give, with its loader wrapped
            spec = importlib.util.find_spec(fullname)
        finally:
            self._finding = False
        if spec is None or spec.loader is None:
            return None
        spec.loader = _Loader(spec.loader, self)
        return spec


class _Loader:
    """A module's own loader, which hands over the converter after running it."""

    def __init__(self, loader: Any, watcher: _Watcher) -> None:
        self._loader = loader
        self._watcher = watcher

    def create_module(self, spec: Any) -> types.ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        self._loader.exec_module(module)
        module.set_function_converter(convert)
        if self._watcher in sys.meta_path:
            sys.meta_path.remove(self._watcher)

    def __getattr__(self, name: str) -> Any:  # get_source, get_filename, ...
        return getattr(self._loader, name)
