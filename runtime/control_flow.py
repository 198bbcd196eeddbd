"""`cond` and `while_loop`: Python control flow, or one graph node.

    >>> import runtime as rt
    >>> rt.cond(rt.constant(True), lambda: 1, lambda: 2)
    1
    >>> rt.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s + i), (0, 0))
    (3, 3)

Eagerly (a `pred` that is not a graph tensor; no graph being built for
`while_loop`) each runs exactly its plain-Python equivalent, given at the top
of its docstring. While a graph is being built they trace their functions
into subgraphs and add one node, `cond` or `while`, whose attrs hold the
subgraphs. Messages name the user's variables when `names` is given
(parallel to the top-level outputs / loop variables, or to their flattened
leaves); otherwise they count positions (`output 0`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from runtime import control_flow_checks as checks
from runtime import dtypes, nest
from runtime.context import STATE
from runtime.graph import Graph, Operation
from runtime.op_registry import OpDef, apply, register, weak_dtype
from runtime.shapes import as_shape, merge
from runtime.tensor import SymbolicTensor, is_symbolic, is_weak

__all__ = ["cond", "while_loop"]

_PASSTHROUGH = object()
_PENDING = object()


def _if_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[Any]:
    pairs = zip(attrs["then_branch"].outputs, attrs["else_branch"].outputs)
    return [(a.dtype, merge(a.shape, b.shape)) for a, b in pairs]


def _while_rule(inputs: Sequence[Any], attrs: dict[str, Any]) -> list[Any]:
    loop_vars = attrs["body"].inputs[: attrs["num_loop_vars"]]
    specs = [(p.dtype, p.shape) for p in loop_vars]
    if attrs.get("record"):
        # A loop a GradientTape recorded also returns its iterations' loop
        # variables (a list), for its gradient (`runtime.gradients`).
        specs.append((dtypes.variant, ()))
    return specs


# The executor runs these itself, inlining their subgraphs (kernel None).
register(OpDef("If", _if_rule, None, default_name="cond"))
register(OpDef("While", _while_rule, None, default_name="while"))


def cond(
    pred: Any,
    true_fn: Callable[[], Any],
    false_fn: Callable[[], Any],
    *,
    names: Sequence[str] | None = None,
    python_numbers: bool = False,
) -> Any:
    """Runs one of two branches; a graph `cond` node for a graph-tensor `pred`.

    The plain-Python equivalent (what runs unless `pred` is a graph tensor)::

        if pred:
            return true_fn()
        else:
            return false_fn()

    For a graph tensor, both functions are traced into subgraphs; they must
    return the same structure, with the same dtype at each position (shapes
    may differ: the result gets None for the dimensions that do). Effects in a
    branch (`rt.print`, variable writes) run only when that branch runs.
    With `python_numbers` (autograph's `if`, Python semantics), two Python
    numbers at one position take the wider type (`1` and `2.5`: float32),
    where TensorFlow's `tf.cond` raises.

    Raises:
        TypeError: A non-bool `pred`; dtypes that differ between branches.
        ValueError: A non-scalar `pred`; structures that differ.
    """
    if not is_symbolic(pred):
        if pred:
            return true_fn()
        else:
            return false_fn()
    return _graph_cond(pred, true_fn, false_fn, names, python_numbers)


def while_loop(
    cond: Callable[..., Any],
    body: Callable[..., Any],
    loop_vars: Any,
    maximum_iterations: Any = None,
    *,
    names: Sequence[str] | None = None,
    shape_invariants: Sequence[Any] | None = None,
) -> Any:
    """Repeats `body` while `cond` holds; one graph `while` node in a graph.

    The plain-Python equivalent (what runs when no graph is being built)::

        i = 0
        while (maximum_iterations is None or i < maximum_iterations) and cond(
            *loop_vars
        ):
            loop_vars = body(*loop_vars)
            i += 1
        return loop_vars

    `loop_vars` is a tuple or list (a single value is also accepted and
    passed as the one argument). While a graph is being built, Python values
    among the loop variables become tensors when the loop starts; the body
    must keep each variable's structure, dtype and shape (`shape_invariants`,
    parallel to the flattened loop variables, may relax shapes with None).
    TensorArrays are loop variables too (through their handle).

    Raises:
        TypeError: A loop variable changes dtype; a non-bool condition.
        ValueError: A loop variable changes shape or structure, or is None.
    """
    graph = STATE.graph
    if graph is None:
        single = not isinstance(loop_vars, (list, tuple))
        values = (loop_vars,) if single else loop_vars
        limit = None if maximum_iterations is None else int(maximum_iterations)
        i = 0
        while (limit is None or i < limit) and cond(*values):
            values = body(*values)
            if single or (
                len(loop_vars) == 1 and not isinstance(values, (list, tuple))
            ):
                values = (values,)
            i += 1
        return values[0] if single else values
    return _graph_while(
        graph, cond, body, loop_vars, maximum_iterations, names, shape_invariants
    )


def _convert(graph: Graph, value: Any, hint: dtypes.DType | None) -> SymbolicTensor:
    with graph.as_default():
        return graph.convert(value, None, hint)


def _union_captures(outer: Graph, graphs: Sequence[Graph]) -> list[SymbolicTensor]:
    """The outer tensors any of `graphs` captured; every graph gets them all."""
    seen: dict[int, SymbolicTensor] = {}
    for g in graphs:
        for outer_tensor, _ in g.captures:
            seen.setdefault(id(outer_tensor), outer_tensor)
    captured = list(seen.values())
    for g in graphs:
        for t in captured:
            g.capture(t)
    return captured


def _placeholders_for(
    graph: Graph, captured: list[SymbolicTensor]
) -> list[SymbolicTensor]:
    # Each was captured above: `capture` answers from the graph's cache.
    return [graph.capture(t) for t in captured]


# -- cond ------------------------------------------------------------------


def _graph_cond(
    pred: Any,
    true_fn: Callable[[], Any],
    false_fn: Callable[[], Any],
    names: Sequence[str] | None,
    python_numbers: bool = False,
) -> Any:
    outer = STATE.graph
    checks.check_graph_built(pred, outer)
    pred = outer.convert(pred)
    checks.check_predicate(pred, "rt.cond")
    branches = []
    for label, fn in (("then_branch", true_fn), ("else_branch", false_fn)):
        g = Graph(label, outer_graph=outer)
        with g.as_default():
            # Its containers as they are now: the other branch, traced next,
            # may change a list or dict this one returns.
            raw = fn()
            branches.append((g, raw, nest.map_structure(_same, raw)))
    (then_g, then_raw, then_out), (else_g, else_raw, else_out) = branches
    checks.check_same_structure(then_out, else_out, names)
    then_flat = nest.flatten_with_paths(then_out, expand_composites=True)
    else_flat = [
        v for _, v in nest.flatten_with_paths(else_out, expand_composites=True)
    ]
    labels = checks.leaf_names(then_out, [p for p, _ in then_flat], names, "output")
    results: list[Any] = []
    specs = []
    for label, (_, a), b in zip(labels, then_flat, else_flat):
        pair = _branch_outputs(then_g, else_g, a, b, label, python_numbers)
        if pair is _PASSTHROUGH:
            results.append(a)
            continue
        ta, tb = pair
        then_g.outputs.append(ta)
        else_g.outputs.append(tb)
        specs.append((ta.dtype, merge(ta.shape, tb.shape)))
        # (Weak where both branches give a weak value or a Python number:
        # `count + 1 if v > 0 else count`.)
        results.append(_WEAK if _weak_or_number(a) and _weak_or_number(b) else _PENDING)
    captured = _union_captures(outer, (then_g, else_g))
    name = outer.unique_name("cond")
    for g in (then_g, else_g):
        g.inputs = _placeholders_for(g, captured)
        g.name = f"{name}/{g.name}"
    op = outer.create_op(
        "If",
        [pred, *captured],
        {"then_branch": then_g, "else_branch": else_g},
        name=name,
        name_is_unique=True,
        specs=specs,
        stateful=then_g.is_stateful or else_g.is_stateful,
    )
    outputs = iter(op.outputs)
    leaves = [_output(outputs, r) if r in (_PENDING, _WEAK) else r for r in results]
    packed = nest.pack_sequence_as(then_out, leaves, expand_composites=True)
    return nest.keep_shared(packed, then_raw, else_raw, then_out, else_out)


_WEAK = object()  # (a cond output that is weak: `_weak_or_number`)


def _output(outputs: Any, result: Any) -> SymbolicTensor:
    out = next(outputs)
    if result is _WEAK and (out.dtype.is_integer or out.dtype.is_floating):
        out.weak = True
    return out


def _as_float_beside(graph: Graph, value: Any, other: Any) -> Any:
    """`value`, cast in `graph` to the float it takes beside `other`
    (`op_registry.weak_dtype`, the ops' rule: a Python float's float32, a
    float tensor's dtype), where it is a weak int (`SymbolicTensor.weak`):
    `return 9.0` in one branch and `return v` of a counter in the other."""
    if not (is_weak(value) and value.dtype.is_integer):
        return value
    to = weak_dtype([value, other])
    if to is None or not to.is_floating:
        return value
    with graph.as_default():
        out = apply("Cast", (value,), {"dtype": to})
    out.weak = True
    return out


def _weak_or_number(value: Any) -> bool:
    """Whether a branch's value is weak (`SymbolicTensor.weak`) or a Python
    int or float, whose op output then stands for a Python number too."""
    return type(value) in (int, float) or is_weak(value)


# Python's numeric tower: `x = 1` in one branch and `x = 2.5` in the other
# give a float (`cond(..., python_numbers=True)`).
_NUMBER_RANK = {bool: 1, int: 2, float: 3, complex: 4}


def _same(value: Any) -> Any:
    return value


def _branch_outputs(
    then_g: Graph, else_g: Graph, a: Any, b: Any, label: str, python_numbers: bool
) -> Any:
    if a is None and b is None:
        return _PASSTHROUGH
    checks.check_both_branches_set(a, b, label)
    if a is b and (not checks.convertible(a) or type(a) is bool):
        # Not a tensor, or the same Python bool whichever branch runs (a jump
        # flag neither branch sets): the value passes through unchanged.
        return _PASSTHROUGH
    checks.check_cond_outputs(a, b, label)
    if python_numbers:  # (a weak int beside a float is a float, as in Python)
        a, b = _as_float_beside(then_g, a, b), _as_float_beside(else_g, b, a)
    typed_a, typed_b = checks.is_typed(a), checks.is_typed(b)
    wider_b = python_numbers and _NUMBER_RANK.get(type(b), 0) > _NUMBER_RANK.get(
        type(a), 0
    )
    if typed_a or (not typed_b and not wider_b):
        ta = _convert(then_g, a, None)
        tb = _convert(else_g, b, ta.dtype)
    else:  # the typed value, or the wider Python number, sets the dtype
        tb = _convert(else_g, b, None)
        ta = _convert(then_g, a, tb.dtype)
    checks.check_branch_dtypes(ta, tb, label)
    return ta, tb


# -- while_loop ------------------------------------------------------------


def _graph_while(
    outer: Graph,
    cond_fn: Callable[..., Any],
    body_fn: Callable[..., Any],
    loop_vars: Any,
    maximum_iterations: Any,
    names: Sequence[str] | None,
    shape_invariants: Sequence[Any] | None,
) -> Any:
    single = not isinstance(loop_vars, (list, tuple))
    structure = (loop_vars,) if single else loop_vars
    flat = nest.flatten_with_paths(structure, expand_composites=True)
    labels = _loop_labels(structure, flat, names)
    inits = [_loop_init(outer, v, label) for label, (_, v) in zip(labels, flat)]
    shapes = _loop_shapes(labels, inits, shape_invariants)
    placeholders = [_placeholder_name(names, n, flat) for n in range(len(flat))]
    cond_g = _loop_graph("cond", outer, inits, shapes, placeholders)
    body_g = _loop_graph("body", outer, inits, shapes, placeholders)
    # A Python int is carried as a weak int (`SymbolicTensor.weak`): `total
    # / n` is a float division, as in Python.
    weak = [i for i, (_, v) in enumerate(flat) if type(v) is int or is_weak(v)]
    for i in weak:
        cond_g.inputs[i].weak = body_g.inputs[i].weak = True
    loop_inputs = {id(g): list(g.inputs) for g in (cond_g, body_g)}
    _trace_loop_cond(cond_g, structure, cond_fn)
    result = _trace_loop_body(body_g, structure, body_fn, labels, inits, shapes, names)
    op = _while_op(
        outer, cond_g, body_g, loop_inputs, inits, shapes, maximum_iterations
    )
    outputs = list(op.outputs[: len(inits)])
    for i in weak:
        outputs[i].weak = True
    packed = nest.pack_sequence_as(result, outputs, expand_composites=True)
    return packed[0] if single else packed


def _loop_labels(
    structure: Any, flat: list[Any], names: Sequence[str] | None
) -> list[str]:
    """How messages name each flat loop variable."""
    return [
        # Not for a description ("the loop's `break` condition").
        n if n.startswith(("loop variable", "the ")) else f"loop variable {n}"
        for n in checks.leaf_names(
            structure, [p for p, _ in flat], names, "loop variable"
        )
    ]


def _loop_shapes(
    labels: list[str],
    inits: list[SymbolicTensor],
    shape_invariants: Sequence[Any] | None,
) -> list[Any]:
    """Each loop variable's shape in the loop: its initial shape, or its
    shape invariant (which the initial value must fit)."""
    checks.check_invariant_count(shape_invariants, len(inits))
    shapes = [
        t.shape if shape_invariants is None else as_shape(shape_invariants[i])
        for i, t in enumerate(inits)
    ]
    for label, t, shape in zip(labels, inits, shapes):
        checks.check_fits_invariant(t, shape, label)
    return shapes


def _loop_graph(
    label: str,
    outer: Graph,
    inits: list[SymbolicTensor],
    shapes: list[Any],
    placeholders: list[str],
) -> Graph:
    """The (empty) cond or body graph, with one placeholder per loop variable."""
    g = Graph(label, outer_graph=outer)
    for t, shape, name in zip(inits, shapes, placeholders):
        g.placeholder(t.dtype, shape, name)
    return g


def _trace_loop_cond(
    cond_g: Graph, structure: Any, cond_fn: Callable[..., Any]
) -> None:
    with cond_g.as_default():
        args = nest.pack_sequence_as(structure, cond_g.inputs, expand_composites=True)
        test = cond_g.convert(cond_fn(*args), None, dtypes.bool_)
    checks.check_predicate(test, "rt.while_loop")
    cond_g.outputs = [test]


def _trace_loop_body(
    body_g: Graph,
    structure: Any,
    body_fn: Callable[..., Any],
    labels: list[str],
    inits: list[SymbolicTensor],
    shapes: list[Any],
    names: Sequence[str] | None,
) -> Any:
    """Traces `body_fn` into `body_g`; its result (the loop variables'
    structure, as the body returns it)."""
    with body_g.as_default():
        args = nest.pack_sequence_as(structure, body_g.inputs, expand_composites=True)
        result = body_fn(*args)
        if len(structure) == 1 and not isinstance(result, (list, tuple)):
            result = (result,)
        checks.check_body_structure(structure, result, names)
        new_flat = [
            v for _, v in nest.flatten_with_paths(result, expand_composites=True)
        ]
        body_g.outputs = [
            _body_output(body_g, value, t, shape, label)
            for label, value, t, shape in zip(labels, new_flat, inits, shapes)
        ]
    return result


def _while_op(
    outer: Graph,
    cond_g: Graph,
    body_g: Graph,
    loop_inputs: dict[int, list[SymbolicTensor]],
    inits: list[SymbolicTensor],
    shapes: list[Any],
    maximum_iterations: Any,
) -> Operation:
    """The `While` op in `outer`: the subgraphs' captures become inputs of
    both, after the loop variables (and before the iteration limit)."""
    graphs = (cond_g, body_g)
    captured = _union_captures(outer, graphs)
    name = outer.unique_name("while")
    for g in graphs:
        g.inputs = loop_inputs[id(g)] + _placeholders_for(g, captured)
        g.name = f"{name}/{g.name}"
    inputs = [*inits, *captured]
    if maximum_iterations is not None:
        limit = outer.convert(maximum_iterations, None, dtypes.int32)
        checks.check_maximum_iterations(limit)
        inputs.append(limit)
    return outer.create_op(
        "While",
        inputs,
        {
            "cond": cond_g,
            "body": body_g,
            "num_loop_vars": len(inits),
            "has_maximum_iterations": maximum_iterations is not None,
        },
        name=name,
        name_is_unique=True,
        specs=[(t.dtype, shape) for t, shape in zip(inits, shapes)],
        stateful=cond_g.is_stateful or body_g.is_stateful,
    )


def _placeholder_name(names: Sequence[str] | None, n: int, flat: list[Any]) -> str:
    if names and len(names) == len(flat) and names[n].isidentifier():
        return names[n]
    return "loop_var"


def _loop_init(outer: Graph, value: Any, label: str) -> SymbolicTensor:
    checks.check_loop_init(value, label)
    return outer.convert(value)


def _body_output(
    body_g: Graph, value: Any, init: SymbolicTensor, shape: Any, label: str
) -> SymbolicTensor:
    checks.check_body_value(value, label)
    out = body_g.convert(value, None, init.dtype)
    checks.check_body_output(out, init, shape, label)
    return out
