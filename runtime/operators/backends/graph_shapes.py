"""A graph loop's shapes: `autograph.set_loop_options`'s shape invariants,
and the invariants a loop needs for variables whose shape it changes or
does not know (issue 22)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

from runtime import control_flow_checks as checks
from runtime import nest
from runtime.operators import verification
from runtime.operators.backends.graph import TypeGuess, dry_run
from runtime.operators.control_flow import as_state
from runtime.shapes import as_shape, is_compatible, merge
from runtime.tensor import Tensor, is_symbolic


def loop_options(
    opts: dict[str, Any] | None, loop_vars: tuple[Any, ...]
) -> dict[str, Any]:
    """`rt.while_loop`'s keyword arguments from `autograph.set_loop_options`.

    A `shape_invariants` pair `(value, shape)` applies to the loop variables
    (or the tensors in a tuple, list or dict carried by the loop) whose value
    when the loop starts is `value`, by identity; the others keep their own
    shapes.
    """
    opts = opts or {}
    pairs = list(opts.get("shape_invariants") or ())
    options: dict[str, Any] = {
        "maximum_iterations": opts.get("maximum_iterations"),
        "shape_invariants": None,
    }
    for n, pair in enumerate(pairs):
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
            raise verification.bad_invariant_entry(n, pair)
    if not pairs:
        return options
    used = [False] * len(pairs)
    shapes = []
    for var in loop_vars:
        for leaf in nest.flatten(var, expand_composites=True):
            shape = static_shape(leaf)
            for n, (value, invariant) in enumerate(pairs):
                if value is leaf:
                    shape, used[n] = as_shape(invariant), True
            shapes.append(shape)
    for n, (value, _) in enumerate(pairs):
        if not used[n]:
            raise verification.invariant_not_a_loop_variable(n, kind_of(value))
    options["shape_invariants"] = shapes
    return options


def static_shape(value: Any) -> Any:
    shape = getattr(value, "shape", None)
    if isinstance(value, Tensor) or isinstance(shape, tuple):
        return shape
    return np.shape(value)


def kind_of(value: Any) -> str:
    if isinstance(value, Tensor):
        return f"the tensor {value.name!r}" if is_symbolic(value) else "a tensor"
    return f"a {type(value).__name__}"


def relax(opts: dict[str, Any] | None, relaxed: list[Any]) -> dict[str, Any] | None:
    """`opts` with shape invariants for the loop variables that started as
    zeros of a shape the loop does not know (see `zeros_like_spec`)."""
    if not relaxed:
        return opts
    opts = dict(opts or {})
    opts["shape_invariants"] = [*(opts.get("shape_invariants") or ()), *relaxed]
    return opts


def relax_shapes(
    body: Callable[..., Any], loop_vars: tuple[Any, ...], options: dict[str, Any]
) -> None:
    """Gives `options` shape invariants under which the body keeps each
    tensor loop variable's shape: where one iteration changes it, the
    variable's shape in the loop becomes the most specific shape both fit
    (`rt.data.Dataset.reduce`'s rule in TensorFlow; a dataset loop over
    elements of unknown shape asks for it). One trial trace of the body per
    round; a shape only ever loses information, so the rounds end."""
    leaves = [nest.flatten(v, expand_composites=True) for v in loop_vars]
    flat = options["shape_invariants"] or [
        static_shape(leaf) for group in leaves for leaf in group
    ]
    flat = list(flat)
    starts = list(itertools.accumulate([0, *map(len, leaves)]))
    changed = False
    for _ in range(len(loop_vars) + 1):
        guesses = []
        for i, value in enumerate(loop_vars):
            if isinstance(value, Tensor) and len(leaves[i]) == 1:
                guesses.append(TypeGuess(value.dtype, flat[starts[i]]))
            else:
                guesses.append(value)
        outs = as_state(dry_run(body, guesses), len(loop_vars))
        grew = False
        for i, (guess, out) in enumerate(zip(guesses, outs)):
            if not isinstance(guess, TypeGuess) or not isinstance(out, Tensor):
                continue
            shape = flat[starts[i]]
            if shape is None or (
                is_compatible(shape, out.shape)
                and not (checks.less_specific(out.shape, shape))
            ):
                continue
            flat[starts[i]] = merge(shape, out.shape)
            grew = changed = True
        if not grew:
            break
    if changed:
        options["shape_invariants"] = flat
