"""Ops with effects: variables, `print`, `Assert`.

    >>> import runtime as rt
    >>> v = rt.Variable(1.0)
    >>> _ = v.assign_add(2.0)
    >>> v.numpy()
    array(3., dtype=float32)
    >>> rt.print("v is", v)
    v is 3

In a graph these ops are stateful: they run on every call, even when nothing
uses their outputs, in the order the program created them; a variable read
runs after the writes to that variable created before it.

Updates are atomic: `assign_add` from many threads (eagerly or in graphs
running at once) loses none, as each read-modify-write holds the
variable's lock.
"""

from __future__ import annotations

import builtins
import contextlib
import copy
import sys
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from runtime import dtypes, formatted
from runtime.context import STATE, eager_scope
from runtime.errors import InvalidArgumentError, OutOfRangeError, raised_as
from runtime.op_registry import (
    OpDef,
    apply,
    convert_to_tensor,
    gradient,
    lookup_variable,
    register,
    register_variable,
)
from runtime.ops import rules
from runtime.ops.printing import format_template
from runtime.shapes import Shape, as_shape, broadcast, format_shape, is_compatible
from runtime.source_locations import user_location
from runtime.tensor import (
    EagerTensor,
    SymbolicTensor,
    Tensor,
    TensorLike,
    register_tensor_conversion,
    stands_for_tensor,
)

__all__ = ["Assert", "Variable", "print_"]


# -- variables ---------------------------------------------------------------------


def _value_refs(holder: Any) -> int:
    """References to `holder._value`, as counted from inside this function."""
    return sys.getrefcount(holder._value)


class _Probe:
    def __init__(self) -> None:
        self._value = np.empty(1)


# What `_value_refs` counts for an array only its holder's attribute refers to.
_ONLY_HOLDER_REFS = _value_refs(_Probe())


def _updates_in_place(var: Variable, delta: Any) -> bool:
    """Whether `assign_add`/`assign_sub` may write into the variable's array.

    Only when nothing but the variable refers to its array: no tensor read
    earlier, no view of it (a view refers to its base), no graph's local
    still holding a read (the executor deletes dead locals before a variable
    update). Then no one can see the old value change. Called with the
    variable's lock held; reads take the lock too, so none sees half an update.
    """
    if _value_refs(var) > _ONLY_HOLDER_REFS:
        return False
    old = var._value
    return (
        isinstance(delta, np.ndarray | np.generic)
        and delta.dtype == old.dtype
        and np.shape(delta) == old.shape
        and old.flags.owndata
        and old.flags.writeable
    )


def _var_spec(attrs: dict[str, Any]) -> rules.Spec:
    return (attrs["dtype"], attrs["shape"])


def _read_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
    return [_var_spec(attrs)]


def _assign_check(
    value: Any, var_id: int, dtype: dtypes.DType, shape: Shape, mode: str = "set"
) -> None:
    """Raises TypeError/ValueError unless `value` (tensor or array) fits."""
    value_dtype = (
        dtypes.from_numpy(value.dtype)
        if isinstance(value.dtype, np.dtype)
        else value.dtype
    )
    name = _var_name(var_id)
    if value_dtype is not dtype:
        raise TypeError(
            f"cannot assign a {value_dtype} value to the {dtype} variable {name!r}; "
            f"use rt.cast(value, rt.{dtype})"
        )
    value_shape = None if value.shape is None else tuple(value.shape)
    if mode != "set" and value_shape is not None and shape is not None:
        # assign_add/assign_sub broadcast the delta onto the variable.
        with contextlib.suppress(InvalidArgumentError):
            value_shape = broadcast(shape, value_shape, "AssignAdd")
    if not is_compatible(shape, value_shape):
        raise ValueError(
            f"cannot assign a value of shape {format_shape(value.shape)} to the "
            f"variable {name!r} of shape {format_shape(shape)}"
        )


def _var_name(var_id: int) -> str:
    try:
        return lookup_variable(var_id).name
    except KeyError:
        return f"variable {var_id}"


def _assign_rule(mode: str) -> Any:
    def rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
        _assign_check(inputs[0], **attrs, mode=mode)
        return [_var_spec(attrs)]

    return rule


def _assign_eager_check(mode: str) -> Any:
    def check(value: Any, **attrs: Any) -> None:
        _assign_check(value, **attrs, mode=mode)

    return check


def _read_bind(attrs: dict[str, Any]) -> Any:
    var = lookup_variable(attrs["var_id"])
    lock = var._lock

    def kernel() -> Any:
        with lock:  # never half of an in-place update
            return var._value

    return kernel


def _assign_bind(mode: str) -> Any:
    def bind(attrs: dict[str, Any]) -> Any:
        var = lookup_variable(attrs["var_id"])

        def kernel(value: Any) -> Any:
            return var._store(value, mode)

        return kernel

    return bind


def _assign_kernel(mode: str) -> Any:
    def kernel(value: Any, var_id: int, dtype: dtypes.DType, shape: Shape) -> Any:
        return lookup_variable(var_id)._store(value, mode)

    return kernel


_READ = register(
    OpDef(
        "ReadVariableOp",
        _read_rule,
        lambda var_id, dtype, shape: lookup_variable(var_id)._current(),
        var_access="read",
        bind=_read_bind,
        default_name="read",
    )
)


def _register_assign(name: str, mode: str, default_name: str) -> OpDef:
    return register(
        OpDef(
            name,
            _assign_rule(mode),
            _assign_kernel(mode),
            stateful=True,
            var_access="write",
            bind=_assign_bind(mode),
            eager_check=_assign_eager_check(mode),
            default_name=default_name,
        )
    )


_ASSIGN = _register_assign("AssignVariableOp", "set", "assign")
_ASSIGN_ADD = _register_assign("AssignAddVariableOp", "add", "assign_add")
_ASSIGN_SUB = _register_assign("AssignSubVariableOp", "sub", "assign_sub")


class Variable:
    """A mutable tensor, shared by every graph that uses it.

    Usable as an operand everywhere (it stands for its current value). Graph
    ops refer to it by `id`, a stable per-variable number.

    Args:
        initial_value: A value, tensor (not symbolic) or a callable giving one.
        dtype: Its dtype (default: that of the initial value).
        name: A label for messages and reprs.
        shape: Its static shape; None dims let assignments change that size.
    """

    __array_priority__ = 100
    __hash__ = object.__hash__

    def __init__(
        self,
        initial_value: Any,
        dtype: dtypes.DType | str | None = None,
        name: str | None = None,
        trainable: bool = True,
        shape: Any = None,
    ) -> None:
        dtype = None if dtype is None else dtypes.as_dtype(dtype)
        location = user_location()
        self.created_at = None if location is None else str(location)
        lifted = None
        current = STATE.graph
        with eager_scope():
            if callable(initial_value):
                initial_value = initial_value()
            if isinstance(initial_value, SymbolicTensor):
                lifted = _lifted_initial_value(initial_value, current, self.created_at)
                tensor = EagerTensor(_placeholder_value(lifted))
            else:
                tensor = convert_to_tensor(initial_value, dtype_hint=dtype)
            if dtype is not None and tensor.dtype is not dtype:
                raise TypeError(
                    f"the initial value has dtype {tensor.dtype}, not {dtype}"
                )
        value = np.array(tensor.numpy())
        self._value = value
        self._lock = threading.Lock()  # makes each update one atomic step
        self._dtype = tensor.dtype
        if shape is None:
            shape = value.shape if lifted is None else lifted.shape
        self._shape = as_shape(shape)
        self.name = name or "Variable"
        self.trainable = trainable
        self.id = register_variable(self)
        if lifted is not None:
            lifted.graph.initializers.append((self, lifted))
        graph = STATE.graph
        while graph is not None:
            graph.created_variables.append(self)
            graph = graph.outer_graph

    @property
    def dtype(self) -> dtypes.DType:
        """The element type."""
        return self._dtype

    @property
    def shape(self) -> Shape:
        """The static shape."""
        return self._shape

    @property
    def ndim(self) -> int | None:
        """The rank."""
        return None if self._shape is None else len(self._shape)

    def numpy(self) -> np.ndarray:
        """The current value (eagerly)."""
        return self._current()

    def _current(self) -> np.ndarray:
        """The value array, never half of an in-place update."""
        with self._lock:
            return self._value

    def read_value(self) -> Tensor:
        """The current value: an eager tensor, or a read op while tracing."""
        if STATE.graph is None and not STATE.tapes:
            return EagerTensor(self._current())
        return apply(_READ, (), self._attrs())

    value = read_value

    def _attrs(self) -> dict[str, Any]:
        return {"var_id": self.id, "dtype": self._dtype, "shape": self._shape}

    def _assign(self, op: OpDef, value: Any, name: str | None) -> Tensor:
        value = convert_to_tensor(value, dtype_hint=self._dtype)
        return apply(op, (value,), self._attrs(), name)

    def assign(
        self, value: TensorLike, read_value: bool = True, name: str | None = None
    ) -> Tensor:
        """Sets the value; returns the new value."""
        return self._assign(_ASSIGN, value, name)

    def assign_add(
        self, delta: TensorLike, read_value: bool = True, name: str | None = None
    ) -> Tensor:
        """Adds `delta`; returns the new value."""
        return self._assign(_ASSIGN_ADD, delta, name)

    def assign_sub(
        self, delta: TensorLike, read_value: bool = True, name: str | None = None
    ) -> Tensor:
        """Subtracts `delta`; returns the new value."""
        return self._assign(_ASSIGN_SUB, delta, name)

    def _store(self, value: Any, mode: str) -> Any:
        """Kernel side of the assign ops (values already checked); atomic."""
        with self._lock:
            if mode != "set":
                ufunc = np.add if mode == "add" else np.subtract
                if _updates_in_place(self, value):
                    return ufunc(self._value, value, out=self._value)
                value = ufunc(self._value, value)
            if np.shape(value) != np.shape(self._value) and not is_compatible(
                self._shape, np.shape(value)
            ):
                raise InvalidArgumentError(
                    f"cannot assign a value of shape {np.shape(value)} to the "
                    f"variable {self.name!r} of shape {format_shape(self._shape)}"
                )
            # A set copies (the caller may change its array); a sum is new.
            value = np.array(
                value, dtype=self._dtype.np_dtype, copy=True if mode == "set" else None
            )
            self._value = value
            return value

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        return np.asarray(self._current(), dtype=dtype)

    def __bool__(self) -> bool:
        return bool(self.read_value())

    def __index__(self) -> int:
        return self.read_value().__index__()

    def __int__(self) -> int:
        return int(self.read_value())

    def __float__(self) -> float:
        return float(self.read_value())

    def __len__(self) -> int:
        return len(self.read_value())

    def __iter__(self) -> Any:
        return iter(self.read_value())

    def __deepcopy__(self, memo: dict[int, Any]) -> Variable:
        # Like TensorFlow: a deep copy is a new variable with a copy of the value.
        return Variable(
            copy.deepcopy(self._value, memo), name=self.name, shape=self._shape
        )

    def __repr__(self) -> str:
        return (
            f"<rt.Variable '{self.name}:0' shape={format_shape(self._shape)} "
            f"dtype={self._dtype}, numpy={self._value!r}>"
        )


def _lifted_initial_value(
    value: SymbolicTensor, current: Any, where: str | None
) -> SymbolicTensor:
    """`value` (a tensor of a Function's first trace, `current` the graph
    being built) as an initial value the tracer computes from the first
    call's arguments, as TensorFlow lifts it; else ValueError."""
    graph = value.graph
    if current is graph and graph.lifts_initializers:
        return value
    inside = current is not None and current.outer_graph is not None
    problem = (
        "is created inside a graph `if` or loop"
        if inside
        else "is a tensor of a graph that is not a Function's"
    )
    raise ValueError(
        f"a Variable whose initial value{f' (at {where})' if where else ''} "
        f"depends on graph tensors {problem}; create it at the top of the "
        "function (on its first call), or outside the function with a concrete "
        "value"
    )


def _placeholder_value(value: SymbolicTensor) -> np.ndarray:
    """Zeros of `value`'s dtype and shape (unknown sizes 0) until computed."""
    shape = () if value.shape is None else tuple(d or 0 for d in value.shape)
    return np.zeros(shape, value.dtype.np_dtype)


def _convert_variable(var: Variable, dtype: dtypes.DType | None) -> Tensor:
    tensor = var.read_value()
    if dtype is not None and var.dtype is not dtype:
        raise TypeError(
            f"expected a {dtype} tensor but got the {var.dtype} variable {var.name!r}"
        )
    return tensor


register_tensor_conversion(Variable, _convert_variable)


# -- print and Assert ---------------------------------------------------------------


def _template(value: Any, parts: list[Any]) -> tuple[Any, ...]:
    if isinstance(value, formatted.Shown):  # a message showing tensors' values
        items = [("text", value.texts[0])]
        for shown, text in zip(value.values, value.texts[1:]):
            parts.append(convert_to_tensor(shown))
            items += [("value", len(parts) - 1), ("text", text)]
        return ("join", tuple(items))
    if isinstance(value, np.ndarray) or stands_for_tensor(value):
        parts.append(convert_to_tensor(value))
        return ("tensor", len(parts) - 1)
    if isinstance(value, (list, tuple)):
        opening, closing = ("[", "]") if isinstance(value, list) else ("(", ")")
        return ("seq", opening, closing, tuple(_template(v, parts) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((repr(k), _template(v, parts)) for k, v in value.items()))
    return ("text", str(value))


def _print_kernel(
    *values: Any, template: Any, sep: str, end: str, summarize: int
) -> None:
    text = sep.join(format_template(t, values, summarize) for t in template)
    sys.stdout.write(text + end)


_PRINT = register(
    OpDef(
        "PrintV2",
        rules.no_outputs,
        _print_kernel,
        stateful=True,
        num_outputs=0,
        default_name="print",
    )
)


def print_(*values: Any, sep: str = " ", end: str = "\n", summarize: int = 3) -> None:
    """Prints `values` to `sys.stdout` when it runs (every call, in a graph).

    Tensors print like `tf.print` does (`[1 2.5]`, strings as they are);
    other values print as `str()` shows them. Exported as `rt.print`.
    """
    parts: list[Any] = []
    template = tuple(_template(v, parts) for v in values)
    attrs = {"template": template, "sep": sep, "end": end, "summarize": summarize}
    apply(_PRINT, parts, attrs)


def _assert_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[rules.Spec]:
    if inputs[0].dtype is not dtypes.bool_:
        raise TypeError(f"Assert: the condition must be bool, got {inputs[0].dtype}")
    return []


def _assert_kernel(condition: Any, *data: Any, template: Any, summarize: int) -> None:
    if not np.all(condition):
        text = " ".join(format_template(t, data, summarize) for t in template)
        raise InvalidArgumentError(
            f"assertion failed: {text}" if text else "assertion failed"
        )


_ASSERT = register(
    OpDef("Assert", _assert_rule, _assert_kernel, stateful=True, num_outputs=0)
)


def Assert(
    condition: TensorLike,
    data: Sequence[Any] = (),
    summarize: int = 3,
    name: str | None = None,
) -> None:
    """Raises InvalidArgumentError with `data` in its message unless every
    element of `condition` is true (checked on every call, in a graph)."""
    condition = convert_to_tensor(condition, dtype_hint=dtypes.bool_)
    parts: list[Any] = []
    template = tuple(_template(v, parts) for v in data)
    # Template refers to `data` positions, which follow the condition.
    apply(
        _ASSERT,
        [condition, *parts],
        {"template": template, "summarize": summarize},
        name,
    )


def _ensure_defined_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[Any]:
    value = inputs[1]
    return [(value.dtype, value.shape)]


def _ensure_defined_kernel(
    defined: Any,
    value: Any,
    *shown: Any,
    message: str,
    raises: str = "",
    template: Any = (),
) -> Any:
    if not defined:
        if template:  # the message with the values of this run
            message = "".join(format_template(t, shown, 3) for t in template)
        if raises == "OutOfRangeError":  # `next` past a dataset's end
            raise OutOfRangeError(message)
        error = getattr(builtins, raises, None) if raises else None
        if isinstance(error, type) and issubclass(error, Exception):
            raise raised_as(error)(message)
        raise InvalidArgumentError(message)
    return value


# Stateful: it runs wherever its read runs, also when the value read is then
# unused (Python raises at the read), and only there (in a branch: when taken).
_ENSURE_DEFINED = register(
    OpDef("EnsureDefined", _ensure_defined_rule, _ensure_defined_kernel, stateful=True)
)


def ensure_defined(
    defined: TensorLike,
    value: TensorLike,
    message: str,
    name: str | None = None,
    raises: str = "",
    shown: formatted.Shown | None = None,
) -> Tensor:
    """`value`, or InvalidArgumentError(`message`) when `defined` is false.

    `shown` (the message split at the graph tensors it shows) makes the
    error show their values when it runs instead.

    Stateful, so it runs wherever the read it stands for runs, even when the
    value read is then unused: a graph raises exactly when Python would, on
    reading a variable that no iteration of a loop assigned. `raises` names
    a builtin exception (`"KeyError"`) the error is also an instance of
    (`errors.raised_as`), or is `"OutOfRangeError"` (`next` past the end of
    a dataset) for that error instead.
    """
    defined = convert_to_tensor(defined, dtype_hint=dtypes.bool_)
    attrs: dict[str, Any] = {"message": message, "raises": raises}
    parts: list[Any] = []
    if shown is not None and shown.values:
        attrs["template"] = (_template(shown, parts),)
    return apply(_ENSURE_DEFINED, [defined, value, *parts], attrs, name)


# -- gradients ---------------------------------------------------------------------


@gradient("EnsureDefined")
def _ensure_defined_grad(op: Any, grads: Sequence[Any]) -> list[Any]:
    return [None, grads[0]] + [None] * (len(op.inputs) - 2)


def _no_gradient_through_assign(op: Any, grads: Sequence[Any]) -> list[Any]:
    # An assignment's result is the variable's new value; the gradient of a
    # later read goes to the variable, not back through the assigned value.
    return [None]


for _name in ("AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp"):
    gradient(_name)(_no_gradient_through_assign)
