"""Replaces every function a module defines by its converted version.

Module-level functions, the functions, static and class methods and
properties of the classes it defines (nested classes too), and functions
held in its module- or class-level dicts and lists (dispatch tables).
Each is converted with `autograph.to_graph`; what cannot be converted is
counted as refused (with the reason), generator and async functions as not
converted.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import importlib
import inspect
import pkgutil
import sys
import types
from typing import Any

import autograph
from autograph import errors


@dataclasses.dataclass
class Tally:
    """What conversion made of one module's functions."""

    converted: int = 0
    refused: dict[str, list[str]] = dataclasses.field(
        default_factory=lambda: collections.defaultdict(list)
    )
    not_converted: dict[str, list[str]] = dataclasses.field(
        default_factory=lambda: collections.defaultdict(list)
    )
    crashes: list[str] = dataclasses.field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        """A plain-data view for the report."""
        return {
            "converted": self.converted,
            "refused": dict(self.refused),
            "not_converted": dict(self.not_converted),
            "crashes": self.crashes,
        }


def reason_of(error: errors.ConversionError) -> str:
    """A refusal's reason, short enough to group by."""
    return error.reason.split(";")[0].split(" (")[0][:100]


class ModuleConverter:
    """Converts the functions of some modules, in place (a function one of
    them imports from another, `from genericpath import *`, is converted
    once, wherever it is held)."""

    def __init__(self, modules: list[types.ModuleType], tally: Tally) -> None:
        self.modules = modules
        self.names = {m.__name__ for m in modules}
        self.owned = {id(m.__dict__) for m in modules}
        self.tally = tally
        self.done: dict[int, Any] = {}  # id(original) -> replacement
        self.keep: list[Any] = []  # originals stay alive while ids are keys

    def _ours(self, value: Any) -> bool:
        return (
            isinstance(value, types.FunctionType)
            and id(value.__globals__) in self.owned
        )

    def function(self, f: types.FunctionType) -> Any:
        """`f` converted (a dispatcher with f's signature), or `f`."""
        if id(f) in self.done:
            return self.done[id(f)]
        self.keep.append(f)
        name = f"{f.__globals__['__name__']}.{f.__qualname__}"
        flags = f.__code__.co_flags
        new: Any = f
        if flags & (inspect.CO_GENERATOR | inspect.CO_ASYNC_GENERATOR):
            self.tally.not_converted["generator"].append(name)
        elif flags & inspect.CO_COROUTINE:
            self.tally.not_converted["async"].append(name)
        else:
            try:
                # The converted function itself, not `to_graph`'s dispatcher
                # (a frame more, which code that reads its caller's frame,
                # like namedtuple's, would see); it runs converted code always.
                new = autograph.to_graph(f).__ag_converted__
            except errors.ConversionError as e:
                key = reason_of(e)
                if "does not compile" in e.reason:
                    self.tally.crashes.append(f"{name}: {e.reason}")
                else:
                    self.tally.refused[key].append(name)
                autograph.do_not_convert(f)  # run as it is, quietly
            except Exception as e:
                self.tally.crashes.append(f"{name}: {type(e).__name__}: {e}")
                autograph.do_not_convert(f)
            else:
                self.tally.converted += 1
        self.done[id(f)] = new
        return new

    def value(self, value: Any) -> Any:
        """The replacement for a class attribute or table entry, or `value`."""
        if self._ours(value):
            return self.function(value)
        if isinstance(value, staticmethod) and self._ours(value.__func__):
            return staticmethod(self.function(value.__func__))
        if isinstance(value, classmethod) and self._ours(value.__func__):
            return classmethod(self.function(value.__func__))
        if isinstance(value, property):
            parts = [value.fget, value.fset, value.fdel]
            if any(self._ours(p) for p in parts):
                new = [self.function(p) if self._ours(p) else p for p in parts]
                return property(*new, value.__doc__)
        if isinstance(value, functools.cached_property) and self._ours(value.func):
            value.func = self.function(value.func)
        return value

    def table(self, table: Any) -> None:
        """Converts the functions held in a dict or list, in place."""
        if isinstance(table, dict):
            for key, item in list(table.items()):
                new = self.value(item)
                if new is not item:
                    table[key] = new
        elif isinstance(table, list):
            for i, item in enumerate(table):
                new = self.value(item)
                if new is not item:
                    table[i] = new

    def klass(self, cls: type, seen: set[int]) -> None:
        """Converts what class `cls` (defined in the module) defines."""
        if id(cls) in seen:
            return
        seen.add(id(cls))
        for attr, item in list(vars(cls).items()):
            if isinstance(item, type) and item.__module__ in self.names:
                self.klass(item, seen)
                continue
            if isinstance(item, (dict, list)) and not attr.startswith("__"):
                self.table(item)
                continue
            new = self.value(item)
            if new is not item:
                try:
                    setattr(cls, attr, new)
                except (AttributeError, TypeError) as e:
                    self.tally.not_converted[f"class attribute: {e}"[:80]].append(
                        f"{cls.__qualname__}.{attr}"
                    )

    def run(self) -> None:
        """Converts every function the modules define."""
        seen: set[int] = set()
        for module in self.modules:
            for attr, item in list(vars(module).items()):
                if isinstance(item, type) and item.__module__ in self.names:
                    self.klass(item, seen)
                elif isinstance(item, (dict, list)) and not attr.startswith("__"):
                    self.table(item)
                else:
                    new = self.value(item)
                    if new is not item:
                        setattr(module, attr, new)
        self._dispatched()

    def _dispatched(self) -> None:
        """networkx's public functions are dispatchers (written in its
        `utils`) that call the algorithm through their `orig_func`: that one
        is converted where the algorithm is one of ours."""
        backends = sys.modules.get("networkx.utils.backends")
        for dispatcher in getattr(backends, "_registered_algorithms", {}).values():
            if self._ours(dispatcher.orig_func):
                dispatcher.orig_func = self.function(dispatcher.orig_func)


def expand(names: list[str]) -> list[str]:
    """The module names, each `package.*` replaced by the modules of that
    package and its subpackages (their tests, conftest files and the
    modules that do not import here excepted), in order."""
    out: list[str] = []
    for name in names:
        if not name.endswith(".*"):
            out.append(name)
            continue
        package = importlib.import_module(name[:-2])
        out.append(package.__name__)
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            parts = info.name.split(".")
            if any(p in ("tests", "conftest") or p.startswith("test_") for p in parts):
                continue
            try:
                importlib.import_module(info.name)
            except Exception:  # (an optional dependency missing)
                continue
            out.append(info.name)
    return out
