"""Saved signatures, and the loaded callable that dispatches on them.

A `LoadedFunction` holds the restored `ConcreteFunction`s and calls one the
way the saved `Function` chose it: the call is bound to the saved Python
signature (defaults applied), then each trace's parameters are checked
against the arguments, most specific trace first (exact Python values and
tensors before Python values converted to tensors, more known dimensions
before fewer). When none fits, the error of the closest trace is raised: a
`TypeError` (wrong dtype or kind of value) or `ValueError` (shape) that
names the argument. A loaded function never traces: there is no Python code.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Sequence
from typing import Any

import numpy as np

from autograph.saving.values import LoadError, Reader, Writer, fail
from autograph.tracing import ConcreteFunction, matching, pretty
from autograph.tracing.signatures import (
    Identity,
    Param,
    canonicalize,
    check_value,
    contains_tensor,
)
from runtime import dtypes
from runtime.data.dataset import DatasetSpec
from runtime.nest import sorted_keys
from runtime.tensor import EagerTensor, SymbolicTensor
from runtime.tensor_spec import TensorSpec

__all__ = [
    "LoadedFunction",
    "decode_params",
    "decode_signature",
    "decode_structure",
    "encode_params",
    "encode_signature",
    "encode_structure",
]

_KINDS = {
    k.name: k
    for k in (
        inspect.Parameter.POSITIONAL_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        inspect.Parameter.VAR_POSITIONAL,
        inspect.Parameter.KEYWORD_ONLY,
        inspect.Parameter.VAR_KEYWORD,
    )
}


# -- the Python signature ----------------------------------------------------------


def encode_signature(signature: inspect.Signature, writer: Writer) -> list[Any]:
    """The parameters of `signature`: name, kind, and default when it has one.

    A default that has no saved form is left out (a call must then pass it).
    """
    params = []
    for p in signature.parameters.values():
        entry: dict[str, Any] = {"name": p.name, "kind": p.kind.name}
        if p.default is not p.empty:
            with contextlib.suppress(ValueError):  # no saved form: left out
                entry["default"] = writer.encode(p.default)
        params.append(entry)
    return params


def decode_signature(data: Any, reader: Reader, where: str) -> inspect.Signature:
    """The `inspect.Signature` saved by `encode_signature`."""
    if not isinstance(data, list):
        raise fail(where, "the signature must be a list of parameters")
    params = []
    for entry in data:
        if (
            not isinstance(entry, dict)
            or not {"name", "kind"} <= set(entry)
            or not (set(entry) <= {"name", "kind", "default"})
        ):
            raise fail(
                where, "a parameter must have a name, a kind and maybe a default"
            )
        name, kind = entry["name"], entry["kind"]
        if type(name) is not str or not name.isidentifier() or type(kind) is not str:
            raise fail(where, f"bad parameter {str(name)[:40]!r}")
        if kind not in _KINDS:
            raise fail(
                where, f"bad parameter {str(name)[:40]!r} of kind {str(kind)[:40]!r}"
            )
        default = inspect.Parameter.empty
        if "default" in entry:
            default = reader.decode(entry["default"], f"{where}: default of {name!r}")
        params.append((name, _KINDS[kind], default))
    try:
        return inspect.Signature(
            [inspect.Parameter(n, k, default=d) for n, k, d in params]
        )
    except (TypeError, ValueError) as e:
        raise fail(where, f"not a valid signature ({e})") from None


# -- traced parameters -------------------------------------------------------------


def _check_saveable(function: str, name: str, spec: Any) -> None:
    if type(spec) is DatasetSpec:
        raise ValueError(
            f"cannot save {function}(): its argument {name!r} is a dataset "
            f"(element_spec {spec.element_spec}); a Function traced for a dataset "
            "argument reads it at run time from Python and cannot be saved"
        )
    if type(spec) is Identity:
        raise ValueError(
            f"cannot save {function}(): its argument {name!r} was traced with the "
            f"object {spec.text}, which has no saved form; only tensors and Python "
            "scalars (and tuples, lists and dicts of them) can be saved"
        )
    if isinstance(spec, dict):
        for v in spec.values():
            _check_saveable(function, name, v)
    elif isinstance(spec, (tuple, list)):
        for v in spec:
            _check_saveable(function, name, v)


def encode_params(function: str, params: Sequence[Param], writer: Writer) -> list[Any]:
    """The traced parameters: name, kind, spec structure, whether defaulted."""
    out = []
    for p in params:
        _check_saveable(function, p.name, p.spec)
        out.append([p.name, p.kind, writer.encode(p.spec), p.default])
    return out


def _check_specs(spec: Any, where: str) -> None:
    if type(spec) is TensorSpec and spec.dtype not in dtypes.ALL:
        raise fail(where, f"a tensor argument cannot have the dtype {spec.dtype}")
    children = spec.values() if isinstance(spec, dict) else spec
    if isinstance(spec, (dict, tuple, list)):
        for child in children:
            _check_specs(child, where)


def decode_params(data: Any, reader: Reader, where: str) -> list[Param]:
    """The `Param`s saved by `encode_params`."""
    if not isinstance(data, list):
        raise fail(where, "params must be a list")
    params = []
    for entry in data:
        if not isinstance(entry, list) or len(entry) != 4:
            raise fail(where, "a param must be [name, kind, spec, is_default]")
        name, kind, spec, default = entry
        if type(name) is not str or kind not in ("positional", "keyword"):
            raise fail(where, f"bad param {str(name)[:40]!r}")
        if type(default) is not bool:
            raise fail(where, f"param {name!r}: is_default must be a bool")
        spec = reader.decode(spec, f"{where}: param {name!r}")
        _check_specs(spec, f"{where}: param {name!r}")
        params.append(Param(name, kind, spec, default))
    if len({p.name for p in params}) != len(params):
        raise fail(where, "two params have the same name")
    return params


# -- output structure --------------------------------------------------------------


def encode_structure(value: Any, writer: Writer, counter: list[int]) -> Any:
    """`value` with each tensor as `["output", k]`, k in flat output order."""
    if isinstance(value, SymbolicTensor):
        counter[0] += 1
        return ["output", counter[0] - 1]
    if value is None:
        return ["none"]
    if type(value) is dict:
        done = {
            k: encode_structure(value[k], writer, counter) for k in sorted_keys(value)
        }
        return ["dict", [[writer.encode(k), done[k]] for k in value]]
    if type(value) in (tuple, list):
        items = [encode_structure(v, writer, counter) for v in value]
        return [type(value).__name__, items]
    raise ValueError(
        f"cannot save a function returning a {type(value).__name__}: only "
        "tensors, None, and tuples, lists and dicts of them can be saved"
    )


def decode_structure(
    data: Any, reader: Reader, outputs: Sequence[SymbolicTensor], where: str
) -> Any:
    """The output structure, with the graph's output tensors at its leaves."""
    order: list[int] = []

    def decode(node: Any, depth: int) -> Any:
        if depth > 100 or not isinstance(node, list) or not node:
            raise fail(where, "bad output structure")
        tag = node[0]
        if tag == "output" and len(node) == 2 and type(node[1]) is int:
            if not 0 <= node[1] < len(outputs):
                raise fail(where, f"refers to the missing output {node[1]}")
            return _Leaf(node[1])
        if tag == "none" and len(node) == 1:
            return None
        if tag in ("tuple", "list") and len(node) == 2 and isinstance(node[1], list):
            items = [decode(v, depth + 1) for v in node[1]]
            return tuple(items) if tag == "tuple" else items
        if tag == "dict" and len(node) == 2 and isinstance(node[1], list):
            result = {}
            for pair in node[1]:
                if not isinstance(pair, list) or len(pair) != 2:
                    raise fail(where, "bad output structure")
                key = reader.decode(pair[0], where)
                try:
                    result[key] = decode(pair[1], depth + 1)
                except TypeError:
                    raise fail(where, "a dict key must be hashable") from None
            return result
        raise fail(where, "bad output structure")

    def number(node: Any) -> Any:
        if isinstance(node, _Leaf):
            order.append(node.index)
            return outputs[node.index]
        if isinstance(node, dict):
            done = {k: number(node[k]) for k in sorted_keys(node)}
            return {k: done[k] for k in node}
        if isinstance(node, (tuple, list)):
            return type(node)(number(v) for v in node)
        return node

    structure = number(decode(data, 0))
    if order != list(range(len(outputs))):
        raise fail(where, "the output structure does not match the outputs")
    return structure


class _Leaf:
    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index


# -- the loaded callable ---------------------------------------------------------


def _known_dims(params: Sequence[Param]) -> int:
    def count(spec: Any) -> int:
        if type(spec) is TensorSpec:
            return (
                0 if spec.shape is None else 1 + sum(d is not None for d in spec.shape)
            )
        if isinstance(spec, dict):
            return sum(count(v) for v in spec.values())
        if isinstance(spec, (tuple, list)):
            return sum(count(v) for v in spec)
        return 0

    return sum(count(p.spec) for p in params)


def _exact_kinds(spec: Any, value: Any) -> bool:
    """Whether `value` fits `spec` without converting Python values to tensors."""
    if type(spec) is TensorSpec:
        if type(value) is TensorSpec:
            return value.dtype is spec.dtype and value.shape == spec.shape
        return isinstance(value, (EagerTensor, np.ndarray, np.generic))
    if isinstance(spec, dict):
        return isinstance(value, dict) and all(
            k in value and _exact_kinds(s, value[k]) for k, s in spec.items()
        )
    if isinstance(spec, (tuple, list)):
        return (
            isinstance(value, (tuple, list))
            and len(value) == len(spec)
            and all(_exact_kinds(s, v) for s, v in zip(spec, value))
        )
    return True


class LoadedFunction:
    """A saved function, restored: call it like the `Function` it was.

    Attributes:
        name: The saved function's name.
        variables: The restored `rt.Variable`s (shared by every trace).
    """

    def __init__(
        self,
        name: str,
        signature: inspect.Signature | None,
        concretes: Sequence[ConcreteFunction],
        variables: Sequence[Any],
    ) -> None:
        self.name = name
        self._signature = signature
        self._concretes = list(concretes)
        self._ranked = sorted(self._concretes, key=lambda c: -_known_dims(c.params))
        self.variables = list(variables)
        headers = "; ".join(
            pretty.header(name, c.params, typed=True) for c in self._concretes
        )
        self._fix = f"the loaded function was traced only for: {headers}"

    @property
    def concrete_functions(self) -> list[ConcreteFunction]:
        """The saved traces, in the order they were saved."""
        return list(self._concretes)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Runs the saved trace that fits the arguments.

        Raises:
            TypeError: Arguments that don't bind to the signature, or a wrong
                dtype or kind of value for every trace.
            ValueError: A shape that fits no trace.
        """
        if self._signature is None:
            return self._concretes[0](*args, **kwargs)
        concrete, feeds = self._match(args, kwargs)
        return concrete.compiled_call(feeds)

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """The saved trace a call with these arguments (or `TensorSpec`s) runs."""
        if self._signature is None:
            return self._concretes[0]
        return self._match(args, kwargs)[0]

    def _match(
        self, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[ConcreteFunction, list[Any]]:
        assert self._signature is not None
        try:
            arguments = canonicalize(self._signature, args, kwargs)
        except TypeError as e:
            raise TypeError(f"{self.name}(): {e}") from None
        names = [(n, kind) for n, kind, _, _ in arguments]
        failure: Exception | None = None
        for exact in (True, False):
            for concrete in self._ranked:
                if [(p.name, p.kind) for p in concrete.params] != names:
                    continue
                values = [value for _, _, value, _ in arguments]
                reordered = [
                    p.name
                    for p, v in zip(concrete.params, values)
                    if not matching.same_key_order(p.spec, v)
                ]
                if reordered:  # (a trace serves only its dicts' key order)
                    failure = failure or TypeError(
                        f"{self.name}(): argument {reordered[0]!r} has a dict whose "
                        "keys are in another order than the saved trace's; "
                        f"{self._fix}"
                    )
                    continue
                if exact and not all(
                    _exact_kinds(p.spec, v) for p, v in zip(concrete.params, values)
                ):
                    continue
                feeds: list[Any] = []
                try:
                    for p, value in zip(concrete.params, values):
                        check_value(self.name, p.name, p.spec, value, feeds, self._fix)
                except (TypeError, ValueError) as e:
                    failure = failure or e
                    continue
                return concrete, feeds
        if failure is not None:
            raise failure
        given = ", ".join(n for n, _ in names)
        raise TypeError(f"{self.name}() got the arguments ({given}); {self._fix}")

    def pretty_printed_concrete_signatures(self, verbose: bool = True) -> str:
        """One block per saved trace, as `Function` prints them."""
        return "\n\n".join(c.pretty_printed_signature(verbose) for c in self._concretes)

    def __repr__(self) -> str:
        return f"<autograph.LoadedFunction {self.name} ({len(self._concretes)} traces)>"


def tensor_specs_of(params: Sequence[Param]) -> list[TensorSpec]:
    """The `TensorSpec` leaves of the params, in feed order."""
    from autograph.tracing.signatures import tensor_specs

    return [s for p in params if contains_tensor(p.spec) for s in tensor_specs(p.spec)]


def check_inputs(
    params: Sequence[Param], inputs: Sequence[SymbolicTensor], where: str
) -> None:
    """The graph's placeholders must be the params' tensors, in feed order."""
    specs = tensor_specs_of(params)
    if len(specs) != len(inputs) or any(
        s.dtype is not t.dtype or s.shape != t.shape for s, t in zip(specs, inputs)
    ):
        raise LoadError(f"{where}: the graph's inputs do not match its parameters")
