"""The graph backend: converted control flow on graph tensors builds graph ops.

Registers `SymbolicTensor` in `dispatch.TABLES` for the operators, so that
`if_stmt` on a graph-tensor condition builds one `cond` node, `while_stmt` and
`for_stmt` one `while` node, and so on. Also says when it is active (a graph is
being built), which lets converted functions skip straight to plain Python
otherwise.

`print` is not claimed: as in TensorFlow, a Python `print` runs while tracing
(showing symbolic tensors) and `rt.print` is the op that prints every call.

Errors name the user's variables: the names come from the operator call
(`if_stmt`) or from the parameters of the generated loop functions, which are
the loop variables' names.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from runtime import dtypes, formatted
from runtime.context import STATE
from runtime.operators import control_flow as operators
from runtime.operators import dispatch, py_builtins, verification
from runtime.operators.backends.graph import (
    BACKEND,
    dry_run,
    located_cond,
    readable_here,
    truth,
)
from runtime.operators.backends.graph_loops import (
    build_for,
    build_while,
    for_trial,
    length_of,
    raising_body,
    rows_of,
    weak_range,
    while_trial,
    widening,
)
from runtime.operators.py_builtins import Rows
from runtime.operators.staging import conditional
from runtime.operators.staging import where as where_
from runtime.operators.staging.operators import Loop, install
from runtime.operators.staging.raising import keeping_refusals, raise_when_run
from runtime.operators.staging.where import staged
from runtime.operators.variables import (
    UndefinedReturnValue,
)
from runtime.ops import array as array_ops
from runtime.ops import creation
from runtime.ops import math as math_ops
from runtime.ops.state import Assert, Variable, ensure_defined
from runtime.ops.tensor_array import TensorArray
from runtime.tensor import (
    SymbolicTensor,
)


def _select(
    cond: Any, if_true: Callable[[], Any], if_false: Callable[[], Any], key: str
) -> Any:
    """`if_true() if cond else if_false()` as a graph `cond` of one value."""

    what = _LAZY.get(key, "an arm of the graph conditional expression")

    def arm(fn: Callable[[], Any], other: Callable[[], Any]) -> Callable[[], Any]:
        fn = _lazy(fn, other, what)

        def run() -> Any:
            value = fn()
            if isinstance(value, UndefinedReturnValue):
                # `return retval_` after a loop whose `return` no traced path
                # took: the value is never used; give it the other's type.
                return conditional.fill(BACKEND, value, dry_run(other, ()))
            return value

        return run

    return located_cond(cond, arm(if_true, if_false), arm(if_false, if_true), [key])


_LAZY = {
    "the value of the `and`": "the right operand of the graph `and`",
    "the value of the `or`": "the right operand of the graph `or`",
}


def _lazy(
    fn: Callable[[], Any], other: Callable[[], Any], what: str
) -> Callable[[], Any]:
    """An operand Python evaluates only on some paths (`b` of `a or b`, an
    arm of `x if c else y`): where tracing it raises as Python does there
    (reading a name unbound on this path), the graph raises when it
    evaluates it, and the operand gives zeros of the `other`'s type."""

    def run() -> Any:
        try:
            return fn()
        except Exception as error:
            if not verification.raised_on_path(error):
                raise
            sample = dry_run(other, ())
            raise_when_run(BACKEND, error, what, "this run evaluated")
            return BACKEND.zeros([sample])[0]

    return run


def _carried(loop: Loop) -> set[str]:
    """The names and places `loop` carries."""
    return {*loop.names, *(p.name for p in loop.places)}


def _truthful(test: Callable[..., Any] | None) -> Callable[..., Any] | None:
    """A loop's test whose value is the bool Python's truth test reads
    (`while n:` on an int tensor: `truth`)."""
    if test is None:
        return None
    return lambda *state: truth(test(*state))


def _while(loop: Loop) -> Any:
    body = raising_body(loop.body, 0, _carried(loop))
    test, first = _truthful(loop.test), truth(loop.first_cond)

    def build(state: tuple[Any, ...]) -> Any:
        return build_while(test, body, state, loop.names, first, loop.places, loop.opts)

    return widening(build, loop.state, loop.names, body, while_trial, loop.places)


def _for(loop: Loop) -> Any:
    iterable = loop.iterable
    if isinstance(iterable, Rows):  # enumerate(...)/zip(...) of tensors
        iterable = rows_of(iterable)
        if iterable is None:
            return NotImplemented  # Python iterates the builtin's object
    body = raising_body(loop.body, 1, _carried(loop))
    test = _truthful(loop.test)

    def build(state: tuple[Any, ...]) -> Any:
        return build_for(
            iterable, body, state, loop.names, test, loop.places, loop.opts
        )

    trial_of = functools.partial(for_trial, iterable)
    return widening(build, loop.state, loop.names, body, trial_of, loop.places, 1)


def _not(value: Any) -> Any:
    return math_ops.logical_not(truth(value))


def _assert(cond: Any, message: Callable[[], Any] | None) -> None:
    data = [] if message is None else [message()]
    if data and isinstance(data[0], str):  # shows the values of this run
        shown = formatted.shown_in(data[0], readable_here)
        data = [shown] if shown.values else data
    Assert(cond, data)


def _range(*args: Any) -> Any:
    """`range(...)` with a graph tensor argument, checked as Python checks
    its arguments: a float is refused now; a step of 0 raises Python's
    ValueError (an InvalidArgumentError that is one) when the graph runs."""
    where = where_.at(where_.current())
    py_builtins.check_range_args(args, "graph", where)
    if len(args) == 3 and isinstance(args[2], SymbolicTensor):
        message = f"ValueError: {py_builtins.STEP_ZERO} (the range(){where})"
        step = ensure_defined(args[2] != 0, args[2], message, raises="ValueError")
        args = (*args[:2], step)
    return weak_range(*args)


def _len(value: SymbolicTensor) -> Any:
    return length_of(value)


def _int(value: Any, *args: Any, **kwargs: Any) -> Any:
    if args or kwargs:  # as Python: a base is for strings only
        raise verification.int_with_base()
    return array_ops.cast(value, dtypes.int32)


def _float(value: Any) -> Any:
    return array_ops.cast(value, dtypes.float32)


def _list_append(array: TensorArray, value: Any) -> TensorArray:
    return array.write(array.size(), value)


def _list_pop(array: TensorArray, *index: Any) -> Any:
    raise verification.pop_of_tensor_array()


def _list_len(array: TensorArray) -> Any:
    return array.size()


def _for_list(
    array: TensorArray,
    body: Callable[..., Any],
    state: tuple[Any, ...],
    names: tuple[str, ...],
    extra_test: Callable[..., Any] | None,
    places: Any = (),
    opts: Any = None,
) -> Any:
    """`for v in out` over a list a graph loop carried as a TensorArray:
    `for i in rt.range(len(out)): v = out.read(i)`."""
    names = names or operators.state_names(body, skip=1)
    return operators.for_stmt(
        creation.range(array.size()),
        lambda i, *values: body(array.read(i), *values),
        state,
        names,
        extra_test,
        places=places,
        opts=opts,
    )


def _reading(impl: Callable[..., Any]) -> Callable[..., Any]:
    """`impl` (an operator's implementation for graph tensors) for an
    `rt.Variable` among its values: while a graph is built, each Variable
    argument is the tensor it reads there (TensorFlow's AutoGraph stages
    `if v:`, `while n:`, `for x in v`, `range(n)`: `tf.is_tensor(v)`
    holds); eagerly Python's operator runs (a Variable's `bool`, `iter`)."""

    def run(*args: Any, **kwargs: Any) -> Any:
        if STATE.graph is None:
            return NotImplemented
        read = [a.read_value() if isinstance(a, Variable) else a for a in args]
        return impl(*read, **kwargs)

    return run


def register() -> None:
    """Installs the graph backend into the dispatch tables."""

    kept = keeping_refusals(BACKEND)
    install(
        BACKEND,
        SymbolicTensor,
        while_loop=_while,
        for_loop=_for,
        select=_select,
        logical_not=_not,
        wrap=kept,
    )
    for operator, impl in (
        ("assert_stmt", _assert),
        ("range_", _range),
        ("len_", _len),
        ("int_", _int),
        ("float_", _float),
    ):
        dispatch.register(operator, SymbolicTensor, staged(kept(impl)))
    dispatch.register("list_append", TensorArray, kept(_list_append))
    dispatch.register("list_pop", TensorArray, kept(_list_pop))
    dispatch.register("len_", TensorArray, kept(_list_len))
    dispatch.register("for_stmt", TensorArray, _for_list)
    # A Variable stands for its value (not in `for_range`: a Python range
    # loop whose state holds a Variable stays a Python loop).
    for operator, table in dispatch.TABLES.items():
        impl = table.registered.get(SymbolicTensor)
        if impl is not None and operator != "for_range":
            dispatch.register(operator, Variable, _reading(impl))
    # Graph.as_default() counts the graphs being built in the hint.
    dispatch.register_activity_check(lambda: STATE.graph is not None, hinted=True)


register()
