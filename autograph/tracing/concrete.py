"""ConcreteFunction: one traced graph with one signature, and the tracer.

`trace` runs a Python callable once inside a fresh `rt.Graph`: tensor
arguments become placeholders named after the parameters, Python values are
passed as they are (so they act as constants of the trace), and the results
are flattened with the `runtime.nest` order and compiled by
`runtime.executor`. The `ConcreteFunction` it returns runs that plan on
NumPy values and rebuilds the result structure with eager tensors.

    >>> import numpy as np
    >>> from runtime.ops import math
    >>> from autograph.tracing.signatures import canonicalize
    >>> import inspect
    >>> def double(a):
    ...     return a + a
    >>> args = canonicalize(inspect.signature(double), (np.float32(2.0),), {})
    >>> cf = trace(double, "double", args)
    >>> print(cf)
    ConcreteFunction double(a)
      Args:
        a: float32 Tensor, shape=()
      Returns:
        float32 Tensor, shape=()
    >>> float(cf(np.float32(3.0)))
    6.0
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from autograph.impl import recursion
from autograph.tracing import pretty, variables
from autograph.tracing.signatures import (
    Identity,
    Param,
    check_value,
    contains_tensor,
    spec_structure,
    split_call,
)
from runtime import executor, nest
from runtime import optimizer as _optimizer
from runtime.context import STATE
from runtime.data.dataset import DatasetSpec
from runtime.data.dataset import argument as dataset_argument
from runtime.dtypes import FROM_NUMPY
from runtime.gradients import replay
from runtime.graph import Graph
from runtime.nest import sorted_keys
from runtime.operators import verification
from runtime.operators.backends.graph import BACKEND as GRAPH_BACKEND
from runtime.operators.staging import raising
from runtime.operators.variables import UndefinedReturnValue
from runtime.ops.tensor_array import TensorArray
from runtime.shapes import is_compatible
from runtime.tensor import EagerTensor, SymbolicTensor
from runtime.tensor_spec import TensorSpec

__all__ = ["ConcreteFunction", "register_graph_optimizer", "trace"]

# Graph optimization passes, applied in order to every trace of a Function
# created with optimize=True: fn(graph, inputs, outputs) -> (graph, inputs,
# outputs). `ConcreteFunction.graph` stays the graph as traced; the result is
# `optimized_graph`.
GraphOptimizer = Callable[
    [Graph, list[SymbolicTensor], list[SymbolicTensor]],
    tuple[Graph, list[SymbolicTensor], list[SymbolicTensor]],
]
_OPTIMIZERS: list[GraphOptimizer] = [_optimizer.optimize_traced]
_RUN_ERRORS = executor.ERRORS


def register_graph_optimizer(optimizer: GraphOptimizer) -> None:
    """Adds a pass run on each new trace of a Function with `optimize=True`."""
    if optimizer not in _OPTIMIZERS:
        _OPTIMIZERS.append(optimizer)


class ConcreteFunction:
    """A traced graph for one input signature; call it like the function.

    Attributes:
        name: The Python function's name.
        params: The traced arguments (`Param`s), in call order.
        graph: The `rt.Graph` as traced, as in TensorFlow: a `for` over a
            Python list of 10 items leaves 10 copies of its body here.
        optimized_graph: The graph that runs: `graph` after the optimization
            passes (folded, deduplicated, pruned), or `graph` itself when
            the Function was made with `optimize=False`.
        inputs: The placeholders of `optimized_graph`, in feed order.
        outputs: The flat output tensors of `optimized_graph`.
        structured_outputs: The returned structure, with graph tensors.
    """

    def __init__(
        self,
        name: str,
        params: Sequence[Param],
        graph: Graph,
        inputs: list[SymbolicTensor],
        structured_outputs: Any,
        outputs: list[SymbolicTensor],
        *,
        optimize: bool = False,
    ) -> None:
        self.name = name
        self.params = tuple(params)
        self.graph = graph
        self.structured_outputs = structured_outputs
        if optimize and _OPTIMIZERS:
            for optimizer in _OPTIMIZERS:
                graph, inputs, outputs = optimizer(graph, list(inputs), list(outputs))
        self.optimized_graph = graph
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self._compiled = executor.compile(graph, self.inputs, self.outputs)
        self._fn = self._compiled.fn
        self._pack = _packer(structured_outputs)
        self._positional = [p for p in self.params if p.kind == "positional"]
        self._tensor_first = [p for p in self._positional if contains_tensor(p.spec)]
        self._tensor_first += [
            p for p in self._positional if not contains_tensor(p.spec)
        ]
        self._by_name = {p.name: p for p in self.params}
        # When every argument is one positional tensor: their specs, for the
        # fast path of calls with eager tensors that fit them.
        self._flat_specs: list[TensorSpec] | None = None
        if all(p.kind == "positional" and type(p.spec) is TensorSpec for p in params):
            self._flat_specs = [p.spec for p in self.params]
        self._fix = (
            f"this ConcreteFunction was traced for {pretty.header(name, self.params)}; "
            "call the Function (or get_concrete_function) to trace another signature"
        )

    # -- calling ---------------------------------------------------------------

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Runs the graph; arguments are checked against this signature.

        Python-valued arguments may be left out (they keep their traced
        values); when they are passed, they must equal them.

        Raises:
            TypeError: A missing or unexpected argument, a wrong dtype or
                kind of value, or a Python value other than the traced one.
            ValueError: A tensor shape incompatible with the traced one.
        """
        specs = self._flat_specs
        if specs is not None and not kwargs and len(args) == len(specs):
            feeds = fast_feeds(args, specs)
            if feeds is not None and not STATE.tapes:
                return self.compiled_call(feeds)
        values = self._bind(self._positional, args, kwargs)
        if values is None:
            values = self._bind(self._tensor_first, args, kwargs)
        if values is None:
            self._bind(self._positional, args, kwargs, strict=True)
        feeds: list[Any] = []
        for p in self.params:
            value = values[p.name]  # type: ignore[index]
            check_value(self.name, p.name, p.spec, value, feeds, self._fix)
        if STATE.tapes:  # a GradientTape is recording: run the graph op by op
            return self._taped_call(feeds, args, kwargs)
        return self.compiled_call(feeds)

    def _bind(
        self,
        order: list[Param],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        strict: bool = False,
    ) -> dict[str, Any] | None:
        """Name -> value for a call, or None (TypeError if `strict`)."""
        problem = None
        values: dict[str, Any] = {}
        if len(args) > len(order):
            problem = (
                f"takes {len(order)} positional arguments but {len(args)} were given"
            )
        else:
            for p, value in zip(order, args):
                values[p.name] = value
            for key, value in kwargs.items():
                if key not in self._by_name:
                    problem = f"got an unexpected keyword argument {key!r}"
                    break
                if key in values:
                    problem = f"got multiple values for argument {key!r}"
                    break
                values[key] = value
        if problem is None:
            for p in self.params:
                if p.name not in values:
                    if contains_tensor(p.spec):
                        problem = f"missing the tensor argument {p.name!r}"
                        break
                    values[p.name] = _traced_value(p.spec)
        if problem is None:
            return values
        if strict:
            raise TypeError(f"{self.name}() {problem}; {self._fix}")
        return None

    def compiled_call(self, feeds: list[Any]) -> Any:
        """Runs the plan on the NumPy values of the tensor arguments (one per
        input: the caller checked them)."""
        try:
            outs = self._fn(*feeds)
        except _RUN_ERRORS as e:
            raise self._compiled.locate(e) from e
        return self._pack(outs)

    def _taped_call(
        self, feeds: list[Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        """Runs the graph op by op (`rt.gradients.replay`) while a
        GradientTape records: the call is differentiable with respect to the
        argument tensors (found by their values among `feeds`) and the
        variables the graph reads, as if its ops had run eagerly."""
        by_value = {
            id(t.numpy_value): t
            for t in nest.flatten((args, kwargs))
            if type(t) is EagerTensor
        }
        inputs = [by_value.get(id(f)) for f in feeds]
        inputs = [EagerTensor(f) if t is None else t for t, f in zip(inputs, feeds)]
        outputs = iter(replay(self.optimized_graph, inputs, self.outputs))
        return _map_tensors(self.structured_outputs, lambda t: next(outputs))

    # -- reading ---------------------------------------------------------------

    @property
    def structured_input_signature(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """(positional specs, keyword specs), Python values as themselves."""
        args = tuple(p.spec for p in self.params if p.kind == "positional")
        kwargs = {p.name: p.spec for p in self.params if p.kind == "keyword"}
        return args, kwargs

    @property
    def output_specs(self) -> Any:
        """`structured_outputs` with each tensor replaced by its `TensorSpec`."""
        return _map_tensors(self.structured_outputs, TensorSpec.from_tensor)

    @property
    def unoptimized_graph(self) -> Graph:
        """The graph as traced: the same as `graph` (the older name)."""
        return self.graph

    @property
    def variables(self) -> list[Any]:
        """The `rt.Variable`s the graph reads or writes."""
        return list(self.optimized_graph.variables.values())

    def pretty_printed_signature(self, verbose: bool = True) -> str:
        """The signature in the guides' layout (just the header if not verbose)."""
        if not verbose:
            return pretty.header(self.name, self.params)
        return pretty.signature_text(self.name, self.params, self.structured_outputs)

    def __str__(self) -> str:
        return f"ConcreteFunction {self.pretty_printed_signature()}"

    def __repr__(self) -> str:
        header = pretty.header(self.name, self.params)
        return f"<ConcreteFunction {header} at 0x{id(self):X}>"


def fast_feeds(args: Sequence[Any], specs: Sequence[Any]) -> list[Any] | None:
    """The NumPy values of eager tensors that fit `specs` (flat), or None."""
    feeds = []
    for value, spec in zip(args, specs):
        if type(value) is not EagerTensor or type(spec) is not TensorSpec:
            return None
        array = value.numpy_value
        if FROM_NUMPY.get(array.dtype) is not spec.dtype or not is_compatible(
            spec.shape, array.shape
        ):
            return None
        feeds.append(array)
    return feeds


def _traced_value(spec: Any) -> Any:
    """The value a Python-valued argument had when traced."""
    if type(spec) is Identity:
        return spec.ref()
    if nest.is_nested(spec):
        return nest.map_structure(_traced_value, spec)
    return spec


def _map_tensors(structure: Any, fn: Callable[[Any], Any]) -> Any:
    """`structure` with `fn(t)` for each tensor `t` (in `nest.flatten`'s
    order); other leaves stay."""
    return nest.map_structure(
        lambda v: fn(v) if isinstance(v, SymbolicTensor) else v, structure
    )


def _packer(structure: Any) -> Callable[[list[Any]], Any]:
    """A function rebuilding `structure` from the flat NumPy outputs."""
    if isinstance(structure, SymbolicTensor):
        return lambda outs: EagerTensor(outs[0])
    if structure is None:
        return lambda outs: None
    if type(structure) is tuple and all(
        isinstance(s, SymbolicTensor) for s in structure
    ):
        return lambda outs: tuple([EagerTensor(o) for o in outs])

    def pack(outs: list[Any]) -> Any:
        values = iter(outs)
        return _map_tensors(structure, lambda t: EagerTensor(next(values)))

    return pack


# -- tracing -------------------------------------------------------------------------


def trace(
    call: Callable[..., Any],
    name: str,
    arguments: Sequence[tuple[str, str, Any, bool]],
    *,
    allow_variables: bool = True,
    check_trace: bool = False,
    optimize: bool = False,
) -> ConcreteFunction:
    """Traces `call` on canonical arguments into a new `ConcreteFunction`.

    Args:
        call: What to run while the graph is the default (the converted
            function, or the original when autograph is off).
        name: The function's name (for the graph, signatures and messages).
        arguments: `(name, kind, value, is_default)` per argument, as
            `signatures.canonicalize` gives them; tensor leaves (eager
            tensors, NumPy values or `TensorSpec`s) become placeholders.
        allow_variables: False if this function was traced before: creating
            a `Variable` then raises ValueError. When True, a Variable's
            initial value may be computed from the arguments (it is, from
            the values given, before this returns).
        check_trace: This is the second trace of the first call, made
            because the first created Variables (for the message).
        optimize: Whether to run the registered graph optimizer passes.

    Raises:
        ValueError: If the trace created a Variable and `allow_variables` is
            False.
        TypeError: If the function returned something that is not a tensor,
            a Python scalar, None, or a tuple/list/dict of those.
    """
    params = [Param(n, kind, spec_structure(v), d) for n, kind, v, d in arguments]
    graph = Graph(name)
    # A Variable may take its initial value from the arguments; a trace that
    # may not create Variables is refused below, before any is computed.
    graph.lifts_initializers = True
    inputs: list[SymbolicTensor] = []
    given: list[Any] = []
    with graph.as_default():
        values = [
            (p.name, p.kind, _feed_value(v, p.spec, graph, p.name, (inputs, given)))
            for p, (_, _, v, _) in zip(params, arguments)
        ]
        args, kwargs = split_call(values)
        # Converted calls cost a few frames where Python's cost one: a
        # recursion depth Python reaches must trace (impl/recursion.py).
        recursion.deeper(+1)
        try:
            result = call(*args, **kwargs)
        except Exception as error:
            # The user's code caught a refusal and raised something else.
            if graph.refusals:
                raise graph.refusals[0]  # noqa: B904 (the user's error: context)
            if not _raised_when_run(graph, error):
                raise
            result = None  # (never returned: every run raises first)
        finally:
            recursion.deeper(-1)
        if graph.refusals:  # raised while tracing, but caught by user code
            raise graph.refusals[0]
        if type(result) is UndefinedReturnValue:
            # No traced path set the return value: every run of the graph
            # raises before it returns (a branch that raises), or leaves
            # without one.
            result = None
        structured = _graph_outputs(name, result, graph)
    if graph.created_variables and not allow_variables:
        header = pretty.header(name, params)
        variables.refuse_creation(name, header, graph, first_call=check_trace)
    if graph.initializers:
        variables.initialize(name, graph, inputs, given)
    flat = [t for t in nest.flatten(structured) if isinstance(t, SymbolicTensor)]
    return ConcreteFunction(
        name, params, graph, inputs, structured, flat, optimize=optimize
    )


def _raised_when_run(graph: Graph, error: Exception) -> bool:
    """Stages `error`, which the function's own code raised on the traced
    path outside any graph statement, to be raised when the graph runs
    there, if the graph has an effect before it (a raise a graph `if` or
    loop may make first, a checked read, a print): Python raises `error`
    only on the runs that get there. A graph with no effect before it
    raises it on every run, so the trace raises it at once (as TF does)."""
    if not graph.is_stateful or not verification.raised_on_path(error):
        return False
    refusal = raising.replaced_in_finally(error, GRAPH_BACKEND.program)
    if refusal is not None:  # (the graph would raise the `try`'s error first)
        raise refusal from error
    where = raising.deepest_user_line(error)
    at = f" (at {where.filename}:{where.lineno})" if where is not None else ""
    GRAPH_BACKEND.raise_at_run(error, f"{error}{at}")
    if where is not None:  # (not the line that called the function)
        graph.get_operations()[-1].location = where
    return True


def _feed_value(
    value: Any,
    spec: Any,
    graph: Graph,
    name: str,
    inputs: tuple[list[SymbolicTensor], list[Any]],
) -> Any:
    """What the function sees: placeholders for tensor leaves, else the value.

    `inputs` collects the placeholders and, beside them, the values given."""
    if type(spec) is TensorSpec:
        placeholder = graph.placeholder(spec.dtype, spec.shape, name)
        inputs[0].append(placeholder)
        inputs[1].append(value)
        return placeholder
    if type(spec) is DatasetSpec:
        placeholder = graph.placeholder(spec.dtype, spec.shape, name)
        inputs[0].append(placeholder)
        inputs[1].append(None)
        return dataset_argument(placeholder, spec)
    if not contains_tensor(spec):
        return value
    if isinstance(spec, Mapping):
        done = {
            k: _feed_value(value[k], spec[k], graph, name, inputs)
            for k in sorted_keys(spec)
        }
        items = {k: done[k] for k in value}
        return items if type(value) is dict else type(value)(items)
    items = [_feed_value(v, s, graph, name, inputs) for v, s in zip(value, spec)]
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):
        return type(value)(*items)
    return items if type(value) is list else type(value)(items)


def _graph_outputs(name: str, value: Any, graph: Graph) -> Any:
    """The returned structure with every leaf a tensor of `graph` (or None)."""

    def output(path: tuple[Any, ...], leaf: Any) -> Any:
        if leaf is None or (type(leaf) is SymbolicTensor and leaf.graph is graph):
            return leaf
        try:
            return graph.convert(leaf)
        except (TypeError, ValueError):
            if isinstance(leaf, SymbolicTensor):
                raise  # a graph tensor of another graph: the error says where from
            where = f" at {_path_text(value, path)}" if path else ""
            text = repr(leaf)
            text = text if len(text) <= 60 else text[:57] + "..."
            hint = ""
            if isinstance(leaf, TensorArray):
                hint = leaf._return_advice()
            raise TypeError(
                f"{name}() returned {text}{where}, a {type(leaf).__name__}, which "
                "is not a tensor: a Function can return tensors, Variables, Python "
                f"scalars, None, and tuples, lists and dicts of them{hint}"
            ) from None

    return nest.map_structure_with_paths(output, value)


def _path_text(structure: Any, path: tuple[Any, ...]) -> str:
    """A `nest` path as code reads it: `[0]['k'].field`."""
    parts = []
    for step in path:
        if isinstance(structure, tuple) and hasattr(type(structure), "_fields"):
            parts.append(f".{structure._fields[step]}")
        elif isinstance(structure, Mapping):
            parts.append(f"[{step!r}]")
        else:
            parts.append(f"[{step}]")
        structure = structure[step]
    return "".join(parts)
