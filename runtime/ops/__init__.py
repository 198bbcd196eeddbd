"""The ops: each module registers its op types and defines their functions.

Importing this package registers every op and installs the Python operators
on `Tensor` and `Variable` (`runtime.ops.overloads`).
"""

from runtime.ops import (
    array,
    creation,
    indexing,
    math,
    overloads,
    random,
    reduction,
    state,
    tensor_array,
)

__all__ = [
    "array",
    "creation",
    "indexing",
    "math",
    "overloads",
    "random",
    "reduction",
    "state",
    "tensor_array",
]
