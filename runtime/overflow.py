"""Integer wrap-around in graph loops: a warning at the user's line.

Integers default to int32, as in TensorFlow, and NumPy's integer kernels
wrap around silently, so a loop like the README's `collatz_steps` on a
large start value can run forever on wrapped values. The executor checks
the scalar int32/int64 `Add`, `Sub` and int32 `Mul` it runs inside a graph
loop (one comparison after each where an operand is a constant, a few NumPy
scalar operations otherwise: `bench/bench_overflow.py` measures it) and
calls the op's `warner` when one wrapped, which warns once. Ops on arrays
are not checked (the check would cost more than the op).

    >>> import warnings
    >>> import numpy as np
    >>> import runtime as rt
    >>> from runtime import executor
    >>> g = rt.Graph()
    >>> with g.as_default():
    ...     n = g.placeholder(rt.int32, (), "n")
    ...     _, out = rt.while_loop(
    ...         lambda i, n: i < 40, lambda i, n: (i + 1, n * 2), [0, n]
    ...     )
    >>> run = executor.compile(g, [n], [out])
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = run([np.int32(1)])
    >>> [w.category.__name__ for w in caught if "graph loop" in str(w.message)]
    ['IntegerOverflowWarning']
"""

from __future__ import annotations

import warnings
from typing import Any

__all__ = ["CHECKED", "IntegerOverflowWarning", "condition", "warner"]

# Set to False to run graphs without the check (the benchmark's baseline).
ENABLED = [True]


class IntegerOverflowWarning(RuntimeWarning):
    """An integer op in a graph loop wrapped around."""


_LIMITS = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}
CHECKED = {"Add": ("int32", "int64"), "Sub": ("int32", "int64"), "Mul": ("int32",)}


def condition(
    op_type: str, dtype: str, a: str, b: str, const_a: Any, const_b: Any
) -> str | None:
    """The Python condition (text, with `{o}` for the output) that the
    scalar op `op_type` on `a` and `b` wrapped, or None if it is not checked.

    `const_a`/`const_b` are an operand's value where it is a constant (a
    Python int), else None: `i + 1` then costs one comparison (`{o} < i`).
    Otherwise Add/Sub compare signs (the result's sign differs from what the
    operands' force), and Mul compares with the product in float64 (exact
    for int32 operands below 2**53).
    """
    if dtype not in CHECKED.get(op_type, ()):
        return None
    if op_type == "Add" and const_a is not None:
        a, b, const_a, const_b = b, a, const_b, const_a
    if const_b is not None:
        c = const_b
        if op_type in ("Add", "Sub"):
            if c == 0:
                return None
            grows = (c > 0) == (op_type == "Add")
            return f"{{o}} < {a}" if grows else f"{{o}} > {a}"
    if op_type == "Mul":
        const = const_b if const_b is not None else const_a
        other = a if const_b is not None else b
        if const is not None:
            if const in (0, 1):
                return None
            low, high = _LIMITS[dtype]
            if const < 0:
                low, high = high, low
            # The operands whose product fits: ceil(low / c) .. floor(high / c).
            first, last = -(-low // const), high // const
            return f"not {first} <= {other} <= {last}"
        return f"{{o}} != {a} * 1.0 * {b}"
    if op_type == "Add":
        return f"(({a} ^ {{o}}) & ({b} ^ {{o}})) < 0"
    return f"(({a} ^ {b}) & ({a} ^ {{o}})) < 0"


def warner(op_type: str, dtype: str, location: Any) -> Any:
    """A function that warns (once) that this op wrapped around; the warning
    points at `location` (the user's line that made the op, or None)."""
    done = [False]
    at = f" at {location}" if location else ""
    symbol = {"Add": "+", "Sub": "-", "Mul": "*"}[op_type]

    def warn() -> None:
        if done[0]:
            return
        done[0] = True
        message = (
            f"{dtype} overflow{at}: `{symbol}` wrapped around in a graph loop. "
            "Python ints become int32 tensors, as in TensorFlow; pass "
            "rt.constant(n, rt.int64) (or rt.cast to rt.int64) for larger values"
        )
        if location is None:
            warnings.warn(message, IntegerOverflowWarning, stacklevel=2)
        else:
            warnings.warn_explicit(
                message, IntegerOverflowWarning, location.filename, location.lineno
            )

    return warn
