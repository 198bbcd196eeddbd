"""Constant folding: pure ops whose inputs are all constants become constants.

Before -> after (`x` a placeholder):

    >>> import runtime as rt
    >>> from runtime.optimizer.rewrite import format_graph
    >>> g = rt.Graph()
    >>> with g.as_default():
    ...     x = g.placeholder(rt.float32, (), "x")
    ...     scale = rt.sqrt(rt.constant(4.0)) + 1.0
    ...     y = x * scale
    >>> print(format_graph(fold_constants(g, [x], [y])))
    x = Placeholder()
    const = Const(4.0)
    sqrt = Const(2.0)
    const_1 = Const(1.0)
    add = Const(3.0)
    mul = Mul(x, add)
    return mul

The folded value is what the op's registry kernel returns (so it is exactly
what the executor would compute), under the same NumPy error state. A
constant keeps the name of the op it replaces; the constants it was computed
from stay until pruning removes them.

An op is not folded when it is not pure (effects, variable reads, random
ops, TensorArray handles), when the kernel raises or warns (non-strict
execution: an op nobody needs must not fail, and a warning is emitted on
every run), when the result's dtype or shape differs from the op's static
ones, or when the result is larger than `MAX_CONSTANT_BYTES`. Captured
constants are propagated into `If`/`While` subgraphs (the placeholder is
kept, its uses read a copy of the constant), so folding continues there.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from runtime import dtypes
from runtime.eager import quiet_numpy, restore_numpy
from runtime.graph import Graph, Operation
from runtime.op_registry import bind_kernel
from runtime.optimizer.rewrite import (
    Rewriter,
    capture_pairs,
    const_value,
    is_const,
    is_pure,
)
from runtime.shapes import is_compatible
from runtime.tensor import SymbolicTensor

__all__ = ["MAX_CONSTANT_BYTES", "fold_constants"]

MAX_CONSTANT_BYTES = 4 << 20
"""Folded values larger than this stay computed at run time (graph size)."""

_FAILED = object()


def fold_constants(
    graph: Graph,
    inputs: Sequence[SymbolicTensor],
    outputs: Sequence[SymbolicTensor],
) -> Graph:
    """`graph` with every foldable op replaced by a `Const` (a new graph).

    Args:
        graph: The graph to optimize (unchanged).
        inputs: Its placeholders, in feed order.
        outputs: The tensors it computes.

    Returns:
        The new graph; its `inputs`/`outputs` correspond to the given ones.
    """
    return _Folder(graph).run(inputs, outputs)


def _evaluate(op: Operation, values: Sequence[Any]) -> Any:
    """The value of pure single-output `op` on `values`, or `_FAILED`."""
    kernel = bind_kernel(op.opdef, op.attrs)
    token = quiet_numpy() if op.opdef.may_warn else None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            value = kernel(*values)
    except Exception:  # the op will raise (or warn) at run time, if it runs
        return _FAILED
    finally:
        if token is not None:
            restore_numpy(token)
    if not isinstance(value, (np.ndarray, np.generic)):
        return _FAILED
    out = op.outputs[0]
    if dtypes.FROM_NUMPY.get(value.dtype) is not out.dtype:
        return _FAILED
    if not is_compatible(out.shape, np.shape(value)):
        return _FAILED
    if value.nbytes > MAX_CONSTANT_BYTES:
        return _FAILED
    return value


class _Folder(Rewriter):
    """Folds constant expressions; `known` are captured constants."""

    def __init__(
        self,
        source: Graph,
        outer: Graph | None = None,
        known: dict[int, SymbolicTensor] | None = None,
    ) -> None:
        super().__init__(source, outer)
        self._known = known or {}

    def child(
        self, graph: Graph, op: Operation, inputs: Sequence[SymbolicTensor]
    ) -> Rewriter:
        known = {
            id(placeholder): outer
            for placeholder, outer in capture_pairs(op, graph, inputs)
            if is_const(outer)
        }
        return _Folder(graph, self.graph, known)

    def visit(self, op: Operation) -> None:
        if op.type == "Placeholder":
            self.copy(op)
            outer = self._known.get(id(op.outputs[0]))
            if outer is not None:
                value = const_value(outer)
                self.forward(op, [self.constant(value, op.name, op.location)])
            return
        if is_pure(op) and len(op.outputs) == 1:
            inputs = [self.lookup(t) for t in op.inputs]
            if all(is_const(t) for t in inputs):
                value = _evaluate(op, [const_value(t) for t in inputs])
                if value is not _FAILED:
                    self.forward(op, [self.constant(value, op.name, op.location)])
                    return
        self.copy(op)
