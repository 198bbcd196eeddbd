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

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from runtime import control_flow, dtypes, nest
from runtime.context import STATE
from runtime.graph import Graph
from runtime.operators import dispatch, verification
from runtime.operators.control_flow import as_state, state_names, unpack_state
from runtime.operators.variables import (
    UnboundAfterReturn,
    Undefined,
    UndefinedReturnValue,
    is_undefined,
)
from runtime.ops import array as array_ops
from runtime.ops import math as math_ops
from runtime.ops.state import Assert
from runtime.ops.tensor_array import TensorArray
from runtime.tensor import SymbolicTensor, convert_to_tensor

# -- if -----------------------------------------------------------------------------


def _check_defined(values: Sequence[Any], names: Sequence[str], branch: str) -> None:
    other = "else" if branch == "if" else "if"
    for value, name in zip(values, names):
        if is_undefined(value):
            raise ValueError(
                f"'{name}' must also be defined in the {branch} branch: it is set "
                f"in the {other} branch of a graph `if` and used after it; assign "
                "it in both branches or before the if statement"
            )


def _if_stmt(
    cond: SymbolicTensor,
    body: Callable[..., Any],
    orelse: Callable[..., Any] | None,
    state: tuple[Any, ...],
    names: tuple[str, ...],
) -> Any:
    count = len(names)
    # Without outputs, an `if` whose branches return something ends its
    # function: `return ag__.if_stmt(...)`. Both branches must then return.
    returned: dict[str, Any] = {}

    def call(fn: Callable[..., Any] | None) -> Any:
        return fn(*state) if fn is not None else unpack_state(state)

    def branch(
        fn: Callable[..., Any] | None, other: Callable[..., Any] | None, label: str
    ) -> Callable[[], Any]:
        def run() -> Any:
            result = call(fn)
            if not count:
                returned[label] = result
                if len(returned) == 2 and (returned["if"] is None) != (
                    returned["else"] is None
                ):
                    lacking = "if" if returned["if"] is None else "else"
                    verification.raise_missing_return(body, lacking, orelse is not None)
                return result
            values = list(as_state(result, count))
            placeholders = (UndefinedReturnValue, UnboundAfterReturn)
            if any(isinstance(v, placeholders) for v in values):
                # The function has not returned on this path yet (its return
                # value), or has returned (a variable nothing reads any more):
                # the value takes the other branch's type, as zeros.
                sample = as_state(_dry_run(lambda: call(other), ()), count)
                values = [
                    _zeros_like_spec(s)
                    if isinstance(v, placeholders) and not is_undefined(s)
                    else v
                    for v, s in zip(values, sample)
                ]
            _check_defined(values, names, label)
            return unpack_state(values)

        return run

    return control_flow.cond(
        cond,
        branch(body, orelse, "if"),
        branch(orelse, body, "else"),
        names=list(names) or None,
    )


# -- loops ----------------------------------------------------------------------------


def _dry_run(body: Callable[..., Any], args: Sequence[Any]) -> Any:
    """Traces `body` once into a scratch graph that is thrown away.

    Used to learn the dtype and shape a value gets inside the loop (a return
    value, an empty list's elements). Python side effects of the body happen
    once more while tracing, as in TensorFlow.
    """
    outer = STATE.graph
    scratch = Graph("dry_run", outer_graph=outer)
    with scratch.as_default():
        return body(*args)


def _zeros_like_spec(value: Any) -> Any:
    """Zeros shaped like `value`, a (nested) value that may be of a scratch graph."""

    def zeros(leaf: Any) -> Any:
        spec = leaf if isinstance(leaf, SymbolicTensor) else convert_to_tensor(leaf)
        if spec.dtype is dtypes.string:
            return convert_to_tensor("")
        shape = tuple(0 if d is None else d for d in spec.shape)
        return array_ops.zeros(shape, dtype=spec.dtype)

    return nest.map_structure(zeros, value)


def _loop_state(
    state: tuple[Any, ...],
    names: Sequence[str],
    trial: Callable[[tuple[Any, ...]], tuple[Any, ...]],
) -> tuple[Any, ...]:
    """Turns the loop's initial state into graph-loop variables.

    A return value not set yet starts as zeros of the type the loop gives it;
    a Python list becomes a TensorArray. Any other undefined variable is an
    error: it is first assigned inside the loop.
    """
    needs_trial = any(
        isinstance(v, UndefinedReturnValue) or (isinstance(v, list) and not v)
        for v in state
    )
    sample = trial(_listless(state)) if needs_trial else None
    out = []
    for i, (value, name) in enumerate(zip(state, names)):
        if isinstance(value, UndefinedReturnValue):
            if isinstance(sample[i], Undefined):
                raise ValueError(
                    "cannot tell the type of the return value of this function from "
                    "its graph loop; return a value of the same type on every path"
                )
            out.append(_zeros_like_spec(sample[i]))
        elif type(value) is Undefined:
            raise ValueError(
                f"'{name}' must be defined before the loop: it is first assigned "
                "inside a graph loop and used after it (or in the next iteration); "
                "give it an initial value before the loop"
            )
        elif isinstance(value, list):
            out.append(_as_tensor_array(value, name, sample[i] if sample else None))
        else:
            out.append(value)
    return tuple(out)


def _listless(state: tuple[Any, ...]) -> tuple[Any, ...]:
    # Fresh lists: the trial appends to them, and what it appends tells the
    # element dtype.
    return tuple(list(v) if isinstance(v, list) else v for v in state)


def _as_tensor_array(items: list[Any], name: str, sample: Any) -> TensorArray:
    if items:
        first = convert_to_tensor(items[0])
        array = TensorArray(first.dtype, size=0, dynamic_size=True)
        for i, item in enumerate(items):
            array = array.write(i, item)
        return array
    if isinstance(sample, list) and sample:
        element = sample[0]
        spec = (
            element
            if isinstance(element, SymbolicTensor)
            else convert_to_tensor(element)
        )
        return TensorArray(spec.dtype, size=0, dynamic_size=True)
    raise ValueError(
        f"list '{name}' is empty before a graph loop whose body does not append to it; "
        "give it an element, or use rt.TensorArray"
    )


def _while_stmt(
    test: Callable[..., Any],
    body: Callable[..., Any],
    state: tuple[Any, ...],
    names: tuple[str, ...],
    first_cond: Any,
) -> Any:
    names = names or state_names(test)
    count = len(state)

    def trial(args: tuple[Any, ...]) -> tuple[Any, ...]:
        return as_state(_dry_run(body, args), count)

    loop_vars = _loop_state(state, names, trial)
    if not loop_vars:
        # A loop with no state runs for its effects only: carry a counter.
        def cond0(i: Any) -> Any:
            return test()

        def body0(i: Any) -> Any:
            body()
            return i + 1

        control_flow.while_loop(cond0, body0, (0,), names=["iterations"])
        return None
    with _loop_context(names, loop_vars):
        result = control_flow.while_loop(
            lambda *v: test(*v),
            lambda *v: as_state(body(*v), count),
            loop_vars,
            names=list(names),
        )
    return unpack_state(tuple(result))


def _for_stmt(
    iterable: SymbolicTensor,
    body: Callable[..., Any],
    state: tuple[Any, ...],
    names: tuple[str, ...],
    extra_test: Callable[..., Any] | None,
) -> Any:
    names = names or state_names(body, skip=1)
    count = len(state)
    length = _length(iterable)

    def item(i: Any) -> Any:
        return iterable[i]

    def trial(args: tuple[Any, ...]) -> tuple[Any, ...]:
        return as_state(_dry_run(body, (item(0), *args)), count)

    loop_vars = _loop_state(state, names, trial)

    def cond(i: Any, *v: Any) -> Any:
        more = i < length
        if extra_test is None:
            return more
        return _and(more, lambda: extra_test(*v))

    def step(i: Any, *v: Any) -> tuple[Any, ...]:
        return (i + 1, *as_state(body(item(i), *v), count))

    with _loop_context(names, loop_vars):
        result = control_flow.while_loop(
            cond, step, (0, *loop_vars), names=["iteration", *names]
        )
    return unpack_state(tuple(result[1:]))


@contextlib.contextmanager
def _loop_context(names: Sequence[str], values: Sequence[Any]) -> Iterator[None]:
    """Adds the loop variables' names and dtypes to errors raised while tracing."""
    try:
        yield
    except (TypeError, ValueError) as e:
        described = []
        for name, value in zip(names, values):
            dtype = getattr(value, "dtype", None)
            if dtype is None and isinstance(value, (bool, int, float)):
                dtype = convert_to_tensor(value).dtype
            described.append(
                f"'{name}' ({dtype})" if dtype is not None else f"'{name}'"
            )
        if described and not getattr(e, "_ag_loop_note", False):
            _add_note(
                e,
                "while tracing a graph loop whose variables are "
                + ", ".join(described)
                + " at the start; a variable keeps its dtype in a graph loop, so "
                "give it the right one before the loop (e.g. 0.0 instead of 0)",
            )
            e._ag_loop_note = True  # type: ignore[attr-defined]
        raise


def _add_note(error: BaseException, note: str) -> None:
    """`error.add_note(note)`; before Python 3.11, which has no notes, the
    note is appended to the message."""
    if hasattr(error, "add_note"):
        error.add_note(note)
    elif error.args and isinstance(error.args[0], str):
        error.args = (f"{error.args[0]}\n{note}", *error.args[1:])


def _length(value: SymbolicTensor) -> Any:
    if not value.shape:
        raise TypeError(
            f"cannot iterate over a scalar tensor {value.name!r}; iterate over a "
            "1-D or higher tensor, or use rt.range(n)"
        )
    if value.shape[0] is not None:
        return value.shape[0]
    return array_ops.shape(value)[0]


# -- expressions ----------------------------------------------------------------------


def _and(a: Any, b: Callable[[], Any]) -> Any:
    return control_flow.cond(a, b, lambda: a)


def _or(a: Any, b: Callable[[], Any]) -> Any:
    return control_flow.cond(a, lambda: a, b)


def _not(a: Any) -> Any:
    return math_ops.logical_not(a)


def _if_exp(
    cond: Any,
    if_true: Callable[[], Any],
    if_false: Callable[[], Any],
    expr_repr: str = "",
) -> Any:
    return control_flow.cond(cond, if_true, if_false)


def _assert(cond: Any, message: Callable[[], Any] | None) -> None:
    data = [] if message is None else [message()]
    Assert(cond, data)


def _range(*args: Any) -> Any:
    return array_ops.range(*args)


def _len(value: SymbolicTensor) -> Any:
    return _length(value)


def _int(value: Any, *args: Any) -> Any:
    return array_ops.cast(value, dtypes.int32)


def _float(value: Any) -> Any:
    return array_ops.cast(value, dtypes.float32)


def _list_append(array: TensorArray, value: Any) -> TensorArray:
    return array.write(array.size(), value)


def _list_pop(array: TensorArray, *index: Any) -> Any:
    raise TypeError(
        "pop() on a list carried through a graph loop (a TensorArray) is not "
        "supported; keep an index variable and read() instead"
    )


def register() -> None:
    """Installs the graph backend into the dispatch tables."""
    for operator, impl in (
        ("if_stmt", _if_stmt),
        ("while_stmt", _while_stmt),
        ("for_stmt", _for_stmt),
        ("and_", _and),
        ("or_", _or),
        ("not_", _not),
        ("if_exp", _if_exp),
        ("assert_stmt", _assert),
        ("range_", _range),
        ("len_", _len),
        ("int_", _int),
        ("float_", _float),
    ):
        dispatch.register(operator, SymbolicTensor, impl)
    dispatch.register("list_append", TensorArray, _list_append)
    dispatch.register("list_pop", TensorArray, _list_pop)
    dispatch.register_activity_check(lambda: STATE.graph is not None)


register()
