"""Running ops eagerly, with as little Python around each kernel as possible.

`runner(op)` builds, once per op type, the function `apply` calls when no
graph is being built. Its fast path handles the common case (inputs that are
already eager tensors of one allowed dtype, or a tensor and a Python scalar
for binary ops) with a few type checks, the kernel call and one `EagerTensor`;
everything else (conversions, dtype errors, variables, lists) goes through
the general path, which `runtime.op_registry` shares with graph building.
Kernel exceptions become `InvalidArgumentError` naming the op and the line
of user code that called it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from runtime.errors import InvalidArgumentError, OpError
from runtime.source_locations import user_location
from runtime.tensor import EagerTensor

if TYPE_CHECKING:
    from runtime.op_registry import OpDef

__all__ = ["KERNEL_ERRORS", "quiet_numpy", "runner"]

# Exceptions from NumPy kernels that mean "bad value", not "bug".
KERNEL_ERRORS = (ValueError, IndexError, ArithmeticError)

try:  # NumPy >= 2: set the floating-point error state directly.
    from numpy._core.umath import _extobj_contextvar, _make_extobj

    _QUIET = _make_extobj(all="ignore")

    def quiet_numpy() -> Any:
        """Silences NumPy floating-point warnings until `restore_numpy(token)`.

        (`np.errstate` does the same but costs microseconds per use.)
        """
        return _extobj_contextvar.set(_QUIET)

    def restore_numpy(token: Any) -> None:
        """Undoes `quiet_numpy`."""
        _extobj_contextvar.reset(token)

except ImportError:  # pragma: no cover - older NumPy

    def quiet_numpy() -> Any:
        """Silences NumPy floating-point warnings until `restore_numpy(token)`."""
        state = np.errstate(all="ignore")
        state.__enter__()
        return state

    def restore_numpy(token: Any) -> None:
        """Undoes `quiet_numpy`."""
        token.__exit__(None, None, None)


def call_kernel(op: OpDef, values: Sequence[Any], attrs: dict[str, Any]) -> Any:
    """Runs `op`'s kernel on NumPy values; wraps the output(s) as tensors."""
    if op.eager_check is not None:
        op.eager_check(*values, **attrs)
    try:
        if op.may_warn:
            token = quiet_numpy()
            try:
                out = op.kernel(*values, **attrs)  # type: ignore[misc]
            finally:
                restore_numpy(token)
        else:
            out = op.kernel(*values, **attrs)  # type: ignore[misc]
    except (OpError, *KERNEL_ERRORS) as e:
        raise_kernel_error(op, values, attrs, e)
    n = op.num_outputs
    if n == 1:
        return EagerTensor(out)
    if n == 0:
        return None
    return tuple([EagerTensor(o) for o in out])


def raise_kernel_error(
    op: OpDef, values: Sequence[Any], attrs: dict[str, Any], error: Exception
) -> None:
    """Re-raises a kernel's exception as an error that names the op."""
    if isinstance(error, OpError):
        raise error.with_context(op.name, location=_location()) from None
    raise _failure(op, values, attrs, error) from error


def _location() -> str | None:
    location = user_location(1)
    return None if location is None else str(location)


def _failure(
    op: OpDef, values: Sequence[Any], attrs: dict[str, Any], error: Exception
) -> InvalidArgumentError:
    """A readable error: the op's own rule message when it has one."""
    message = str(error)
    try:
        op.rule([EagerTensor(v) for v in values], attrs)
    except InvalidArgumentError as e:
        message = e.message
    except Exception:
        pass
    return InvalidArgumentError(message, op.name, None, _location())


def _scalar_fits(value: Any, kind: str) -> bool:
    """True for a Python scalar that may simply take a dtype of `kind`."""
    t = type(value)
    if t is float:
        return kind == "f"
    if t is int:
        return kind == "i" or kind == "f"
    if t is bool:
        return kind == "b"
    return False


def runner(op: OpDef, general: Callable[[OpDef, Sequence[Any], dict], Any]) -> Any:
    """The eager entry point of `op`: fast path first, else `general`."""
    kernel = op.kernel
    allowed = op.np_allowed
    check = op.eager_check
    quiet = op.may_warn
    weak_scalars = op.py_operator is not None
    simple = kernel is not None and op.num_outputs == 1

    if simple and op.binary:

        def run_binary(inputs: Sequence[Any], attrs: dict[str, Any]) -> Any:
            a, b = inputs
            if type(a) is EagerTensor:
                va = a.numpy_value
                np_dtype = va.dtype
                if type(b) is EagerTensor:
                    vb = b.numpy_value
                    if vb.dtype != np_dtype:
                        return general(op, inputs, attrs)
                elif weak_scalars and _scalar_fits(b, np_dtype.kind):
                    vb = b  # NumPy keeps the tensor's dtype (NEP 50).
                else:
                    return general(op, inputs, attrs)
            elif type(b) is EagerTensor:
                vb = b.numpy_value
                np_dtype = vb.dtype
                if not (weak_scalars and _scalar_fits(a, np_dtype.kind)):
                    return general(op, inputs, attrs)
                va = a
            else:
                return general(op, inputs, attrs)
            if allowed is not None and np_dtype not in allowed:
                return general(op, inputs, attrs)
            if quiet or attrs:
                return call_kernel(op, (va, vb), attrs)
            if check is not None:
                check(va, vb)
            try:
                return EagerTensor(kernel(va, vb))  # type: ignore[misc]
            except (OpError, *KERNEL_ERRORS) as e:
                raise_kernel_error(op, (va, vb), attrs, e)

        return run_binary

    if simple and op.unify_positions == (0,):

        def run_unary(inputs: Sequence[Any], attrs: dict[str, Any]) -> Any:
            if len(inputs) == 1:
                x = inputs[0]
                if type(x) is EagerTensor:
                    value = x.numpy_value
                    if allowed is None or value.dtype in allowed:
                        if check is not None or quiet:
                            return call_kernel(op, (value,), attrs)
                        try:
                            return EagerTensor(kernel(value, **attrs))  # type: ignore[misc]
                        except (OpError, *KERNEL_ERRORS) as e:
                            raise_kernel_error(op, (value,), attrs, e)
            return general(op, inputs, attrs)

        return run_unary

    def run(inputs: Sequence[Any], attrs: dict[str, Any]) -> Any:
        return general(op, inputs, attrs)

    return run
