"""Graphs of operations, built by running ops while a graph is the default.

    >>> import runtime as rt
    >>> g = rt.Graph()
    >>> with g.as_default():
    ...     x = g.placeholder(rt.float32, (None, 3), "x")
    ...     y = x * 2.0 + 1.0
    >>> y
    <rt.Tensor 'add:0' shape=(None, 3) dtype=float32>
    >>> [op.name for op in g.get_operations()]
    ['x', 'const', 'mul', 'const_1', 'add']

A node is (op type, inputs, attrs), the type naming an entry of
`runtime.op_registry`. Each `Operation` also records its control inputs (the
automatic control dependencies that keep effects in program order) and the
user's `file:line` that created it. `cond`/`while` nodes keep their branch and
body functions as `Graph` attrs; such a subgraph has an `outer_graph`, and a
tensor of an outer graph used inside it is *captured*: the subgraph gets a
placeholder for it and the `cond`/`while` node an extra input.
"""

from __future__ import annotations

import contextlib
import linecache
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any

from runtime import context, dtypes
from runtime import op_registry as registry
from runtime.errors import OpError
from runtime.shapes import Shape, as_shape
from runtime.source_locations import (
    SourceLocation,
    keep_refusal,
    raised_by_user,
    user_location,
)
from runtime.tensor import EagerTensor, SymbolicTensor

__all__ = [
    "Graph",
    "Operation",
    "SourceLocation",
    "get_default_graph",
    "keep_refusal",
    "raised_by_user",
    "user_location",
]

get_default_graph = context.get_default_graph


class Operation:
    """One node: `type(inputs, **attrs) -> outputs`.

    Attributes:
        name: Unique within its graph (`add`, `add_1`, `cond`, `while`).
        type: The op type, a key of `runtime.op_registry`.
        inputs: The tensors it reads, all of its own graph.
        attrs: Static parameters (plain data; subgraphs for cond/while).
        outputs: Its result tensors.
        control_inputs: Operations that must run before it.
        location: Where user code created it, or None.
        graph: The graph it belongs to.
        stateful: True if it must run even when its outputs are unused.
    """

    __slots__ = (
        "attrs",
        "control_inputs",
        "graph",
        "inputs",
        "location",
        "name",
        "opdef",
        "outputs",
        "stateful",
        "type",
    )

    def __init__(
        self,
        graph: Graph,
        opdef: registry.OpDef,
        name: str,
        inputs: tuple[SymbolicTensor, ...],
        attrs: dict[str, Any],
        specs: Sequence[tuple[dtypes.DType, Shape]],
        control_inputs: list[Operation],
        location: SourceLocation | None,
        stateful: bool,
    ) -> None:
        self.graph = graph
        self.opdef = opdef
        self.type = opdef.name
        self.name = name
        self.inputs = inputs
        self.attrs = attrs
        self.control_inputs = control_inputs
        self.location = location
        self.stateful = stateful
        self.outputs = tuple(
            SymbolicTensor(self, i, dtype, shape)
            for i, (dtype, shape) in enumerate(specs)
        )

    @property
    def traceback_line(self) -> str | None:
        """`file:line` of the user code that created this op, or None."""
        return None if self.location is None else str(self.location)

    def __repr__(self) -> str:
        return f"<rt.Operation {self.name!r} type={self.type}>"


class _Lookup:
    """Default of `Graph.create_op(location=...)`: find it on the stack."""


class Graph:
    """A dataflow graph: operations in creation order.

    Args:
        name: A label for dumps and DOT output.
        outer_graph: For a cond branch or loop body, the graph it is nested
            in; tensors of outer graphs are captured as placeholders.

    Attributes:
        inputs: Placeholders that receive the inputs (for subgraphs: loop
            variables, then captures).
        outputs: The tensors a subgraph returns.
        captures: (outer tensor, placeholder here) pairs, in capture order.
        variables: id -> `Variable` for every variable an op here touches.
        created_variables: Variables created while this graph was the default.
        lifts_initializers: A `Function`'s first trace: a Variable created
            here may take an initial value computed from this graph's
            tensors (`rt.Variable(2.0 * x)`); the tracer computes it from
            the first call's arguments.
        initializers: (Variable, initial-value tensor of this graph) pairs
            waiting for that computation.
        refusals: Errors that make the graph wrong to run, raised while it
            was built (the tracer raises the first even if user code caught
            it while tracing; see `keep_refusal`).
        isolated: A scratch graph (a trial trace): refusals raised while it
            is built stay on it.
    """

    def __init__(self, name: str = "graph", *, outer_graph: Graph | None = None):
        self.name = name
        self.outer_graph = outer_graph
        self.inputs: list[SymbolicTensor] = []
        self.outputs: list[SymbolicTensor] = []
        self.captures: list[tuple[SymbolicTensor, SymbolicTensor]] = []
        self.variables: dict[int, Any] = {}
        self.created_variables: list[Any] = []
        self.lifts_initializers = False
        self.initializers: list[tuple[Any, SymbolicTensor]] = []
        self.refusals: list[Exception] = []
        self.isolated = False
        self._ops: list[Operation] = []
        self._by_name: dict[str, Operation] = {}
        self._name_counts: dict[str, int] = {}
        self._taken: set[str] = set()
        self._scope = ""  # the name scope's prefix, "block/" (see `name_scope`)
        self._captured: dict[int, SymbolicTensor] = {}
        self._eager_consts: dict[int, tuple[Any, SymbolicTensor]] = {}
        self._last_stateful: Operation | None = None
        self._last_write: dict[int, Operation] = {}
        self._reads_since_write: dict[int, list[Operation]] = {}
        self.is_stateful = False

    # -- building ------------------------------------------------------------

    def as_default(self) -> AbstractContextManager[Graph]:
        """Ops created inside the `with` block are added to this graph."""
        return context.push(self)

    def unique_name(self, base: str) -> str:
        """`base`, or `base_1`, `base_2`, ... if taken; the name is reserved.

        Inside `name_scope("block")` the name is `block/base`.
        """
        base = self._scope + base
        count = self._name_counts.get(base)
        if count is None and base not in self._taken:
            self._name_counts[base] = 0
            self._taken.add(base)
            return base
        count = count or 0
        while True:
            count += 1
            name = f"{base}_{count}"
            if name not in self._taken:
                self._name_counts[base] = count
                self._taken.add(name)
                return name

    @contextlib.contextmanager
    def name_scope(self, name: str) -> Iterator[str]:
        """Names of ops created in the block start with `name/` (`rt.name_scope`).

        A scope name used again in the same scope gets a suffix (`block_1/`).
        """
        previous = self._scope
        self._scope = self.unique_name(name) + "/"
        try:
            yield self._scope
        finally:
            self._scope = previous

    def placeholder(
        self, dtype: dtypes.DType | str, shape: Any = None, name: str | None = None
    ) -> SymbolicTensor:
        """A graph input of `dtype` and static `shape` (None dims: any size).

        Appends it to `self.inputs`.
        """
        dtype = dtypes.as_dtype(dtype)
        shape = as_shape(shape)
        attrs = {"dtype": dtype, "shape": shape}
        op = self.create_op("Placeholder", (), attrs, name=name or "placeholder")
        tensor = op.outputs[0]
        self.inputs.append(tensor)
        return tensor

    def constant(self, value: Any, name: str | None = None) -> SymbolicTensor:
        """A `Const` node holding the NumPy value `value`."""
        dtype = dtypes.from_numpy(value.dtype)
        op = self.create_op("Const", (), {"value": value, "dtype": dtype}, name=name)
        return op.outputs[0]

    def create_op(
        self,
        op_type: str | registry.OpDef,
        inputs: Sequence[SymbolicTensor],
        attrs: dict[str, Any] | None = None,
        *,
        name: str | None = None,
        specs: Sequence[tuple[dtypes.DType, Shape]] | None = None,
        stateful: bool | None = None,
        name_is_unique: bool = False,
        location: SourceLocation | type[_Lookup] | None = _Lookup,
    ) -> Operation:
        """Adds a node; its inputs must already be tensors of this graph.

        Runs the op's shape/dtype rule unless `specs` gives the outputs, and
        adds the automatic control dependencies of stateful ops. Pass
        `name_is_unique` for a name already taken from `unique_name`, and
        `location` to give the op's user source line (e.g. when copying an
        op) instead of looking it up on the stack.

        Raises:
            TypeError, InvalidArgumentError: From the op's rule.
        """
        opdef = (
            op_type if isinstance(op_type, registry.OpDef) else registry.get(op_type)
        )
        attrs = {} if attrs is None else attrs
        inputs = tuple(inputs)
        for t in inputs:
            if t._op.graph is not self:
                raise ValueError(
                    f"input {t.name!r} of {opdef.name} is from another graph"
                )
        if location is _Lookup:
            location = None if opdef.name == "Placeholder" else user_location(2)
        if specs is None:
            try:
                specs = opdef.rule(inputs, attrs)
            except OpError as e:
                where = None if location is None else str(location)
                raise e.with_context(opdef.name, None, where) from None
        if not (name_is_unique and name):
            name = self.unique_name(name or opdef.default_name)
        elif name in self._by_name:
            raise ValueError(f"the graph already has an op named {name!r}")
        self._taken.add(name)
        if stateful is None:
            stateful = opdef.stateful
        op = Operation(self, opdef, name, inputs, attrs, specs, [], location, stateful)
        self._add_control_dependencies(op)
        self._ops.append(op)
        self._by_name[name] = op
        tapes = context.STATE.tapes
        if tapes:
            for tape in tapes:
                tape._record(opdef, inputs, op.outputs, attrs, op)
        return op

    def _add_control_dependencies(self, op: Operation) -> None:
        """Orders effects: stateful ops in program order; variable reads
        after the previous write of that variable and before the next."""
        access = op.opdef.var_access
        var_id = op.attrs.get("var_id") if access else None
        if var_id is not None:
            variable = registry.lookup_variable(var_id)
            graph: Graph | None = self
            while graph is not None:
                graph.variables[var_id] = variable
                graph = graph.outer_graph
        controls = op.control_inputs
        if op.stateful:
            self.is_stateful = True
            if self._last_stateful is not None:
                controls.append(self._last_stateful)
            if access == "write":
                controls.extend(
                    r
                    for r in self._reads_since_write.pop(var_id, ())
                    if r not in controls
                )
                self._last_write[var_id] = op
            self._last_stateful = op
        elif access == "read":
            last = self._last_write.get(var_id)
            if last is not None:
                controls.append(last)
            self._reads_since_write.setdefault(var_id, []).append(op)

    def convert(
        self,
        value: Any,
        dtype: dtypes.DType | None = None,
        dtype_hint: dtypes.DType | None = None,
    ) -> SymbolicTensor:
        """`value` as a tensor of this graph (capturing or adding a Const);
        see `runtime.op_registry.convert_in_graph`."""
        return registry.convert_in_graph(self, value, dtype, dtype_hint)

    def eager_constant(self, value: EagerTensor) -> SymbolicTensor:
        """The `Const` node holding the eager tensor `value`: one per tensor,
        made the first time it is used in this graph."""
        cached = self._eager_consts.get(id(value))
        if cached is None:
            # The tensor is kept with its node so that its id stays its own.
            cached = (value, self.constant(value.numpy_value))
            self._eager_consts[id(value)] = cached
        return cached[1]

    def capture(self, tensor: SymbolicTensor) -> SymbolicTensor:
        """`tensor` (of an outer graph) as a placeholder of this graph.

        Raises:
            ValueError: If `tensor` belongs to no graph this one is nested in.
        """
        if tensor._op.graph is self:
            return tensor
        inner = self._captured.get(id(tensor))
        if inner is not None:
            return inner
        if self.outer_graph is None:
            raise ValueError(_escaped(tensor))
        outer = self.outer_graph.capture(tensor)
        inner = self._captured.get(id(outer))
        if inner is None:
            attrs = {"dtype": outer.dtype, "shape": outer.shape}
            op = self.create_op("Placeholder", (), attrs, name=outer._op.name)
            inner = op.outputs[0]
            inner.weak = outer.weak
            self.captures.append((outer, inner))
            self._captured[id(outer)] = inner
        self._captured[id(tensor)] = inner
        return inner

    # -- reading -------------------------------------------------------------

    def get_operations(self) -> list[Operation]:
        """The operations in creation order."""
        return list(self._ops)

    def ops_needed(self, targets: Sequence[SymbolicTensor]) -> list[Operation]:
        """The ops `targets` or the graph's effects (stateful ops) depend on,
        in creation order: what running the graph for `targets` runs."""
        needed: set[int] = set()
        stack = [t.op for t in targets] + [op for op in self._ops if op.stateful]
        while stack:
            op = stack.pop()
            if id(op) in needed:
                continue
            needed.add(id(op))
            stack.extend(t.op for t in op.inputs)
            stack.extend(op.control_inputs)
        return [op for op in self._ops if id(op) in needed]

    def get_operation_by_name(self, name: str) -> Operation:
        """The operation called `name` (KeyError if none)."""
        return self._by_name[name]

    def get_tensor_by_name(self, name: str) -> SymbolicTensor:
        """The tensor `"op_name:index"`."""
        op_name, _, index = name.rpartition(":")
        return self._by_name[op_name].outputs[int(index)]

    def subgraphs(self) -> Iterator[tuple[str, Graph]]:
        """(path, graph) for every cond/while subgraph, depth first."""
        for op in self._ops:
            for key, value in op.attrs.items():
                if isinstance(value, Graph):
                    yield f"{op.name}/{key}", value
                    for path, sub in value.subgraphs():
                        yield f"{op.name}/{key}/{path}", sub

    def as_graph_def(self) -> Any:
        """A plain-data view (`GraphDef`): `.node` with `.name .op .input .attr`."""
        from runtime.graph_def import graph_def

        return graph_def(self)

    def to_dot(self) -> str:
        """Graphviz DOT text; cond/while bodies appear as clusters."""
        from runtime.graph_def import to_dot

        return to_dot(self)

    def __repr__(self) -> str:
        return f"<rt.Graph {self.name!r} with {len(self._ops)} ops>"


# Where a tensor of a finished subgraph was made, by its graph's name.
_SUBGRAPHS = {
    "then_branch": "the true branch of the graph `if` {!r}",
    "else_branch": "the false branch of the graph `if` {!r}",
    "body": "the body of the graph loop {!r}",
    "cond": "the condition of the graph loop {!r}",
}


def _escaped(tensor: SymbolicTensor) -> str:
    """The message for a tensor used outside the graph that made it."""
    op = tensor._op
    node, _, part = op.graph.name.rpartition("/")
    if part in _SUBGRAPHS and node:
        where = _SUBGRAPHS[part].format(node)
    elif op.graph.name == "dry_run":
        where = "a trial run of a graph loop body (which learns the types it gives)"
    else:
        where = "another graph (a function traced before, or being traced)"
    made = ""
    if op.location is not None:
        line = linecache.getline(op.location.filename, op.location.lineno).strip()
        made = f" (made at {op.location}{f': `{line}`' if line else ''})"
    return (
        f"the graph tensor {tensor.name!r}{made} escaped from {where}, which has "
        "finished: a tensor made inside a graph branch or loop can leave it only as "
        "a variable assigned there and used after it, not stored in a list, dict or "
        "attribute that outlives it; assign it to a variable instead"
    )
