"""Retracing diagnostics: say which argument makes a Function trace again.

A `Function` records the canonical key of each trace. Past
`RETRACING_THRESHOLD` traces it warns once, naming the function, the argument
whose part of the key changed most often, what kind of change it is (Python
values, tensor shapes, objects), and the fix: pass a tensor, or give the
Function an `input_signature`.
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any

from autograph.tracing.signatures import IDENTITY, NAN, NEG_ZERO, TENSOR
from runtime import dtypes
from runtime.shapes import format_shape

__all__ = ["RETRACING_THRESHOLD", "RetracingMonitor", "RetracingWarning"]

RETRACING_THRESHOLD = 5
_EXAMPLES = 3
_SCALAR_TYPES = (int, float, str, bool, bytes, complex, type(None))
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


class RetracingWarning(UserWarning):
    """A Function keeps tracing new graphs for arguments that keep changing."""


class RetracingMonitor:
    """Counts one Function's traces and warns once when there are too many.

    Args:
        name: The function's name, for the message.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.history: list[tuple[tuple[str, Any], ...]] = []
        self.warned = False

    def record(self, key: tuple[tuple[str, Any], ...]) -> None:
        """Notes a new trace with canonical key `key` ((name, key) per argument)."""
        self.history.append(key)
        if len(self.history) > RETRACING_THRESHOLD and not self.warned:
            self.warned = True
            warnings.warn(
                self.message(), RetracingWarning, stacklevel=user_stacklevel()
            )

    def message(self) -> str:
        """The warning text for the traces recorded so far."""
        count = len(self.history)
        head = f"{self.name} has been traced {count} times; tracing is expensive."
        culprit = self._culprit()
        if culprit is None:
            return (
                f"{head} Its calls keep changing the number or names of their "
                "arguments. Call it the same way each time, pass tensors instead "
                "of Python values, or fix the signature with "
                "input_signature=[rt.TensorSpec(...)]."
            )
        name, keys = culprit
        kind, examples = _describe(keys)
        shown = ", ".join(examples[:_EXAMPLES]) + (
            ", ..." if len(keys) > _EXAMPLES else ""
        )
        if kind == "objects":
            fix = (
                "Pass the same object each time (objects are keyed by identity), "
                "or pass its tensors as arguments"
            )
        else:
            fix = f"Pass it as a tensor (e.g. rt.constant({name})) instead"
        return (
            f"{head} Its argument {name!r} keeps changing: {len(keys)} different "
            f"{kind} so far ({shown}), and each one traces a new graph. {fix}, or "
            "fix the signature with input_signature=[rt.TensorSpec(...)] (None "
            "dimensions match any size)."
        )

    def _culprit(self) -> tuple[str, list[Any]] | None:
        """The argument with the most distinct keys (more than one), if any."""
        distinct: dict[str, list[Any]] = {}
        for key in self.history:
            for name, part in key:
                seen = distinct.setdefault(name, [])
                if part not in seen:
                    seen.append(part)
        best = max(distinct.items(), key=lambda item: len(item[1]), default=None)
        if best is None or len(best[1]) < 2:
            return None
        return best


def _describe(keys: list[Any]) -> tuple[str, list[str]]:
    """What kind of values the keys are, and a short text for each."""
    texts = [key_text(k) for k in keys]
    if all(_is_tensor_key(k) for k in keys):
        return "dtypes or shapes", texts
    if all(type(k) is tuple and len(k) == 2 and k[0] is IDENTITY for k in keys):
        return "objects", [f"object id {k[1]:#x}" for k in keys]
    if all(type(k) is tuple and len(k) == 2 and k[0] in _SCALAR_TYPES for k in keys):
        return "Python values", texts
    return "structures or contents", texts


def _is_tensor_key(key: Any) -> bool:
    return type(key) is tuple and len(key) == 3 and key[0] is TENSOR


def key_text(key: Any, limit: int = 40) -> str:
    """A trace key written like the value it stands for: `[float32 (2,), 3]`."""
    text = _key_text(key)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _key_text(key: Any) -> str:
    if type(key) is not tuple or not key:
        return repr(key)
    head = key[0]
    if head is TENSOR:
        dtype = dtypes.FROM_NUMPY.get(key[1], key[1])
        return f"{dtype} {format_shape(key[2])}"
    if head is IDENTITY:
        return "<object>"
    if head in _SCALAR_TYPES:
        return key[1].name if key[1] is NAN or key[1] is NEG_ZERO else repr(key[1])
    if isinstance(head, type) and issubclass(head, dict):
        return "{" + ", ".join(f"{k!r}: {_key_text(v)}" for k, v in key[1]) + "}"
    if isinstance(head, type) and issubclass(head, (tuple, list)):
        items = ", ".join(_key_text(v) for v in key[1])
        if head is list:
            return f"[{items}]"
        if head is tuple:
            return f"({items},)" if len(key[1]) == 1 else f"({items})"
        return f"{head.__name__}({items})"
    return repr(key)


def user_stacklevel() -> int:
    """The `stacklevel` pointing at the first frame outside this package."""
    frame = sys._getframe(2)
    level = 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    return level
