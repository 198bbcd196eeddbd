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
"""

from autograph.directives import set_loop_options
from autograph.errors import ConversionError
from autograph.impl.api import convert, do_not_convert, jit, to_code, to_graph
from autograph.saving import load, save
from autograph.show import show
from autograph.tracing import (
    ConcreteFunction,
    Function,
    RetracingWarning,
    function,
    functions_run_eagerly,
    run_functions_eagerly,
)

__version__ = "0.1.0"

from runtime.data.dataset import set_function_converter as _set_converter

# Dataset.map/filter/reduce functions are converted before they are traced.
_set_converter(to_graph)
del _set_converter

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
