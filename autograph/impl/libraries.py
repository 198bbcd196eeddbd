"""Which modules are library code: calls into them stay unconverted.

Kept apart from `api` (which loads the runtime) so that the CLI, which reads
source text and never runs it, can ask without importing `runtime` or NumPy.
"""

from __future__ import annotations

import sys

__all__ = ["CONVERTED_LIBRARY_MODULES", "LIBRARY_PACKAGES", "is_library_module_name"]

LIBRARY_PACKAGES = frozenset(
    {
        "autograph",
        "runtime",
        "numpy",
        "gast",
        "scipy",
        "pandas",
        "matplotlib",
        "IPython",
        "ipykernel",
        "pytest",
        "_pytest",
        "hypothesis",
        "tensorflow",
        "jax",
        "torch",
        # Pure-Python libraries whose code never holds a traced value: their
        # conversion cost time and met self-modifying code (networkx's
        # `argmap` gives a wrapper made inside a function new `__code__`).
        "networkx",
        "sympy",
        "mpmath",
    }
)
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) | {"builtins"}

# Modules converted as if they were user code, though the standard library
# or a library package: empty for users; only the standard-library harness
# (stdlib_check/) fills it, to convert the modules whose tests it runs.
CONVERTED_LIBRARY_MODULES: set[str] = set()


def is_library_module_name(name: str | None) -> bool:
    """Whether module `name` belongs to the standard library or a library
    package whose calls stay unconverted (`LIBRARY_PACKAGES`).

    Example:
        >>> is_library_module_name("numpy.linalg"), is_library_module_name("model")
        (True, False)
    """
    if not name or name in CONVERTED_LIBRARY_MODULES:
        return False
    root = name.split(".")[0]
    return root in LIBRARY_PACKAGES or root in _STDLIB
