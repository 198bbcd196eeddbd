"""autograph: converts Python control flow into functional operators.

    >>> import autograph
    >>> def collatz_steps(n):
    ...     steps = 0
    ...     while n != 1:
    ...         n = n // 2 if n % 2 == 0 else 3 * n + 1
    ...         steps += 1
    ...     return steps
    >>> autograph.to_graph(collatz_steps)(27)
    111

See API.md for the contract; `to_code` shows what a function becomes.

`import autograph` loads neither the runtime nor NumPy (issue 24): the names
that need them (`to_graph`, `function`, `save`, ...) are imported on first
use (PEP 562 `__getattr__`), so the CLI and `set_loop_options` start fast.
"""

from __future__ import annotations

import importlib
from typing import Any

from autograph.directives import set_loop_options
from autograph.errors import ConversionError
from autograph.impl import dataset_hook
from autograph.show import show

__version__ = "0.1.0"

# Public name -> the module that defines it, imported when the name is first
# read (each of these modules imports the runtime).
_LAZY = {
    **dict.fromkeys(
        ("convert", "do_not_convert", "jit", "to_code", "to_graph"),
        "autograph.impl.api",
    ),
    **dict.fromkeys(("load", "save"), "autograph.saving"),
    **dict.fromkeys(
        (
            "ConcreteFunction",
            "Function",
            "RetracingWarning",
            "function",
            "functions_run_eagerly",
            "run_functions_eagerly",
        ),
        "autograph.tracing",
    ),
}


def __getattr__(name: str) -> Any:
    """A public name that needs the runtime, imported on first use."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'autograph' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later reads skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


# Dataset.map/filter/reduce functions are converted before they are traced.
dataset_hook.install()

__all__ = [
    "ConcreteFunction",
    "ConversionError",
    "Function",
    "RetracingWarning",
    "convert",
    "do_not_convert",
    "function",
    "functions_run_eagerly",
    "jit",
    "load",
    "run_functions_eagerly",
    "save",
    "set_loop_options",
    "show",
    "to_code",
    "to_graph",
]
