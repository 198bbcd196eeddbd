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

import numpy as np

from runtime import control_flow, dtypes, nest
from runtime.context import STATE
from runtime.control_flow_checks import quote
from runtime.graph import Graph
from runtime.operators import dispatch
from runtime.operators.control_flow import as_state, state_names, unpack_state
from runtime.operators.variables import Undefined, UndefinedReturnValue
from runtime.operators.verification import label, labels
from runtime.ops import array as array_ops
from runtime.ops import math as math_ops
from runtime.ops.state import Assert
from runtime.ops.tensor_array import TensorArray
from runtime.shapes import as_shape
from runtime.tensor import SymbolicTensor, Tensor, convert_to_tensor, is_symbolic

# -- if -----------------------------------------------------------------------------


def _check_defined(values: Sequence[Any], names: Sequence[str], branch: str) -> None:
    other = "else" if branch == "if" else "if"
    for value, name in zip(values, names):
        # (A return value set in neither branch is fine: it stays undefined.)
        if type(value) is Undefined:
            raise ValueError(
                f"{quote(label(name))} must also be defined in the {branch} branch: "
                "it is set "
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

    def call(fn: Callable[..., Any] | None) -> Any:
        if fn is not None:
            return fn(*state)
        # No else block: the state comes out unchanged. With no outputs the
        # statement's result is dropped (the state was only read), so the
        # missing branch gives nothing, as the true branch does.
        return unpack_state(state) if count else None

    def branch(
        fn: Callable[..., Any] | None, other: Callable[..., Any] | None, label: str
    ) -> Callable[[], Any]:
        def run() -> Any:
            result = call(fn)
            if not count:
                return result
            values = list(as_state(result, count))
            if any(isinstance(v, UndefinedReturnValue) for v in values):
                # The function has not returned on this path yet: its return
                # value takes the other branch's type, as zeros; when it has
                # not returned on the other path either, it stays undefined.
                sample = as_state(_dry_run(lambda: call(other), ()), count)
                values = [
                    _undefined_return(v, s)
                    if isinstance(v, UndefinedReturnValue)
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
        # No outputs: the branches give the function's return value (an `if`
        # that ends the function), or both nothing.
        names=labels(names) if count else [label("retval_")],
    )


def _undefined_return(value: UndefinedReturnValue, other: Any) -> Any:
    """A return value not set in one branch of a graph `if`, given the other's."""
    if isinstance(other, UndefinedReturnValue):
        return other  # the same object in both branches: it passes through
    return _zeros_like_spec(other)


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
    opts: dict[str, Any] | None = None,
) -> Any:
    names = names or state_names(test)
    count = len(state)

    def trial(args: tuple[Any, ...]) -> tuple[Any, ...]:
        return as_state(_dry_run(body, args), count)

    loop_vars = _loop_state(state, names, trial)
    options = _loop_options(opts, loop_vars)
    if not loop_vars:
        # A loop with no state runs for its effects only: carry a counter.
        def cond0(i: Any) -> Any:
            return test()

        def body0(i: Any) -> Any:
            body()
            return i + 1

        control_flow.while_loop(
            cond0,
            body0,
            (0,),
            names=["iterations"],
            maximum_iterations=options["maximum_iterations"],
        )
        return None
    with _loop_context(names, loop_vars):
        result = control_flow.while_loop(
            lambda *v: test(*v),
            lambda *v: as_state(body(*v), count),
            loop_vars,
            names=labels(names),
            **options,
        )
    return unpack_state(tuple(result))


def _for_stmt(
    iterable: SymbolicTensor,
    body: Callable[..., Any],
    state: tuple[Any, ...],
    names: tuple[str, ...],
    extra_test: Callable[..., Any] | None,
    opts: dict[str, Any] | None = None,
) -> Any:
    names = names or state_names(body, skip=1)
    count = len(state)
    length = _length(iterable)

    def item(i: Any) -> Any:
        return iterable[i]

    def trial(args: tuple[Any, ...]) -> tuple[Any, ...]:
        # An item of the right type and shape, not `iterable[0]`: the iterable
        # may be empty.
        def run() -> Any:
            element = STATE.graph.placeholder(iterable.dtype, _item_shape(iterable))
            return body(element, *args)

        return as_state(_dry_run(run, ()), count)

    loop_vars = _loop_state(state, names, trial)
    options = _loop_options(opts, loop_vars)
    if options["shape_invariants"] is not None:
        options["shape_invariants"].insert(0, ())  # the iteration counter

    def cond(i: Any, *v: Any) -> Any:
        more = i < length
        if extra_test is None:
            return more
        return _and(more, lambda: extra_test(*v))

    def step(i: Any, *v: Any) -> tuple[Any, ...]:
        return (i + 1, *as_state(body(item(i), *v), count))

    with _loop_context(names, loop_vars):
        result = control_flow.while_loop(
            cond, step, (0, *loop_vars), names=["iteration", *labels(names)], **options
        )
    return unpack_state(tuple(result[1:]))


def _loop_options(
    opts: dict[str, Any] | None, loop_vars: tuple[Any, ...]
) -> dict[str, Any]:
    """`rt.while_loop`'s keyword arguments from `autograph.set_loop_options`.

    A `shape_invariants` pair `(value, shape)` applies to the loop variables
    (or the tensors in a tuple, list or dict carried by the loop) whose value
    when the loop starts is `value`, by identity; the others keep their own
    shapes.
    """
    opts = opts or {}
    pairs = list(opts.get("shape_invariants") or ())
    options: dict[str, Any] = {
        "maximum_iterations": opts.get("maximum_iterations"),
        "shape_invariants": None,
    }
    for n, pair in enumerate(pairs):
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
            raise TypeError(
                "each shape_invariants entry of autograph.set_loop_options must be a "
                f"(variable, shape) pair; entry {n} is {pair!r}"
            )
    if not pairs:
        return options
    used = [False] * len(pairs)
    shapes = []
    for var in loop_vars:
        for leaf in nest.flatten(var, expand_composites=True):
            shape = _static_shape(leaf)
            for n, (value, invariant) in enumerate(pairs):
                if value is leaf:
                    shape, used[n] = as_shape(invariant), True
            shapes.append(shape)
    for n, (value, _) in enumerate(pairs):
        if not used[n]:
            raise ValueError(
                f"shape_invariants entry {n} of autograph.set_loop_options names "
                f"{_kind(value)} that is not a variable of this loop; give "
                "(variable, shape) pairs for variables the loop changes"
            )
    options["shape_invariants"] = shapes
    return options


def _static_shape(value: Any) -> Any:
    shape = getattr(value, "shape", None)
    if isinstance(value, Tensor) or isinstance(shape, tuple):
        return shape
    return np.shape(value)


def _kind(value: Any) -> str:
    if isinstance(value, Tensor):
        return f"the tensor {value.name!r}" if is_symbolic(value) else "a tensor"
    return f"a {type(value).__name__}"


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
            shown = quote(label(name))
            described.append(f"{shown} ({dtype})" if dtype is not None else shown)
        if described and not getattr(e, "_ag_loop_note", False):
            advice = ""
            if isinstance(e, TypeError) and ("dtype" in str(e) or "cast" in str(e)):
                advice = (
                    "; a variable keeps its dtype in a graph loop, so give it the "
                    "right one before the loop (e.g. 0.0 instead of 0)"
                )
            _add_note(
                e,
                "while tracing a graph loop whose variables are "
                + ", ".join(described)
                + f" at the start{advice}",
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


def _item_shape(value: SymbolicTensor) -> Any:
    return None if value.shape is None else value.shape[1:]


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
    return control_flow.cond(a, b, lambda: a, names=["the value of the `and`"])


def _or(a: Any, b: Callable[[], Any]) -> Any:
    return control_flow.cond(a, lambda: a, b, names=["the value of the `or`"])


def _not(a: Any) -> Any:
    return math_ops.logical_not(a)


def _if_exp(
    cond: Any,
    if_true: Callable[[], Any],
    if_false: Callable[[], Any],
    expr_repr: str = "",
) -> Any:
    return control_flow.cond(
        cond, if_true, if_false, names=[_if_exp_label(if_true, if_false)]
    )


def _if_exp_label(*arms: Callable[[], Any]) -> str:
    """How messages name the value of a graph `if_exp`."""
    for arm in arms:
        code = getattr(arm, "__code__", None)
        if code is not None and any(
            label(n) == label("retval_") for n in code.co_freevars
        ):
            # Return lowering's `ag__.if_exp(do_return, lambda: retval_, ...)`.
            return label("retval_")
    return "the value of the `if`/`else`"  # an expression, or an `if` of returns


def _assert(cond: Any, message: Callable[[], Any] | None) -> None:
    data = [] if message is None else [message()]
    Assert(cond, data)


def _range(*args: Any) -> Any:
    return array_ops.range(*args)


def _len(value: SymbolicTensor) -> Any:
    return _length(value)


def _int(value: Any, *args: Any, **kwargs: Any) -> Any:
    if args or kwargs:  # as Python: a base is for strings only
        raise TypeError("int() can't convert a tensor with an explicit base")
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
