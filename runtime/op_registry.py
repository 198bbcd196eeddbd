"""The op table, and `apply`: run an op now, or add it to the graph.

A node is (op type, inputs, attrs). This module maps each op type to one
`OpDef`: its shape/dtype rule (used while building graphs), its NumPy kernel
(used eagerly and by the executor) and whether it is stateful. Every op type
that can appear in a graph is registered here, `Placeholder`, `Const`, `If`
and `While` included.

    >>> import runtime as rt
    >>> from runtime import op_registry
    >>> op_registry.get("Tanh").kernel is np.tanh
    True
    >>> op_registry.apply("Add", (rt.constant(1), 2))
    <rt.Tensor: shape=(), dtype=int32, numpy=3>

`apply` is the one entry point of every op function in `runtime.ops`.
Eagerly it checks dtypes, then calls the kernel and translates NumPy's
exceptions into `InvalidArgumentError`; it does not run the shape rule (NumPy
checks shapes anyway), which keeps the eager path short. While a graph is
being built it converts the inputs to graph tensors, runs the rule (so shape
errors are found at build time) and adds a node.

Conversion is here too: `convert_to_tensor` (`rt.convert_to_tensor`) and
`convert_in_graph` (`Graph.convert`) turn any operand into a tensor, and a
list holding tensors is stacked by running the `Pack` op by name, so that
neither `runtime.tensor` nor `runtime.graph` needs an op module.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import re
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from runtime import dtypes, eager
from runtime.context import STATE
from runtime.errors import DTypeMismatch
from runtime.shapes import Shape, TensorShape
from runtime.source_locations import keep_refusal
from runtime.tensor import (
    CONVERSIONS,
    EagerTensor,
    SymbolicTensor,
    Tensor,
    as_numpy,
    contains_tensor,
    dtype_error,
    is_symbolic,
    is_weak,
    packs_as,
    register_tensor_conversion,
)

__all__ = [
    "OpDef",
    "apply",
    "bind_kernel",
    "convert_in_graph",
    "convert_to_tensor",
    "get",
    "gradient",
    "lookup_variable",
    "names",
    "register",
    "register_variable",
]

Rule = Callable[[Sequence[Any], dict[str, Any]], list[tuple[dtypes.DType, Shape]]]
KERNEL_ERRORS = eager.KERNEL_ERRORS


@dataclasses.dataclass(frozen=True, eq=False)
class OpDef:
    """Everything the runtime knows about one op type.

    Attributes:
        name: The op type (`"MatMul"`).
        rule: (input tensors, attrs) -> [(dtype, static shape)] per output;
            raises TypeError/InvalidArgumentError for bad inputs.
        kernel: `kernel(*numpy_inputs, **attrs)` -> a NumPy value (a tuple of
            them for several outputs, None for none). None for the ops the
            executor handles itself (Placeholder, Const, If, While).
        stateful: Runs even when its outputs are unused, in program order.
        num_outputs: How many outputs `apply` returns (1: a tensor, 0: None,
            n > 1 or -1 (as many as the rule gives): a tuple).
        unify: Which inputs must share one dtype: a count of leading inputs,
            -1 for all, or a tuple of positions. Python values among them take
            that dtype.
        allowed: The dtypes allowed for the unified inputs (None: any).
        may_warn: The kernel may emit NumPy floating-point warnings, which
            the runtime silences (TensorFlow gives inf/nan quietly).
        var_access: "read" or "write" for ops on a Variable (`var_id` attr).
        bind: attrs -> kernel of the inputs only; defaults to a partial.
        eager_check: Called with the input values and attrs before an eager
            kernel runs, for checks the graph rule makes statically.
        py_operator: The Python operator the kernel is (`"+"`, or `"-x"`
            for a unary one); the executor writes it inline, and Python
            scalars may stand in for operands (NumPy treats them as weak).
        default_name: The node name used when none is given.
        grad: The op's gradient, `grad(op, output_grads) -> input grads`,
            declared beside its kernel with `@gradient("Name")` (see
            `runtime.gradients`); None: differentiating it is an error.
    """

    name: str
    rule: Rule
    kernel: Callable[..., Any] | None
    stateful: bool = False
    num_outputs: int = 1
    unify: int | tuple[int, ...] = 0
    allowed: frozenset[dtypes.DType] | None = None
    may_warn: bool = False
    var_access: str | None = None
    bind: Callable[[dict[str, Any]], Callable[..., Any]] | None = None
    eager_check: Callable[..., None] | None = None
    py_operator: str | None = None
    default_name: str = ""
    grad: Callable[..., Any] | None = None
    np_allowed: frozenset[Any] | None = dataclasses.field(init=False, default=None)
    unify_positions: tuple[int, ...] = dataclasses.field(init=False, default=())
    binary: bool = dataclasses.field(init=False, default=False)
    run_eager: Callable[[Sequence[Any], dict[str, Any]], Any] = dataclasses.field(
        init=False, default=None, repr=False
    )

    def __post_init__(self) -> None:
        if not self.default_name:
            snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", self.name).lower()
            object.__setattr__(self, "default_name", snake)
        object.__setattr__(self, "binary", self.unify == 2)
        if isinstance(self.unify, tuple):
            object.__setattr__(self, "unify_positions", self.unify)
        elif self.unify > 0:
            object.__setattr__(self, "unify_positions", tuple(range(self.unify)))
        if self.allowed is not None:
            np_allowed = frozenset(d.np_dtype for d in self.allowed)
            object.__setattr__(self, "np_allowed", np_allowed)

    def __repr__(self) -> str:
        return f"OpDef({self.name!r})"


_OPS: dict[str, OpDef] = {}


def register(opdef: OpDef) -> OpDef:
    """Adds `opdef` to the table (ValueError if its name is taken)."""
    if opdef.name in _OPS:
        raise ValueError(f"op {opdef.name!r} is already registered")
    object.__setattr__(opdef, "run_eager", eager.runner(opdef, _eager_general))
    _OPS[opdef.name] = opdef
    return opdef


def gradient(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: declares the gradient of op type `name` in its `OpDef`.

    The function gets the op (an `Operation`, or an eager record with the
    same `inputs`, `outputs`, `attrs`) and one gradient per output (None
    for an output nothing depends on) and returns one gradient per input
    (None where none flows). It builds its result with runtime ops, so the
    same function serves eager tapes and graphs.
    """

    def declare(fn: Callable[..., Any]) -> Callable[..., Any]:
        opdef = get(name)
        if opdef.grad is not None:
            raise ValueError(f"op {name!r} already has a gradient")
        object.__setattr__(opdef, "grad", fn)
        return fn

    return declare


def get(name: str) -> OpDef:
    """The OpDef for op type `name`.

    Raises:
        KeyError: For an unknown op type.
    """
    try:
        return _OPS[name]
    except KeyError:
        raise KeyError(f"unknown op type {name!r}") from None


def names() -> list[str]:
    """All registered op types, sorted."""
    return sorted(_OPS)


def bind_kernel(opdef: OpDef, attrs: dict[str, Any]) -> Callable[..., Any]:
    """The kernel with `attrs` bound: a function of the input values only."""
    if opdef.bind is not None:
        return opdef.bind(attrs)
    if not attrs:
        return opdef.kernel  # type: ignore[return-value]
    return functools.partial(opdef.kernel, **attrs)  # type: ignore[arg-type]


# -- variables: graph ops refer to them by a stable id -------------------------

_VARIABLES: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()
_VARIABLE_IDS = itertools.count(1)


def register_variable(variable: Any) -> int:
    """Gives `variable` its id (held weakly here; graphs hold it strongly)."""
    var_id = next(_VARIABLE_IDS)  # atomic: threads never share an id
    _VARIABLES[var_id] = variable
    return var_id


def lookup_variable(var_id: int) -> Any:
    """The live `Variable` with id `var_id` (KeyError if it is gone)."""
    return _VARIABLES[var_id]


# -- conversion: any operand as a tensor ---------------------------------------
#
# Here rather than in `runtime.tensor` (the values) or `runtime.graph` (the
# nodes) because a list holding tensors is stacked with the `Pack` op, run
# by name through `apply` like any other op.


def convert_to_tensor(
    value: Any,
    dtype: dtypes.DType | str | None = None,
    *,
    dtype_hint: dtypes.DType | None = None,
) -> Tensor:
    """`value` as a tensor: eager when no graph is being built.

    While a graph is being built this gives the symbolic tensor itself
    (captured from an outer graph if needed) or a captured `Const` node.

    Args:
        value: A tensor, `Variable`, Python scalar, nested list or NumPy array.
        dtype: The required dtype; a tensor of another dtype raises TypeError.
        dtype_hint: The dtype Python values should take, if they can.

    Raises:
        TypeError: When `value` cannot have the required dtype.
    """
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    graph = STATE.graph
    if graph is not None:
        return convert_in_graph(graph, value, dtype, dtype_hint)
    if type(value) is EagerTensor:
        if dtype is not None and value.dtype is not dtype:
            raise dtype_error(value, dtype)
        return value
    if type(value) is SymbolicTensor:
        raise TypeError(
            f"the symbolic tensor {value.name!r} was used outside the graph that "
            "defines it (no graph is being built); graph tensors cannot leak out "
            "of a traced function"
        )
    convert = CONVERSIONS.get(type(value))
    if convert is not None:
        return convert(value, dtype)
    if isinstance(value, (list, tuple)) and contains_tensor(value):
        return _stack(value, dtype, dtype_hint, convert_to_tensor)
    return EagerTensor(as_numpy(value, dtype, dtype_hint))


def convert_in_graph(
    graph: Any,
    value: Any,
    dtype: dtypes.DType | None = None,
    dtype_hint: dtypes.DType | None = None,
) -> SymbolicTensor:
    """`value` as a tensor of `graph` (`Graph.convert`): a tensor of an outer
    graph is captured, an eager tensor or Python value becomes a `Const`."""
    if type(value) is SymbolicTensor:
        if value._op.graph is not graph:
            value = graph.capture(value)
        if dtype is not None and value._dtype is not dtype:
            raise dtype_error(value, dtype)
        return value
    convert = CONVERSIONS.get(type(value))
    if convert is not None:
        return convert(value, dtype)  # type: ignore[return-value]
    if type(value) is EagerTensor:
        if dtype is not None and value.dtype is not dtype:
            raise dtype_error(value, dtype)
        tensor = graph.eager_constant(value)
        if dtype is not None and tensor._dtype is not dtype:
            raise dtype_error(value, dtype)
        return tensor
    if isinstance(value, (list, tuple)) and contains_tensor(value):
        return _stack(
            value, dtype, dtype_hint, functools.partial(convert_in_graph, graph)
        )
    return graph.constant(as_numpy(value, dtype, dtype_hint))


def _stack(
    value: list[Any] | tuple[Any, ...],
    dtype: dtypes.DType | None,
    dtype_hint: dtypes.DType | None,
    convert: Callable[..., Tensor],
) -> Tensor:
    """A list holding tensors, each item converted, stacked with `Pack`.

    (A function of its own, so that the callers' arguments are not cells of
    a comprehension, which every call would pay for.)"""
    items = [convert(v, dtype, dtype_hint=dtype_hint) for v in value]
    if dtype is None and dtype_hint is not None:
        # The eager rule (`packs_as`): `concat((v_int32, [i_int64]), 0)`
        # packs the list as int32, as NumPy's conversion does eagerly.
        items = [
            apply("Cast", [t], {"dtype": dtype_hint})
            if t.dtype is not dtype_hint and packs_as(t.dtype, dtype_hint)
            else t
            for t in items
        ]
    return apply("Pack", items, {"axis": 0})


def _convert_tensor_shape(shape: TensorShape, dtype: dtypes.DType | None) -> Tensor:
    if not shape.is_fully_defined():
        raise ValueError(
            f"cannot convert the partially known shape {shape} to a tensor"
        )
    return convert_to_tensor(shape.as_list(), dtype or dtypes.int32)


register_tensor_conversion(TensorShape, _convert_tensor_shape)


# -- apply -------------------------------------------------------------------

_UNTYPED = object()
_NO_ATTRS: dict[str, Any] = {}
_PY_ORDER = (dtypes.bool_, dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64)


def apply(
    op: OpDef | str,
    inputs: Sequence[Any],
    attrs: dict[str, Any] = _NO_ATTRS,
    name: str | None = None,
) -> Any:
    """Runs op `op` on `inputs` now, or adds it to the graph being built.

    Returns:
        An EagerTensor or SymbolicTensor (a tuple for several outputs, None
        for ops without outputs).

    Raises:
        TypeError: For inputs of the wrong dtype.
        InvalidArgumentError: For bad values (eagerly) or statically bad
            shapes (while building a graph).
    """
    graph = STATE.graph
    if type(op) is str:
        op = get(op)
    if graph is None:
        if STATE.tapes:
            return _taped(op, inputs, attrs)
        return op.run_eager(inputs, attrs)
    return _symbolic(graph, op, inputs, attrs, name)


def _taped(op: OpDef, inputs: Sequence[Any], attrs: dict[str, Any]) -> Any:
    """Runs `op` eagerly and lets the active gradient tapes record it.

    Operands that stand for a tensor (a `Variable`) are read first, so that
    a tape sees the read of a trainable variable.
    """
    inputs = [
        CONVERSIONS[type(x)](x, None) if type(x) in CONVERSIONS else x for x in inputs
    ]
    out = op.run_eager(inputs, attrs)
    outputs = () if out is None else (out if type(out) is tuple else (out,))
    for tape in STATE.tapes:
        tape._record(op, inputs, outputs, attrs)
    return out


def _eager_general(op: OpDef, inputs: Sequence[Any], attrs: dict[str, Any]) -> Any:
    """The eager path for any inputs: convert, check dtypes, run the kernel."""
    return eager.call_kernel(op, _eager_values(op, inputs), attrs)


def _eager_values(op: OpDef, inputs: Sequence[Any]) -> list[Any]:
    values: list[Any] = []
    for x in inputs:
        t = type(x)
        if t is EagerTensor:
            values.append(x.numpy_value)
        elif t is SymbolicTensor:
            raise TypeError(
                f"{op.name}: the symbolic tensor {x.name!r} was used outside "
                "the graph that defines it (no graph is being built); graph "
                "tensors cannot leak out of a traced function"
            )
        elif t in CONVERSIONS:
            values.append(CONVERSIONS[t](x, None).numpy_value)  # type: ignore[attr-defined]
        elif t is np.ndarray:
            values.append(as_numpy(x))
        else:
            values.append(_UNTYPED)
    _unify(op, inputs, values, _eager_dtype, _eager_convert)
    return values


def _eager_dtype(value: Any) -> dtypes.DType:
    return dtypes.from_numpy(value.dtype)


def _eager_convert(value: Any, hint: dtypes.DType | None) -> Any:
    return as_numpy(value, None, hint)


def _unify(
    op: OpDef,
    inputs: Sequence[Any],
    values: list[Any],
    dtype_of: Callable[[Any], dtypes.DType],
    convert: Callable[[Any, dtypes.DType | None], Any],
) -> None:
    """Converts the Python values in `values` (in place) and checks dtypes."""
    positions = op.unify_positions or (range(len(values)) if op.unify else ())
    common: dtypes.DType | None = None
    for i in positions:
        if values[i] is not _UNTYPED:
            dtype = dtype_of(values[i])
            if common is None:
                common = dtype
            elif dtype is not common:
                raise DTypeMismatch(
                    f"{op.name}: operands must have the same dtype, got "
                    f"{common} and {dtype}; use rt.cast to convert one of them"
                )
    if common is None and positions:
        common = _python_default([inputs[i] for i in positions])
    for i, v in enumerate(values):
        if v is _UNTYPED:
            unified = i in positions
            try:
                values[i] = convert(inputs[i], common if unified else None)
            except TypeError as e:
                raise TypeError(f"{op.name}: {e}") from None
            if unified and dtype_of(values[i]) is not common:
                raise DTypeMismatch(
                    f"{op.name}: cannot use {inputs[i]!r} with a {common} operand; "
                    "use rt.cast to convert one of them"
                )
    if op.allowed is not None and common is not None and common not in op.allowed:
        allowed = ", ".join(d.name for d in dtypes.ALL if d in op.allowed)
        raise TypeError(f"{op.name} does not support {common} tensors (only {allowed})")


def _python_default(values: Sequence[Any]) -> dtypes.DType | None:
    """The dtype Python operands share when no operand is a tensor."""
    best: dtypes.DType | None = None
    for v in values:
        dtype = dtypes.from_numpy(as_numpy(v).dtype)
        if dtype is dtypes.string:
            return dtype
        if best is None or (
            dtype in _PY_ORDER
            and best in _PY_ORDER
            and _PY_ORDER.index(dtype) > _PY_ORDER.index(best)
        ):
            best = dtype
    return best


def _symbolic(
    graph: Any,
    op: OpDef,
    inputs: Sequence[Any],
    attrs: dict[str, Any],
    name: str | None,
) -> Any:
    tensors: list[Any] = []
    for x in inputs:
        t = type(x)
        if (
            t is SymbolicTensor
            or t is EagerTensor
            or t in CONVERSIONS
            or t is np.ndarray
        ):
            tensors.append(convert_in_graph(graph, x))
        else:
            tensors.append(_UNTYPED)
    weak = op.unify and _cast_weak_ints(graph, op, inputs, tensors)
    if op.unify or any(t is _UNTYPED for t in tensors):
        convert = functools.partial(_graph_convert, graph)
        try:
            _unify(op, inputs, tensors, _graph_dtype, convert)
        except DTypeMismatch as error:
            # A graph built past it (the user's `except Exception` caught it
            # while tracing) would not be the program: kept, it is raised
            # when the trace ends, unless a graph loop widens a Python number
            # and builds again (`graph_loops.widening`).
            keep_refusal(error, ours=True)
            raise
    node = graph.create_op(op, tensors, attrs, name=name)
    n = op.num_outputs
    if n == 1:
        out = node.outputs[0]
        if weak is None and (out.dtype.is_integer or out.dtype.is_floating):
            out.weak = True  # (`n + 1`: of weak ints and Python numbers)
        return out
    if n == 0:
        return None
    return node.outputs


def _cast_weak_ints(
    graph: Any, op: OpDef, inputs: Sequence[Any], tensors: list[Any]
) -> bool | None:
    """Casts each weak operand of `op` (`SymbolicTensor.weak`: a loop's
    counter made of a Python int, or what ops make of it with Python
    numbers) to the wider dtype of another operand (a float, int64), or to
    float32 beside a Python float (`i * 0.5`), as Python's arithmetic gives
    `total / n`, and JAX's weak types. None where every operand is weak or
    a Python number and one is weak: what the op gives is weak too;
    otherwise whether any operand was weak."""
    positions = op.unify_positions or range(len(tensors))
    weak = [i for i in positions if is_weak(tensors[i])]
    if not weak:
        return False
    to = weak_dtype(
        [inputs[i] if tensors[i] is _UNTYPED else tensors[i] for i in positions]
    )
    if to is not None:
        for i in weak:
            if _PY_ORDER.index(to) > _PY_ORDER.index(tensors[i].dtype):
                cast = (get("Cast"), (tensors[i],), {"dtype": to}, None)
                tensors[i] = _symbolic(graph, *cast)
    if all(tensors[i] is _UNTYPED or i in weak for i in positions):
        return None
    return True


def weak_dtype(values: Sequence[Any]) -> dtypes.DType | None:
    """The dtype the weak tensors among `values` (`SymbolicTensor.weak`)
    take beside the others, as Python's arithmetic and JAX's weak types
    give it: the widest of the other graph tensors' (a float, int64); with
    none, the weak ones' own widest, and float32 beside a Python float.
    None where none is weak, or a dtype is no number's."""
    weak = [v.dtype for v in values if is_weak(v)]
    if not weak:
        return None
    strong = [
        v.dtype
        for v in values
        if is_symbolic(v) and not v.weak and v.dtype in _PY_ORDER
    ]
    wider = strong or weak  # (the strong ones win)
    if not strong and any(type(v) is float for v in values):
        wider.append(dtypes.float32)
    return max(wider, key=_PY_ORDER.index) if set(wider) <= set(_PY_ORDER) else None


def _graph_convert(graph: Any, value: Any, hint: dtypes.DType | None) -> Any:
    return convert_in_graph(graph, value, None, hint)


def _graph_dtype(value: Tensor) -> dtypes.DType:
    return value.dtype
