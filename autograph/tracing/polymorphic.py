"""`autograph.function`: Python functions traced into graphs, once per signature.

    >>> import numpy as np
    >>> from runtime.ops import math
    >>> @function
    ... def add(a, b):
    ...     return a + b
    >>> float(add(np.float32(1.0), np.float32(2.0)))
    3.0
    >>> add.tracing_count
    1

A `Function` keeps a cache of `ConcreteFunction`s. A call computes the trace
key of its arguments (`signatures.encode`: tensors by dtype and shape, Python
scalars by type and value, containers by structure, other objects by weak
identity) and looks it up in a dict keyed by the raw call; on a miss it binds
the call to the Python signature, looks up the canonical key, reuses a trace
whose signature is more general if one fits, and traces otherwise. The hot
path is one pass over the arguments, one dict lookup and the compiled graph.

Threads: a miss takes the Function's lock and looks again before tracing
(double-checked), so concurrent first calls of one signature trace it once,
and a Function creates its Variables once; hits never take the lock.

Retracing costs the same however many traces there are: the canonical key
finds an exact trace in one lookup, and only traces with unknown dimensions
(from `get_concrete_function` with `TensorSpec`s) are tried as more general
matches.

Calls made while a graph is being built (a `Function` called from another
`Function`) run the converted Python function inline, into the outer graph.
With `run_functions_eagerly(True)` every call runs the original Python.
"""

from __future__ import annotations

import functools
import inspect
import threading
import warnings
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from autograph import errors
from autograph.tracing import diagnostics, matching
from autograph.tracing.concrete import ConcreteFunction, fast_feeds, trace
from autograph.tracing.signatures import (
    argument_error,
    as_signature_value,
    canonicalize,
    check_value,
    encode,
)
from runtime.context import ACTIVE_HINT, STATE
from runtime.tensor import EagerTensor
from runtime.tensor_spec import TensorSpec

__all__ = ["Function", "function", "functions_run_eagerly", "run_functions_eagerly"]

_run_eagerly = False


def run_functions_eagerly(run_eagerly: bool) -> None:
    """Makes every `Function` run its Python code directly (True) or trace (False).

    Meant for debugging: with it on, Python side effects such as `print`
    happen on every call, and no graph is built.
    """
    global _run_eagerly
    _run_eagerly = bool(run_eagerly)


def functions_run_eagerly() -> bool:
    """Whether `run_functions_eagerly(True)` is in effect."""
    return _run_eagerly


class _Entry:
    """A cache entry: the trace, the weak references its key depends on, and
    how to reorder the raw call's feeds into the trace's inputs."""

    __slots__ = ("concrete", "perm", "refs")

    def __init__(self, concrete: ConcreteFunction, refs: tuple[Any, ...], perm: Any):
        self.concrete = concrete
        self.refs = refs
        self.perm = perm

    def alive(self) -> bool:
        for ref in self.refs:  # noqa: SIM110 - a loop is faster than all()
            if ref() is None:
                return False
        return True


def _weak_refs(
    objects: Sequence[Any], on_death: Callable[[Any], None]
) -> tuple[Any, ...]:
    refs = []
    for obj in objects:
        try:
            refs.append(weakref.ref(obj, on_death))
        except TypeError:  # no weak references: hold it strongly
            refs.append(functools.partial(lambda o: o, obj))
    return tuple(refs)


class Function:
    """A Python function traced into graphs, one per input signature.

    Create one with `autograph.function`. Calling it traces the function the
    first time a signature is seen (see `signatures`) and runs the graph;
    results are eager tensors in the structure the function returned.

    Attributes:
        python_function: The original Python function.
        input_signature: The fixed signature (a tuple of `TensorSpec`s and
            nests of them), or None.
    """

    def __init__(
        self,
        python_function: Callable[..., Any],
        *,
        input_signature: Sequence[Any] | None = None,
        autograph: bool = True,
        optimize: bool = True,
        _instance: Callable[[], Any] | None = None,
        _parent: Function | None = None,
    ) -> None:
        functools.update_wrapper(self, python_function)
        self.python_function = python_function
        self._autograph = autograph
        self._optimize = optimize
        self._instance = _instance
        self._parent = _parent
        self._name = getattr(
            python_function, "__name__", type(python_function).__name__
        )
        signature = inspect.signature(python_function)
        bound_to = None
        if _instance is not None:
            first, *rest = signature.parameters.values()
            bound_to = first.name
            signature = signature.replace(parameters=rest)
        self._signature = signature
        self._fast: dict[Any, _Entry] = {}
        # Calls with eager tensors only, by ((dtype, shape), ...) of their
        # NumPy values: the fast path of `__call__`.
        self._tensors: dict[tuple[Any, ...], _Entry] = {}
        self._canonical: dict[Any, _Entry] = {}
        # Traces with an unknown dimension or rank: the only ones that can
        # serve calls of another canonical key (`_most_specific`).
        self._relaxed: list[_Entry] = []
        # Held while tracing and while changing the caches; calls of traced
        # signatures never take it.
        self._lock = _parent._lock if _parent is not None else threading.RLock()
        self._converted: Callable[..., Any] | None = None
        self._bound: dict[int, tuple[Any, Function]] = {}
        self._traced = False
        self._tracing_count = 0
        self._diagnostics = diagnostics.RetracingMonitor(self._name)
        self.input_signature: tuple[Any, ...] | None = None
        self._sig_names: list[str] = []
        self._sig_concrete: ConcreteFunction | None = None
        self._sig_error: TypeError | None = None
        if input_signature is not None:
            self.input_signature = tuple(input_signature)
            try:
                self._sig_names = matching.signature_names(
                    self._name, signature, self.input_signature, bound_to
                )
            except TypeError as e:
                if _instance is not None or not _in_class_body(python_function):
                    raise
                # A method's specs leave out `self`: checked when it is bound
                # to an instance; a call through the class raises this.
                self._sig_error = e

    # -- calling -------------------------------------------------------------------

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Runs the graph traced for these arguments (tracing it if new)."""
        if (
            _run_eagerly
            or (ACTIVE_HINT[0] and STATE.graph is not None)
            or self.input_signature is not None
        ):
            return self._call_special(args, kwargs)
        if not kwargs and args and not STATE.tapes:
            # The commonest calls: eager tensors only, keyed by the dtypes
            # and shapes of their NumPy values (no encode pass, no perm).
            # While a GradientTape records, calls take the path below, whose
            # `_run` replays the graph op by op.
            if len(args) == 1:
                if type(args[0]) is EagerTensor:
                    value = args[0].numpy_value
                    entry = self._tensors.get((value.dtype, value.shape))
                    if entry is not None:
                        return entry.concrete.compiled_call([value])
            elif _all_eager(args):
                values = [a.numpy_value for a in args]
                entry = self._tensors.get(_tensors_key(values))
                if entry is not None:
                    return entry.concrete.compiled_call(values)
        feeds: list[Any] = []
        refs: list[Any] = []
        try:
            if kwargs:
                key = (encode(args, feeds, refs), encode(kwargs, feeds, refs))
            else:
                key = encode(args, feeds, refs)
        except TypeError as e:
            raise self._argument_error(args, kwargs, e) from None
        entry = self._fast.get(key)
        if entry is None or (entry.refs and not entry.alive()):
            entry = self._miss(key, args, kwargs, feeds, refs)
            if not kwargs and args and entry.perm is None and _all_eager(args):
                self._tensors[_tensors_key(feeds)] = entry
        perm = entry.perm
        if perm is not None:
            if perm is matching.SLOW:
                feeds = self._canonical_feeds(args, kwargs)
            else:
                feeds = [feeds[i] for i in perm]
        return self._run(entry.concrete, feeds, args, kwargs)

    @staticmethod
    def _run(
        concrete: ConcreteFunction,
        feeds: list[Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> Any:
        """Runs a trace on its feeds: every call path ends here, so that each
        is differentiable while a GradientTape records."""
        if STATE.tapes:  # a GradientTape is recording: run the graph op by op
            return concrete._taped_call(feeds, args, kwargs)
        return concrete.compiled_call(feeds)

    def _call_special(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if _run_eagerly:
            return self._python_callable()(*args, **kwargs)
        if STATE.graph is not None:  # inside another trace: inline
            if self.input_signature is not None:
                args, kwargs = self._inlined_arguments(args, kwargs)
            return self._traced_callable()(*args, **kwargs)
        concrete = self._signature_concrete()
        return self._run(concrete, self._signature_feeds(args, kwargs), args, kwargs)

    def _python_callable(self) -> Callable[..., Any]:
        if self._instance is None:
            return self.python_function
        return functools.partial(self.python_function, self._live_instance())

    def _traced_callable(self) -> Callable[..., Any]:
        """The converted function (or the original with autograph off)."""
        owner = self._parent or self
        if owner._converted is None:
            owner._converted = _convert(self.python_function, self._autograph)
        if self._instance is None:
            return owner._converted
        return functools.partial(owner._converted, self._live_instance())

    def _live_instance(self) -> Any:
        instance = self._instance() if self._instance is not None else None
        if instance is None:
            raise ReferenceError(f"the object {self._name}() was bound to is gone")
        return instance

    # -- the trace cache ----------------------------------------------------------

    def _miss(
        self,
        key: Any,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        feeds: list[Any],
        refs: list[Any],
    ) -> _Entry:
        """Finds or traces the ConcreteFunction for a call not in the fast cache."""
        with self._lock:
            entry = self._fast.get(key)  # another thread may have traced it
            if entry is not None and (not entry.refs or entry.alive()):
                return entry
            arguments = self._canonicalize(args, kwargs)
            centry, canonical_feeds = self._lookup_canonical(arguments)
            fast = self._fast
            entry = _Entry(
                centry.concrete,
                _weak_refs(refs, lambda _, k=key: fast.pop(k, None)),
                matching.permutation(feeds, canonical_feeds),
            )
            fast[key] = entry
            return entry

    def _canonicalize(
        self, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> list[tuple[str, str, Any, bool]]:
        try:
            return canonicalize(self._signature, args, kwargs)
        except TypeError as e:
            raise TypeError(f"{self._name}(): {e}") from None

    def _lookup_canonical(
        self, arguments: list[tuple[str, str, Any, bool]], *, reuse: bool = True
    ) -> tuple[_Entry, list[Any]]:
        """The entry for canonical arguments, and their feeds.

        With `reuse`, a trace whose signature is more general than the
        arguments' serves them; else only an exact match does.
        """
        feeds: list[Any] = []
        refs: list[Any] = []
        key = tuple(
            [(name, encode(value, feeds, refs)) for name, _, value, _ in arguments]
        )
        entry = self._canonical.get(key)
        if entry is not None and entry.alive():
            return entry, feeds
        with self._lock:
            entry = self._canonical.get(key)  # looked up again under the lock
            if entry is None or not entry.alive():
                concrete = reuse and self._most_specific(arguments, key)
                traced = not concrete
                if not concrete:
                    concrete = self._trace(arguments, key)
                canonical = self._canonical
                entry = _Entry(
                    concrete,
                    _weak_refs(refs, lambda _, k=key: canonical.pop(k, None)),
                    None,
                )
                canonical[key] = entry
                if traced and matching.is_relaxed(concrete.params):
                    self._relaxed.append(entry)
        return entry, feeds

    def _canonical_feeds(
        self, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> list[Any]:
        feeds: list[Any] = []
        for _, _, value, _ in self._canonicalize(args, kwargs):
            encode(value, feeds, [])
        return feeds

    def _most_specific(
        self, arguments: list[tuple[str, str, Any, bool]], key: Any
    ) -> ConcreteFunction | None:
        """An existing trace whose tensor specs are more general than the call's.

        Only traces with an unknown dimension or rank can be: any other
        trace serves exactly its own canonical key. Called under the lock.
        """
        if not self._relaxed or not any(matching.has_tensor_key(k) for _, k in key):
            return None
        self._relaxed = [e for e in self._relaxed if e.alive()]
        best, best_known = None, -1
        for entry in self._relaxed:
            concrete = entry.concrete
            if matching.accepts(concrete.params, arguments):
                known = matching.known_dims(concrete.params)
                if known > best_known:
                    best, best_known = concrete, known
        return best

    def _trace(
        self, arguments: list[tuple[str, str, Any, bool]], key: Any
    ) -> ConcreteFunction:
        # Errors propagate as they are: converted code already reports the
        # user's file and line, and a note would change the message doctests
        # and users match on.
        first = not self._traced
        concrete = trace(
            self._traced_callable(),
            self._name,
            arguments,
            allow_variables=first,
            optimize=self._optimize,
        )
        if first and concrete.graph.created_variables:
            # TensorFlow's rule: trace again; a function that creates
            # Variables on every call creates them again and is refused.
            concrete = trace(
                self._traced_callable(),
                self._name,
                arguments,
                allow_variables=False,
                check_trace=True,
                optimize=self._optimize,
            )
        self._traced = True
        self._tracing_count += 1
        self._diagnostics.record(key)
        return concrete

    # -- input_signature ------------------------------------------------------------

    def _signature_concrete(self) -> ConcreteFunction:
        concrete = self._sig_concrete
        if concrete is not None:
            return concrete
        if self._sig_error is not None:
            raise self._sig_error.with_traceback(None)
        with self._lock:
            concrete = self._sig_concrete  # another thread may have traced it
            if concrete is not None:
                return concrete
            specs = self.input_signature or ()
            arguments = [
                (n, "positional", s, False) for n, s in zip(self._sig_names, specs)
            ]
            arguments += matching.signature_defaults(
                self._signature, len(self._sig_names)
            )
            key = tuple((n, encode(v, [], [])) for n, _, v, _ in arguments)
            concrete = self._trace(arguments, key)
            self._canonical[key] = _Entry(concrete, (), None)
            self._sig_concrete = concrete
        return concrete

    def _signature_feeds(
        self, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> list[Any]:
        specs = self.input_signature
        assert specs is not None
        if not kwargs and len(args) == len(specs):
            feeds = fast_feeds(args, specs)
            if feeds is not None:
                return feeds
        values = self._bind_signature(args, kwargs)
        feeds = []
        fix = "pass a compatible value, or change the input_signature"
        for name, spec in zip(self._sig_names, specs):
            check_value(self._name, name, spec, values[name], feeds, fix)
        return feeds

    def _inlined_arguments(
        self, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """The arguments of a call inside another trace, checked against the
        input_signature as a direct call's are (TensorFlow checks them
        too), Python values where it has a tensor made tensors."""
        self._signature_feeds(args, kwargs)
        specs = dict(zip(self._sig_names, self.input_signature or ()))
        args = tuple(
            as_signature_value(specs[name], value)
            for name, value in zip(self._sig_names, args)
        )
        kwargs = {
            k: as_signature_value(specs[k], v) if k in specs else v
            for k, v in kwargs.items()
        }
        return args, kwargs

    def _bind_signature(
        self, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> dict[str, Any]:
        return matching.bind_signature(self._name, self._sig_names, args, kwargs)

    # -- public API ---------------------------------------------------------------

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """The ConcreteFunction for these arguments, tracing it if needed.

        Arguments may be tensors, Python values, or `rt.TensorSpec`s (which
        trace a signature with `None` dimensions or unknown rank). With an
        `input_signature`, no arguments are needed.

        Raises:
            TypeError, ValueError: Arguments that don't fit the input_signature.
        """
        if self.input_signature is not None:
            concrete = self._signature_concrete()
            if args or kwargs:
                values = self._bind_signature(args, kwargs)
                for name, spec in zip(self._sig_names, self.input_signature):
                    value = values[name]
                    value = (
                        matching.spec_as_array(value)
                        if type(value) is TensorSpec
                        else value
                    )
                    check_value(
                        self._name, name, spec, value, [], "change the input_signature"
                    )
            return concrete
        try:
            encode((args, kwargs), [], [])
        except TypeError as e:
            raise self._argument_error(args, kwargs, e) from None
        arguments = self._canonicalize(args, kwargs)
        entry, _ = self._lookup_canonical(arguments, reuse=False)
        return entry.concrete

    @property
    def concrete_functions(self) -> list[ConcreteFunction]:
        """The live traces, in the order they were made."""
        seen: dict[int, ConcreteFunction] = {}
        # A copy: other threads (and weak reference callbacks) change the dict.
        for entry in self._canonical.copy().values():
            if entry.alive():
                seen.setdefault(id(entry.concrete), entry.concrete)
        return list(seen.values())

    def pretty_printed_concrete_signatures(self, verbose: bool = True) -> str:
        """One block per traced signature, in the guides' layout."""
        return "\n\n".join(
            c.pretty_printed_signature(verbose) for c in self.concrete_functions
        )

    @property
    def tracing_count(self) -> int:
        """How many times this Function (for this instance) has traced."""
        return self._tracing_count

    def experimental_get_tracing_count(self) -> int:
        """`tracing_count`, under TensorFlow's name."""
        return self._tracing_count

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        """On an instance: a Function bound to it, with its own trace cache.

        What it returns holds the instance, as a Python bound method does
        (`A().f(x)` keeps the temporary for the call); the trace cache,
        kept by this Function, holds it weakly.
        """
        if instance is None:
            return self
        found = self._bound.get(id(instance))
        if found is not None and found[0]() is instance:
            return _Method(found[1], instance)
        with self._lock:
            return _Method(self._bind_to(instance), instance)

    def _bind_to(self, instance: Any) -> Function:
        """The bound Function for `instance`, made once (called under the lock)."""
        found = self._bound.get(id(instance))
        if found is not None and found[0]() is instance:
            return found[1]
        bound_map = self._bound
        key = id(instance)
        try:
            ref: Any = weakref.ref(instance, lambda _: bound_map.pop(key, None))
        except TypeError:  # no weak references: hold it for the Function's life
            ref = functools.partial(lambda o: o, instance)
        bound = Function(
            self.python_function,
            input_signature=self.input_signature,
            autograph=self._autograph,
            optimize=self._optimize,
            _instance=ref,
            _parent=self,
        )
        self._bound[key] = (ref, bound)
        return bound

    def _argument_error(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], error: Exception
    ) -> TypeError:
        return argument_error(self._name, self._signature, args, kwargs, error)

    def __repr__(self) -> str:
        return f"<autograph.Function {self._name}>"


class _Method(Function):
    """`instance.method` of a decorated method: the instance's bound Function
    (its state, trace cache included, is that Function's: one `__dict__`)
    seen through an object that holds the instance strongly.

    A fresh one per attribute read, as for Python's bound methods: it equals
    another of the same instance's method, and is not identical to it.
    """

    __slots__ = ("__self__",)

    def __init__(self, bound: Function, instance: Any) -> None:
        self.__dict__ = bound.__dict__
        self.__self__ = instance

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is _Method
            and other.__dict__ is self.__dict__
            and other.__self__ is self.__self__
        )

    def __hash__(self) -> int:
        return hash((id(self.__dict__), id(self.__self__)))


# -- helpers ---------------------------------------------------------------------


def _all_eager(args: tuple[Any, ...]) -> bool:
    for a in args:  # noqa: SIM110 - a loop is faster than all()
        if type(a) is not EagerTensor:
            return False
    return True


def _in_class_body(python_function: Callable[..., Any]) -> bool:
    """Whether it was defined in a class body (`C.f`, `g.<locals>.C.f`): a
    method, whose first parameter an instance binds."""
    parts = getattr(python_function, "__qualname__", "").split(".")
    return len(parts) > 1 and parts[-2] != "<locals>"


def _tensors_key(values: list[Any]) -> tuple[Any, ...]:
    """(dtype, shape, dtype, shape, ...) of NumPy values: `_tensors`' key."""
    return tuple([part for v in values for part in (v.dtype, v.shape)])


def _convert(
    python_function: Callable[..., Any], autograph: bool
) -> Callable[..., Any]:
    """`to_graph(python_function)`, or the function itself when it can't be."""
    if not autograph:
        return python_function
    from autograph.impl import api

    try:
        return api.to_graph(python_function)
    except errors.UnsupportedSyntaxError:
        raise
    except errors.SourceUnavailableError as e:
        # Traced as it is, it would fail later and less clearly (a plain
        # `python` prompt keeps no source): one error, from the user's call.
        raise e.with_traceback(None) from None
    except errors.ConversionError as e:
        if _never_traceable(python_function):
            raise  # traced as it is, it would return a generator or coroutine
        warnings.warn(
            f"autograph could not convert {getattr(python_function, '__name__', '?')} "
            f"and traces it as it is (Python control flow on tensors will fail): {e}",
            stacklevel=diagnostics.user_stacklevel(),
        )
        return python_function


def _never_traceable(python_function: Callable[..., Any]) -> bool:
    """Whether calling it makes a generator or coroutine, never a value."""
    return (
        inspect.isgeneratorfunction(python_function)
        or inspect.iscoroutinefunction(python_function)
        or inspect.isasyncgenfunction(python_function)
    )


def function(
    func: Callable[..., Any] | None = None,
    *,
    input_signature: Sequence[Any] | None = None,
    autograph: bool = True,
    optimize: bool = True,
) -> Any:
    """Makes a `Function`: bare (`@function`), with arguments, or as a call.

    Args:
        func: The Python function (or method) to trace.
        input_signature: A sequence of `rt.TensorSpec`s (or nests of them),
            one per leading parameter (after `self`, for a method, as in
            TensorFlow): then one graph serves every call, and
            calls that don't fit raise TypeError (dtype, kind) or ValueError
            (shape) naming the argument.
        autograph: Convert Python control flow (the default) before tracing;
            False traces the function as it is.
        optimize: Run the graph optimization passes on each trace.

    Returns:
        A `Function`, or a decorator making one when `func` is None.
    """

    def decorate(f: Callable[..., Any]) -> Function:
        if isinstance(f, Function):
            f = f.python_function
        return Function(
            f, input_signature=input_signature, autograph=autograph, optimize=optimize
        )

    if func is None:
        return decorate
    return decorate(func)
