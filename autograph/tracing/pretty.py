"""Readable signatures of traced functions, in the TensorFlow guides' layout.

    >>> from runtime import dtypes
    >>> from runtime.tensor_spec import TensorSpec
    >>> from autograph.tracing.signatures import Param
    >>> params = [Param("x", "positional", TensorSpec((), dtypes.float32)),
    ...           Param("n", "positional", 3)]
    >>> print(signature_text("power", params, TensorSpec((), dtypes.float32)))
    power(x, n=3)
      Args:
        x: float32 Tensor, shape=()
      Returns:
        float32 Tensor, shape=()

An argument holding a tensor is listed under `Args`; a Python-valued one is
shown with its value in the header, as the guides print it. Nested
structures print with numbered markers, each explained on its own line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from autograph.tracing.signatures import Param, contains_tensor
from runtime.shapes import format_shape
from runtime.tensor import SymbolicTensor
from runtime.tensor_spec import TensorSpec

__all__ = ["format_spec", "header", "signature_text"]


class _Marker:
    """Prints as `<1>`, `<2>`: stands for one leaf of a nested structure."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def format_spec(spec: Any, indent: str = "      ") -> str:
    """`float32 Tensor, shape=(2,)`, or a structure of numbered leaves."""
    if isinstance(spec, (TensorSpec, SymbolicTensor)):
        return f"{spec.dtype} Tensor, shape={format_shape(spec.shape)}"
    if isinstance(spec, (tuple, list, Mapping)):
        leaves: list[Any] = []
        structure = _with_markers(spec, leaves)
        lines = [repr(structure)]
        for i, leaf in enumerate(leaves, 1):
            lines.append(f"{indent}<{i}>: {format_spec(leaf, indent + '  ')}")
        return "\n".join(lines)
    return repr(spec)


def _with_markers(spec: Any, leaves: list[Any]) -> Any:
    if isinstance(spec, Mapping):
        marked = {k: _with_markers(v, leaves) for k, v in spec.items()}
        return marked if type(spec) is dict else type(spec)(marked)
    if isinstance(spec, tuple) and hasattr(type(spec), "_fields"):
        return type(spec)(*[_with_markers(v, leaves) for v in spec])
    if isinstance(spec, (tuple, list)):
        items = [_with_markers(v, leaves) for v in spec]
        return tuple(items) if isinstance(spec, tuple) else items
    leaves.append(spec)
    return _Marker(f"<{len(leaves)}>")


def header(name: str, params: Sequence[Param], typed: bool = False) -> str:
    """`name(x, y, n=3)`: tensor arguments by name, Python ones with values;
    `typed`: a tensor argument with its dtype and shape (`x: float32 (2,)`),
    which tells apart traces that differ only there."""
    parts = []
    for p in params:
        if typed and isinstance(p.spec, (TensorSpec, SymbolicTensor)):
            parts.append(f"{p.name}: {p.spec.dtype} {format_shape(p.spec.shape)}")
        elif contains_tensor(p.spec):
            parts.append(p.name)
        else:
            parts.append(f"{p.name}={p.spec!r}")
    return f"{name}({', '.join(parts)})"


def signature_text(name: str, params: Sequence[Param], outputs: Any) -> str:
    """The multi-line signature of one traced function."""
    lines = [header(name, params)]
    args = [
        f"    {p.name}: {format_spec(p.spec)}"
        for p in params
        if contains_tensor(p.spec)
    ]
    if args:
        lines.append("  Args:")
        lines.extend(args)
    lines.append("  Returns:")
    lines.append(f"    {format_spec(outputs)}")
    return "\n".join(lines)
