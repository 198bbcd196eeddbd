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
import warnings

# Own references: a user's `builtins.len = spy` does not see our calls.
from builtins import (
    any,
    bin,
    bool,
    dict,
    getattr,
    isinstance,
    len,
    list,
    set,
    setattr,
    type,
    zip,
)
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import runtime.operators.calls as operator_calls
import runtime.operators.frames as operator_frames
from autograph import errors
from autograph.impl import (
    code_registry,
    error_rewriting,
    recursion,
    tracebacks,
    transpiler,
)
from autograph.impl.libraries import is_library_module_name
from runtime import context
from runtime.operators import dispatch, places
from runtime.operators.staging import python_value
from runtime.operators.variables import UndefinedReturnValue

F = TypeVar("F", bound=Callable[..., Any])

_DO_NOT_CONVERT = "__ag_do_not_convert__"
_DISPATCHER = "<autograph dispatcher>"  # the file name of `to_graph`'s wrappers


def _is_library_value(value: Any) -> bool:
    """Whether calls through `value` (a module, or a function) stay unconverted."""
    if isinstance(value, types.ModuleType):
        return is_library_module_name(value.__name__)
    if isinstance(value, types.BuiltinFunctionType):
        return True
    if isinstance(value, type):
        # A class is library code where its module is: the user's own
        # classes' static, class and explicitly called methods
        # (`Ops.scaled(x)`, `Base.m(self, x)`) are converted like functions.
        return is_library_module_name(getattr(value, "__module__", None))
    globals_ = getattr(value, "__globals__", None)
    if isinstance(globals_, dict):
        return is_library_module_name(globals_.get("__name__"))
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
    globals_ = func.__globals__  # not `func`: see transpiler._convert

    def is_library(name: str) -> bool:
        if name in cells:
            try:
                return _is_library_value(cells[name].cell_contents)
            except ValueError:  # empty cell
                return False
        if name in globals_:
            return _is_library_value(globals_[name])
        return False

    return is_library


def _convert_function(func: types.FunctionType, recursive: bool) -> types.FunctionType:
    is_library = _library_predicate(func)
    entity = transpiler.convert_entity(func, recursive=recursive, is_library=is_library)
    return transpiler.instantiate(func, entity)


# What `converted_call` made of a function is kept in the function's own
# `__dict__`, under this name: it lives exactly as long as the function (a
# global dict would keep every callee, and through it its module's globals,
# alive forever). `functools.wraps` copies the entry to wrappers, so it is
# trusted only when it was made for this very function (`_cached_target`),
# for the code it runs now, and since the last `clear_cache` (the entry holds
# the code and the generation).
_TARGET = "__ag_call_target__"
_generation = [0]


def _cached_target(f: Any) -> Callable[..., Any] | None:
    """The target `_call_target` stored on the function `f`, if any."""
    try:
        entry = f.__dict__.get(_TARGET)
    except AttributeError:
        return None
    if entry is None or entry[0] != _generation[0] or entry[1] is not f.__code__:
        return None  # (a new `__code__`: networkx's argmap compiles its own)
    target = entry[2]
    if target is f:
        return target
    original = getattr(target, "__ag_original__", None)  # a weakref.ref
    if original is not None and original() is f:
        return target
    return None


def _call_target(f: Any) -> Callable[..., Any]:
    """What `ag__.converted_call(f, ...)` calls: `f` converted, or `f` itself."""
    if type(f) is types.FunctionType:
        target = _cached_target(f)
        if target is not None:
            return target
        converted = f.__dict__.get("__ag_converted__")
        if converted is not None and f.__code__.co_filename == _DISPATCHER:
            # A `to_graph` result (not a wrapper that copied its `__dict__`):
            # converted code runs its converted function, one frame less.
            return converted
    if isinstance(f, types.MethodType):
        inner = _call_target(f.__func__)
        return f if inner is f.__func__ else types.MethodType(inner, f.__self__)
    if isinstance(f, functools.partial):
        # (`partial(max, 0.0)`: the builtin's operator, as named directly.)
        inner = operator_calls.operator_of(f.func) or _call_target(f.func)
        return f if inner is f.func else functools.partial(inner, *f.args, **f.keywords)
    if isinstance(f, type):
        return _class_call(f)
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
        try:
            target = _convert_function(f, recursive=True)
        except errors.ConversionError as e:
            # As Python would: a callee that cannot be converted (no source:
            # made by exec/eval, as dataclass and namedtuple methods are;
            # syntax not supported) runs as it is.
            _warn_once(f, e)
            target = f
    f.__dict__[_TARGET] = (_generation[0], f.__code__, target)
    return target


def _class_call(cls: type) -> Callable[..., Any]:
    """What converted code's `cls(...)` calls: `cls`, or for a plain class
    (no metaclass `__call__`, `object.__new__`) whose own `__init__` has
    source, `type.__call__` written out around the converted `__init__`, so
    that an `if` on a tensor in `__init__` is a graph `if` (an operator,
    property or `with` calls its method implicitly: that one runs as it is).
    """
    init = cls.__init__
    if (
        type(cls).__call__ is not type.__call__  # type: ignore[comparison-overlap]
        or cls.__new__ is not object.__new__
        or type(init) is not types.FunctionType
        or init.__code__.co_filename.startswith("<")  # exec'd: a dataclass's
    ):
        return cls
    target = _call_target(init)
    if target is init:
        return cls

    def construct(*args: Any, **kwargs: Any) -> Any:
        obj = object.__new__(cls)
        result = target(obj, *args, **kwargs)
        if result is not None:  # (Python's own check and message)
            raise TypeError(
                f"__init__() should return None, not '{type(result).__name__}'"
            )
        return obj

    return construct


_warned: set[tuple[str, int, str]] = set()


def _warn_once(f: types.FunctionType, error: errors.ConversionError) -> None:
    """Warns, once per function's code, that `f` runs unconverted."""
    code = f.__code__
    key = (code.co_filename, code.co_firstlineno, code.co_name)
    if key in _warned:
        return
    _warned.add(key)
    # Named at the user's call: past autograph's and the operators' frames.
    internal = tracebacks.internal_dirs()
    frame, level = sys._getframe(1), 2
    while frame.f_back is not None and frame.f_code.co_filename.startswith(internal):
        frame, level = frame.f_back, level + 1
    warnings.warn(
        f"autograph runs {f.__qualname__!r} as it is, unconverted: {error.reason}",
        ConversionWarning,
        stacklevel=level,
    )


class ConversionWarning(UserWarning):
    """A function reached by converted code runs unconverted (it cannot be
    converted); its graph tensors, if any, are not handled by conversion."""


def _skip(f: types.FunctionType) -> bool:
    code = f.__code__
    return (
        _marked(f)
        or _is_library_value(f)
        or bool(code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE))
        or bool(code.co_flags & inspect.CO_ASYNC_GENERATOR)
        or _made_by_conversion(f)
    )


def _made_by_conversion(f: Any) -> bool:
    """Whether `f` is a function conversion made: a converted function, or a
    function or lambda written in one (converted with it). Converting it
    again would find its source, which is not the code it runs."""
    return type(f) is types.FunctionType and transpiler.is_converted_code(f.__code__)


operator_calls.set_converter(_call_target)
# Frames of the compiler's wrappers and of functions it generated are not the
# user's: `warnings.warn` and `sys._getframe` in converted code count past them.
operator_frames.set_frame_kinds(
    code_registry.is_generated_code,
    (*tracebacks.internal_dirs(), _DISPATCHER),
)


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
    context.add_to_active_hint(1)
    recursion.deeper(+1)
    try:
        yield
    finally:
        recursion.deeper(-1)
        _mode.force_converted = previous
        context.add_to_active_hint(-1)


def _entered() -> None:
    """A converted call through the dispatcher starts (a backend is active);
    the outermost one starts with no kept refusals."""
    state = context.STATE
    if not state.calls:
        state.refusals = []
        state.formatted = []
        state.unbound_items = 0
        state.staged_raises = []
    state.calls += 1


def _left() -> None:
    state = context.STATE
    state.calls -= 1
    if not state.calls:
        state.refusals = None
        state.formatted = None
        state.last_staged_raises = state.staged_raises
        state.staged_raises = None


def _raised(error: Exception) -> Exception:
    """What the outermost converted call raises: a refusal a backend kept
    (user code caught it and raised something else), else `error` (a
    refusal in its place where it is NumPy's about a traced value stored into
    an array, `python_value.stored_in_array`)."""
    state = context.STATE
    if state.calls == 1 and state.refusals:
        return state.refusals[0]
    return python_value.stored_in_array(error) or error


def _returned(value: Any, original: types.FunctionType) -> Any:
    """What a converted call gives its caller: None where no traced path set
    the return value (every path raises when the staged program runs), as
    the graph tracer does at its boundary; JAX's `jit` sees this one. The
    outermost call raises a refusal a backend kept that user code caught
    while tracing (a `return` in `finally`), as the graph tracer does."""
    state = context.STATE
    if state.calls == 1:
        if state.refusals:
            raise state.refusals[0]
        if state.unbound_items:  # (a loop left an item it may not have set)
            state.unbound_items = 0
            value = places.checked_results(value, original)
    return None if type(value) is UndefinedReturnValue else value


def _dispatcher(original: types.FunctionType, converted: types.FunctionType) -> Any:
    """Runs `converted` while a backend is active (or forced), else `original`.

    The result has `original`'s parameters (`_forwarder`), so a call costs one
    extra frame and one read of `context.ACTIVE_HINT` while nothing is active
    anywhere; else `any_active()` decides.
    """
    dispatch.load_imported_backends()  # e.g. JAX, if the user imported it
    run = _forwarder(original.__code__)(
        context.ACTIVE_HINT,
        _mode,
        dispatch.any_active,
        converted,
        original,
        error_rewriting.with_user_frames,
        _returned,
        _raised,
        _entered,
        _left,
    )
    run.__defaults__ = original.__defaults__
    run.__kwdefaults__ = original.__kwdefaults__
    functools.update_wrapper(run, original)
    run.__ag_converted__ = converted  # type: ignore[attr-defined]
    run.__ag_python_function__ = original  # type: ignore[attr-defined]
    setattr(run, _DO_NOT_CONVERT, True)  # plumbing, and already converted
    run.__wrapped__ = original  # (inspect.unwrap: signature, source, JAX's messages)
    return run


# The parameters of a code object (names, counts, `*`/`**` flags) -> a
# factory of functions with those parameters that forward a call (see
# `_forwarder`). Most functions share a few shapes (`(x)`, `(self, x)`), so
# a factory is compiled once per shape; at most `_FORWARDERS_KEPT` are kept.
_forwarders: dict[tuple[Any, ...], Callable[..., Any]] = {}
_FORWARDERS_KEPT = 1024


def _forwarder(code: types.CodeType) -> Callable[..., Any]:
    """`factory(hint, mode, active, converted, original, rewrite, returned,
    raised, entered, left)`: a function
    with the parameters of `code`, passing its arguments on as they came, to
    `converted` while a backend is active (errors rewritten to show the
    user's frames first), else to `original`.

    Its parameters carry placeholder defaults; the caller gives it the
    original's `__defaults__` and `__kwdefaults__`. A parameter named like
    the factory's own names gets a `*args, **kwargs` forwarder instead.
    """
    n_pos = code.co_argcount
    n_kw = code.co_kwonlyargcount
    varargs = code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)
    shape = (
        code.co_varnames[: n_pos + n_kw + bin(varargs).count("1")],
        n_pos,
        code.co_posonlyargcount,
        n_kw,
        varargs,
    )
    factory = _forwarders.get(shape)
    if factory is not None:
        return factory
    names = code.co_varnames[: n_pos + n_kw]
    star = (
        code.co_varnames[n_pos + n_kw] if code.co_flags & inspect.CO_VARARGS else None
    )
    index = n_pos + n_kw + (star is not None)
    double = code.co_varnames[index] if code.co_flags & inspect.CO_VARKEYWORDS else None
    if any(n.startswith("_ag_") for n in (*names, star or "", double or "")):
        params, passed = ["*args", "**kwargs"], ["*args", "**kwargs"]
    else:
        params = list(names[:n_pos])
        passed = list(names[:n_pos])
        if code.co_posonlyargcount:
            params.insert(code.co_posonlyargcount, "/")
        if star is not None:
            params.append(f"*{star}")
            passed.append(f"*{star}")
        elif n_kw:
            params.append("*")
        params += names[n_pos:]
        passed += [f"{n}={n}" for n in names[n_pos:]]
        if double is not None:
            params.append(f"**{double}")
            passed.append(f"**{double}")
        # Placeholder defaults, replaced by the original's: every parameter
        # may have one, since the values come from the original's tuples.
        params = [
            f"{p}=None" if p.isidentifier() and not p.startswith("*") else p
            for p in params
        ]
    call = ", ".join(passed)
    source = (
        "def _ag_factory(_ag_hint, _ag_mode, _ag_active, _ag_converted, "
        "_ag_original, _ag_rewrite, _ag_returned, _ag_raised, _ag_entered, "
        "_ag_left):\n"
        f"    def run({', '.join(params)}):\n"
        "        if _ag_hint[0] and (_ag_mode.force_converted or _ag_active()):\n"
        "            _ag_entered()\n"
        "            try:\n"
        f"                return _ag_returned(_ag_converted({call}), _ag_original)\n"
        "            except Exception as _ag_error:\n"
        "                # (the user's frames first)\n"
        "                raise _ag_rewrite(_ag_raised(_ag_error))\n"
        "            finally:\n"
        "                _ag_left()\n"
        f"        return _ag_original({call})\n"
        "    return run\n"
    )
    namespace: dict[str, Any] = {}
    exec(compile(source, _DISPATCHER, "exec"), namespace)
    if len(_forwarders) >= _FORWARDERS_KEPT:
        _forwarders.clear()
    factory = _forwarders[shape] = namespace["_ag_factory"]
    return factory


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
    if _made_by_conversion(entity):
        # (a lambda written in a converted function and passed on, e.g. to
        # `Dataset.map`): it runs as it is, behind the same dispatcher.
        return _dispatcher(entity, entity)
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

    A `raise` or `assert` that fires when the compiled function runs raises
    the user's exception (`ValueError: x too big: 5 (in the if branch of
    the JAX `if` at f.py:3, which this run took)`); under plain `jax.jit`
    the same text is the last line of JAX's `JaxRuntimeError`. The other
    attributes (`lower`, `trace`, ...) are `jax.jit`'s.

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
    from runtime.operators.backends import jax_messages

    return jax_messages.RaisesUsersErrors(jax.jit(to_graph(func), **jit_kwargs))


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
    _generation[0] += 1
