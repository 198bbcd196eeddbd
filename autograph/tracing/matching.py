"""Matching calls to traces: input_signature binding and more general traces.

Helpers of `polymorphic.Function`:

- `signature_names`, `signature_defaults`: how an `input_signature` binds to
  the Python parameters (checked once, when the Function is made);
- `accepts`, `known_dims`: whether an existing trace, whose tensor specs may
  have `None` dimensions or unknown rank, can serve a call, and how specific
  it is (the most specific one wins, as in TensorFlow);
- `permutation`: how the feeds of a call, in the order its arguments were
  written, map to the inputs of a trace, in parameter order.

    >>> from runtime import dtypes
    >>> from runtime.tensor_spec import TensorSpec
    >>> is_subshape((3, 2), (None, 2)), is_subshape((3,), None)
    (True, True)
    >>> permutation(["b", "a"], ["a", "b"])
    [1, 0]
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from typing import Any

from autograph.tracing.signatures import (
    IDENTITY,
    TENSOR,
    Param,
    spec_structure,
    tensor_specs,
)
from runtime.tensor_spec import TensorSpec

__all__ = [
    "SLOW",
    "accepts",
    "bind_signature",
    "has_tensor_key",
    "is_relaxed",
    "is_subshape",
    "known_dims",
    "permutation",
    "signature_defaults",
    "signature_names",
    "spec_as_array",
]

SLOW = object()  # a permutation meaning: re-bind the call to find its feeds


def signature_names(
    name: str,
    signature: inspect.Signature,
    input_signature: tuple[Any, ...],
    bound_to: str | None = None,
) -> list[str]:
    """The parameter names the input_signature's entries bind to.

    `bound_to` names a method's first parameter, left out of `signature`
    (and of the entries, as in TensorFlow).
    """
    names: list[str] = []
    remaining = len(input_signature)
    for param in signature.parameters.values():
        if remaining == 0:
            break
        if param.kind in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD):
            names.append(param.name)
            remaining -= 1
        elif param.kind is param.VAR_POSITIONAL:
            names.extend(f"{param.name}_{i}" for i in range(remaining))
            remaining = 0
    if remaining:
        raise TypeError(
            f"{name}: the input_signature has {len(input_signature)} entries but "
            f"the function takes only {len(names)} positional arguments"
            + (f" (not counting {bound_to})" if bound_to else "")
        )
    for spec in input_signature:
        _check_signature_entry(name, spec)
    covered = len(names)
    for i, param in enumerate(signature.parameters.values()):
        if i < covered or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if param.default is param.empty:
            raise TypeError(
                f"{name}: the parameter {param.name!r} is not covered by the "
                "input_signature and has no default; add a TensorSpec for it"
            )
    return names


def _check_signature_entry(name: str, spec: Any) -> None:
    if type(spec) is TensorSpec:
        return
    if isinstance(spec, dict):
        for v in spec.values():
            _check_signature_entry(name, v)
    elif isinstance(spec, (tuple, list)):
        for v in spec:
            _check_signature_entry(name, v)
    else:
        raise TypeError(
            f"{name}: input_signature entries must be rt.TensorSpec (or tuples, "
            f"lists and dicts of them), got {spec!r}"
        )


def signature_defaults(
    signature: inspect.Signature, covered: int
) -> list[tuple[str, str, Any, bool]]:
    """Canonical arguments for the parameters an input_signature leaves out."""
    out = []
    for i, param in enumerate(signature.parameters.values()):
        if i < covered or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        kind = "keyword" if param.kind is param.KEYWORD_ONLY else "positional"
        out.append((param.name, kind, param.default, True))
    return out


def spec_as_array(spec: TensorSpec) -> Any:
    """A stand-in value with `spec`'s dtype and shape (None dims as 1)."""
    import numpy as np

    shape = (
        () if spec.shape is None else tuple(1 if d is None else d for d in spec.shape)
    )
    return np.zeros(shape, spec.dtype.np_dtype)


def permutation(raw: list[Any], canonical: list[Any]) -> Any:
    """Indices into the raw feeds giving the canonical ones (None: same order)."""
    if len(raw) == len(canonical) and all(a is b for a, b in zip(raw, canonical)):
        return None
    where = {id(v): i for i, v in enumerate(raw)}
    perm = []
    for v in canonical:
        i = where.get(id(v))
        if i is None or v is None:
            return SLOW
        perm.append(i)
    return perm


def has_tensor_key(key: Any) -> bool:
    if type(key) is tuple and key:
        if key[0] is TENSOR:
            return True
        if key[0] is IDENTITY:
            return False
        return any(has_tensor_key(k) for k in key)
    return False


def accepts(
    params: Sequence[Param], arguments: list[tuple[str, str, Any, bool]]
) -> bool:
    """Whether a trace with `params` can run a call with these arguments."""
    if len(params) != len(arguments):
        return False
    for p, (name, kind, value, _) in zip(params, arguments):
        if (
            p.name != name
            or p.kind != kind
            or not _spec_accepts(p.spec, spec_structure(value))
        ):
            return False
    return True


def same_key_order(spec: Any, value: Any) -> bool:
    """Whether every dict in `value` has its keys in the order of the dict
    at its place in `spec` (a trace's structure): code may read the order
    (`next(iter(d))`), so a trace serves only the order it was traced with."""
    if isinstance(spec, Mapping):
        return (
            isinstance(value, Mapping)
            and list(spec) == list(value)
            and all(same_key_order(spec[k], value[k]) for k in spec)
        )
    if isinstance(spec, (tuple, list)) and isinstance(value, (tuple, list)):
        return all(same_key_order(s, v) for s, v in zip(spec, value))
    return True


def _spec_accepts(general: Any, specific: Any) -> bool:
    if type(general) is TensorSpec:
        return (
            type(specific) is TensorSpec
            and specific.dtype is general.dtype
            and is_subshape(specific.shape, general.shape)
        )
    if type(general) is not type(specific):
        return False
    if isinstance(general, dict):
        return list(general) == list(specific) and all(  # (see same_key_order)
            _spec_accepts(general[k], specific[k]) for k in general
        )
    if isinstance(general, (tuple, list)):
        return len(general) == len(specific) and all(
            _spec_accepts(g, s) for g, s in zip(general, specific)
        )
    if hasattr(general, "ref"):  # Identity
        return general.ref() is specific.ref() and general.ref() is not None
    return general == specific


def is_subshape(specific: Any, general: Any) -> bool:
    if general is None:
        return True
    if specific is None or len(specific) != len(general):
        return False
    return all(g is None or g == s for s, g in zip(specific, general))


def is_relaxed(params: Sequence[Param]) -> bool:
    """Whether a trace has a tensor of unknown rank or with an unknown dimension
    (only such a trace can serve calls whose canonical key differs from its)."""
    return any(
        spec.shape is None or None in spec.shape
        for p in params
        for spec in tensor_specs(p.spec)
    )


def known_dims(params: Sequence[Param]) -> int:
    count = 0
    for p in params:
        for spec in tensor_specs(p.spec):
            count += (
                0 if spec.shape is None else 1 + sum(d is not None for d in spec.shape)
            )
    return count


def bind_signature(
    function: str, names: list[str], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> dict[str, Any]:
    """Name -> value for a call of a Function with an input_signature.

    Raises:
        TypeError: Too many, unexpected, repeated or missing arguments.
    """
    if len(args) > len(names):
        raise TypeError(
            f"{function}() takes {len(names)} positional arguments (its "
            f"input_signature) but {len(args)} were given"
        )
    values = dict(zip(names, args))
    for key, value in kwargs.items():
        if key not in names:
            raise TypeError(
                f"{function}() got an unexpected keyword argument {key!r}; "
                f"its input_signature covers {names}"
            )
        if key in values:
            raise TypeError(f"{function}() got multiple values for argument {key!r}")
        values[key] = value
    missing = [n for n in names if n not in values]
    if missing:
        raise TypeError(f"{function}() is missing the arguments {missing}")
    return values
