"""Python inside graphs: `py_function` and `executing_eagerly`.

    >>> import runtime as rt
    >>> rt.executing_eagerly()
    True
    >>> rt.py_function(lambda x: x * 2, [rt.constant(3)], rt.int32)
    <rt.Tensor: shape=(), dtype=int32, numpy=6>

`py_function` is the guides' "exit hatch": in a graph it is one stateful
`EagerPyFunc` node that calls the Python function on eager tensors every
time the graph runs (not once while tracing), in program order with the
other effects. Its outputs have the dtypes `Tout` names and an unknown
shape, as in TensorFlow. Under JAX (an input is a JAX value) it is a
`jax.experimental.io_callback`, which needs each output's shape: give
`rt.TensorSpec(shape, dtype)` entries in `Tout` there.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from runtime import dtypes
from runtime.context import STATE, eager_scope
from runtime.errors import InvalidArgumentError
from runtime.op_registry import OpDef, apply, register
from runtime.tensor import EagerTensor, as_numpy
from runtime.tensor_spec import TensorSpec

__all__ = ["executing_eagerly", "py_function"]


def executing_eagerly() -> bool:
    """False while a graph is being traced (inside a `Function`), else True."""
    return STATE.graph is None


def _outputs_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[Any]:
    return [(spec.dtype, spec.shape) for spec in attrs["Tout"]]


def _kernel(*values: Any, func: Callable[..., Any], Tout: tuple[Any, ...]) -> Any:
    """Calls `func` on eager tensors; its results as arrays of the `Tout` dtypes."""
    with eager_scope():
        result = func(*[EagerTensor(v) for v in values])
    return _results(func, result, Tout)


def _results(func: Callable[..., Any], result: Any, specs: Sequence[Any]) -> Any:
    name = getattr(func, "__name__", "func")
    if not specs:
        return ()
    items = list(result) if isinstance(result, (list, tuple)) else [result]
    if len(items) != len(specs):
        raise InvalidArgumentError(
            f"py_function: {name}() returned {len(items)} values where Tout "
            f"names {len(specs)}"
        )
    out = []
    for item, spec in zip(items, specs):
        value = as_numpy(item.numpy() if hasattr(item, "numpy") else item)
        if dtypes.from_numpy(value.dtype) is not spec.dtype:
            try:
                value = as_numpy(item, spec.dtype)
            except (TypeError, ValueError):
                raise InvalidArgumentError(
                    f"py_function: {name}() returned a "
                    f"{dtypes.from_numpy(value.dtype)} value where Tout says "
                    f"{spec.dtype}"
                ) from None
        out.append(np.asarray(value, spec.dtype.np_dtype))
    return tuple(out)


_PY_FUNC = register(
    OpDef(
        "EagerPyFunc",
        _outputs_rule,
        _kernel,
        stateful=True,
        num_outputs=-1,
        default_name="py_function",
    )
)


def _specs(Tout: Any) -> tuple[TensorSpec, ...]:
    if isinstance(Tout, (list, tuple)):
        return tuple(_spec(t) for t in Tout)
    return (_spec(Tout),)


def _spec(t: Any) -> TensorSpec:
    if isinstance(t, TensorSpec):
        return t
    return TensorSpec(None, dtypes.as_dtype(t))


def py_function(
    func: Callable[..., Any], inp: Sequence[Any], Tout: Any, name: str | None = None
) -> Any:
    """Runs `func(*inp)` as Python on eager tensors, every time it runs.

    Eagerly that is now; in a graph, each time the graph runs (a stateful
    node: never pruned, never folded). `Tout` is a dtype (one tensor comes
    back), a list of them (a list comes back; `[]` for none), or
    `rt.TensorSpec`s, which also give the outputs' static shapes.

    Raises:
        InvalidArgumentError: When the graph runs, if `func` returns values
            that do not match `Tout`.
    """
    specs = _specs(Tout)
    single = not isinstance(Tout, (list, tuple))
    inputs = list(inp)
    if any(type(x).__module__.startswith("jax") for x in inputs):
        return _jax_callback(func, inputs, specs, single)
    out = apply(_PY_FUNC, inputs, {"func": func, "Tout": specs}, name)
    out = () if out is None else out
    return out[0] if single else list(out)


def _jax_callback(
    func: Callable[..., Any], inputs: list[Any], specs: Sequence[Any], single: bool
) -> Any:
    """`py_function` on JAX values: an ordered `io_callback`."""
    jax = sys.modules["jax"]  # a JAX value exists, so JAX is loaded

    for spec in specs:
        if spec.shape is None:
            raise TypeError(
                "rt.py_function on JAX values needs each output's shape: pass "
                "Tout=rt.TensorSpec(shape, dtype) (JAX compiles for fixed shapes)"
            )
    shapes = [jax.ShapeDtypeStruct(s.shape, s.dtype.np_dtype) for s in specs]

    def host(*values: Any) -> Any:
        return _kernel(*(np.asarray(v) for v in values), func=func, Tout=specs)

    out = jax.experimental.io_callback(host, tuple(shapes), *inputs, ordered=True)
    out = list(out)
    return out[0] if single else out
