"""TensorFlow's rule for Variables a `Function` creates.

A `Function` may create `rt.Variable`s only on its first call, and only
once. The first trace that creates some is followed by a second trace (by
`polymorphic.Function._trace`), which must create none: a function that
creates a Variable on every call (`v = rt.Variable(1.0)` in its body) is
refused there, naming the line, instead of running a graph that would
disagree with the eager function. The guarded form (`if self.v is None:
self.v = rt.Variable(...)`) creates nothing the second time.

An initial value computed from the function's tensors (`rt.Variable(2.0 *
x)`) is lifted: the Variable starts as zeros while tracing, and
`initialize` computes the value from the first call's arguments, running
only the ops the value needs (never an effect), before the graph runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from runtime.graph import Graph, Operation
from runtime.op_registry import apply
from runtime.tensor import EagerTensor, SymbolicTensor
from runtime.tensor_spec import TensorSpec

__all__ = ["initialize", "refuse_creation"]


def refuse_creation(name: str, header: str, graph: Graph, first_call: bool) -> None:
    """Raises the ValueError for Variables created by a trace that may not.

    Args:
        name: The function's name.
        header: Its signature as traced (`f(x=2.0)`).
        graph: The trace that created them (`graph.created_variables`).
        first_call: True for the check trace of the first call (the function
            creates Variables on every call), False for a later trace.
    """
    created = graph.created_variables
    where = next((v.created_at for v in created if v.created_at), None)
    at = f" at {where}" if where else ""
    what = "a rt.Variable" if len(created) == 1 else f"{len(created)} rt.Variables"
    if first_call:
        problem = (
            f"{name}() creates {what}{at} on every call (its first call, "
            f"{header}, traces twice to check)"
        )
    else:
        problem = (
            f"{name}() created {what}{at} while tracing {header}, but it was "
            "traced before"
        )
    raise ValueError(
        f"{problem}: a Function may create Variables only on its first call, "
        "and only once. Create them outside the function, or create them once "
        "and reuse them (e.g. `if self.v is None: self.v = rt.Variable(...)`)"
    )


def initialize(
    name: str,
    graph: Graph,
    inputs: Sequence[SymbolicTensor],
    given: Sequence[Any],
) -> None:
    """Gives each lifted Variable of `graph` its initial value.

    Args:
        name: The function's name (for messages).
        graph: The first trace, with `graph.initializers`.
        inputs: Its placeholders.
        given: What the call passed for each placeholder (a value, or a
            `TensorSpec` when `get_concrete_function` was given one).

    Raises:
        ValueError: A value depends on an argument given as a `TensorSpec`,
            or on a graph `if`/loop or an effect.
    """
    feeds = {id(p): v for p, v in zip(inputs, given)}
    values: dict[int, Any] = {}
    for variable, tensor in graph.initializers:
        value = _evaluate(name, variable, tensor, feeds, values)
        variable._value = np.array(value, variable.dtype.np_dtype)
    graph.initializers.clear()


def _evaluate(
    name: str,
    variable: Any,
    tensor: SymbolicTensor,
    feeds: dict[int, Any],
    values: dict[int, Any],
) -> Any:
    """`tensor`'s value, running the ops it needs in dependency order."""
    order: list[Operation] = []
    seen: set[int] = set()
    stack: list[tuple[Operation, bool]] = [(tensor.op, False)]
    while stack:
        op, expanded = stack.pop()
        if expanded:
            order.append(op)
            continue
        if id(op) in seen:
            continue
        seen.add(id(op))
        stack.append((op, True))
        stack.extend((t.op, False) for t in op.inputs if id(t) not in values)
    for op in order:
        if op.outputs and id(op.outputs[0]) in values:
            continue
        outs = _run(name, variable, op, feeds, values)
        for t, v in zip(op.outputs, outs):
            values[id(t)] = v
    return values[id(tensor)]


def _run(
    name: str,
    variable: Any,
    op: Operation,
    feeds: dict[int, Any],
    values: dict[int, Any],
) -> list[Any]:
    where = f" (at {variable.created_at})" if variable.created_at else ""
    if op.type == "Placeholder":
        given = feeds.get(id(op.outputs[0]))
        if given is None or isinstance(given, TensorSpec):
            raise ValueError(
                f"{name}(): the initial value of a rt.Variable{where} depends on "
                f"the argument {op.name!r}, which has no value yet (a TensorSpec): "
                "call the function with a tensor first, or give the Variable "
                "a concrete initial value"
            )
        return [np.asarray(getattr(given, "numpy_value", given))]
    if op.type == "Const":
        return [op.attrs["value"]]
    if op.opdef.stateful or (op.opdef.kernel is None and op.opdef.bind is None):
        raise ValueError(
            f"{name}(): the initial value of a rt.Variable{where} depends on "
            f"{op.name!r} ({op.type}), which cannot run before the function: "
            "compute it from the arguments with plain ops, or give the Variable "
            "a concrete initial value"
        )
    out = apply(
        op.opdef, [EagerTensor(values[id(t)]) for t in op.inputs], dict(op.attrs)
    )
    outs = out if isinstance(out, tuple) else (out,)
    return [o.numpy_value for o in outs]
