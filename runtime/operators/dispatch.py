"""The one dispatch point between plain Python and a backend.

Every operator that converted code calls (`if_stmt`, `while_stmt`, `and_`,
...) asks this registry for an implementation keyed by the *type* of the value
it dispatches on (a condition, an iterable, a list). A missing entry means
"run as plain Python". A backend registers one function per operator:

    >>> from runtime.operators import dispatch
    >>> class Traced: ...
    >>> class JitTraced(Traced): ...
    >>> dispatch.register("not_", Traced, lambda value: "graph not")
    >>> dispatch.lookup("not_", JitTraced()) is not None
    True
    >>> dispatch.lookup("not_", True) is None
    True
    >>> dispatch.unregister("not_", Traced)

Rules every operator follows:

- Lookup follows the class hierarchy: a value whose type is not registered
  gets the implementation of its nearest registered base class (JAX has a
  tracer class per transformation, all `jax.core.Tracer`s). The answer is
  cached per exact type, so the hot path is one dict hit: `TABLES[op][type]`
  (`dict.get` would skip the hierarchy; operators index the table).
- A backend may decline a value by returning `NotImplemented`: the operator
  then runs its plain Python (JAX values that are concrete, under an eager
  `jax.grad`, work as Python values).
- Backends may register lazily (`register_lazy_backend`): the module that
  registers them is imported only when a value of their library is first
  looked up, or when that library is already imported when a function is
  converted (`load_imported_backends`). So `import runtime` never imports JAX.

The graph backend (`runtime.operators.graph_backend`) registers
`runtime.tensor.SymbolicTensor`; the JAX backend (`jax_backend`) registers
`jax.core.Tracer`.
"""

from __future__ import annotations

import contextlib
import importlib
import sys

# Own references: a user's `builtins.len = spy` does not see our calls.
from builtins import any, getattr, isinstance, sorted, type
from collections.abc import Callable
from typing import Any

from runtime import context


class _Table(dict):
    """One operator's table: `table[value_type]` is the implementation for
    that type (its own or its nearest registered base class's), or None.

    The dict itself is the per-exact-type cache; `registered` holds what
    backends registered.
    """

    __slots__ = ("registered",)

    def __init__(self) -> None:
        super().__init__()
        self.registered: dict[type, Callable[..., Any]] = {}

    def __missing__(self, value_type: type) -> Callable[..., Any] | None:
        if _load_backend_for(value_type):
            return self[value_type]  # the backend's registration reset the cache
        impl = None
        for base in getattr(value_type, "__mro__", ()):
            impl = self.registered.get(base)
            if impl is not None:
                break
        self[value_type] = impl
        return impl

    def reset(self) -> None:
        """Drops the cached answers (after a registration changed)."""
        self.clear()
        self.update(self.registered)


# Operator name -> {value type -> implementation or None}. The operators read
# these tables directly on their hot path: `TABLES[op][type(value)]`.
TABLES: dict[str, _Table] = {
    name: _Table()
    for name in (
        "if_stmt",
        "while_stmt",
        "for_stmt",
        "for_range",
        "and_",
        "or_",
        "not_",
        "if_exp",
        "assert_stmt",
        "print_",
        "range_",
        "len_",
        "int_",
        "float_",
        "list_append",
        "list_pop",
    )
}


# Operator name -> implementations asked, in order, when no argument's type
# claims the operator (`print("done")` while JAX traces: a backend that
# stages every print while it is active). Each declines (`NotImplemented`)
# while its backend is not active.
UNCLAIMED: dict[str, list[Callable[..., Any]]] = {"print_": []}


def register_unclaimed(operator: str, impl: Callable[..., Any]) -> None:
    """Makes `operator` ask `impl` when none of its arguments is of a
    registered type (see `UNCLAIMED`)."""
    if impl not in UNCLAIMED[operator]:
        UNCLAIMED[operator].append(impl)


# Functions that say whether a backend is active right now (e.g. a graph is
# being built). While none is, no value can be claimed by a backend.
_ACTIVITY_CHECKS: list[Callable[[], bool]] = []

# Library root module (e.g. "jax") -> the module that registers its backend,
# for backends not imported yet.
_LAZY: dict[str, str] = {}


def register_activity_check(check: Callable[[], bool], *, hinted: bool = False) -> None:
    """Registers a backend's "am I active?" predicate (see `any_active`).

    Args:
        check: The predicate (for this thread).
        hinted: Whether the backend counts its activations in
            `runtime.context.ACTIVE_HINT` (so that while the hint is zero,
            `check()` is known to be false on every thread). Without one the
            hint stays above zero, and every call of a `to_graph` result asks
            `any_active()`.
    """
    if check not in _ACTIVITY_CHECKS:
        _ACTIVITY_CHECKS.append(check)
        if not hinted:
            context.add_to_active_hint(1)


def any_active() -> bool:
    """Whether any backend is active, i.e. some value may be dispatched.

    While this is false every operator runs its plain-Python equivalent, so a
    converted function computes exactly what the original does; `to_graph`
    uses that to run the original directly, at no overhead. A lazy backend
    whose library has been imported meanwhile is loaded first.
    """
    if _LAZY:
        load_imported_backends()
    return any(check() for check in _ACTIVITY_CHECKS)


def register(operator: str, value_type: type, impl: Callable[..., Any]) -> None:
    """Makes `operator` call `impl` when its dispatch value is a `value_type`
    (or of a subclass that has no registration of its own)."""
    if operator not in TABLES:
        raise KeyError(f"unknown operator {operator!r}; known: {sorted(TABLES)}")
    table = TABLES[operator]
    table.registered[value_type] = impl
    table.reset()


def unregister(operator: str, value_type: type) -> None:
    """Removes a registration made by `register` (no error if absent)."""
    table = TABLES[operator]
    table.registered.pop(value_type, None)
    table.reset()


def lookup(operator: str, value: Any) -> Callable[..., Any] | None:
    """The implementation for `type(value)`, or None for plain Python."""
    return TABLES[operator][type(value)]


def register_lazy_backend(library: str, module: str) -> None:
    """Imports `module` (which registers a backend) once values of `library`
    (a top-level package name, e.g. "jax") are first looked up, or once
    `library` is imported and a backend's activity is asked.

    Nothing is imported now: `library` may be slow to import or absent.
    """
    if module in sys.modules:
        return
    _LAZY[library] = module
    if library in sys.modules:
        load_imported_backends()
    elif _WATCHER not in sys.meta_path:
        sys.meta_path.insert(0, _WATCHER)


def load_imported_backends() -> None:
    """Loads the lazy backends whose library is already imported (called when
    a function is converted, and by `any_active`)."""
    for library in [lib for lib in _LAZY if lib in sys.modules]:
        _load(library)


def _load(library: str) -> None:
    module = _LAZY.pop(library)
    if _WATCHER.seen.pop(library, False):
        context.add_to_active_hint(-1)  # the backend's own check takes over
    # A broken or too old library: its values stay plain Python.
    with contextlib.suppress(ImportError):
        importlib.import_module(module)


class _ImportWatcher:
    """Notes in `context.ACTIVE_HINT` that a lazy backend's library is being
    imported. While the hint is zero, `to_graph` results run the original
    without asking `any_active()` (which would load the backend): a
    function converted before `import jax` and then called under `jax.jit`
    must still see the backend. The watcher finds nothing itself."""

    def __init__(self) -> None:
        self.seen: dict[str, bool] = {}

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        if fullname in _LAZY and not self.seen.get(fullname):
            self.seen[fullname] = True
            context.add_to_active_hint(1)
        return None


_WATCHER = _ImportWatcher()


def _load_backend_for(value_type: type) -> bool:
    """Loads the lazy backend for `value_type`'s library, if there is one."""
    if not _LAZY:
        return False
    module = getattr(value_type, "__module__", None)
    if not isinstance(module, str):  # a class may set any __module__
        return False
    library = module.partition(".")[0]
    if library not in _LAZY:
        return False
    _load(library)
    return True
