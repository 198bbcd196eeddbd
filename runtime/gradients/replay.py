"""Running a graph's ops again, one `apply` at a time.

`replay(graph, inputs, outputs)` re-creates what `graph` computes from new
input values: eagerly (each op runs at once, and an active tape records it)
or into the graph being built (each op becomes a node there, `If`/`While`
becoming `rt.cond`/`rt.while_loop`, whose subgraphs are replayed in turn).
Gradients use it twice: a `Function` called under a tape replays its graph
eagerly, so it is differentiated as if its ops had run eagerly; and the
gradients of `If`/`While` replay a branch or a loop body inside the backward
subgraph, recorded on a private tape.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from runtime import control_flow
from runtime.context import STATE
from runtime.op_registry import apply
from runtime.tensor import EagerTensor

__all__ = ["replay"]


def replay(
    graph: Any, inputs: Sequence[Any], outputs: Sequence[Any] | None = None
) -> list:
    """The values of `outputs` (default `graph.outputs`) for `inputs`.

    Args:
        graph: The graph to run again.
        inputs: One value per placeholder of `graph.inputs`.
        outputs: Tensors of `graph`.
    """
    outputs = graph.outputs if outputs is None else outputs
    env: dict[int, Any] = {id(p): v for p, v in zip(graph.inputs, inputs)}
    for op in graph.ops_needed(outputs):
        kind = op.type
        if kind == "Placeholder":
            if id(op.outputs[0]) not in env:
                raise ValueError(f"replay: no value for the placeholder {op.name!r}")
            continue
        args = [_value(env, t) for t in op.inputs]
        if kind == "Const":
            value = op.attrs["value"]
            graph_now = STATE.graph
            results: Any = (
                EagerTensor(value) if graph_now is None else graph_now.constant(value),
            )
        elif kind == "If":
            results = _replay_if(op, args)
        elif kind == "While":
            results = _replay_while(op, args)
        else:
            out = apply(op.opdef, args, op.attrs)
            results = () if out is None else out if type(out) is tuple else (out,)
        for t, value in zip(op.outputs, results):
            env[id(t)] = value
    return [_value(env, t) for t in outputs]


def _value(env: dict[int, Any], t: Any) -> Any:
    try:
        return env[id(t)]
    except KeyError:
        raise ValueError(
            f"replay: the graph reads {t.name!r}, which cannot be recomputed "
            "(gradients of gradients through loops are not supported)"
        ) from None


def _replay_if(op: Any, args: list[Any]) -> list[Any]:
    pred, *captured = args
    then_g, else_g = op.attrs["then_branch"], op.attrs["else_branch"]
    result = control_flow.cond(
        pred, lambda: replay(then_g, captured), lambda: replay(else_g, captured)
    )
    return list(result)


def _replay_while(op: Any, args: list[Any]) -> list[Any]:
    n = op.attrs["num_loop_vars"]
    limit = args.pop() if op.attrs["has_maximum_iterations"] else None
    inits, captured = args[:n], args[n:]
    cond_g, body_g = op.attrs["cond"], op.attrs["body"]
    result = control_flow.while_loop(
        lambda *v: replay(cond_g, [*v, *captured])[0],
        lambda *v: tuple(replay(body_g, [*v, *captured])),
        tuple(inits),
        maximum_iterations=limit,
    )
    return list(result)
