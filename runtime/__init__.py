"""runtime: tensors, graphs, ops and control flow (imported as `rt`).

    >>> import runtime as rt
    >>> x = rt.constant([1.0, 2.0])
    >>> rt.reduce_sum(x * 2.0)
    <rt.Tensor: shape=(), dtype=float32, numpy=6.0>

Every op runs eagerly (returning an eager tensor at once) or, while a
`Graph` is the default, adds a node to it. This module only re-exports; see
API.md for the contract. `runtime` never imports `autograph`.
"""

from runtime import control_flow as _control_flow
from runtime import data, errors, nest, nn, optimizers, strings
from runtime.context import name_scope
from runtime.control_flow import cond, while_loop
from runtime.dtypes import DType, as_dtype, float32, float64, int32, int64, string
from runtime.dtypes import bool_ as bool
from runtime.gradients import GradientTape, stop_gradient
from runtime.graph import Graph, Operation
from runtime.op_registry import convert_to_tensor
from runtime.ops import random
from runtime.ops.array import (
    cast,
    concat,
    expand_dims,
    gather,
    identity,
    pad,
    reshape,
    shape,
    size,
    squeeze,
    stack,
    transpose,
    where,
)
from runtime.ops.creation import (
    constant,
    eye,
    fill,
    ones,
    ones_like,
    range,
    zeros,
    zeros_like,
)
from runtime.ops.indexing import newaxis
from runtime.ops.math import (
    abs,
    add,
    ceil,
    cos,
    divide,
    equal,
    exp,
    floor,
    floordiv,
    greater,
    greater_equal,
    less,
    less_equal,
    log,
    logical_and,
    logical_not,
    logical_or,
    matmul,
    maximum,
    minimum,
    mod,
    multiply,
    negative,
    not_equal,
    pow,
    relu,
    round,
    sigmoid,
    sin,
    sqrt,
    square,
    subtract,
    tanh,
)
from runtime.ops.python import executing_eagerly, py_function
from runtime.ops.reduction import (
    argmax,
    argmin,
    reduce_all,
    reduce_any,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
)
from runtime.ops.state import Assert, Variable
from runtime.ops.state import print_ as print
from runtime.ops.tensor_array import TensorArray
from runtime.shapes import TensorShape
from runtime.tensor import Tensor
from runtime.tensor_spec import TensorSpec

del _control_flow

__version__ = "0.1.0"

__all__ = [
    "Assert",
    "DType",
    "GradientTape",
    "Graph",
    "Operation",
    "Tensor",
    "TensorArray",
    "TensorShape",
    "TensorSpec",
    "Variable",
    "__version__",
    "abs",
    "add",
    "argmax",
    "argmin",
    "as_dtype",
    "bool",
    "cast",
    "ceil",
    "concat",
    "cond",
    "constant",
    "convert_to_tensor",
    "cos",
    "data",
    "divide",
    "equal",
    "errors",
    "executing_eagerly",
    "exp",
    "expand_dims",
    "eye",
    "fill",
    "float32",
    "float64",
    "floor",
    "floordiv",
    "gather",
    "greater",
    "greater_equal",
    "identity",
    "int32",
    "int64",
    "less",
    "less_equal",
    "log",
    "logical_and",
    "logical_not",
    "logical_or",
    "matmul",
    "maximum",
    "minimum",
    "mod",
    "multiply",
    "name_scope",
    "negative",
    "nest",
    "newaxis",
    "nn",
    "not_equal",
    "ones",
    "ones_like",
    "optimizers",
    "pad",
    "pow",
    "print",
    "py_function",
    "random",
    "range",
    "reduce_all",
    "reduce_any",
    "reduce_max",
    "reduce_mean",
    "reduce_min",
    "reduce_prod",
    "reduce_sum",
    "relu",
    "reshape",
    "round",
    "shape",
    "sigmoid",
    "sin",
    "size",
    "sqrt",
    "square",
    "squeeze",
    "stack",
    "stop_gradient",
    "string",
    "strings",
    "subtract",
    "tanh",
    "transpose",
    "where",
    "while_loop",
    "zeros",
    "zeros_like",
]
