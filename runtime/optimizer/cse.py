"""Common-subexpression elimination: one node per distinct pure computation.

Before -> after (`x` a placeholder; the second `x * 2` and its constant are
merged into the first):

    >>> import runtime as rt
    >>> from runtime.optimizer.rewrite import format_graph
    >>> g = rt.Graph()
    >>> with g.as_default():
    ...     x = g.placeholder(rt.float32, (), "x")
    ...     y = rt.exp(x * 2.0) + rt.exp(x * 2.0)
    >>> print(format_graph(eliminate_common_subexpressions(g, [x], [y])))
    x = Placeholder()
    const = Const(2.0)
    mul = Mul(x, const)
    exp = Exp(mul)
    add = Add(exp, exp)
    return add

Two ops are the same computation when they have the same type, the same
inputs (after merging, so whole expressions merge bottom-up) and equal
attrs, compared with their types (`1`, `1.0` and `True` differ; floats by
their bits). Constants are the same when dtype, shape and bytes are. Only
pure ops merge (see `rewrite.is_pure`): effects, variable reads, random ops
and control flow never do. Each graph is handled alone (a subgraph does not
reuse its outer graph's values: that would add captures).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from runtime.dtypes import DType
from runtime.graph import Graph, Operation
from runtime.optimizer.rewrite import Rewriter, is_pure
from runtime.tensor import SymbolicTensor

__all__ = ["eliminate_common_subexpressions"]


def eliminate_common_subexpressions(
    graph: Graph,
    inputs: Sequence[SymbolicTensor],
    outputs: Sequence[SymbolicTensor],
) -> Graph:
    """`graph` with repeated pure computations merged (a new graph).

    Args:
        graph: The graph to optimize (unchanged).
        inputs: Its placeholders, in feed order.
        outputs: The tensors it computes.

    Returns:
        The new graph; its `inputs`/`outputs` correspond to the given ones.
    """
    return _Merger(graph).run(inputs, outputs)


class _Unhashable(Exception):
    """An attr value that has no exact, hashable key."""


def freeze(value: Any) -> Any:
    """An exact, hashable key for an attr value (types included).

    Raises:
        _Unhashable: For values with no such key (subgraphs, objects).
    """
    t = type(value)
    if value is None or t in (bool, int, str):
        return (t, value)
    if t is float:
        return (t, value.hex())
    if isinstance(value, DType):
        return (DType, value.name)
    if t in (tuple, list):
        return (t, tuple(freeze(v) for v in value))
    if isinstance(value, (np.ndarray, np.generic)):
        if value.dtype.kind == "O":
            items = tuple(freeze(v) for v in np.asarray(value).ravel().tolist())
            return (t, "O", np.shape(value), items)
        return (t, value.dtype.str, np.shape(value), value.tobytes())
    raise _Unhashable(t.__name__)


def _key(op: Operation, inputs: list[SymbolicTensor]) -> Any:
    try:
        attrs = tuple(sorted((k, freeze(v)) for k, v in op.attrs.items()))
    except _Unhashable:
        return None
    return (op.type, tuple(id(t) for t in inputs), attrs)


class _Merger(Rewriter):
    def __init__(self, source: Graph, outer: Graph | None = None) -> None:
        super().__init__(source, outer)
        self._seen: dict[Any, Operation] = {}

    def _materialize(self) -> None:
        # The ops seen so far were kept as themselves, keyed by their old
        # inputs: key them by their copies' inputs, as `lookup` now gives.
        super()._materialize()
        self._seen = {
            _key(op, [self.lookup(t) for t in op.inputs]): self._ops[id(op)]
            for op in self._seen.values()
        }

    def visit(self, op: Operation) -> None:
        if op.type != "Const" and not is_pure(op):
            self.copy(op)
            return
        inputs = [self.lookup(t) for t in op.inputs]
        key = _key(op, inputs)
        if key is None:
            self.copy(op)
            return
        found = self._seen.get(key)
        if found is not None:
            self.forward(op, found.outputs)
            return
        self._seen[key] = self.copy(op, inputs=inputs)
