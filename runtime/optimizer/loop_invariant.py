"""Loop-invariant code motion: what a `while` recomputes alike moves before it.

Before -> after (`w` is captured by the loop and `rt.transpose(w)` depends
on nothing else, so it runs once instead of once per iteration; the body
gets its value as a new captured input):

    >>> import runtime as rt
    >>> from runtime.optimizer.rewrite import format_graph
    >>> g = rt.Graph()
    >>> with g.as_default():
    ...     w = g.placeholder(rt.float32, (2, 2), "w")
    ...     _, y = rt.while_loop(
    ...         lambda i, y: i < 3,
    ...         lambda i, y: (i + 1, y @ rt.transpose(w)),
    ...         (0, rt.ones((2, 2))),
    ...         names=["i", "y"],
    ...     )
    >>> print(format_graph(hoist_loop_invariants(g, [w], [y])))
    w = Placeholder()
    ...
    while/transpose = Transpose(w)
    while = While(const_2, ones, w, while/transpose)
      cond:
    ...
      body:
        i = Placeholder()
        y = Placeholder()
        transpose = Placeholder()
        const = Const(1)
        add = Add(i, const)
        w = Placeholder()
        matmul = MatMul(y, transpose)
        return add, matmul
    return while:1

An op of a loop's `cond` or `body` is invariant when it is pure and its
inputs are captured values, constants, or other invariant ops. It is hoisted
only if it cannot raise: running it before the loop means it runs even when
the loop runs zero times, and a graph is non-strict (an op whose result is
not needed must not fail). So only total ops move: elementwise math,
comparisons, casts between numeric types, and shape-sensitive ones (matmul,
broadcasting, reductions, reshapes) when every static shape they touch is
fully known, so their shape checks already passed while tracing. `Pow`
(integer negative powers raise), `FloorDiv`, gathers, slices and every op
with an effect stay put. Nested loops are handled inside out: an inner
loop's invariants move into the outer body, and from there further out if
they are invariant there too. Hoisted ops are named `<while>/<op>`.
"""

from __future__ import annotations

from collections.abc import Sequence

from runtime import dtypes
from runtime.graph import Graph, Operation
from runtime.optimizer.rewrite import Rewriter, is_pure
from runtime.shapes import is_fully_defined
from runtime.tensor import SymbolicTensor

__all__ = ["hoist_loop_invariants"]

# Total for any operands of their dtypes (NumPy warns, never raises).
_ELEMENTWISE = frozenset(
    {
        "Identity", "Neg", "Abs", "Square", "Exp", "Log", "Sqrt", "Tanh",
        "Sigmoid", "Relu", "Sin", "Cos", "LogicalNot", "Cast", "ZerosLike",
        "OnesLike", "Shape", "Size",
    }
)  # fmt: skip
# Total once the static shapes of inputs and outputs are fully known.
_SHAPED = frozenset(
    {
        "Add", "Sub", "Mul", "Div", "Maximum", "Minimum", "Equal", "NotEqual",
        "Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr",
        "MatMul", "Transpose", "Sum", "Mean", "Prod", "All", "Any", "ExpandDims",
        "Reshape", "Pack", "ConcatV2",
    }
)  # fmt: skip
_PLAIN_DTYPES = frozenset({*dtypes.NUMERIC, dtypes.bool_})


def hoist_loop_invariants(
    graph: Graph,
    inputs: Sequence[SymbolicTensor],
    outputs: Sequence[SymbolicTensor],
) -> Graph:
    """`graph` with loop-invariant ops moved out of `While` loops (a new graph).

    Args:
        graph: The graph to optimize (unchanged).
        inputs: Its placeholders, in feed order.
        outputs: The tensors it computes.

    Returns:
        The new graph; its `inputs`/`outputs` correspond to the given ones.
    """
    return _Hoister(graph).run(inputs, outputs)


def _total(op: Operation) -> bool:
    """Whether `op` is pure and cannot raise (see the module docstring)."""
    if not is_pure(op) or op.type not in _ELEMENTWISE | _SHAPED:
        return False
    tensors = [*op.inputs, *op.outputs]
    if any(t.dtype not in _PLAIN_DTYPES for t in tensors):
        return False
    return op.type in _ELEMENTWISE or all(is_fully_defined(t.shape) for t in tensors)


def _invariants(
    graph: Graph, first_capture: int
) -> tuple[set[int], list[SymbolicTensor]]:
    """(ids of the hoistable ops, the tensors of theirs the rest reads)."""
    invariant = {id(t) for t in graph.inputs[first_capture:]}
    hoisted: set[int] = set()
    for op in graph.get_operations():
        if op.type == "Const":
            invariant.add(id(op.outputs[0]))
        elif _total(op) and all(id(t) in invariant for t in op.inputs):
            hoisted.add(id(op))
            invariant.update(id(t) for t in op.outputs)
    frontier: dict[int, SymbolicTensor] = {}
    reads = [
        t for op in graph.get_operations() if id(op) not in hoisted for t in op.inputs
    ]
    for t in [*reads, *graph.outputs]:
        if id(t.op) in hoisted:
            frontier.setdefault(id(t), t)
    return hoisted, list(frontier.values())


def _needed(frontier: list[SymbolicTensor], hoisted: set[int]) -> set[int]:
    """The hoisted ops the frontier depends on."""
    needed: set[int] = set()
    stack = [t.op for t in frontier]
    while stack:
        op = stack.pop()
        if id(op) in needed or id(op) not in hoisted:
            continue
        needed.add(id(op))
        stack.extend(t.op for t in op.inputs)
    return needed


class _Hoister(Rewriter):
    def visit(self, op: Operation) -> None:
        if op.type != "While":
            self.copy(op)
            return
        inputs = [self.lookup(t) for t in op.inputs]
        # Inside out: the loops nested in cond/body are handled first.
        graphs = [
            self.child(op.attrs[key], op, inputs).run(
                op.attrs[key].inputs, op.attrs[key].outputs
            )
            for key in ("cond", "body")
        ]
        n = op.attrs["num_loop_vars"]
        k = len(graphs[1].inputs) - n
        plans = [_invariants(g, n) for g in graphs]
        if not any(frontier for _, frontier in plans):
            attrs = {**op.attrs, "cond": graphs[0], "body": graphs[1]}
            self.copy(op, inputs=inputs, attrs=attrs)
            return
        captured = inputs[n : n + k]
        extra: list[SymbolicTensor] = []  # new outer values the loop captures
        positions: list[dict[int, int]] = []  # per graph: tensor id -> extra index
        for g, (hoisted, frontier) in zip(graphs, plans):
            outer = self._emit(op, g, captured, _needed(frontier, hoisted))
            positions.append({})
            for t in frontier:
                positions[-1][id(t)] = len(extra)
                extra.append(outer[id(t)])
        rebuilt = [
            _Rebuild(g, self.graph, hoisted, where, extra).run(g.inputs, g.outputs)
            for g, (hoisted, _), where in zip(graphs, plans, positions)
        ]
        attrs = {**op.attrs, "cond": rebuilt[0], "body": rebuilt[1]}
        new_inputs = [*inputs[: n + k], *extra, *inputs[n + k :]]
        self.copy(op, inputs=new_inputs, attrs=attrs)

    def _emit(
        self,
        loop: Operation,
        graph: Graph,
        captured: list[SymbolicTensor],
        needed: set[int],
    ) -> dict[int, SymbolicTensor]:
        """Copies the `needed` ops of `graph` before `loop`; returns the map."""
        n = loop.attrs["num_loop_vars"]
        outer = {id(p): t for p, t in zip(graph.inputs[n:], captured)}
        for op in graph.get_operations():
            if id(op) not in needed:
                continue
            for t in op.inputs:
                if id(t) not in outer:  # a constant of the loop
                    value = t.op.attrs["value"]
                    name = f"{loop.name}/{t.op.name}"
                    outer[id(t)] = self.constant(value, name, t.op.location)
            new = self.add(
                op.opdef,
                [outer[id(t)] for t in op.inputs],
                dict(op.attrs),
                f"{loop.name}/{op.name}",
                specs=[(t.dtype, t.shape) for t in op.outputs],
                stateful=False,
                location=op.location,
            )
            outer.update((id(a), b) for a, b in zip(op.outputs, new.outputs))
        return outer


class _Rebuild(Rewriter):
    """Copies a loop graph without its hoisted ops, reading them as captures."""

    copy_on_write = False  # it keeps books of its own (`_tensors`)

    def __init__(
        self,
        source: Graph,
        outer: Graph,
        hoisted: set[int],
        positions: dict[int, int],
        extra: list[SymbolicTensor],
    ) -> None:
        super().__init__(source, outer)
        self._hoisted = hoisted
        self._positions = positions
        self._specs = extra
        self._extra: list[SymbolicTensor] | None = None

    def _placeholders_for_extra(self) -> list[SymbolicTensor]:
        """The new capture placeholders, made after the graph's own ones."""
        if self._extra is None:
            self._extra = [
                self.add(
                    "Placeholder",
                    (),
                    {"dtype": t.dtype, "shape": t.shape},
                    t.op.name.rpartition("/")[2],
                ).outputs[0]
                for t in self._specs
            ]
        return self._extra

    def child(
        self, graph: Graph, op: Operation, inputs: Sequence[SymbolicTensor]
    ) -> Rewriter:
        return Rewriter(graph, self.graph)  # nested loops are done already

    def run(
        self, inputs: Sequence[SymbolicTensor], outputs: Sequence[SymbolicTensor]
    ) -> Graph:
        graph = super().run(inputs, outputs)
        graph.inputs = [*graph.inputs, *self._placeholders_for_extra()]
        return graph

    def visit(self, op: Operation) -> None:
        if op.type == "Placeholder":
            self.copy(op)
            return
        extra = self._placeholders_for_extra()
        if id(op) not in self._hoisted:
            self.copy(op)
            return
        for t in op.outputs:
            if id(t) in self._positions:
                self._tensors[id(t)] = extra[self._positions[id(t)]]
