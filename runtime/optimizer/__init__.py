"""Graph optimization: passes from a traced graph to a faster, equal one.

    >>> import runtime as rt
    >>> from runtime.optimizer.rewrite import format_graph
    >>> g = rt.Graph()
    >>> with g.as_default():
    ...     x = g.placeholder(rt.float32, (), "x")
    ...     dead = rt.exp(x)
    ...     y = (x * (3.0 - 2.0)) + rt.sqrt(rt.constant(4.0))
    >>> print(format_graph(optimize(g, [x], [y])))
    x = Placeholder()
    sqrt = Const(2.0)
    add = Add(x, sqrt)
    return add

Each pass is its own module, takes `(graph, inputs, outputs)` and returns a
new graph whose `inputs`/`outputs` are the new feeds and fetches; the graph
it was given is never changed. Every pass keeps effects where they are:
stateful ops (`print`, `Assert`, variable writes, random ops) are never
folded, merged, moved or dropped, and their order and control dependencies
stay as traced. Op names stay those of the traced graph where an op
survives (a folded constant takes the name of the op it replaces).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from runtime.graph import Graph
from runtime.optimizer.arithmetic import simplify
from runtime.optimizer.constant_folding import fold_constants
from runtime.optimizer.cse import eliminate_common_subexpressions
from runtime.optimizer.loop_invariant import hoist_loop_invariants
from runtime.optimizer.pruning import prune
from runtime.optimizer.rewrite import same_structure
from runtime.tensor import SymbolicTensor

__all__ = [
    "PASSES",
    "eliminate_common_subexpressions",
    "fold_constants",
    "hoist_loop_invariants",
    "optimize",
    "optimize_traced",
    "prune",
    "simplify",
]

Pass = Callable[[Graph, Sequence[SymbolicTensor], Sequence[SymbolicTensor]], Graph]

PASSES: tuple[Pass, ...] = (
    # Folding first: it turns constant subexpressions (`3.0 - 2.0`) into the
    # constants the next pass recognizes (`x * 1.0`).
    fold_constants,
    # Then identities: `x * 1`, `x + (-0.0)`, `Identity` chains go away, so
    # loops and CSE see fewer ops.
    simplify,
    # Then loop-invariant code moves out of `While` loops; the copies it
    # makes in the outer graph may repeat ops already there...
    hoist_loop_invariants,
    # ...which CSE merges (it also merges repeated constants and ops).
    eliminate_common_subexpressions,
    # Last, everything the passes above left unused (replaced constants,
    # merged ops, hoisted captures) and the dead ops of the trace itself,
    # such as the test a converted `while` evaluates once in the outer graph.
    prune,
)


def optimize(
    graph: Graph,
    inputs: Sequence[SymbolicTensor],
    outputs: Sequence[SymbolicTensor],
) -> Graph:
    """Runs every pass of `PASSES`, in order, on `graph`.

    Args:
        graph: The traced graph (unchanged).
        inputs: Its placeholders, in feed order.
        outputs: The tensors it computes, in fetch order.

    Returns:
        A new graph computing the same outputs from the same inputs, with the
        same effects in the same order; its `inputs` and `outputs` attributes
        are the new feeds and fetches.
    """
    for run_pass in PASSES:
        graph = run_pass(graph, inputs, outputs)
        inputs, outputs = graph.inputs, graph.outputs
    return graph


def optimize_traced(
    graph: Graph,
    inputs: list[SymbolicTensor],
    outputs: list[SymbolicTensor],
) -> tuple[Graph, list[SymbolicTensor], list[SymbolicTensor]]:
    """`optimize` in the shape of a tracing hook: returns (graph, inputs, outputs).

    This is what `autograph.tracing.concrete.register_graph_optimizer` takes.
    When the passes change nothing, it returns the traced graph itself (so a
    `ConcreteFunction`'s `optimized_graph is graph` says nothing changed).
    """
    new = optimize(graph, inputs, outputs)
    if new is graph or same_structure(graph, outputs, new, new.outputs):
        return graph, list(inputs), list(outputs)
    return new, list(new.inputs), list(new.outputs)
