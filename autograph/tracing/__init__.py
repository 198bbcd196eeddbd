"""The tracer: `autograph.function`, `Function` and `ConcreteFunction`.

Modules, by job:

- `signatures`: trace keys, binding calls, checking values against specs;
- `concrete`: `ConcreteFunction` and `trace` (one graph per signature);
- `polymorphic`: `Function` (the trace cache), `function`, the eager switch;
- `matching`: input_signature binding, reuse of more general traces;
- `diagnostics`: the retracing warning;
- `pretty`: signatures in the TensorFlow guides' layout.
"""

from autograph.tracing.concrete import ConcreteFunction
from autograph.tracing.diagnostics import RetracingWarning
from autograph.tracing.polymorphic import (
    Function,
    function,
    functions_run_eagerly,
    run_functions_eagerly,
)

__all__ = [
    "ConcreteFunction",
    "Function",
    "RetracingWarning",
    "function",
    "functions_run_eagerly",
    "run_functions_eagerly",
]
