"""The JAX backend: converted control flow on JAX tracers lowers to `jax.lax`.

Registers `jax.core.Tracer` (every transformation's tracer class, through
the dispatch tables' class-hierarchy lookup) for the operators, so that under
`jax.jit`, `jax.vmap`, `jax.grad` and their compositions:

- `if` on a traced scalar is `lax.cond`; `a if c else b`, `and`, `or` too
  (the right operand runs only inside its branch); `not` is `logical_not`;
- `while` with a traced test is `lax.while_loop` (rotated, carrying the
  test's value, when it has places whose writes by the test must be kept);
- `for` over a traced array (or over `enumerate`/`zip` of arrays: rows of a
  tuple of arrays) is `lax.scan`, over `range(n)` with a traced `n`
  `lax.fori_loop`; with `break`/`return`, a fixed-length `for` is a `scan`
  whose steps after the `break` pass the state through (`lax.cond`: reverse
  mode works), and one of traced length a `lax.while_loop`;
- a `for` over a Python `range` whose state becomes traced is staged as one
  `lax.fori_loop` with static bounds (a `scan`, so reverse mode works), or is
  unrolled, with a warning naming the line, when the body needs the index as
  a Python int.

A tracer whose value is known (JVP tracers under an eager `jax.grad`) is
declined (`NotImplemented`): the statement runs as Python.

State travels as dicts keyed by the user's names, so JAX's own messages
("the output of body_fun at path ['total'] ...") name the variable; errors
raised while building a `lax` op get the user's `file:line` as a note.
Values that are not arrays (None, strings, functions, objects) are carried
by Python and must come out of a loop or `if` unchanged; a string in a
tuple beside arrays is part of the tuple's structure (`jax_values.pack`).

Imported lazily (see `dispatch.register_lazy_backend`): `import runtime`
never imports JAX.
"""

from __future__ import annotations

import builtins
import io
import sys
from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax

from runtime.operators import dispatch, py_builtins, verification
from runtime.operators.backends import jax_messages
from runtime.operators.backends.jax import (
    BACKEND,
    run_callback,
    run_shown,
    traced_path,
)
from runtime.operators.backends.jax_loops import (
    TracedRange,
    UnrolledLoopWarning,
    build_for,
    build_for_range,
    build_while,
)
from runtime.operators.backends.jax_values import (
    PLACEHOLDERS,
    Tracer,
    abstract,
    add_notes,
    cast_to,
    declined,
    is_arrays,
    is_numbers,
    kind_of,
    packed,
    predicate,
    raised_on_traced_path,
    refuse_big_ints,
    same_kind,
    trace_state_clean,
    unpack,
    weak_promotions,
    where_now,
    zeros_of_shapes,
)
from runtime.operators.staging.operators import install
from runtime.operators.staging.raising import keeping_refusals, raise_when_run
from runtime.operators.staging.where import staged

__all__ = ["TracedRange", "UnrolledLoopWarning", "register"]


def _raising_branch(
    error: Exception, other: Callable[[], dict[str, Any]], label: str
) -> dict[str, Any]:
    """A traced `if` branch that raises `error` when it runs: its outputs are
    zeros of the other branch's (if that one raises too, the `if` raises
    now: it cannot be built)."""
    sample = abstract(other)
    raise_when_run(
        BACKEND, error, f"the {label} branch of the JAX `if`", "this run took"
    )
    return {k: zeros_of_shapes(v) if is_arrays(v) else v for k, v in sample.items()}


def _cond_value(
    cond: Any, if_true: Callable[[], Any], if_false: Callable[[], Any], key: str
) -> Any:
    """`if_true() if cond else if_false()` as a `lax.cond` of one value."""
    where = where_now()
    pred = predicate(cond, "conditional expression", where)
    seen: dict[str, Any] = {}

    def arm(
        fn: Callable[[], Any], other: Callable[[], Any], which: str, dtypes: Any
    ) -> Callable[[], Any]:
        def run() -> Any:
            with traced_path(
                pred if which == "true" else lambda: jnp.logical_not(pred)
            ):
                try:
                    value = fn()
                except Exception as error:
                    if not raised_on_traced_path(error):
                        raise
                    label = "if" if which == "true" else "else"
                    value = _raising_branch(error, lambda: {key: other()}, label)[key]
            if isinstance(value, PLACEHOLDERS):
                # `return retval_` where no traced path has returned: never
                # used; it takes the other arm's type.
                sample = abstract(lambda: {key: other()})[key]
                value = zeros_of_shapes(sample) if is_arrays(sample) else value
            if not is_arrays(value):
                # (`lax.cond` would refuse it naming this file, not the user's)
                label = "if" if which == "true" else "else"
                raise verification.arm_not_carried(
                    key, kind_of(value), label, where, "JAX"
                )
            seen[which] = value
            if len(seen) == 2:
                other_value = seen["true" if which == "false" else "false"]
                same_kind(key, other_value, value, where, "`if`", "is")
            return cast_to(value, dtypes)

        return run

    def build(dtypes: Any) -> Any:
        seen.clear()
        return unpack(
            lax.cond(
                pred,
                packed(arm(if_true, if_false, "true", dtypes)),
                packed(arm(if_false, if_true, "false", dtypes)),
            )
        )

    try:
        return build(None)
    except OverflowError as error:
        refuse_big_ints(error, "`if`", where, [{key: v} for v in seen.values()])
        raise
    except TypeError as error:
        promote = weak_promotions(error, [{key: v} for v in seen.values()])
        if not promote:
            add_notes(error, "`if`", where, [key])
            raise
        return build(promote[key])


def _assert(cond: Any, message: Callable[[], Any] | None) -> Any:
    """A traced `assert`: checked when the compiled function runs (a failure
    raises AssertionError inside JAX's runtime error)."""
    if declined(cond):
        return NotImplemented
    where = where_now()
    pred = predicate(cond, "`assert`", where)
    text = None if message is None else message()
    traced = is_numbers(text) and text is not None and not isinstance(text, bool)
    # A message that shows traced values shows those of the run.
    shown = jax_messages.shown(text if isinstance(text, str) else "")

    def check(runs: Any, ok: Any, *values: Any) -> None:
        if not np.all(np.logical_or(ok, np.logical_not(runs))):
            if traced:
                detail = values[0]
            elif shown.values:
                detail = shown.fill(jax_messages.run_texts(values, shown))
            else:
                detail = text
            raise jax_messages.staged(
                AssertionError(
                    f"{detail} (the `assert`{where})"
                    if detail is not None
                    else f"assertion failed{where}"
                )
            )

    if traced:
        run_callback(check, pred, text)
    else:
        run_shown(check, shown, pred)
    return None


def _print(*args: Any, **kwargs: Any) -> Any:
    """`print` while JAX traces: prints when the compiled function runs,
    on every call, where the traced path runs (a vmap lane too), in order
    with the other run-time effects (an ordered `jax.debug.callback`), and
    showing the values of the run wherever its text shows a traced value
    (an argument, an item of a tuple, an f-string: `runtime.formatted`).

    Every print is staged, one with no traced argument too: on a path the
    run may not take (a branch, a loop body, after a traced `return`) it
    prints only when taken, and one at the top level prints in its place
    among the others, on every call, as Python does. Declined (printed as
    Python) while no JAX trace is active, and for the known values of an
    eager `jax.grad`.
    """
    if _PATH_IDLE() or any(isinstance(a, Tracer) and declined(a) for a in args):
        return NotImplemented
    file, flush = kwargs.pop("file", None), kwargs.pop("flush", False)
    text = io.StringIO()
    builtins.print(*args, **kwargs, file=text)  # the text, or print's error
    shown = jax_messages.shown(text.getvalue())

    def emit(runs: Any, *values: Any) -> None:
        if not np.all(runs):
            return  # a vmap lane that does not take this path
        out = sys.stdout if file is None else file
        out.write(shown.fill(jax_messages.run_texts(values, shown)))
        if flush:
            out.flush()

    run_shown(emit, shown)
    return None


def _range(*args: Any) -> Any:
    """`range(...)` with a traced argument: checked as Python checks its
    arguments (a float is refused now; a step of 0 raises Python's
    ValueError when the compiled function runs)."""
    if all(not isinstance(a, Tracer) or declined(a) for a in args):
        return NotImplemented
    where = where_now()
    py_builtins.check_range_args(args, "JAX", where)
    if len(args) == 3 and isinstance(args[2], Tracer):

        def check(runs: Any, step: Any) -> None:
            if np.any(np.logical_and(runs, step == 0)):
                message = f"{py_builtins.STEP_ZERO} (the range(){where})"
                raise jax_messages.staged(ValueError(message))

        run_callback(check, args[2])
    return TracedRange(*args)


def _len(value: Any) -> Any:
    if isinstance(value, TracedRange):
        return value.length()
    return NotImplemented


def _int(value: Any, *args: Any, **kwargs: Any) -> Any:
    if declined(value) or args or kwargs:
        return NotImplemented
    value = jnp.asarray(value)
    if jnp.issubdtype(value.dtype, jnp.floating):
        value = jnp.trunc(value)
    return value.astype(jnp.int32)


def _float(value: Any) -> Any:
    if declined(value):
        return NotImplemented
    return jnp.asarray(value).astype(jnp.float32)


def _active() -> bool:
    """JAX is tracing a function (jit, grad, vmap, ...)."""
    return not trace_state_clean()


_PATH_IDLE = trace_state_clean


def register() -> None:
    """Installs the JAX backend into the dispatch tables."""
    jax_messages.install()
    kept = keeping_refusals(BACKEND)
    statements = install(
        BACKEND,
        Tracer,
        declines=declined,
        while_loop=build_while,
        for_loop=build_for,
        for_range=build_for_range,
        select=_cond_value,
        logical_not=jnp.logical_not,
        wrap=kept,
    )
    for operator, impl in (
        ("assert_stmt", _assert),
        ("range_", _range),
        ("int_", _int),
        ("float_", _float),
    ):
        dispatch.register(operator, Tracer, staged(kept(impl)))
    printing = staged(kept(_print))
    dispatch.register("print_", Tracer, printing)
    dispatch.register_unclaimed("print_", printing)
    dispatch.register("for_stmt", TracedRange, statements["for_stmt"])
    dispatch.register("len_", TracedRange, _len)
    dispatch.register_activity_check(_active)


register()
