"""The public conversion API: `to_graph`, `to_code`, `convert`, `do_not_convert`.

Also the policy for recursive conversion (which callables converted code
converts when it calls them), installed into `runtime.operators` as the
`converted_call` hook:

- converted: Python functions and methods whose module is user code;
- run as they are: builtins and C functions, classes, functions of the
  standard library and of library packages (`numpy`, `runtime`, `autograph`,
  ... see `LIBRARY_PACKAGES`), anything marked `do_not_convert`, generator
  functions (they are Python iterators), and code that is already converted.

A function's module is read from its globals (`__globals__['__name__']`),
not from `__module__`, which `functools.wraps` copies from the wrapped
function; a wrapper marked `do_not_convert` (or wrapping a marked function:
`functools.wraps` copies the mark) is honoured through `__wrapped__`.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import sys
import threading
import types
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import runtime.operators.calls as operator_calls
from autograph import errors
from autograph.impl import error_rewriting, transpiler
from runtime.operators import dispatch

F = TypeVar("F", bound=Callable[..., Any])

_DO_NOT_CONVERT = "__ag_do_not_convert__"
LIBRARY_PACKAGES = frozenset(
    {
        "autograph",
        "runtime",
        "numpy",
        "gast",
        "scipy",
        "pandas",
        "matplotlib",
        "IPython",
        "ipykernel",
        "pytest",
        "_pytest",
        "hypothesis",
        "tensorflow",
        "jax",
        "torch",
    }
)
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) | {"builtins"}


def _is_library_module_name(name: str | None) -> bool:
    if not name:
        return False
    root = name.split(".")[0]
    return root in LIBRARY_PACKAGES or root in _STDLIB


def _is_library_value(value: Any) -> bool:
    """Whether calls through `value` (a module, or a function) stay unconverted."""
    if isinstance(value, types.ModuleType):
        return _is_library_module_name(value.__name__)
    if isinstance(value, (types.BuiltinFunctionType, type)):
        return True
    globals_ = getattr(value, "__globals__", None)
    if isinstance(globals_, dict):
        return _is_library_module_name(globals_.get("__name__"))
    return False


def do_not_convert(func: F) -> F:
    """Decorator: `func` is never converted, also not when reached recursively.

    Example:
        >>> @do_not_convert
        ... def helper(x):
        ...     return x
        >>> to_graph(helper) is helper
        True
    """
    # Objects that take no attributes (builtins, bound methods) are never
    # converted anyway.
    with contextlib.suppress(AttributeError, TypeError):
        setattr(func, _DO_NOT_CONVERT, True)
    return func


def _marked(func: Any) -> bool:
    while func is not None:
        if getattr(func, _DO_NOT_CONVERT, False):
            return True
        func = getattr(func, "__wrapped__", None)
    return False


def _library_predicate(func: types.FunctionType) -> Callable[[str], bool]:
    """`is_library(name)` for the free names of `func` (closure, then globals)."""
    cells = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))

    def is_library(name: str) -> bool:
        if name in cells:
            try:
                return _is_library_value(cells[name].cell_contents)
            except ValueError:  # empty cell
                return False
        if name in func.__globals__:
            return _is_library_value(func.__globals__[name])
        return False

    return is_library


def _convert_function(func: types.FunctionType, recursive: bool) -> types.FunctionType:
    is_library = _library_predicate(func)
    entity = transpiler.convert_entity(func, recursive=recursive, is_library=is_library)
    return transpiler.instantiate(func, entity)


# Functions already converted by `converted_call`, keyed by the original.
# Module-level functions live as long as their module, so strong keys are
# fine there; closures (new objects per call) are converted via the code
# cache and re-bound each time instead of filling this dict.
_call_cache: dict[Any, Callable[..., Any]] = {}


def _call_target(f: Any) -> Callable[..., Any]:
    """What `ag__.converted_call(f, ...)` calls: `f` converted, or `f` itself."""
    try:
        return _call_cache[f]
    except (KeyError, TypeError):
        pass
    if isinstance(f, types.MethodType):
        inner = _call_target(f.__func__)
        return f if inner is f.__func__ else types.MethodType(inner, f.__self__)
    if isinstance(f, functools.partial):
        inner = _call_target(f.func)
        return f if inner is f.func else functools.partial(inner, *f.args, **f.keywords)
    if not isinstance(f, types.FunctionType):
        call = getattr(type(f), "__call__", None)  # noqa: B004 - the method, not callability
        if (
            isinstance(call, types.FunctionType)
            and not isinstance(f, type)
            and not _skip(call)
        ):
            return types.MethodType(_call_target(call), f)
        return f
    if _skip(f):
        target: Callable[..., Any] = f
    else:
        target = _convert_function(f, recursive=True)
    if not f.__code__.co_freevars:
        _call_cache[f] = target
    return target


def _skip(f: types.FunctionType) -> bool:
    code = f.__code__
    return (
        _marked(f)
        or _is_library_value(f)
        or bool(code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE))
        or bool(code.co_flags & inspect.CO_ASYNC_GENERATOR)
        or transpiler.is_converted_code(code)
    )


operator_calls.set_converter(_call_target)


def _unwrap_entity(entity: Any) -> Any:
    """The Python function behind a Function or a convert()-decorated function."""
    for attr in ("python_function", "__ag_python_function__"):
        inner = getattr(entity, attr, None)
        if inner is not None:
            return inner
    return entity


class _Mode(threading.local):
    force_converted = False


_mode = _Mode()


@contextlib.contextmanager
def always_run_converted() -> Iterator[None]:
    """Within this block, `to_graph` results run their converted code always.

    Outside it, while no graph is being built, they run the original function:
    every operator would reduce to the plain Python it replaces, so the result
    is the same, without the overhead. Tests use this to exercise the
    converted code on Python values.
    """
    previous, _mode.force_converted = _mode.force_converted, True
    try:
        yield
    finally:
        _mode.force_converted = previous


def _dispatcher(original: types.FunctionType, converted: types.FunctionType) -> Any:
    """Runs `converted` while a backend is active (or forced), else `original`."""
    active = dispatch.any_active
    mode = _mode
    dispatch.load_imported_backends()  # e.g. JAX, if the user imported it

    @functools.wraps(original)
    def run(*args: Any, **kwargs: Any) -> Any:
        if mode.force_converted or active():
            try:
                return converted(*args, **kwargs)
            except Exception as error:
                # The user's frames first: drop the operators' plumbing.
                raise error_rewriting.with_user_frames(error)  # noqa: B904
        return original(*args, **kwargs)

    run.__ag_converted__ = converted  # type: ignore[attr-defined]
    run.__ag_python_function__ = original  # type: ignore[attr-defined]
    setattr(run, _DO_NOT_CONVERT, True)  # plumbing, and already converted
    del run.__wrapped__  # `_marked` must not look through to the original
    return run


def to_graph(entity: F, *, recursive: bool = True) -> F:
    """Returns the converted version of `entity`.

    Works on functions, nested functions with closures, bound and unbound
    methods, `functools.partial` objects, callable objects and lambdas whose
    source is unambiguous. The result behaves like `entity` on Python values
    and builds graph ops where conditions or iterables are graph tensors.

    Args:
        entity: What to convert.
        recursive: Whether functions it calls are converted too (on first call).

    Raises:
        ConversionError: `entity` cannot be converted (no source, unsupported
            syntax); the message names it and its `file:line`.

    Example:
        >>> def relu(x):
        ...     if x > 0:
        ...         return x
        ...     return 0
        >>> to_graph(relu)(-3)
        0
    """
    entity = _unwrap_entity(entity)
    if _marked(entity):
        return entity
    if isinstance(entity, types.MethodType):
        return types.MethodType(
            to_graph(entity.__func__, recursive=recursive), entity.__self__
        )
    if isinstance(entity, functools.partial):
        inner = to_graph(entity.func, recursive=recursive)
        return functools.partial(inner, *entity.args, **entity.keywords)
    if isinstance(entity, types.FunctionType):
        code = entity.__code__
        if code.co_flags & (inspect.CO_GENERATOR | inspect.CO_ASYNC_GENERATOR):
            what = "a generator"
        elif code.co_flags & inspect.CO_COROUTINE:
            what = "an async function"
        else:
            what = None
        if what is not None:
            raise errors.ConversionError(
                f"{what} cannot be converted; mark it with @autograph.do_not_convert",
                function_name=entity.__qualname__,
                filename=code.co_filename,
                lineno=code.co_firstlineno,
            )
        return _dispatcher(entity, _convert_function(entity, recursive))
    call = getattr(type(entity), "__call__", None)  # noqa: B004 - the method
    if isinstance(call, types.FunctionType) and not isinstance(entity, type):
        return types.MethodType(to_graph(call, recursive=recursive), entity)
    raise errors.ConversionError(
        f"{entity!r} is not a function, method, lambda, functools.partial or "
        "callable object",
        function_name=getattr(entity, "__qualname__", type(entity).__name__),
    )


def to_code(entity: Callable[..., Any], *, recursive: bool = True) -> str:
    """The converted source of `entity`: valid Python, deterministic, readable.

    Also accepts a `Function` or a `convert()`-decorated function.

    Example:
        >>> def sign(x):
        ...     return 1 if x > 0 else -1
        >>> print(to_code(sign), end='')
        def sign(x):
            return ag__.if_exp(x > 0, lambda: 1, lambda: -1)
    """
    entity = _unwrap_entity(entity)
    while isinstance(entity, (types.MethodType, functools.partial)):
        entity = (
            entity.__func__ if isinstance(entity, types.MethodType) else entity.func
        )
    if not isinstance(entity, types.FunctionType):
        call = getattr(type(entity), "__call__", None)  # noqa: B004 - the method
        if not isinstance(call, types.FunctionType):
            raise errors.ConversionError(
                f"{entity!r} is not a Python function, so it has no converted code",
                function_name=getattr(entity, "__qualname__", type(entity).__name__),
            )
        entity = call

    is_library = _library_predicate(entity)
    return transpiler.convert_entity(
        entity, recursive=recursive, is_library=is_library
    ).source


def jit(func: Callable[..., Any], **jit_kwargs: Any) -> Any:
    """`jax.jit(to_graph(func), **jit_kwargs)`: `func` compiled by JAX, with its
    Python control flow on traced values lowered to `jax.lax` control flow.

    JAX is imported here, not by `import autograph`; it is the `jax` extra
    (`pip install -e '.[jax]'`).

    Raises:
        ImportError: JAX is not installed.

    Example (not run: needs JAX):
        >>> @jit  # doctest: +SKIP
        ... def collatz_steps(n):
        ...     steps = 0
        ...     while n != 1:
        ...         n = n // 2 if n % 2 == 0 else 3 * n + 1
        ...         steps += 1
        ...     return steps
        >>> collatz_steps(27)  # doctest: +SKIP
        Array(111, dtype=int32, weak_type=True)
    """
    try:
        import jax
    except ImportError as e:
        raise ImportError(
            "autograph.jit needs JAX: pip install 'autograph[jax]' (or jax)"
        ) from e
    return jax.jit(to_graph(func), **jit_kwargs)


def convert(*, recursive: bool = True) -> Callable[[F], F]:
    """Decorator factory: `@autograph.convert()` converts on first call, caches.

    Example:
        >>> @convert()
        ... def double_if_positive(x):
        ...     if x > 0:
        ...         x = x * 2
        ...     return x
        >>> double_if_positive(3)
        6
    """

    def decorator(func: F) -> F:
        converted: list[Callable[..., Any]] = []

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if not converted:
                converted.append(to_graph(func, recursive=recursive))
            return converted[0](*args, **kwargs)

        wrapper.__ag_python_function__ = func  # type: ignore[attr-defined]
        setattr(wrapper, _DO_NOT_CONVERT, True)  # the wrapper is plumbing
        return wrapper  # type: ignore[return-value]

    return decorator


def clear_cache() -> None:
    """Forgets all conversions (benchmarks use this to time fresh ones)."""
    transpiler.clear_cache()
    _call_cache.clear()
