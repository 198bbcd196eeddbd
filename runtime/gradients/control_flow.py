"""Gradients of graph `If` and `While` (declared in the op table here).

`If`: a `cond` on the same predicate whose branches replay the forward
branch on a private tape and walk it backwards: the gradient of the branch
taken. Its outputs are the gradients of the captured inputs and of the
variables either branch reads.

`While`: a forward `While` recorded by a tape keeps the loop variables of
each iteration (one more output, a list: `_keep_iterations` in `tape`; the
executor appends to it). The gradient is one more graph `while_loop` that
walks those iterations backwards: each step replays the body once from the
stored loop variables and back-propagates through it, carrying the loop
variables' gradients and summing the captured inputs' and variables'. One
graph, whatever the number of iterations.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from runtime import control_flow, dtypes
from runtime.context import STATE
from runtime.gradients.replay import replay
from runtime.gradients.tape import (
    SubgraphGrads,
    backprop,
    differentiable,
    private_tape,
    zeros_if_none,
)
from runtime.op_registry import OpDef, apply, gradient, lookup_variable, register
from runtime.ops import rules
from runtime.ops.creation import zeros_like
from runtime.ops.grad_ops import add_grads, needs_gradient, zeros_for

__all__: list[str] = []


def _float_variables(graphs: Sequence[Any]) -> list[int]:
    ids: set[int] = set()
    for g in graphs:
        for var_id, var in g.variables.items():
            if var.dtype in dtypes.FLOATING:
                ids.add(var_id)
    return sorted(ids)


def _subgraph_backward(
    graph: Any,
    inputs: Sequence[Any],
    wanted: Sequence[int],
    out_grads: Sequence[tuple[int, Any]],
    var_ids: Sequence[int],
    connected: list[bool] | None = None,
) -> tuple[list[Any], list[Any]]:
    """Replays `graph` on `inputs` in the graph being built and walks it back.

    Returns:
        (gradients of `inputs[i]` for i in `wanted`, gradients of the
        variables `var_ids`), zeros where none flows. `connected`, if given,
        gets True at each position (inputs, then variables) where one does.
    """
    sources = [inputs[i] for i in wanted]
    with private_tape(sources) as tape:
        outputs = replay(graph, inputs)
    tape._stop()
    seeds: dict[int, Any] = {}
    for k, g in out_grads:
        key = id(outputs[k])
        seeds[key] = add_grads(seeds.get(key), g)
    grads, var_grads = backprop(tape._records, seeds, tape._watched)
    if connected is not None:
        found = [grads.get(id(inputs[i])) for i in wanted]
        found += [var_grads.get(v) for v in var_ids]
        for k, g in enumerate(found):
            connected[k] = connected[k] or g is not None
    input_grads = [zeros_if_none(grads.get(id(inputs[i])), inputs[i]) for i in wanted]
    variable_grads = [
        zeros_if_none(var_grads.get(v), lookup_variable(v)) for v in var_ids
    ]
    return input_grads, variable_grads


@gradient("If")
def _if_grad(op: Any, grads: Sequence[Any]) -> SubgraphGrads:
    pred, *captured = op.inputs
    then_g, else_g = op.attrs["then_branch"], op.attrs["else_branch"]
    wanted = [j for j, c in enumerate(captured) if needs_gradient(c)]
    flowing = [(k, g) for k, g in enumerate(grads) if g is not None]
    var_ids = _float_variables([then_g, else_g])

    # Whether either branch gives a gradient, per position: where neither
    # does, the source is unconnected (None), not zero.
    connected = [False] * (len(wanted) + len(var_ids))

    def branch(g: Any) -> Any:
        def run() -> list[Any]:
            graph = STATE.graph
            inputs = [graph.convert(c) for c in captured]
            seeds = [(k, graph.convert(v)) for k, v in flowing]
            dx, dv = _subgraph_backward(g, inputs, wanted, seeds, var_ids, connected)
            return [*dx, *dv]

        return run

    result = list(control_flow.cond(pred, branch(then_g), branch(else_g)))
    result = [r if c else None for r, c in zip(result, connected)]
    input_grads: list[Any] = [None] * len(op.inputs)
    for k, j in enumerate(wanted):
        input_grads[1 + j] = result[k]
    variables = {v: g for v, g in zip(var_ids, result[len(wanted) :]) if g is not None}
    return SubgraphGrads(input_grads, variables)


# -- While -------------------------------------------------------------------------


def _iterations_kernel(stack: list[Any]) -> Any:
    return np.int32(len(stack))


def _iteration_value_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[Any]:
    return [(attrs["dtype"], attrs["shape"])]


def _iteration_value_kernel(
    stack: list[Any], k: Any, index: int, dtype: Any, shape: Any
) -> Any:
    return stack[int(k)][index]


register(OpDef("WhileIterations", rules.fixed((dtypes.int32, ())), _iterations_kernel))
register(OpDef("WhileIterationValue", _iteration_value_rule, _iteration_value_kernel))


def _ensure_shape_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[Any]:
    return [(inputs[0].dtype, attrs["shape"])]


register(OpDef("EnsureShape", _ensure_shape_rule, lambda x, shape: x))


def _with_shape(t: Any, shape: Any) -> Any:
    """`t` with the static shape `shape` where tracing lost it (loop variables
    must keep their shapes)."""
    if t.dtype is dtypes.variant or t.shape == shape:
        return t
    return apply("EnsureShape", (t,), {"shape": shape})


@gradient("While")
def _while_grad(op: Any, grads: Sequence[Any]) -> SubgraphGrads:
    n = op.attrs["num_loop_vars"]
    if not op.attrs.get("record"):
        raise ValueError(
            f"the graph while loop {op.name!r} was not recorded by a GradientTape "
            "(create the loop inside the tape's `with` block to differentiate it)"
        )
    stack = op.outputs[n]
    args = list(op.inputs)
    if op.attrs["has_maximum_iterations"]:
        args.pop()
    captured = args[n:]
    body_g = op.attrs["body"]
    loop_vars = body_g.inputs[:n]
    wanted_vars = [i for i in range(n) if differentiable(op.outputs[i])]
    # Captures on no path from a source (a dataset's iterator handle, a
    # constant) are no sources of the replay: ops that read only them (an
    # IteratorGetNext) are not differentiated.
    wanted_caps = [j for j, c in enumerate(captured) if needs_gradient(c)]
    var_ids = _float_variables([body_g])
    a, b = len(wanted_vars), len(wanted_caps)
    shapes = [
        (),
        *(loop_vars[i].shape for i in wanted_vars),
        *(captured[j].shape for j in wanted_caps),
        *(lookup_variable(v).shape for v in var_ids),
    ]
    initial = (
        apply("WhileIterations", (stack,)),
        *(zeros_if_none(grads[i], op.outputs[i]) for i in wanted_vars),
        *(zeros_for(captured[j]) for j in wanted_caps),
        *(zeros_like(lookup_variable(v)) for v in var_ids),
    )

    def cond(k: Any, *rest: Any) -> Any:
        return k > 0

    def body(k: Any, *rest: Any) -> tuple[Any, ...]:
        graph = STATE.graph
        k = k - 1
        values = [
            apply(
                "WhileIterationValue",
                (stack, k),
                {"index": i, "dtype": t.dtype, "shape": t.shape},
            )
            for i, t in enumerate(loop_vars)
        ]
        inputs = [*values, *(graph.convert(c) for c in captured)]
        wanted = [*wanted_vars, *(n + j for j in wanted_caps)]
        seeds = list(zip(wanted_vars, rest[:a]))
        dx, dv = _subgraph_backward(body_g, inputs, wanted, seeds, var_ids)
        sums = [add_grads(s, g) for s, g in zip(rest[a:], [*dx[a:], *dv])]
        out = (k, *dx[:a], *sums)
        return tuple(_with_shape(t, s) for t, s in zip(out, shapes))

    result = control_flow.while_loop(cond, body, initial)
    input_grads: list[Any] = [None] * len(op.inputs)
    for k, i in enumerate(wanted_vars):
        input_grads[i] = result[1 + k]
    for k, j in enumerate(wanted_caps):
        input_grads[n + j] = result[1 + a + k]
    variables = dict(zip(var_ids, result[1 + a + b :]))
    return SubgraphGrads(input_grads, variables)
