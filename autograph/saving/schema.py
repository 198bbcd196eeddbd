"""What each op's attrs must look like in a saved graph.

Loading checks every node against this table before the op's shape rule
runs: its number of inputs, which of them are TensorArray handles, the exact
set of attr keys, and for each attr a type and range. So a node that loads is
one the kernels can run (they then only meet the value errors the executor
reports as `InvalidArgumentError`).

    >>> from runtime import dtypes
    >>> check_node("ExpandDims", {"axis": 1}, [dtypes.int32], "node 'e'")
    >>> try:
    ...     check_node("ExpandDims", {"axis": "1"}, [dtypes.int32], "node 'e'")
    ... except LoadError as e:
    ...     print(e)
    node 'e': attr 'axis' must be an int in [-64, 64], got '1'

`If`/`While` subgraph attrs are checked by `graphs`; `var_id` by the
variable table (it must name a saved variable). An op type missing from
`SCHEMA` can be neither saved nor loaded: add it here with the op.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from autograph.saving.values import LoadError, fail
from runtime import dtypes

__all__ = ["SCHEMA", "OpSchema", "check_node", "check_variable"]

Check = Callable[[Any, int], str | None]  # (value, number of inputs) -> problem


def _dtype(value: Any, n: int) -> str | None:
    ok = isinstance(value, dtypes.DType) and value in dtypes.ALL
    return None if ok else "must be a dtype"


def _any_dtype(value: Any, n: int) -> str | None:
    ok = value is dtypes.variant or _dtype(value, n) is None
    return None if ok else "must be a dtype"


def _optional_dtype(value: Any, n: int) -> str | None:
    return None if value is None else _dtype(value, n)


def _integer_dtype(value: Any, n: int) -> str | None:
    return None if value in dtypes.INTEGER else "must be int32 or int64"


def _int(low: int, high: int) -> Check:
    def check(value: Any, n: int) -> str | None:
        ok = type(value) is int and low <= value <= high
        return None if ok else f"must be an int in [{low}, {high}]"

    return check


_AXIS = _int(-64, 64)
_COUNT = _int(0, 2**31 - 1)


def _bool(value: Any, n: int) -> str | None:
    return None if type(value) is bool else "must be a bool"


def _text(value: Any, n: int) -> str | None:
    return None if type(value) is str else "must be a string"


def _optional(check: Check) -> Check:
    return lambda value, n: None if value is None else check(value, n)


def _tuple_of(check: Check, what: str) -> Check:
    def tuple_check(value: Any, n: int) -> str | None:
        if type(value) is not tuple or len(value) > 64:
            return f"must be a tuple of {what}"
        for item in value:
            if check(item, n) is not None:
                return f"must be a tuple of {what}"
        return None

    return tuple_check


def _shape(value: Any, n: int) -> str | None:
    dims = _tuple_of(_optional(_int(0, 2**62)), "sizes or None")
    return None if value is None else dims(value, n)


def _pair(value: Any, n: int) -> str | None:
    ok = type(value) is tuple and len(value) == 2
    return None if ok and all(_COUNT(v, n) is None for v in value) else "bad pair"


def _template_item(item: Any, data: int, depth: int = 0) -> bool:
    """Whether `item` is a print template whose tensors are all in `data`."""
    if type(item) is not tuple or not item or depth > 32:
        return False
    kind, rest = item[0], item[1:]
    if kind == "text":
        return len(rest) == 1 and type(rest[0]) is str
    if kind in ("tensor", "value"):
        return len(rest) == 1 and type(rest[0]) is int and 0 <= rest[0] < data
    if kind == "join":
        return (
            len(rest) == 1
            and type(rest[0]) is tuple
            and all(_template_item(t, data, depth + 1) for t in rest[0])
        )
    if kind == "seq":
        return (
            len(rest) == 3
            and type(rest[0]) is str
            and type(rest[1]) is str
            and type(rest[2]) is tuple
            and all(_template_item(t, data, depth + 1) for t in rest[2])
        )
    if kind == "dict":
        return (
            len(rest) == 1
            and type(rest[0]) is tuple
            and all(
                type(p) is tuple
                and len(p) == 2
                and type(p[0]) is str
                and _template_item(p[1], data, depth + 1)
                for p in rest[0]
            )
        )
    return False


def _template(skip: int) -> Check:
    """A tuple of print templates over the inputs after the first `skip`."""

    def check(value: Any, n: int) -> str | None:
        ok = type(value) is tuple and all(_template_item(t, n - skip) for t in value)
        return None if ok else "must be a print template of the op's inputs"

    return check


def _slice_bound(bound: Any, n: int) -> bool:
    if bound is None or (type(bound) is int and abs(bound) < 2**62):
        return True
    if type(bound) is str and bound[:1] == "$" and bound[1:].isdecimal():
        return 1 <= int(bound[1:]) < n
    return False


def _slice_spec(value: Any, n: int) -> str | None:
    problem = "must be a slice spec of the op's inputs"
    if type(value) is not tuple or len(value) > 64:
        return problem
    ellipses = 0
    refs: list[int] = []
    for item in value:
        if type(item) is not tuple or not item:
            return problem
        kind, bounds = item[0], item[1:]
        arity = {"index": 1, "slice": 3, "newaxis": 0, "ellipsis": 0}.get(kind)
        if arity is None or len(bounds) != arity:
            return problem
        if kind == "index" and bounds[0] is None:
            return problem
        if not all(_slice_bound(b, n) for b in bounds):
            return problem
        refs += [int(b[1:]) for b in bounds if type(b) is str]
        ellipses += kind == "ellipsis"
    # The kernel takes exactly the tensors the spec refers to, each once.
    return problem if ellipses > 1 or sorted(refs) != list(range(1, n)) else None


def _const_value(value: Any, n: int) -> str | None:
    if not isinstance(value, (np.ndarray, np.generic)):
        return "must be an array"
    return None


_NO_ATTRS: dict[str, Check] = {}
_REDUCE = {"axis": _optional(_tuple_of(_AXIS, "axes")), "keepdims": _bool}
_VARIABLE = {"var_id": _int(0, 2**62), "dtype": _dtype, "shape": _shape}
_ANY = lambda value, n: None  # checked by `graphs`
_SUMMARIZE = _int(-1, 2**31 - 1)
_SEED = _optional(_int(0, 2**63 - 1))


@dataclasses.dataclass(frozen=True)
class OpSchema:
    """What a node of one op type may hold.

    Attributes:
        attrs: Attr name -> check.
        inputs: (fewest, most) inputs; most None for no limit.
        handles: Input positions that are TensorArray handles (`variant`);
            None: any input may be one (control flow).
    """

    attrs: dict[str, Check]
    inputs: tuple[int, int | None]
    handles: frozenset[int] | None = frozenset()
    optional: frozenset[str] = frozenset()  # attrs a node may leave out


def _same(names: str, attrs: dict[str, Check], n: int) -> dict[str, OpSchema]:
    return {name: OpSchema(attrs, (n, n)) for name in names.split()}


_TA = frozenset({0})

SCHEMA: dict[str, OpSchema] = {
    "Placeholder": OpSchema({"dtype": _any_dtype, "shape": _shape}, (0, 0)),
    "Const": OpSchema({"value": _const_value, "dtype": _dtype}, (0, 0)),
    **_same(
        "Abs Cos Sin Exp Log Sqrt Square Tanh Sigmoid Relu Neg LogicalNot Shape "
        "Size Where",
        _NO_ATTRS,
        1,
    ),
    "Identity": OpSchema(_NO_ATTRS, (1, 1), None),
    **_same(
        "Add Sub Mul Div FloorDiv FloorMod Pow Maximum Minimum Equal NotEqual "
        "Greater GreaterEqual Less LessEqual LogicalAnd LogicalOr MatMul Fill "
        "Reshape",
        _NO_ATTRS,
        2,
    ),
    **_same("SelectV2 Range", _NO_ATTRS, 3),
    **_same("Sum Mean Max Min Prod All Any", _REDUCE, 1),
    **_same("ArgMax ArgMin", {"axis": _AXIS, "output_type": _integer_dtype}, 1),
    **_same("ReadVariableOp", _VARIABLE, 0),
    **_same("AssignVariableOp AssignAddVariableOp AssignSubVariableOp", _VARIABLE, 1),
    **_same("RandomUniform RandomNormal", {"dtype": _dtype, "seed": _SEED}, 3),
    "Cast": OpSchema({"dtype": _dtype}, (1, 1)),
    "ZerosLike": OpSchema({"dtype": _optional_dtype}, (1, 1)),
    "OnesLike": OpSchema({"dtype": _optional_dtype}, (1, 1)),
    "Transpose": OpSchema({"perm": _optional(_tuple_of(_AXIS, "axes"))}, (1, 1)),
    "ExpandDims": OpSchema({"axis": _AXIS}, (1, 1)),
    "Squeeze": OpSchema({"axis": _optional(_tuple_of(_AXIS, "axes"))}, (1, 1)),
    "ConcatV2": OpSchema({"axis": _AXIS}, (1, None)),
    "Pack": OpSchema({"axis": _AXIS}, (1, None)),
    "GatherV2": OpSchema({"axis": _AXIS}, (2, 2)),
    "PadV2": OpSchema({"paddings": _tuple_of(_pair, "(before, after) pairs")}, (2, 2)),
    "Eye": OpSchema(
        {"num_rows": _COUNT, "num_columns": _COUNT, "dtype": _dtype}, (0, 0)
    ),
    "StridedSlice": OpSchema({"spec": _slice_spec}, (1, None)),
    "PrintV2": OpSchema(
        {"template": _template(0), "sep": _text, "end": _text, "summarize": _SUMMARIZE},
        (0, None),
    ),
    "Assert": OpSchema({"template": _template(1), "summarize": _SUMMARIZE}, (1, None)),
    # (`template` only where the message shows the values of inputs 2...)
    "EnsureDefined": OpSchema(
        {"message": _text, "raises": _text, "template": _template(2)},
        (2, None),
        optional=frozenset({"template"}),
    ),
    "TensorArrayV3": OpSchema(
        {"dtype": _dtype, "dynamic_size": _bool, "element_shape": _shape}, (1, 1)
    ),
    "TensorArrayWriteV3": OpSchema({"dtype": _dtype}, (3, 3), _TA),
    "TensorArrayReadV3": OpSchema(
        {"dtype": _dtype, "element_shape": _shape}, (2, 2), _TA
    ),
    "TensorArrayGatherV3": OpSchema(
        {"dtype": _dtype, "element_shape": _shape, "num_elements": _optional(_COUNT)},
        (1, 1),
        _TA,
    ),
    "TensorArraySizeV3": OpSchema(_NO_ATTRS, (1, 1), _TA),
    "TensorArrayScatterV3": OpSchema({"dtype": _dtype}, (2, 2), _TA),
    # Their subgraphs and the counts that tie them to the inputs are checked
    # where the subgraphs are rebuilt (`graphs`).
    "If": OpSchema({"then_branch": _ANY, "else_branch": _ANY}, (1, None), None),
    "While": OpSchema(
        {
            "cond": _ANY,
            "body": _ANY,
            "num_loop_vars": _COUNT,
            "has_maximum_iterations": _bool,
        },
        (0, None),
        None,
    ),
}


def check_node(
    op_type: str,
    attrs: dict[str, Any],
    inputs: Sequence[dtypes.DType],
    where: str,
) -> None:
    """Checks a node's input count, handle inputs and attrs against `SCHEMA`.

    Args:
        op_type: The node's op type.
        attrs: Its decoded attrs.
        inputs: The dtypes of its inputs.
        where: Names the node in messages.

    Raises:
        LoadError: For an op type without a schema, a wrong number of
            inputs, a TensorArray handle where none belongs (or none where
            one does), missing or unexpected attrs, or an attr of the wrong
            type or range.
    """
    schema = SCHEMA.get(op_type)
    if schema is None:
        raise fail(where, f"the op type {op_type!r} cannot be loaded")
    low, high = schema.inputs
    n = len(inputs)
    if n < low or (high is not None and n > high):
        expected = f"{low}" if low == high else f"at least {low}"
        raise fail(where, f"{op_type} takes {expected} inputs, got {n}")
    if schema.handles is not None:
        for i, dtype in enumerate(inputs):
            if (dtype is dtypes.variant) != (i in schema.handles):
                what = "must" if i in schema.handles else "cannot"
                raise fail(where, f"input {i} {what} be a TensorArray handle")
    if not set(schema.attrs) - schema.optional <= set(attrs) <= set(schema.attrs):
        raise fail(
            where,
            f"{op_type} takes the attrs {sorted(schema.attrs)}, got {sorted(attrs)}",
        )
    for key, check in schema.attrs.items():
        if key not in attrs:
            continue  # an optional one
        problem = check(attrs[key], n)
        if problem is not None:
            text = repr(attrs[key])
            text = text if len(text) <= 40 else text[:37] + "..."
            raise fail(where, f"attr {key!r} {problem}, got {text}")
    if op_type == "Const":
        value = attrs["value"]
        if dtypes.FROM_NUMPY.get(value.dtype) is not attrs["dtype"]:
            raise fail(where, f"a Const of dtype {attrs['dtype']} holds {value.dtype}")


def check_variable(attrs: dict[str, Any], variable: Any, where: str) -> None:
    """The dtype/shape attrs of a variable op must be the variable's own."""
    if attrs["dtype"] is not variable.dtype or attrs["shape"] != variable.shape:
        raise LoadError(
            f"{where}: the variable {variable.name!r} is {variable.dtype} "
            f"{variable.shape}, but the op says {attrs['dtype']} {attrs['shape']}"
        )
