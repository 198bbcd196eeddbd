"""Python operators on tensors and variables: `x + y`, `x[i]`, `-x`, `x < y`.

    >>> import runtime as rt
    >>> x = rt.constant([1, 2, 3])
    >>> (2 * x + 1)[1:].numpy()
    array([5, 7], dtype=int32)
    >>> (x == 2).numpy()
    array([False,  True, False])

Installed onto `Tensor` and `Variable` when `runtime.ops` is imported, as
TensorFlow does, so that `runtime.tensor` needs no import of the ops. `==`
and `!=` are elementwise (TF2 semantics); hashing stays by identity.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from runtime import op_registry
from runtime.context import STATE
from runtime.op_registry import OpDef, apply
from runtime.ops import math as m
from runtime.ops.array import cast
from runtime.ops.indexing import getitem
from runtime.ops.state import Variable
from runtime.tensor import Tensor, stands_for_tensor

__all__ = ["install"]

_NO_ATTRS: dict[str, Any] = {}


# These call the op's eager runner directly when no graph is being built
# (one call less than `apply`: operators are the hottest path eagerly),
# unless a gradient tape records them.


def _forward(op: OpDef) -> Callable[[Any, Any], Any]:
    run = op.run_eager

    def method(self: Any, other: Any) -> Any:
        if STATE.graph is None and not STATE.tapes:
            return run((self, other), _NO_ATTRS)
        return apply(op, (self, other), _NO_ATTRS)

    return method


def _reverse(op: OpDef) -> Callable[[Any, Any], Any]:
    run = op.run_eager

    def method(self: Any, other: Any) -> Any:
        if STATE.graph is None and not STATE.tapes:
            return run((other, self), _NO_ATTRS)
        return apply(op, (other, self), _NO_ATTRS)

    return method


def _unary(op: OpDef) -> Callable[[Any], Any]:
    run = op.run_eager

    def method(self: Any) -> Any:
        if STATE.graph is None and not STATE.tapes:
            return run((self,), _NO_ATTRS)
        return apply(op, (self,), _NO_ATTRS)

    return method


def _comparison(op: OpDef, fallback: bool) -> Callable[[Any, Any], Any]:
    def method(self: Any, other: Any) -> Any:
        if other is None:
            return fallback
        try:
            return apply(op, (self, other), _NO_ATTRS)
        except TypeError:
            if stands_for_tensor(other):
                raise
            return NotImplemented

    return method


def _divmod(self: Any, other: Any) -> Any:
    quotient = self.__floordiv__(other)
    if quotient is NotImplemented:
        return NotImplemented
    return quotient, self.__mod__(other)


def _rdivmod(self: Any, other: Any) -> Any:
    quotient = self.__rfloordiv__(other)
    if quotient is NotImplemented:
        return NotImplemented
    return quotient, self.__rmod__(other)


def _invert(self: Any) -> Any:
    return m.logical_not(self)


def _round(self: Any, ndigits: int | None = None) -> Any:
    """`round(t)`, `round(t, n)`: rounded halves to even, as Python rounds,
    the dtype kept (as NumPy arrays and JAX arrays do: no Python int)."""
    if ndigits is None or (ndigits >= 0 and self.dtype.is_integer):
        return m.round(self)
    scale = 10.0**ndigits
    if self.dtype.is_integer:  # round(17, -1): to tens, kept an int
        return cast(m.round(cast(self, "float64") * scale) / scale, self.dtype)
    return m.round(self * scale) / scale


# The ops behind Python's operators, by op type (`runtime.ops.math` registers
# them; importing it above is what makes them known).
_op = op_registry.get

_BINARY = {
    "add": _op("Add"),
    "sub": _op("Sub"),
    "mul": _op("Mul"),
    "truediv": _op("Div"),
    "floordiv": _op("FloorDiv"),
    "mod": _op("FloorMod"),
    "pow": _op("Pow"),
    "matmul": _op("MatMul"),
    "and": _op("LogicalAnd"),
    "or": _op("LogicalOr"),
}
_COMPARE = {
    "lt": _op("Less"),
    "le": _op("LessEqual"),
    "gt": _op("Greater"),
    "ge": _op("GreaterEqual"),
}


def install(cls: type) -> None:
    """Adds the operator methods to `cls`."""
    for name, op in _BINARY.items():
        setattr(cls, f"__{name}__", _forward(op))
        setattr(cls, f"__r{name}__", _reverse(op))
    for name, op in _COMPARE.items():
        setattr(cls, f"__{name}__", _forward(op))
    cls.__eq__ = _comparison(_op("Equal"), False)  # type: ignore[method-assign]
    cls.__ne__ = _comparison(_op("NotEqual"), True)  # type: ignore[method-assign]
    cls.__neg__ = _unary(_op("Neg"))  # type: ignore[attr-defined]
    cls.__abs__ = _unary(_op("Abs"))  # type: ignore[attr-defined]
    cls.__invert__ = _invert  # type: ignore[attr-defined]
    cls.__round__ = _round  # type: ignore[attr-defined]
    cls.__floor__ = _unary(_op("Floor"))  # type: ignore[attr-defined]
    cls.__ceil__ = _unary(_op("Ceil"))  # type: ignore[attr-defined]
    cls.__divmod__ = _divmod  # type: ignore[attr-defined]
    cls.__rdivmod__ = _rdivmod  # type: ignore[attr-defined]
    cls.__getitem__ = getitem  # type: ignore[attr-defined]


install(Tensor)
install(Variable)
