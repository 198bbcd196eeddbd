"""Dead-node pruning: drop what neither the outputs nor an effect needs.

Before -> after (`rt.print` is an effect; `unused` and the test the
converted `while` left in the outer graph are dead):

    >>> import runtime as rt
    >>> from runtime.optimizer.rewrite import format_graph
    >>> g = rt.Graph()
    >>> with g.as_default():
    ...     x = g.placeholder(rt.int32, (), "x")
    ...     unused = x * 3
    ...     rt.print(x)
    ...     y = x + 1
    >>> print(format_graph(prune(g, [x], [y])))
    x = Placeholder()
    print = PrintV2(x)
    const_1 = Const(1)
    add = Add(x, const_1)
    return add

An op is live if an output needs it, if it is stateful (prints, asserts,
variable writes, random ops, and `If`/`While` nodes holding one), or if a
live op needs it as an input or control input. Placeholders are always
kept: they are the graph's interface. Pruning recurses into the subgraphs
of live `If`/`While` nodes and then drops the captures no subgraph uses any
more (the node loses that input, and each subgraph its placeholder), so the
outer ops that only fed them become dead too. The order and control
dependencies of the ops kept are unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence

from runtime.graph import Graph, Operation
from runtime.optimizer.rewrite import Rewriter, capture_pairs
from runtime.tensor import SymbolicTensor

__all__ = ["prune"]


def prune(
    graph: Graph,
    inputs: Sequence[SymbolicTensor],
    outputs: Sequence[SymbolicTensor],
) -> Graph:
    """`graph` without its dead ops (a new graph).

    Args:
        graph: The graph to optimize (unchanged).
        inputs: Its placeholders, in feed order.
        outputs: The tensors it computes.

    Returns:
        The new graph; its `inputs`/`outputs` correspond to the given ones.
    """
    live = _Liveness()
    live.mark(graph, outputs)
    return _Pruner(graph, None, live).run(inputs, outputs)


class _Liveness:
    """The live ops of a graph and its subgraphs, and the captures kept."""

    def __init__(self) -> None:
        self.live: set[int] = set()
        # id(If/While op) -> positions of its inputs that are dropped.
        self.dropped: dict[int, frozenset[int]] = {}

    def mark(self, graph: Graph, roots: Sequence[SymbolicTensor]) -> None:
        """Marks the ops of `graph` that `roots` and its effects need."""
        stack = [t.op for t in roots]
        stack += [op for op in graph.get_operations() if op.stateful]
        while stack:
            op = stack.pop()
            if id(op) in self.live:
                continue
            self.live.add(id(op))
            stack.extend(op.control_inputs)
            if op.type in ("If", "While"):
                self.dropped[id(op)] = dropped = self._mark_subgraphs(op)
                stack.extend(t.op for i, t in enumerate(op.inputs) if i not in dropped)
            else:
                stack.extend(t.op for t in op.inputs)

    def _mark_subgraphs(self, op: Operation) -> frozenset[int]:
        """Marks the subgraphs of `op`; returns the input positions unused."""
        used: dict[int, bool] = {}
        for graph in _subgraphs(op):
            self.mark(graph, graph.outputs)
            read = {
                id(t)
                for o in graph.get_operations()
                if id(o) in self.live
                for t in o.inputs
            }
            read.update(id(t) for t in graph.outputs)
            pairs = capture_pairs(op, graph, list(op.inputs))
            for position, (placeholder, _) in enumerate(pairs):
                used[position] = used.get(position, False) or id(placeholder) in read
        first = 1 if op.type == "If" else op.attrs["num_loop_vars"]
        return frozenset(first + p for p, is_used in used.items() if not is_used)


def _subgraphs(op: Operation) -> list[Graph]:
    return [value for value in op.attrs.values() if isinstance(value, Graph)]


class _Pruner(Rewriter):
    def __init__(
        self,
        source: Graph,
        outer: Graph | None,
        live: _Liveness,
        drop: frozenset[int] = frozenset(),
    ) -> None:
        super().__init__(source, outer)
        self._live = live
        self._drop_placeholders = drop  # ids of placeholders of dropped captures

    def child(
        self, graph: Graph, op: Operation, inputs: Sequence[SymbolicTensor]
    ) -> Rewriter:
        dropped = self._live.dropped[id(op)]
        first = 1 if op.type == "If" else op.attrs["num_loop_vars"]
        drop = frozenset(
            id(placeholder)
            for p, (placeholder, _) in enumerate(capture_pairs(op, graph, op.inputs))
            if first + p in dropped
        )
        return _Pruner(graph, self.graph, self._live, drop)

    def run(
        self, inputs: Sequence[SymbolicTensor], outputs: Sequence[SymbolicTensor]
    ) -> Graph:
        kept = [t for t in inputs if id(t) not in self._drop_placeholders]
        return super().run(kept, outputs)

    def visit(self, op: Operation) -> None:
        if op.type == "Placeholder":
            if id(op.outputs[0]) not in self._drop_placeholders:
                self.copy(op)
            return
        if id(op) not in self._live.live:
            return
        if op.type in ("If", "While"):
            dropped = self._live.dropped[id(op)]
            inputs = [
                self.lookup(t) for i, t in enumerate(op.inputs) if i not in dropped
            ]
            self._copy_control_flow(op, inputs)
            return
        self.copy(op)

    def _copy_control_flow(self, op: Operation, inputs: list[SymbolicTensor]) -> None:
        # The subgraphs are rewritten with the old op's capture positions
        # (`child` reads them), then the node gets the reduced input list.
        attrs = {
            key: self.child(value, op, inputs).run(value.inputs, value.outputs)
            if isinstance(value, Graph)
            else value
            for key, value in op.attrs.items()
        }
        self.copy(op, inputs=inputs, attrs=attrs)
