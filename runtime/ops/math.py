"""Elementwise math, comparisons, logic and matmul.

    >>> import runtime as rt
    >>> rt.add([1.0, 2.0], 1.0).numpy()
    array([2., 3.], dtype=float32)
    >>> rt.matmul([[1, 2]], [[3], [4]]).numpy()
    array([[11]], dtype=int32)

Binary ops broadcast like NumPy. Their operands must share a dtype; Python
scalars and lists take the tensor operand's dtype, and `int32 + float32`
raises TypeError naming the op.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from runtime import dtypes
from runtime.errors import InvalidArgumentError
from runtime.op_registry import OpDef, apply, gradient, register
from runtime.ops import rules
from runtime.ops.array import transpose, where
from runtime.ops.grad_ops import needs_gradient, unbroadcast
from runtime.shapes import Shape, broadcast, format_shape
from runtime.tensor import Tensor, TensorLike

_NUMERIC = dtypes.NUMERIC
_FLOATING = dtypes.FLOATING
_BOOL = frozenset({dtypes.bool_})
_NO_ATTRS: dict[str, Any] = {}


def _binary(
    name: str,
    kernel: Callable[..., Any],
    allowed: frozenset[dtypes.DType] | None,
    result: str = "same",
    may_warn: bool = False,
    symbol: str | None = None,
) -> OpDef:
    return register(
        OpDef(
            name,
            rules.elementwise(name, result),
            kernel,
            unify=2,
            allowed=allowed,
            may_warn=may_warn,
            py_operator=symbol,
        )
    )


def _unary(
    name: str,
    kernel: Callable[..., Any],
    allowed: frozenset[dtypes.DType] | None,
    may_warn: bool = False,
    symbol: str | None = None,
) -> OpDef:
    return register(
        OpDef(
            name,
            rules.unary(),
            kernel,
            unify=1,
            allowed=allowed,
            may_warn=may_warn,
            py_operator=symbol,
        )
    )


def _check_int_divisor(x: Any, y: Any) -> None:
    if y.dtype.kind == "i" and not np.all(y):
        raise InvalidArgumentError("Integer division by zero")


def _floordiv_kernel(x: Any, y: Any) -> Any:
    _check_int_divisor(x, y)
    return np.floor_divide(x, y)


def _mod_kernel(x: Any, y: Any) -> Any:
    _check_int_divisor(x, y)
    return np.mod(x, y)


def _sigmoid_kernel(x: Any) -> Any:
    return 1 / (1 + np.exp(-x))


def _relu_kernel(x: Any) -> Any:
    return np.maximum(x, 0)


def _add_kernel(x: Any, y: Any) -> Any:
    out = x + y
    # Two rank-0 string arrays add up to a Python `str`: keep it an array.
    return np.array(out, dtype=object) if type(out) is str else out


_ADD = _binary("Add", _add_kernel, _NUMERIC | {dtypes.string}, symbol="+")
_SUB = _binary("Sub", operator.sub, _NUMERIC, symbol="-")
_MUL = _binary("Mul", operator.mul, _NUMERIC, symbol="*")
_DIV = _binary("Div", operator.truediv, _NUMERIC, "truediv", True, "/")
_FLOORDIV = _binary("FloorDiv", _floordiv_kernel, _NUMERIC, may_warn=True)
_MOD = _binary("FloorMod", _mod_kernel, _NUMERIC, may_warn=True)
_POW = _binary("Pow", np.power, _NUMERIC, may_warn=True)
_MAXIMUM = _binary("Maximum", np.maximum, _NUMERIC)
_MINIMUM = _binary("Minimum", np.minimum, _NUMERIC)
_GREATER = _binary("Greater", operator.gt, _NUMERIC, "bool", symbol=">")
_GREATER_EQUAL = _binary("GreaterEqual", operator.ge, _NUMERIC, "bool", symbol=">=")
_LESS = _binary("Less", operator.lt, _NUMERIC, "bool", symbol="<")
_LESS_EQUAL = _binary("LessEqual", operator.le, _NUMERIC, "bool", symbol="<=")
_EQUAL = _binary("Equal", operator.eq, None, "bool", symbol="==")
_NOT_EQUAL = _binary("NotEqual", operator.ne, None, "bool", symbol="!=")
_AND = _binary("LogicalAnd", operator.and_, _BOOL, symbol="&")
_OR = _binary("LogicalOr", operator.or_, _BOOL, symbol="|")

_ABS = _unary("Abs", np.abs, _NUMERIC)
_NEG = _unary("Neg", operator.neg, _NUMERIC, symbol="-")
_SQUARE = _unary("Square", np.square, _NUMERIC)
_RELU = _unary("Relu", _relu_kernel, _NUMERIC)
_EXP = _unary("Exp", np.exp, _FLOATING, may_warn=True)
_LOG = _unary("Log", np.log, _FLOATING, may_warn=True)
_SQRT = _unary("Sqrt", np.sqrt, _FLOATING, may_warn=True)
_TANH = _unary("Tanh", np.tanh, _FLOATING)
_SIGMOID = _unary("Sigmoid", _sigmoid_kernel, _FLOATING, may_warn=True)
_SIN = _unary("Sin", np.sin, _FLOATING)
_COS = _unary("Cos", np.cos, _FLOATING)
_NOT = _unary("LogicalNot", operator.invert, _BOOL, symbol="~")
# Half to even, as Python's `round` and TF's `tf.round`.
_ROUND = _unary("Round", np.round, _NUMERIC)
_FLOOR = _unary(
    "Floor", lambda x: x if x.dtype.kind in "iub" else np.floor(x), _NUMERIC
)
_CEIL = _unary("Ceil", lambda x: x if x.dtype.kind in "iub" else np.ceil(x), _NUMERIC)


def _matmul_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
    a, b = inputs
    rules.require_rank(a, 2, "MatMul", "In[0]")
    rules.require_rank(b, 2, "MatMul", "In[1]")
    if a.shape is None or b.shape is None:
        return [(a.dtype, None)]
    k_a, k_b = a.shape[-1], b.shape[-2]
    if k_a is not None and k_b is not None and k_a != k_b:
        raise InvalidArgumentError(
            f"Matrix size-incompatible: In[0]: {format_shape(a.shape)}, "
            f"In[1]: {format_shape(b.shape)}",
            "MatMul",
        )
    batch: Shape = broadcast(a.shape[:-2], b.shape[:-2], "MatMul")
    return [(a.dtype, (*batch, a.shape[-2], b.shape[-1]))]  # type: ignore[misc]


def _matmul_check(a: Any, b: Any) -> None:
    if a.ndim < 2 or b.ndim < 2:
        raise InvalidArgumentError(
            f"In[0] and In[1] must have rank >= 2, got shapes {a.shape} and {b.shape}"
        )


_MATMUL = register(
    OpDef(
        "MatMul",
        _matmul_rule,
        operator.matmul,
        unify=2,
        allowed=_NUMERIC,
        eager_check=_matmul_check,
        py_operator="@",
        default_name="matmul",
    )
)


def add(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """`x + y` elementwise (also concatenates strings)."""
    return apply(_ADD, (x, y), _NO_ATTRS, name)


def subtract(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """`x - y` elementwise."""
    return apply(_SUB, (x, y), _NO_ATTRS, name)


def multiply(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """`x * y` elementwise."""
    return apply(_MUL, (x, y), _NO_ATTRS, name)


def divide(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """`x / y` elementwise; integer operands give float64, as in TensorFlow."""
    return apply(_DIV, (x, y), _NO_ATTRS, name)


def floordiv(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """`x // y` elementwise; integer division by zero is InvalidArgumentError."""
    return apply(_FLOORDIV, (x, y), _NO_ATTRS, name)


def mod(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """`x % y` elementwise, with the sign of `y` (Python's and floormod's)."""
    return apply(_MOD, (x, y), _NO_ATTRS, name)


def pow(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """`x ** y` elementwise."""
    return apply(_POW, (x, y), _NO_ATTRS, name)


def maximum(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """The larger of `x` and `y`, elementwise."""
    return apply(_MAXIMUM, (x, y), _NO_ATTRS, name)


def minimum(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """The smaller of `x` and `y`, elementwise."""
    return apply(_MINIMUM, (x, y), _NO_ATTRS, name)


def abs(x: TensorLike, name: str | None = None) -> Tensor:
    """`|x|` elementwise."""
    return apply(_ABS, (x,), _NO_ATTRS, name)


def negative(x: TensorLike, name: str | None = None) -> Tensor:
    """`-x` elementwise."""
    return apply(_NEG, (x,), _NO_ATTRS, name)


def square(x: TensorLike, name: str | None = None) -> Tensor:
    """`x * x` elementwise."""
    return apply(_SQUARE, (x,), _NO_ATTRS, name)


def exp(x: TensorLike, name: str | None = None) -> Tensor:
    """`e ** x` elementwise (floating dtypes)."""
    return apply(_EXP, (x,), _NO_ATTRS, name)


def log(x: TensorLike, name: str | None = None) -> Tensor:
    """Natural logarithm elementwise (floating dtypes)."""
    return apply(_LOG, (x,), _NO_ATTRS, name)


def sqrt(x: TensorLike, name: str | None = None) -> Tensor:
    """Square root elementwise (floating dtypes)."""
    return apply(_SQRT, (x,), _NO_ATTRS, name)


def round(x: TensorLike, name: str | None = None) -> Tensor:
    """`x` rounded to the nearest integer elementwise, halves to even (as
    Python's `round` and `tf.round`); the dtype is kept. `round(t)` on a
    tensor is this op (as on a NumPy array, not a Python int)."""
    return apply(_ROUND, (x,), _NO_ATTRS, name)


def floor(x: TensorLike, name: str | None = None) -> Tensor:
    """The largest integer not above `x`, elementwise (`math.floor(t)` on a
    tensor; an integer tensor is its own floor)."""
    return apply(_FLOOR, (x,), _NO_ATTRS, name)


def ceil(x: TensorLike, name: str | None = None) -> Tensor:
    """The smallest integer not below `x`, elementwise (`math.ceil(t)` on a
    tensor; an integer tensor is its own ceiling)."""
    return apply(_CEIL, (x,), _NO_ATTRS, name)


def tanh(x: TensorLike, name: str | None = None) -> Tensor:
    """Hyperbolic tangent elementwise (floating dtypes)."""
    return apply(_TANH, (x,), _NO_ATTRS, name)


def sigmoid(x: TensorLike, name: str | None = None) -> Tensor:
    """`1 / (1 + exp(-x))` elementwise (floating dtypes)."""
    return apply(_SIGMOID, (x,), _NO_ATTRS, name)


def relu(x: TensorLike, name: str | None = None) -> Tensor:
    """`max(x, 0)` elementwise."""
    return apply(_RELU, (x,), _NO_ATTRS, name)


def sin(x: TensorLike, name: str | None = None) -> Tensor:
    """Sine elementwise (floating dtypes)."""
    return apply(_SIN, (x,), _NO_ATTRS, name)


def cos(x: TensorLike, name: str | None = None) -> Tensor:
    """Cosine elementwise (floating dtypes)."""
    return apply(_COS, (x,), _NO_ATTRS, name)


def matmul(a: TensorLike, b: TensorLike, name: str | None = None) -> Tensor:
    """Matrix product of rank >= 2 tensors (leading dims broadcast)."""
    return apply(_MATMUL, (a, b), _NO_ATTRS, name)


def greater(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """`x > y` elementwise, as bool."""
    return apply(_GREATER, (x, y), _NO_ATTRS, name)


def greater_equal(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """`x >= y` elementwise, as bool."""
    return apply(_GREATER_EQUAL, (x, y), _NO_ATTRS, name)


def less(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """`x < y` elementwise, as bool."""
    return apply(_LESS, (x, y), _NO_ATTRS, name)


def less_equal(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """`x <= y` elementwise, as bool."""
    return apply(_LESS_EQUAL, (x, y), _NO_ATTRS, name)


def equal(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """`x == y` elementwise, as bool (any dtype, strings included)."""
    return apply(_EQUAL, (x, y), _NO_ATTRS, name)


def not_equal(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """`x != y` elementwise, as bool."""
    return apply(_NOT_EQUAL, (x, y), _NO_ATTRS, name)


def logical_and(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """`x and y` elementwise on bool tensors."""
    return apply(_AND, (x, y), _NO_ATTRS, name)


def logical_or(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """`x or y` elementwise on bool tensors."""
    return apply(_OR, (x, y), _NO_ATTRS, name)


def logical_not(x: TensorLike, name: str | None = None) -> Tensor:
    """`not x` elementwise on bool tensors."""
    return apply(_NOT, (x,), _NO_ATTRS, name)


# -- gradients (declared in the op table, `runtime.gradients` runs them) ---------


def _binary_grads(op: Any, gx: Any, gy: Any) -> list[Any]:
    """Each operand's gradient, summed back over the dims broadcasting added."""

    x, y = op.inputs
    return [
        unbroadcast(gx(), x) if needs_gradient(x) else None,
        unbroadcast(gy(), y) if needs_gradient(y) else None,
    ]


@gradient("Add")
def _add_grad(op: Any, grads: Sequence[Any]) -> list[Any]:
    (g,) = grads
    return _binary_grads(op, lambda: g, lambda: g)


@gradient("Sub")
def _sub_grad(op: Any, grads: Sequence[Any]) -> list[Any]:
    (g,) = grads
    return _binary_grads(op, lambda: g, lambda: negative(g))


@gradient("Mul")
def _mul_grad(op: Any, grads: Sequence[Any]) -> list[Any]:
    (g,) = grads
    x, y = op.inputs
    return _binary_grads(op, lambda: g * y, lambda: g * x)


@gradient("Div")
def _div_grad(op: Any, grads: Sequence[Any]) -> list[Any]:
    (g,) = grads
    x, y = op.inputs
    return _binary_grads(op, lambda: g / y, lambda: negative(g) * x / (y * y))


@gradient("Pow")
def _pow_grad(op: Any, grads: Sequence[Any]) -> list[Any]:

    (g,) = grads
    x, y = op.inputs
    (z,) = op.outputs

    def dy() -> Any:
        positive = greater(x, 0)
        return g * z * where(positive, log(where(positive, x, 1)), 0)

    return _binary_grads(op, lambda: g * y * pow(x, y - 1), dy)


def _select_grads(op: Any, g: Any, take_x: Any) -> list[Any]:

    return _binary_grads(op, lambda: where(take_x, g, 0), lambda: where(take_x, 0, g))


@gradient("Maximum")
def _maximum_grad(op: Any, grads: Sequence[Any]) -> list[Any]:
    x, y = op.inputs
    return _select_grads(op, grads[0], greater_equal(x, y))


@gradient("Minimum")
def _minimum_grad(op: Any, grads: Sequence[Any]) -> list[Any]:
    x, y = op.inputs
    return _select_grads(op, grads[0], less_equal(x, y))


def _unary_gradient(name: str, fn: Callable[[Any, Any, Any], Any]) -> None:
    """Declares `fn(g, x, z)` as the gradient of the unary op `name`."""

    def grad(op: Any, grads: Sequence[Any]) -> list[Any]:
        return [fn(grads[0], op.inputs[0], op.outputs[0])]

    gradient(name)(grad)


def _abs_grad(g: Any, x: Any, z: Any) -> Any:

    return where(greater(x, 0), g, where(less(x, 0), negative(g), 0))


def _relu_grad(g: Any, x: Any, z: Any) -> Any:

    return where(greater(x, 0), g, 0)


def _step_grad(op: Any, grads: Sequence[Any]) -> list[Any]:
    return [None]  # piecewise constant: no gradient flows (as in TF)


for _name in ("Round", "Floor", "Ceil"):
    gradient(_name)(_step_grad)
_unary_gradient("Neg", lambda g, x, z: negative(g))
_unary_gradient("Abs", _abs_grad)
_unary_gradient("Square", lambda g, x, z: g * 2 * x)
_unary_gradient("Relu", _relu_grad)
_unary_gradient("Exp", lambda g, x, z: g * z)
_unary_gradient("Log", lambda g, x, z: g / x)
_unary_gradient("Sqrt", lambda g, x, z: g * 0.5 / z)
_unary_gradient("Tanh", lambda g, x, z: g * (1 - z * z))
_unary_gradient("Sigmoid", lambda g, x, z: g * z * (1 - z))
_unary_gradient("Sin", lambda g, x, z: g * cos(x))
_unary_gradient("Cos", lambda g, x, z: negative(g) * sin(x))


def _transposed(t: Any) -> Any:

    rank = t.ndim
    if rank is None:
        raise ValueError("the gradient of MatMul needs operands of known rank")
    return transpose(t, [*range(rank - 2), rank - 1, rank - 2])


@gradient("MatMul")
def _matmul_grad(op: Any, grads: Sequence[Any]) -> list[Any]:
    (g,) = grads
    a, b = op.inputs
    return _binary_grads(
        op, lambda: matmul(g, _transposed(b)), lambda: matmul(_transposed(a), g)
    )
