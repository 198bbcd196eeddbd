"""Random tensors: `rt.random.uniform`, `rt.random.normal`, `rt.random.set_seed`.

    >>> import runtime as rt
    >>> a = rt.random.uniform([3], seed=7)
    >>> b = rt.random.uniform([3], seed=7)
    >>> bool(rt.reduce_all(a == b))
    True

With `seed`, an op gives the same values every time it runs; without, it
draws from one global generator (reset by `set_seed`). Random ops are
stateful: in a graph they run on every call, in program order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from runtime import dtypes
from runtime.op_registry import OpDef, apply, convert_to_tensor, register
from runtime.ops import rules
from runtime.tensor import Tensor, TensorLike

__all__ = ["normal", "set_seed", "uniform"]

_GENERATOR = [np.random.default_rng()]


def set_seed(seed: int | None) -> None:
    """Restarts the global generator that unseeded random ops draw from."""
    _GENERATOR[0] = np.random.default_rng(seed)


def _generator(seed: int | None) -> np.random.Generator:
    return _GENERATOR[0] if seed is None else np.random.default_rng(seed)


def _random_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
    return [(attrs["dtype"], rules.static_shape_value(inputs[0]))]


def _uniform_kernel(
    shape: Any, minval: Any, maxval: Any, dtype: dtypes.DType, seed: int | None
) -> Any:
    rng = _generator(seed)
    shape = tuple(int(d) for d in shape)
    if dtype.is_integer:
        return rng.integers(minval, maxval, size=shape, dtype=dtype.np_dtype)
    unit = rng.random(shape, dtype=dtype.np_dtype)
    return (unit * (maxval - minval) + minval).astype(dtype.np_dtype)


def _normal_kernel(
    shape: Any, mean: Any, stddev: Any, dtype: dtypes.DType, seed: int | None
) -> Any:
    rng = _generator(seed)
    shape = tuple(int(d) for d in shape)
    unit = rng.standard_normal(shape, dtype=dtype.np_dtype)
    return (unit * stddev + mean).astype(dtype.np_dtype)


_UNIFORM = register(
    OpDef(
        "RandomUniform",
        _random_rule,
        _uniform_kernel,
        stateful=True,
        unify=(1, 2),
        allowed=dtypes.NUMERIC,
        default_name="random_uniform",
    )
)
_NORMAL = register(
    OpDef(
        "RandomNormal",
        _random_rule,
        _normal_kernel,
        stateful=True,
        unify=(1, 2),
        allowed=dtypes.FLOATING,
        default_name="random_normal",
    )
)


def _bound(value: Any, dtype: dtypes.DType) -> Any:

    return convert_to_tensor(value, dtype_hint=dtype)


def uniform(
    shape: Any,
    minval: TensorLike = 0,
    maxval: TensorLike | None = None,
    dtype: dtypes.DType | str = dtypes.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Values drawn uniformly from [minval, maxval) (maxval 1 for floats).

    Raises:
        ValueError: For an integer dtype without `maxval`.
    """
    dtype = dtypes.as_dtype(dtype)
    if maxval is None:
        if dtype.is_integer:
            raise ValueError(f"rt.random.uniform needs maxval for the dtype {dtype}")
        maxval = 1
    attrs = {"dtype": dtype, "seed": None if seed is None else int(seed)}
    inputs = (rules.shape_input(shape), _bound(minval, dtype), _bound(maxval, dtype))
    return apply(_UNIFORM, inputs, attrs, name)


def normal(
    shape: Any,
    mean: TensorLike = 0.0,
    stddev: TensorLike = 1.0,
    dtype: dtypes.DType | str = dtypes.float32,
    seed: int | None = None,
    name: str | None = None,
) -> Tensor:
    """Values drawn from a normal distribution."""
    dtype = dtypes.as_dtype(dtype)
    attrs = {"dtype": dtype, "seed": None if seed is None else int(seed)}
    inputs = (rules.shape_input(shape), _bound(mean, dtype), _bound(stddev, dtype))
    return apply(_NORMAL, inputs, attrs, name)
