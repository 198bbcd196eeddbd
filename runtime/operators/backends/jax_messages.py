"""What a JAX run-time error says: the values it shows, and said once.

- A tracer notes the text it gives (`str`, `repr`, an f-string) while a
  converted function is traced (`runtime.formatted`), so that a `raise` or
  `assert` staged into a `jax.debug.callback` shows the values of the run
  (`x too big: 5`) instead of `JitTracer(int32[])`. The text a tracer gives
  is unchanged; a format spec on one (`f"{x:.3}"`), which JAX cannot
  format either, is refused naming the user's line.
- JAX logs every exception a callback raises ("jax.debug.callback failed"
  and its traceback) before the compiled function raises it again inside
  its `JaxRuntimeError`: the user would read it twice. The log of an error
  this backend raised on purpose is dropped (`staged`); others stay.

Under plain `jax.jit` the error reaches the caller as JAX's
`JaxRuntimeError` (an XLA status: JAX keeps neither the exception's type
nor its object), whose text ends with the user's exception type, message
and line.
"""

from __future__ import annotations

import collections
import functools
import logging
import traceback
from collections.abc import Sequence
from typing import Any

import numpy as np
from jax._src import core
from jax._src.interpreters import ad
from jax._src.lax.control_flow import loops
from jax.errors import (
    ConcretizationTypeError,
    JaxRuntimeError,
    TracerBoolConversionError,
    TracerIntegerConversionError,
)

from runtime import formatted, misuse
from runtime.context import STATE
from runtime.operators.staging import where as where_

Tracer = core.Tracer

_STAGED = "__autograph_staged__"  # marks an error raised by a staged check


# The errors staged checks raised lately, newest last: `autograph.jit`
# raises the one a `JaxRuntimeError` carries as text (`raised_by`).
_RAISED: collections.deque[BaseException] = collections.deque(maxlen=16)


def staged(error: BaseException) -> BaseException:
    """`error`, marked as raised by a check this backend staged."""
    setattr(error, _STAGED, True)
    _RAISED.append(error)
    return error


def raised_by(runtime_error: BaseException) -> BaseException | None:
    """The error a staged check raised that `runtime_error` (JAX's
    `JaxRuntimeError`, which keeps only its text) ends with, if any."""
    text = str(runtime_error).rstrip()
    for error in reversed(_RAISED):
        last = traceback.format_exception_only(type(error), error)[-1].strip()
        if text.endswith(last):
            _RAISED.remove(error)
            return error
    return None


class RaisesUsersErrors:
    """A `jax.jit`-compiled function whose run-time `raise`/`assert` reaches
    the caller as the user's exception (type, message with the run's values,
    line) instead of JAX's `JaxRuntimeError` with it as its last line; the
    compiled function's attributes (`lower`, `trace`, ...) are its own."""

    def __init__(self, compiled: Any) -> None:
        self._compiled = compiled
        functools.update_wrapper(self, compiled)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return self._compiled(*args, **kwargs)
        except JaxRuntimeError as e:
            error = raised_by(e)
            if error is None:
                raise
        # Outside the handler: JAX's text would be its context otherwise.
        raise error.with_traceback(None)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._compiled, name)

    def __repr__(self) -> str:
        return f"<autograph.jit of {self._compiled!r}>"


class _DropStagedErrors(logging.Filter):
    """Drops JAX's log of an exception a staged check raised on purpose."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not getattr(error, _STAGED, False)


def live(value: Any) -> bool:
    """Whether `value` is a tracer of a trace still being built (not one of
    a finished trial trace): one a callback can take."""
    trace = getattr(value, "_trace", None)
    return isinstance(value, Tracer) and trace is not None and trace.is_valid()


def shown(message: str) -> formatted.Shown:
    """`message` split at the live tracers it shows (`formatted.shown_in`)."""
    return formatted.shown_in(message, live)


def run_texts(values: Sequence[Any], shown: formatted.Shown) -> list[str]:
    """The texts the values of a run (NumPy arrays, in a callback) give, as
    a concrete JAX array's `str`/`repr` would."""
    texts = []
    for value, (conversion, _) in zip(values, shown.conversions):
        array = np.asarray(value)
        if conversion == "repr":
            body = np.array2string(array, separator=", ")
            texts.append(f"Array({body}, dtype={array.dtype})")
        else:
            texts.append(str(array))
    return texts


_REPR = Tracer.__repr__


def _text(tracer: Any) -> str:
    method = type(tracer).__repr__
    return _REPR(tracer) if method is _noted_repr else method(tracer)


def _noted_repr(self: Any) -> str:
    text = _REPR(self)
    formatted.note(text, self, "repr")
    return text


def _noted_str(self: Any) -> str:
    text = _text(self)
    formatted.note(text, self, "str")
    return text


def _noted_format(self: Any, spec: str) -> str:
    if not spec:
        return str(self)
    if STATE.formatted is not None:
        fix = f'jax.debug.print("{{:{spec}}}", value) (or print(value))'
        raise formatted.unsupported_spec(spec, "JAX", _text(self), fix)
    return object.__format__(self, spec)  # JAX's own TypeError


_BOOL = Tracer.__bool__


class ComparedAsBool(TracerBoolConversionError):
    """JAX's error for a tracer used as a Python bool, with the user's line
    and what to write instead (`max(a, b)`: `jnp.maximum(a, b)`); the same
    class, so code that catches JAX's still does (a loop unrolled)."""

    def __init__(self, message: str) -> None:
        TypeError.__init__(self, message)  # (not JAX's: it takes a tracer)


def _explained_bool(self: Any) -> bool:
    # `max(a, b)` on tracers: JAX's error names `to_graph`'s wrapper as the
    # function traced; the user's line, and what to write, are said here.
    try:
        return _BOOL(self)
    except TracerBoolConversionError as error:
        hint = (
            None
            if STATE.formatted is None
            else misuse.hint_here("bool", "jnp", "JAX tracers")
        )
        if hint is None:
            raise
        raise ComparedAsBool(hint) from error


_FLOAT = Tracer.__float__
_INDEX = Tracer.__index__


class UsedAsFloat(ConcretizationTypeError):
    """JAX's error for a tracer used as a Python float (`math.floor(x)`,
    `"%.3f" % x`), with the user's line and what to write instead, as the
    graph's; the same class, so code that catches JAX's still does."""

    def __init__(self, message: str) -> None:
        TypeError.__init__(self, message)  # (not JAX's: it takes a tracer)


class UsedAsInt(TracerIntegerConversionError):
    """JAX's error for a tracer used as a Python int (an index,
    `enumerate(xs, start=n)`), as `UsedAsFloat`."""

    def __init__(self, message: str) -> None:
        TypeError.__init__(self, message)


def _explained_float(self: Any) -> float:
    try:
        return _FLOAT(self)
    except ConcretizationTypeError as error:
        if STATE.formatted is None:  # (not in converted code)
            raise
        text = misuse.used_as_number("float", "a traced JAX value", "jnp", self)
        raise UsedAsFloat(text) from error


def _explained_index(self: Any) -> int:
    try:
        return _INDEX(self)
    except TracerIntegerConversionError as error:
        if STATE.formatted is None:
            raise
        text = misuse.used_as_number("int", "a traced JAX value", "jnp", self)
        raise UsedAsInt(text) from error


_WHILE_TRANSPOSE = ad.primitive_transposes[loops.while_p]


def _loop_line(params: dict[str, Any]) -> str | None:
    """`file:line` of the user's code that a `while_loop`'s condition (else
    its body) was traced from: the loop's line; None where none is known."""
    for name in ("cond_jaxpr", "body_jaxpr"):
        for eqn in params[name].jaxpr.eqns:
            frames = getattr(eqn.source_info.traceback, "frames", None) or ()
            for frame in frames:
                if not frame.file_name.startswith("<") and not where_.foreign_file(
                    frame.file_name
                ):
                    return f"{frame.file_name}:{frame.line_num}"
    return None


def _explained_while_transpose(*args: Any, **params: Any) -> Any:
    # `jax.grad` through a traced `while`: JAX's error names no line.
    try:
        return _WHILE_TRANSPOSE(*args, **params)
    except ValueError as error:
        at = _loop_line(params)
        if at is None:
            raise
        raise ValueError(
            f"jax.grad cannot differentiate the loop at {at} in reverse mode: its "
            "trip count is traced (a `while` on a traced value, or range() of one), "
            "and JAX reverses only loops of a length known while tracing; write "
            "it as `for i in range(n)` with a Python int n (a `break` on a traced "
            "value is allowed), or use forward mode (jax.jvp, jax.jacfwd)"
        ) from error


def install() -> None:
    """Makes tracers note their texts and drops the logs of staged errors
    (once, when the JAX backend loads)."""
    if Tracer.__repr__ is not _noted_repr:
        Tracer.__repr__ = _noted_repr  # type: ignore[method-assign]
        Tracer.__str__ = _noted_str  # type: ignore[method-assign]
        Tracer.__format__ = _noted_format  # type: ignore[method-assign]
        Tracer.__bool__ = _explained_bool  # type: ignore[method-assign]
        Tracer.__float__ = _explained_float  # type: ignore[method-assign]
        Tracer.__index__ = _explained_index  # type: ignore[method-assign]
        ad.primitive_transposes[loops.while_p] = _explained_while_transpose
    for name in ("jax._src.debugging", "jax._src.callback"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, _DropStagedErrors) for f in logger.filters):
            logger.addFilter(_DropStagedErrors())
