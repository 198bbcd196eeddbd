"""The `ag__` surface: what converted code calls.

Generated source refers to this package as `ag__`. Every operator dispatches
on the type of one value through `dispatch.TABLES`: a type registered by a
backend (graph tensors, by `runtime.operators.graph_backend`; JAX tracers, by
`runtime.operators.jax_backend`, loaded lazily) builds graph ops; everything
else runs as the plain Python it replaces.
"""

from runtime.operators import (
    dispatch,
    graph_backend,  # noqa: F401 - registers itself
)
from runtime.operators.calls import converted_call
from runtime.operators.control_flow import for_stmt, if_stmt, while_stmt
from runtime.operators.data_structures import list_append, list_pop
from runtime.operators.exceptions import assert_stmt, register_handlers
from runtime.operators.logical import and_, compare_chain, if_exp, not_, or_
from runtime.operators.places import attr, item, untracked, var
from runtime.operators.py_builtins import (
    enumerate_,
    float_,
    int_,
    len_,
    max_,
    min_,
    print_,
    range_,
    zip_,
)
from runtime.operators.variables import (
    Unbound,
    Undefined,
    UndefinedReturnValue,
    after_return,
    ld,
    ld_cell,
    set_cell,
)

# The JAX backend registers when JAX values are first dispatched on, or when
# `jax` is imported by then: `import runtime` never imports JAX.
dispatch.register_lazy_backend("jax", "runtime.operators.jax_backend")

__all__ = [
    "Unbound",
    "Undefined",
    "UndefinedReturnValue",
    "after_return",
    "and_",
    "assert_stmt",
    "attr",
    "compare_chain",
    "converted_call",
    "enumerate_",
    "float_",
    "for_stmt",
    "if_exp",
    "if_stmt",
    "int_",
    "item",
    "ld",
    "ld_cell",
    "len_",
    "list_append",
    "list_pop",
    "max_",
    "min_",
    "not_",
    "or_",
    "print_",
    "range_",
    "register_handlers",
    "set_cell",
    "untracked",
    "var",
    "while_stmt",
    "zip_",
]
