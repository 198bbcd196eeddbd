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

from runtime.context import STATE
from runtime.op_registry import OpDef, apply
from runtime.ops import math as m
from runtime.ops.indexing import getitem
from runtime.ops.state import Variable
from runtime.tensor import Tensor, conversion_for

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
            if isinstance(other, Tensor) or conversion_for(other) is not None:
                raise
            return NotImplemented

    return method


def _invert(self: Any) -> Any:
    return m.logical_not(self)


_BINARY = {
    "add": m._ADD,
    "sub": m._SUB,
    "mul": m._MUL,
    "truediv": m._DIV,
    "floordiv": m._FLOORDIV,
    "mod": m._MOD,
    "pow": m._POW,
    "matmul": m._MATMUL,
    "and": m._AND,
    "or": m._OR,
}
_COMPARE = {
    "lt": m._LESS,
    "le": m._LESS_EQUAL,
    "gt": m._GREATER,
    "ge": m._GREATER_EQUAL,
}


def install(cls: type) -> None:
    """Adds the operator methods to `cls`."""
    for name, op in _BINARY.items():
        setattr(cls, f"__{name}__", _forward(op))
        setattr(cls, f"__r{name}__", _reverse(op))
    for name, op in _COMPARE.items():
        setattr(cls, f"__{name}__", _forward(op))
    cls.__eq__ = _comparison(m._EQUAL, False)  # type: ignore[method-assign]
    cls.__ne__ = _comparison(m._NOT_EQUAL, True)  # type: ignore[method-assign]
    cls.__hash__ = object.__hash__  # type: ignore[method-assign]
    cls.__neg__ = _unary(m._NEG)  # type: ignore[attr-defined]
    cls.__abs__ = _unary(m._ABS)  # type: ignore[attr-defined]
    cls.__invert__ = _invert  # type: ignore[attr-defined]
    cls.__getitem__ = getitem  # type: ignore[attr-defined]


install(Tensor)
install(Variable)
