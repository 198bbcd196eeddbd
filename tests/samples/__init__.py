"""The shared corpus of sample functions.

Each topic module (``conditionals``, ``loops``, ...) holds small functions
written the way a user would write them, and exports ``SAMPLES``: a list of
``Sample`` records that say which arguments to call each function with.

* ``python_args`` are tried in plain Python mode: the converted function must
  behave exactly like the original (result, exception, printed output, and
  mutations of its arguments).
* ``tensor_args`` (where graph mode is meaningful) build argument tuples whose
  values are runtime tensors. They are built lazily, by a callable, so that the
  corpus imports even while ``runtime`` does not.

Some samples raise on purpose (``ZeroDivisionError``, a failing ``assert``, an
unbound local): the converted code must raise the same way.

Example:
    >>> from tests.samples import ALL_SAMPLES
    >>> all(sample.python_args for sample in ALL_SAMPLES)
    True
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
from collections.abc import Callable, Sequence
from typing import Any

TOPICS: tuple[str, ...] = (
    "conditionals",
    "loops",
    "early_return",
    "break_continue",
    "logical",
    "calls",
    "lists",
    "asserts_prints",
    "misc",
    "state",
    "syntax",
    "exceptions",
    "real_python",
)
"""The topic modules of the corpus, in a fixed order."""


@dataclasses.dataclass(frozen=True)
class Static:
    """Marks a value in ``tensors(...)`` that stays a Python value.

    Attributes:
        value: The Python value passed as is.
    """

    value: Any


@dataclasses.dataclass(frozen=True)
class Sample:
    """One sample function and the arguments to call it with.

    Attributes:
        fn: The callable under test: a function, closure, bound method,
            ``functools.partial`` or lambda.
        python_args: Argument tuples of plain Python values.
        tensor_args: ``None`` for a Python-only sample; otherwise a callable
            returning argument tuples whose values are runtime tensors.
        name: A readable name for test ids; derived from ``fn`` when empty.
    """

    fn: Callable[..., Any]
    python_args: Sequence[tuple[Any, ...]]
    tensor_args: Callable[[], list[tuple[Any, ...]]] | None = None
    name: str = ""

    @property
    def id(self) -> str:
        """The sample's name: ``name`` if given, else the callable's."""
        if self.name:
            return self.name
        fn = self.fn
        while isinstance(fn, functools.partial):
            fn = fn.func
        return getattr(fn, "__qualname__", None) or repr(fn)


def _to_tensor(rt: Any, value: Any) -> Any:
    """Converts one argument for graph mode (``Static`` values stay Python)."""
    if isinstance(value, Static):
        return value.value
    return rt.constant(value)


def tensors(
    *arg_tuples: tuple[Any, ...],
) -> Callable[[], list[tuple[Any, ...]]]:
    """Returns a builder of tensor argument tuples.

    Every value becomes ``rt.constant(value)`` when the builder is called,
    except values wrapped in ``Static``, which stay Python values.

    Args:
        *arg_tuples: Argument tuples of Python numbers, bools or (nested)
            lists of them.

    Returns:
        A callable that imports ``runtime`` and builds the tuples.
    """

    def build() -> list[tuple[Any, ...]]:
        rt = importlib.import_module("runtime")
        return [tuple(_to_tensor(rt, value) for value in args) for args in arg_tuples]

    build.values = arg_tuples  # type: ignore[attr-defined] - for other backends
    return build


def _load_all() -> list[Sample]:
    samples: list[Sample] = []
    for topic in TOPICS:
        module = importlib.import_module(f"{__name__}.{topic}")
        samples.extend(module.SAMPLES)
    return samples


ALL_SAMPLES: list[Sample] = _load_all()
"""Every sample of every topic module, in topic order."""
