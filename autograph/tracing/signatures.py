"""Trace keys, canonical arguments, and checking values against signatures.

A `Function` looks up its traces by a *key* computed from the call's
arguments, following API.md's rules:

* a tensor (an eager tensor, a NumPy array or scalar, a `TensorSpec`) is
  keyed by dtype and shape;
* a Python scalar (int, float, str, bool, None, ...) by its type and value,
  so `f(1)`, `f(1.0)` and `f(True)` are three traces; `-0.0` is keyed apart
  from `0.0` (they are equal, but `copysign` and `1 / x` tell them apart),
  and every NaN shares one key (NaN is unequal to itself: keyed by value, it
  would trace on every call);
* a tuple, list or dict by its type, length or keys, and its items' keys;
* anything else (a `Variable`, a model object, a function) by identity: the
  key holds its `id`, and the trace holds a weak reference that must still be
  alive for the trace to be reused.

    >>> import numpy as np
    >>> feeds, refs = [], []
    >>> key = encode((np.zeros(2, np.float32), 3, [True]), feeds, refs)
    >>> for part in key[1]:
    ...     print(part)
    (<tensor>, dtype('float32'), (2,))
    (<class 'int'>, 3)
    (<class 'list'>, ((<class 'bool'>, True),))
    >>> len(feeds)
    1

`encode` is the hot path of every call: one pass that yields the key and the
values to feed the graph (`feeds`, in depth-first order: dicts by sorted key,
as `runtime.nest` orders them). `canonicalize` binds a call to the Python
signature (defaults applied, `*args` and `**kwargs` flattened) once per new
key. `check_value` compares a value with a spec structure and names the
argument in its `TypeError` (wrong dtype or kind) or `ValueError` (shape).
"""

from __future__ import annotations

import dataclasses
import inspect
import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from runtime import dtypes, nest
from runtime.context import STATE
from runtime.data.dataset import Dataset, DatasetSpec
from runtime.nest import sorted_keys
from runtime.op_registry import convert_to_tensor
from runtime.ops.state import Variable
from runtime.shapes import format_shape, is_compatible
from runtime.tensor import EagerTensor, SymbolicTensor, as_numpy
from runtime.tensor_spec import TensorSpec

__all__ = [
    "IDENTITY",
    "NAN",
    "NEG_ZERO",
    "TENSOR",
    "Identity",
    "Param",
    "argument_error",
    "canonicalize",
    "check_value",
    "contains_tensor",
    "encode",
    "spec_structure",
]

FROM_NUMPY = dtypes.FROM_NUMPY


class _Tag:
    """A marker that starts a key component (never equal to user values)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name}>"


TENSOR = _Tag("tensor")
IDENTITY = _Tag("identity")
NAN = _Tag("nan")
NEG_ZERO = _Tag("-0.0")

# Keyed by type and value. Exact types only: an IntEnum member is an object.
_VALUE_TYPES = frozenset({int, float, str, bool, bytes, complex, type(None)})


def encode(value: Any, feeds: list[Any], refs: list[Any]) -> Any:
    """The trace key of `value`; appends its tensor values to `feeds`.

    Args:
        value: An argument (any nesting of tuples, lists and dicts).
        feeds: Receives the NumPy value of every tensor leaf, in order.
        refs: Receives every object keyed by identity.

    Returns:
        A hashable key.

    Raises:
        TypeError: For a NumPy array of a dtype the runtime lacks, or a
            symbolic tensor passed from outside any trace.
    """
    t = type(value)
    if t is EagerTensor:
        array = value.numpy_value
        feeds.append(array)
        return (TENSOR, array.dtype, array.shape)
    if t in _VALUE_TYPES:
        if t is float:
            if value != value:  # one trace for every NaN (NaN != NaN)
                return (float, NAN)
            if value == 0.0 and math.copysign(1.0, value) < 0:
                return (float, NEG_ZERO)  # -0.0 == 0.0, but copysign differs
        return (t, value)
    if t is tuple or t is list:
        return (t, tuple([encode(v, feeds, refs) for v in value]))
    if t is np.ndarray or isinstance(value, np.generic):
        if value.dtype not in FROM_NUMPY:
            value = as_numpy(value)
        feeds.append(value)
        return (TENSOR, value.dtype, value.shape)
    if t is dict or isinstance(value, Mapping):
        # Values in sorted key order (as nest.flatten feeds them), and the
        # dict's own order where it differs: code may read it (`next(iter(d))`).
        keys = sorted_keys(value)
        items = tuple([(k, encode(value[k], feeds, refs)) for k in keys])
        order = list(value)
        return (t, items) if order == keys else (t, items, tuple(order))
    if isinstance(value, (tuple, list)):  # namedtuples and other subclasses
        return (t, tuple([encode(v, feeds, refs) for v in value]))
    if t is TensorSpec:
        feeds.append(None)
        return (TENSOR, value.dtype.np_dtype, value.shape)
    if isinstance(value, Dataset):  # keyed by its element spec, fed as a value
        feeds.append(value)
        return DatasetSpec(value.element_spec)
    if t is SymbolicTensor:
        raise TypeError(
            f"the symbolic tensor {value.name!r} belongs to a graph that is no "
            "longer being built; graph tensors cannot leak out of a traced function"
        )
    refs.append(value)
    return (IDENTITY, id(value))


@dataclasses.dataclass(frozen=True)
class Identity:
    """A spec leaf for an argument keyed by identity (held weakly if possible).

    Attributes:
        ref: A weak reference, or a callable returning the object itself for
            objects that take no weak references.
        text: `repr` of the object when traced, for signatures.
    """

    ref: Callable[[], Any]
    text: str

    def __repr__(self) -> str:
        return self.text


@dataclasses.dataclass(frozen=True)
class Param:
    """One argument of a traced call, after binding to the Python signature.

    Attributes:
        name: The parameter's name (`args_0` for the first `*args` item, the
            key for a `**kwargs` item).
        kind: "positional" (passed by position; also the `*args` items) or
            "keyword" (keyword-only parameters and `**kwargs` items).
        spec: The argument's structure with leaves replaced: a `TensorSpec`
            for each tensor, the value for each Python scalar, an `Identity`
            for each object keyed by identity.
        default: Whether the value came from the parameter's default.
    """

    name: str
    kind: str
    spec: Any
    default: bool = False


def canonicalize(
    signature: inspect.Signature, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> list[tuple[str, str, Any, bool]]:
    """Binds a call to `signature`: (name, kind, value, is_default) per argument.

    Defaults are applied; `*args` items become `args_0`, `args_1`, ...; the
    `**kwargs` items follow in sorted key order.

    Raises:
        TypeError: When the call does not fit the signature (Python's message).
    """
    bound = signature.bind(*args, **kwargs)
    given = set(bound.arguments)
    bound.apply_defaults()
    out: list[tuple[str, str, Any, bool]] = []
    for name, param in signature.parameters.items():
        value = bound.arguments[name]
        kind = param.kind
        if kind is param.VAR_POSITIONAL:
            out.extend(
                (f"{name}_{i}", "positional", v, False) for i, v in enumerate(value)
            )
        elif kind is param.VAR_KEYWORD:
            out.extend((k, "keyword", value[k], False) for k in sorted(value))
        elif kind is param.KEYWORD_ONLY:
            out.append((name, "keyword", value, name not in given))
        else:
            out.append((name, "positional", value, name not in given))
    return out


def argument_error(
    function: str,
    signature: inspect.Signature,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    error: Exception,
) -> TypeError:
    """`error` (from `encode`) as a TypeError naming the argument it came from."""
    try:
        arguments = canonicalize(signature, args, kwargs)
    except TypeError:
        return TypeError(f"{function}(): {error}")
    for name, _, value, _ in arguments:
        try:
            encode(value, [], [])
        except TypeError as e:
            return TypeError(f"{function}(): argument {name!r}: {e}")
    return TypeError(f"{function}(): {error}")


def split_call(params: list[tuple[str, str, Any]]) -> tuple[list[Any], dict[str, Any]]:
    """(args, kwargs) to call the Python function with canonical arguments."""
    args = [value for _, kind, value in params if kind == "positional"]
    kwargs = {name: value for name, kind, value in params if kind == "keyword"}
    return args, kwargs


def _weak(value: Any) -> Callable[[], Any]:
    import weakref

    try:
        return weakref.ref(value)
    except TypeError:
        return lambda: value


def spec_structure(value: Any) -> Any:
    """`value` with each leaf replaced by its spec (see `Param.spec`)."""
    return nest.map_structure(_leaf_spec, value)


def _leaf_spec(value: Any) -> Any:
    t = type(value)
    if t is EagerTensor or t is np.ndarray or isinstance(value, np.generic):
        array = value.numpy_value if t is EagerTensor else as_numpy(value)
        return TensorSpec(array.shape, FROM_NUMPY[array.dtype])
    if t is TensorSpec:
        return TensorSpec(value.shape, value.dtype)
    if isinstance(value, Dataset):
        return DatasetSpec(value.element_spec)
    if t in _VALUE_TYPES:
        return value
    return Identity(_weak(value), repr(value))


def contains_tensor(spec: Any) -> bool:
    """Whether a spec structure has a `TensorSpec` (or `DatasetSpec`) leaf."""
    t = type(spec)
    if t is TensorSpec or t is DatasetSpec:
        return True
    return nest.is_nested(spec) and any(
        type(s) is TensorSpec or type(s) is DatasetSpec for s in nest.flatten(spec)
    )


def tensor_specs(spec: Any) -> list[TensorSpec]:
    """The `TensorSpec` leaves of a spec structure, in feed order."""
    return [s for s in nest.flatten(spec) if type(s) is TensorSpec]


# -- checking a value against a spec --------------------------------------------


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" or word.startswith("int") else "a"


def describe_value(value: Any) -> str:
    """A short description of a value for error messages."""
    t = type(value)
    if t is EagerTensor or t is np.ndarray or isinstance(value, np.generic):
        array = value.numpy_value if t is EagerTensor else np.asarray(value)
        try:
            dtype = dtypes.from_numpy(array.dtype).name
        except TypeError:
            dtype = str(array.dtype)
        what = "tensor" if t is EagerTensor else "NumPy array"
        return f"{_article(dtype)} {dtype} {what} of shape {format_shape(array.shape)}"
    text = repr(value)
    if len(text) > 40:
        text = text[:37] + "..."
    return f"{t.__name__} {text}"


def check_value(
    function: str, path: str, spec: Any, value: Any, feeds: list[Any], fix: str
) -> None:
    """Checks `value` against `spec`; appends its tensor values to `feeds`.

    Args:
        function: The function's name, for messages.
        path: The argument's name, with indices for nested items (`xs[1]`).
        spec: A spec structure (see `Param.spec`).
        value: What the caller passed.
        feeds: Receives the NumPy values of the tensor leaves, in order.
        fix: A sentence suggesting what to do, appended to errors.

    Raises:
        TypeError: A wrong dtype or kind of value, or a different Python value.
        ValueError: A tensor shape incompatible with the spec.
    """
    t = type(spec)
    if t is TensorSpec:
        feeds.append(_check_tensor(function, path, spec, value, fix))
        return
    if t is DatasetSpec:
        if not isinstance(value, Dataset) or DatasetSpec(value.element_spec) != spec:
            raise TypeError(
                f"{function}(): argument {path!r} was traced with a dataset of "
                f"element_spec {spec.element_spec}, got {describe_value(value)}; {fix}"
            )
        feeds.append(value)
        return
    if t is Identity:
        if value is not spec.ref():
            raise TypeError(
                f"{function}(): argument {path!r} was traced with the object "
                f"{spec.text}, got {describe_value(value)}; {fix}"
            )
        return
    if isinstance(spec, (tuple, list, Mapping)):
        _check_container(function, path, spec, value, feeds, fix)
        return
    if type(value) is not t or not _same_value(spec, value):
        raise TypeError(
            f"{function}(): argument {path!r} was traced with the Python value "
            f"{spec!r}, got {describe_value(value)}; {fix}"
        )


def as_signature_value(spec: Any, value: Any) -> Any:
    """`value` (one `check_value` accepted for `spec`) as a call inside
    another trace passes it: a Python value or array where `spec` has a
    TensorSpec becomes a tensor of its dtype, as the direct call's is."""
    if type(spec) is TensorSpec:
        if isinstance(value, (EagerTensor, SymbolicTensor, Variable)):
            return value
        return convert_to_tensor(as_numpy(value, spec.dtype))
    if isinstance(spec, Mapping):
        return type(value)({k: as_signature_value(spec[k], value[k]) for k in value})
    if isinstance(spec, (tuple, list)):
        items = [as_signature_value(s, v) for s, v in zip(spec, value)]
        if hasattr(value, "_fields"):  # a namedtuple
            return type(value)(*items)
        return type(value)(items)
    return value


def _same_value(a: Any, b: Any) -> bool:
    """Whether two Python values of one type share a trace key (`encode`)."""
    if a != a and b != b:  # nan
        return True
    if type(a) is float and a == 0.0 == b:
        return math.copysign(1.0, a) == math.copysign(1.0, b)
    return bool(a == b)


def _check_container(
    function: str, path: str, spec: Any, value: Any, feeds: list[Any], fix: str
) -> None:
    if type(value) is not type(spec):
        raise TypeError(
            f"{function}(): argument {path!r} must be a {type(spec).__name__} "
            f"like {spec!r}, got {describe_value(value)}; {fix}"
        )
    if isinstance(spec, Mapping):
        if set(spec) != set(value):
            raise TypeError(
                f"{function}(): argument {path!r} must have the keys "
                f"{sorted(map(repr, spec))}, got {sorted(map(repr, value))}; {fix}"
            )
        for k in sorted_keys(spec):
            check_value(function, f"{path}[{k!r}]", spec[k], value[k], feeds, fix)
        return
    if len(value) != len(spec):
        raise TypeError(
            f"{function}(): argument {path!r} must have {len(spec)} items, got "
            f"{len(value)}; {fix}"
        )
    for i, (s, v) in enumerate(zip(spec, value)):
        check_value(function, f"{path}[{i}]", s, v, feeds, fix)


def _check_tensor(
    function: str, path: str, spec: TensorSpec, value: Any, fix: str
) -> Any:
    """The NumPy value of `value` if it fits `spec` (converting Python values);
    a graph tensor (or Variable) while a graph is built (a call inside
    another Function's trace) is checked by its static dtype and shape and
    returned as it is."""
    t = type(value)
    if t is EagerTensor:
        array = value.numpy_value
    elif STATE.graph is not None and (t is SymbolicTensor or t is Variable):
        array = value  # (its static dtype and shape are checked below)
    elif t is np.ndarray or isinstance(value, np.generic):
        try:
            array = as_numpy(value)
        except TypeError as e:
            raise TypeError(f"{function}(): argument {path!r}: {e}") from None
    elif t in _VALUE_TYPES or t is list or t is tuple:
        try:
            array = as_numpy(value, spec.dtype)
        except (TypeError, ValueError):
            raise TypeError(
                f"{function}(): argument {path!r} must be {_article(spec.dtype.name)} "
                f"{spec.dtype} tensor, got {describe_value(value)}; {fix}"
            ) from None
    else:
        raise TypeError(
            f"{function}(): argument {path!r} must be {_article(spec.dtype.name)} "
            f"{spec.dtype} tensor, got {describe_value(value)}; {fix}"
        )
    dtype = array.dtype if t is SymbolicTensor or t is Variable else None
    dtype = dtype or FROM_NUMPY.get(array.dtype)
    if dtype is not spec.dtype:
        got = dtype.name if dtype is not None else str(array.dtype)
        raise TypeError(
            f"{function}(): argument {path!r} must be {_article(spec.dtype.name)} "
            f"{spec.dtype} tensor, got {_article(got)} {got} tensor; cast it with "
            f"rt.cast({path}, rt.{spec.dtype}), or {fix}"
        )
    if not is_compatible(spec.shape, array.shape):
        raise ValueError(
            f"{function}(): argument {path!r} must have a shape compatible with "
            f"{format_shape(spec.shape)}, got shape {format_shape(array.shape)}; "
            f"{fix}"
        )
    return array
