"""Arithmetic simplification: `x * 1`, `x + 0`, identity chains -> `x`.

Before -> after (`x` a placeholder):

    >>> import runtime as rt
    >>> from runtime.optimizer.rewrite import format_graph
    >>> g = rt.Graph()
    >>> with g.as_default():
    ...     x = g.placeholder(rt.int32, (2,), "x")
    ...     y = rt.identity(rt.identity(1 * x + 0))
    >>> print(format_graph(simplify(g, [x], [y])))
    x = Placeholder()
    const = Const(1)
    const_1 = Const(0)
    return x

An op is replaced by its operand `x` only when the result is exactly `x`:
same dtype, same shape, same bits. The rules:

* `x * 1`, `1 * x`, `x / 1` (all ones), `x + 0`, `0 + x`, `x - 0` (all
  zeros), where the constant either is a scalar or broadcasts onto a fully
  known shape of `x` without changing it (`x * ones((3, 1))` for `x` of shape
  `(3,)` makes a 3x3 matrix: kept), and the op's dtype is `x`'s (`int / 1`
  is float64: kept);
* for floats, IEEE zeros are signed: `-0.0 + 0.0` is `+0.0`, so `x + 0.0`
  is kept and only `x + (-0.0)` and `x - 0.0` are simplified; `x * 1.0` and
  `x / 1.0` are exact for every float (nan and infinities included);
* `Identity(x)`; `Cast(x)` to `x`'s own dtype; `Reshape(x)` to `x`'s own
  fully known shape; `Neg(Neg(x))` and `LogicalNot(LogicalNot(x))`.

The constants left without users are removed by pruning.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from runtime.errors import InvalidArgumentError
from runtime.graph import Graph, Operation
from runtime.optimizer.rewrite import Rewriter, const_value, is_const, is_pure
from runtime.shapes import broadcast, is_fully_defined
from runtime.tensor import SymbolicTensor

__all__ = ["simplify"]


def simplify(
    graph: Graph,
    inputs: Sequence[SymbolicTensor],
    outputs: Sequence[SymbolicTensor],
) -> Graph:
    """`graph` with the identities above replaced by their operand (a new graph).

    Args:
        graph: The graph to optimize (unchanged).
        inputs: Its placeholders, in feed order.
        outputs: The tensors it computes.

    Returns:
        The new graph; its `inputs`/`outputs` correspond to the given ones.
    """
    return _Simplifier(graph).run(inputs, outputs)


def _all_equal(value: np.ndarray, unit: int, negative_zero: bool | None) -> bool:
    """Whether every element is `unit` (and, for float zeros, of that sign)."""
    if value.dtype.kind not in "iuf":
        return False
    if not np.all(value == unit):
        return False
    if value.dtype.kind == "f" and negative_zero is not None:
        return bool(np.all(np.signbit(value) == negative_zero))
    return True


def _keeps_operand(out: SymbolicTensor, x: SymbolicTensor, c: SymbolicTensor) -> bool:
    """Whether `op(x, c)` has `x`'s dtype and shape for a constant `c`."""
    if out.dtype is not x.dtype or c.dtype is not x.dtype:
        return False
    if np.ndim(const_value(c)) == 0:
        return True
    if not is_fully_defined(x.shape):
        return False
    try:
        return broadcast(x.shape, c.shape, "") == tuple(x.shape)
    except InvalidArgumentError:
        return False


class _Simplifier(Rewriter):
    def visit(self, op: Operation) -> None:
        if is_pure(op):
            found = self._operand(op, [self.lookup(t) for t in op.inputs])
            if found is not None:
                self.forward(op, [found])
                return
        self.copy(op)

    def _operand(
        self, op: Operation, inputs: list[SymbolicTensor]
    ) -> SymbolicTensor | None:
        """The tensor `op` is equal to, or None."""
        kind, out = op.type, op.outputs[0] if op.outputs else None
        if kind == "Identity":
            return inputs[0]
        if kind == "Cast":
            return inputs[0] if inputs[0].dtype is out.dtype else None
        if kind == "Reshape":
            x = inputs[0]
            same = is_fully_defined(x.shape) and tuple(x.shape) == out.shape
            return x if same and x.dtype is out.dtype else None
        if kind in ("Neg", "LogicalNot"):
            inner = inputs[0].op
            return inner.inputs[0] if inner.type == kind else None
        if len(inputs) != 2:
            return None
        a, b = inputs
        candidates: list[tuple[SymbolicTensor, SymbolicTensor]] = []
        if kind == "Mul":
            candidates = [(a, b), (b, a)]
            unit, sign = 1, None
        elif kind == "Add":
            candidates = [(a, b), (b, a)]
            unit, sign = 0, True
        elif kind == "Sub":
            candidates = [(a, b)]
            unit, sign = 0, False
        elif kind == "Div":
            candidates = [(a, b)]
            unit, sign = 1, None
        for x, c in candidates:
            if (
                is_const(c)
                and _keeps_operand(out, x, c)
                and _all_equal(np.asarray(const_value(c)), unit, sign)
            ):
                return x
        return None
