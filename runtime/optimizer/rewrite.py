"""Copying a graph op by op: the one tool every optimizer pass is written in.

A pass never mutates the graph it is given. It walks the ops in creation
order (a topological order, and program order for effects) and decides, for
each, what the new graph gets: a copy, a *forward* (the op's outputs stand
for tensors already in the new graph), or nothing. `Rewriter` keeps the
books: old tensor -> new tensor, op names and source locations kept, control
inputs of effects remapped, and the `If`/`While` subgraphs rewritten by the
same pass (their captures included) when the op holding them is copied.

    >>> import runtime as rt
    >>> g = rt.Graph()
    >>> with g.as_default():
    ...     x = g.placeholder(rt.float32, (2,), "x")
    ...     y = rt.tanh(x)
    >>> new = Rewriter(g).run([x], [y])
    >>> print(format_graph(new))
    x = Placeholder()
    tanh = Tanh(x)
    return tanh
    >>> new is g, new.outputs[0] is y
    (False, False)

The returned graph's `inputs` and `outputs` are the feeds and fetches in the
new graph, for the top-level graph too.

Copy on write: a top-level graph without `If`/`While` is not copied while
the pass keeps every op as it is; the first change (an op added, forwarded
or dropped, or copied with other inputs) copies the ops kept so far and the
walk goes on as above. A pass that changes nothing returns the graph it was
given (when that graph's `inputs`/`outputs` are the feeds and fetches), so
an optimizer run over a graph with nothing to do copies nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from runtime import dtypes
from runtime.graph import Graph, Operation, SourceLocation
from runtime.op_registry import OpDef
from runtime.tensor import SymbolicTensor

__all__ = [
    "Rewriter",
    "capture_pairs",
    "const_value",
    "format_graph",
    "is_const",
    "is_pure",
    "link_captures",
    "same_structure",
]

# Ops that are not functions of their inputs alone, or that the passes treat
# as a whole (control flow: its subgraphs are rewritten, the op is copied).
_NOT_PURE = frozenset({"Placeholder", "Const", "If", "While"})
_CONTROL_FLOW = frozenset({"If", "While"})


def is_pure(op: Operation) -> bool:
    """Whether `op` only computes its outputs from its inputs and attrs.

    False for effects (stateful ops), variable reads (their value depends on
    the writes around them), placeholders, constants, control flow, and ops
    on TensorArray handles (their values are shared Python objects).
    """
    if op.stateful or op.opdef.var_access is not None or op.type in _NOT_PURE:
        return False
    if op.control_inputs:
        return False
    for t in op.outputs:
        if t.dtype is dtypes.variant:
            return False
    return all(t.dtype is not dtypes.variant for t in op.inputs)


def is_const(tensor: SymbolicTensor) -> bool:
    """Whether `tensor` is the output of a `Const` node."""
    return tensor.op.type == "Const"


def const_value(tensor: SymbolicTensor) -> Any:
    """The NumPy value of a `Const` node's output."""
    return tensor.op.attrs["value"]


def capture_pairs(
    op: Operation, graph: Graph, inputs: Sequence[SymbolicTensor]
) -> list[tuple[SymbolicTensor, SymbolicTensor]]:
    """(placeholder of `graph`, input of `op`) for each value `graph` captures.

    `graph` is a subgraph of the `If`/`While` node `op`, and `inputs` are
    that node's inputs (old or new). Loop variables are not captures.
    """
    if op.type == "If":
        return list(zip(graph.inputs, inputs[1:]))
    n = op.attrs["num_loop_vars"]
    return list(zip(graph.inputs[n:], inputs[n:]))


def _specs(op: Operation) -> list[tuple[dtypes.DType, Any]]:
    return [(t.dtype, t.shape) for t in op.outputs]


class Rewriter:
    """Builds a new graph from `source`, op by op; passes override `visit`.

    Args:
        source: The graph to rewrite (left unchanged).
        outer: For a subgraph, the new graph its copy is nested in.

    Attributes:
        source: The graph being rewritten.
        graph: The graph being built.
    """

    # Whether `run` may keep the source's ops instead of copying them (see the
    # module docstring); off for rewriters that keep their own books.
    copy_on_write = True

    def __init__(self, source: Graph, outer: Graph | None = None) -> None:
        self.source = source
        self.graph = Graph(source.name, outer_graph=outer)
        self.graph.variables.update(source.variables)
        self.graph.created_variables.extend(source.created_variables)
        self._tensors: dict[int, SymbolicTensor] = {}
        self._placeholders: dict[int, SymbolicTensor] = {}
        self._ops: dict[int, Operation] = {}
        # While `_lazy`, the ops visited so far are kept as themselves (in
        # `_kept`, and mapped to themselves in `_ops`); nothing is built.
        self._lazy = False
        self._kept: list[Operation] = []
        # After lazy mode: tensors the pass looked up then may be old ones.
        self._stale = False

    # -- the walk ------------------------------------------------------------

    def run(
        self, inputs: Sequence[SymbolicTensor], outputs: Sequence[SymbolicTensor]
    ) -> Graph:
        """Visits every op of `source`; returns the new graph.

        Its `inputs` are the copies of the placeholders `inputs`, and its
        `outputs` what `outputs` became.
        """
        ops = self.source.get_operations()
        self._lazy = (
            self.copy_on_write
            and self.graph.outer_graph is None
            and not any(op.type in _CONTROL_FLOW for op in ops)
        )
        for op in ops:
            self.visit(op)
            if self._lazy and (not self._kept or self._kept[-1] is not op):
                self._materialize()  # `visit` dropped `op`
        if self._lazy:
            source = self.source
            if _same_tensors(source.inputs, inputs) and _same_tensors(
                source.outputs, outputs
            ):
                return source
            self._materialize()
        self.graph.inputs = [self._placeholders[id(t)] for t in inputs]
        self.graph.outputs = [self.lookup(t) for t in outputs]
        return self.graph

    def visit(self, op: Operation) -> None:
        """Decides what `op` becomes; this default copies it."""
        self.copy(op)

    def child(
        self, graph: Graph, op: Operation, inputs: Sequence[SymbolicTensor]
    ) -> Rewriter:
        """The rewriter for subgraph `graph` of `op` (with new `inputs`)."""
        return type(self)(graph, self.graph)

    # -- the books -----------------------------------------------------------

    def lookup(self, tensor: SymbolicTensor) -> SymbolicTensor:
        """What the old `tensor` is in the new graph."""
        if self._lazy:
            return tensor
        return self._tensors[id(tensor)]

    def forward(self, op: Operation, tensors: Sequence[SymbolicTensor]) -> None:
        """Makes the old `op`'s outputs stand for `tensors` (new graph)."""
        if self._lazy:
            self._materialize()
        if self._stale:
            tensors = self._fresh(tensors)
        for old, new in zip(op.outputs, tensors):
            self._tensors[id(old)] = new

    # -- building ------------------------------------------------------------

    def add(
        self,
        op_type: str | OpDef,
        inputs: Sequence[SymbolicTensor],
        attrs: dict[str, Any],
        name: str,
        *,
        specs: Sequence[tuple[dtypes.DType, Any]] | None = None,
        stateful: bool | None = None,
        location: SourceLocation | None = None,
    ) -> Operation:
        """Adds a new op (named `name`, or `name_1`, ... if that is taken)."""
        if self._lazy:
            self._materialize()
        return self.graph.create_op(
            op_type,
            self._fresh(inputs) if self._stale else inputs,
            attrs,
            name=name,
            specs=specs,
            stateful=stateful,
            location=location,
        )

    def constant(
        self, value: Any, name: str, location: SourceLocation | None = None
    ) -> SymbolicTensor:
        """A new `Const` node holding the NumPy value `value`."""
        dtype = dtypes.from_numpy(value.dtype)
        attrs = {"value": value, "dtype": dtype}
        return self.add("Const", (), attrs, name, location=location).outputs[0]

    def copy(
        self,
        op: Operation,
        *,
        inputs: Sequence[SymbolicTensor] | None = None,
        attrs: dict[str, Any] | None = None,
        name: str | None = None,
    ) -> Operation:
        """Copies `op` into the new graph, with its inputs looked up.

        Subgraph attrs are rewritten by `child`; control inputs point at the
        copies of the old ones (those dropped from the new graph, dead
        variable reads, are left out). Its outputs are forwarded to the copy.
        """
        if self._lazy:
            if self._keep(op, inputs, attrs, name):
                return op
            self._materialize()
        if inputs is None:
            inputs = [self.lookup(t) for t in op.inputs]
        control_flow = op.type in _CONTROL_FLOW
        if attrs is None and control_flow:
            attrs = {
                key: self.child(value, op, inputs).run(value.inputs, value.outputs)
                if isinstance(value, Graph)
                else value
                for key, value in op.attrs.items()
            }
        new = self.add(
            op.opdef,
            inputs,
            dict(op.attrs) if attrs is None else attrs,
            name or op.name,
            specs=_specs(op),
            stateful=op.stateful,
            location=op.location,
        )
        new.control_inputs[:] = [
            self._ops[id(c)] for c in op.control_inputs if id(c) in self._ops
        ]
        if control_flow:
            link_captures(new)
        self._ops[id(op)] = new
        self.forward(op, new.outputs)
        if op.type == "Placeholder":
            self._placeholders[id(op.outputs[0])] = new.outputs[0]
        return new

    def _keep(
        self,
        op: Operation,
        inputs: Sequence[SymbolicTensor] | None,
        attrs: dict[str, Any] | None,
        name: str | None,
    ) -> bool:
        """While lazy: keeps `op` as itself if its copy would be the same."""
        if attrs is not None or (name is not None and name != op.name):
            return False
        if inputs is not None and not _same_tensors(inputs, op.inputs):
            return False
        if not all(id(c) in self._ops for c in op.control_inputs):
            return False
        self._ops[id(op)] = op
        self._kept.append(op)
        if op.type == "Placeholder":
            self._placeholders[id(op.outputs[0])] = op.outputs[0]
        return True

    def _materialize(self) -> None:
        """Leaves lazy mode: copies the ops kept so far into the new graph."""
        self._lazy = False
        self._stale = True
        kept, self._kept = self._kept, []
        self._ops.clear()
        self._placeholders.clear()
        for op in kept:
            Rewriter.copy(self, op)

    def _fresh(self, tensors: Sequence[SymbolicTensor]) -> list[SymbolicTensor]:
        """`tensors` with the old ones (looked up while lazy) replaced by
        their copies: a pass may hold on to what `lookup` gave it."""
        return [self._tensors.get(id(t), t) for t in tensors]


def _same_tensors(a: Sequence[SymbolicTensor], b: Sequence[SymbolicTensor]) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def link_captures(op: Operation) -> None:
    """Sets `captures` of the subgraphs of a new `If`/`While` node `op`."""
    for value in op.attrs.values():
        if isinstance(value, Graph):
            value.captures = [
                (outer, inner)
                for inner, outer in capture_pairs(op, value, list(op.inputs))
            ]


# -- reading ------------------------------------------------------------------


def _op_print(op: Operation) -> tuple[Any, ...]:
    """What a rewrite can change of `op`: name, wiring and attrs (by identity)."""
    attrs = [
        (k, _fingerprint(v, v.outputs) if isinstance(v, Graph) else id(v))
        for k, v in op.attrs.items()
    ]
    return (
        op.name,
        op.type,
        [_ref(t) for t in op.inputs],
        [c.name for c in op.control_inputs],
        attrs,
    )


def _fingerprint(graph: Graph, outputs: Sequence[SymbolicTensor]) -> list[Any]:
    """What a rewrite can change: ops, their wiring and attrs (by identity)."""
    ops = [_op_print(op) for op in graph.get_operations()]
    return [ops, [_ref(t) for t in outputs]]


def same_structure(
    a: Graph,
    a_outputs: Sequence[SymbolicTensor],
    b: Graph,
    b_outputs: Sequence[SymbolicTensor],
) -> bool:
    """Whether `b` is an op-for-op copy of `a` (same names, wiring, attrs).

    Attr values compare by identity: copies share them, and every pass that
    changes a value makes a new op (a folded constant) instead. Stops at the
    first op that differs.
    """
    a_ops, b_ops = a.get_operations(), b.get_operations()
    if len(a_ops) != len(b_ops):
        return False
    if any(_op_print(x) != _op_print(y) for x, y in zip(a_ops, b_ops)):
        return False
    return [_ref(t) for t in a_outputs] == [_ref(t) for t in b_outputs]


def _ref(tensor: SymbolicTensor) -> str:
    index = tensor.value_index
    return tensor.op.name if index == 0 else f"{tensor.op.name}:{index}"


def _const_text(value: Any) -> str:
    array = np.asarray(value)
    if array.size > 4:
        return f"<{array.dtype.name} {array.shape}>"
    return repr(array.tolist())


def format_graph(graph: Graph, indent: str = "") -> str:
    """One line per op, `name = Type(inputs)`: for docstrings and tests.

    Constants show their value (small ones) and subgraphs follow their op,
    indented; the last line lists the graph's outputs.
    """
    lines = []
    for op in graph.get_operations():
        args = [_ref(t) for t in op.inputs]
        if op.type == "Const":
            args = [_const_text(op.attrs["value"])]
        args += [f"^{c.name}" for c in op.control_inputs]
        lines.append(f"{indent}{op.name} = {op.type}({', '.join(args)})")
        for key, value in op.attrs.items():
            if isinstance(value, Graph):
                lines.append(f"{indent}  {key}:")
                lines.append(format_graph(value, indent + "    "))
    if graph.outputs:
        lines.append(f"{indent}return {', '.join(_ref(t) for t in graph.outputs)}")
    return "\n".join(lines)
