"""Graphs as JSON, and back: every node checked before it is added.

A graph is `{"name", "nodes", "inputs", "outputs"}`; a node is

    {"name": "add", "op": "Add", "inputs": [["x", 0], ["const", 0]],
     "control": [], "attrs": {}, "location": ["model.py", 12]}

with inputs as (node name, output index) pairs of earlier nodes of the same
graph, control inputs by name, attrs as typed values (see `values`),
subgraphs nested as `["graph", {...}]` and variables as `["var", index]`.

Loading rebuilds the graph through `Graph.create_op`, so each op's own shape
and dtype rule runs on its inputs, after these checks: the op type is
registered and has a schema; every reference names an earlier node and an
existing output; attrs fit the schema; operands that must share a dtype do;
`If`/`While` subgraphs have the inputs, outputs and dtypes their node
implies; a subgraph's placeholders are exactly its inputs. No kernel runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from autograph.saving.schema import SCHEMA, check_node, check_variable
from autograph.saving.values import Reader, Writer, fail
from runtime import dtypes
from runtime import op_registry as registry
from runtime.graph import Graph, Operation, SourceLocation
from runtime.optimizer.rewrite import link_captures
from runtime.shapes import is_compatible
from runtime.tensor import SymbolicTensor

__all__ = ["GraphReader", "encode_graph"]

_NODE_KEYS = {"name", "op", "inputs", "control", "attrs", "location"}
_GRAPH_KEYS = {"name", "nodes", "inputs", "outputs"}
_SUBGRAPHS = {"If": ("then_branch", "else_branch"), "While": ("cond", "body")}


# Why some runtime op types have no saved form.
_UNSAVEABLE = {
    "MakeIterator": ": the graph iterates an rt.data.Dataset, which lives in Python, "
    "not in the graph",
    "DatasetCardinality": ": the graph counts an rt.data.Dataset's elements, which "
    "live in Python, not in the graph",
    "WhileIterations": ": the graph differentiates a while loop (GradientTape), "
    "whose stored iterations have no saved form",
}


def _ref(tensor: SymbolicTensor) -> list[Any]:
    return [tensor.op.name, tensor.value_index]


def encode_graph(
    graph: Graph,
    inputs: Sequence[SymbolicTensor],
    outputs: Sequence[SymbolicTensor],
    writer: Writer,
    variables: dict[int, int],
) -> dict[str, Any]:
    """The JSON form of `graph` (arrays go to `writer`).

    Args:
        graph: The graph to save.
        inputs: Its input placeholders.
        outputs: The tensors it returns.
        writer: Encodes attrs and collects arrays.
        variables: Variable id -> index in the saved variable list; grows.

    Raises:
        ValueError: For an op type that cannot be saved, or an attr without a
            saved form.
    """
    nodes = []
    for op in graph.get_operations():
        if op.type not in SCHEMA:
            why = _UNSAVEABLE.get(op.type, "")
            raise ValueError(f"cannot save the op {op.name!r} of type {op.type}" + why)
        attrs = {}
        for key, value in op.attrs.items():
            if isinstance(value, Graph):
                attrs[key] = [
                    "graph",
                    encode_graph(value, value.inputs, value.outputs, writer, variables),
                ]
            elif key == "var_id" and op.opdef.var_access is not None:
                attrs[key] = ["var", variables.setdefault(value, len(variables))]
            else:
                attrs[key] = writer.encode(value)
        location = op.location
        nodes.append(
            {
                "name": op.name,
                "op": op.type,
                "inputs": [_ref(t) for t in op.inputs],
                "control": [c.name for c in op.control_inputs],
                "attrs": attrs,
                "location": None
                if location is None
                else [location.filename, location.lineno],
            }
        )
    return {
        "name": graph.name,
        "nodes": nodes,
        "inputs": [_ref(t) for t in inputs],
        "outputs": [_ref(t) for t in outputs],
    }


class GraphReader:
    """Rebuilds saved graphs, checking every field.

    Args:
        reader: Decodes typed values (and knows the arrays).
        variables: The restored variables, by saved index.
    """

    def __init__(self, reader: Reader, variables: Sequence[Any]) -> None:
        self._reader = reader
        self._variables = list(variables)

    def build(
        self, data: Any, where: str, outer: Graph | None = None
    ) -> tuple[Graph, list[SymbolicTensor], list[SymbolicTensor]]:
        """(graph, inputs, outputs) of the saved graph `data`.

        Raises:
            LoadError: Naming the node and what is wrong with it.
        """
        _check_keys(data, _GRAPH_KEYS, where, "graph")
        name = data["name"]
        if type(name) is not str:
            raise fail(where, "the graph name must be a string")
        graph = Graph(name, outer_graph=outer)
        nodes = data["nodes"]
        if not isinstance(nodes, list):
            raise fail(where, "nodes must be a list")
        for node in nodes:
            self._node(graph, node, where)
        inputs = [
            self._tensor(graph, r, f"{where}: input")
            for r in _list(data["inputs"], where)
        ]
        outputs = [
            self._tensor(graph, r, f"{where}: output")
            for r in _list(data["outputs"], where)
        ]
        placeholders = [
            op.outputs[0] for op in graph.get_operations() if op.type == "Placeholder"
        ]
        if any(t.op.type != "Placeholder" for t in inputs) or len(
            {id(t) for t in inputs}
        ) != len(inputs):
            raise fail(where, "the inputs must be distinct placeholders")
        if outer is not None and len(inputs) != len(placeholders):
            raise fail(
                where, "every placeholder of a subgraph must be one of its inputs"
            )
        graph.inputs, graph.outputs = inputs, outputs
        return graph, inputs, outputs

    def _node(self, graph: Graph, node: Any, where: str) -> None:
        _check_keys(node, _NODE_KEYS, where, "node")
        name, op_type = node["name"], node["op"]
        if type(name) is not str or not name or len(name) > 1000:
            raise fail(where, f"bad node name {str(name)[:40]!r}")
        where = f"{where}: node {name!r}"
        if _has(graph, name):
            raise fail(where, "a node of that name comes earlier")
        if type(op_type) is not str or op_type not in SCHEMA:
            raise fail(where, f"unknown op type {str(op_type)[:40]!r}")
        try:
            opdef = registry.get(op_type)
        except KeyError:
            raise fail(where, f"the op type {op_type!r} is not registered") from None
        inputs = [
            self._tensor(graph, ref, f"{where}: input {i}")
            for i, ref in enumerate(_list(node["inputs"], where))
        ]
        controls = [
            self._op(graph, c, f"{where}: control input")
            for c in _list(node["control"], where)
        ]
        location = _location(node["location"], where)
        attrs = self._attrs(graph, op_type, node["attrs"], inputs, where)
        _check_operands(opdef, inputs, where)
        stateful = None
        if op_type in _SUBGRAPHS:
            _check_control_flow(op_type, inputs, attrs, where)
            stateful = any(attrs[k].is_stateful for k in _SUBGRAPHS[op_type])
        try:
            op = graph.create_op(opdef, inputs, attrs, name=name, stateful=stateful)
        except Exception as e:  # the op's own rule refused it
            raise fail(where, f"{type(e).__name__}: {e}") from None
        if op.name != name:
            raise fail(where, "the node name is not unique")
        op.control_inputs[:] = controls
        op.location = location
        if op_type in _SUBGRAPHS:
            link_captures(op)

    def _attrs(
        self,
        graph: Graph,
        op_type: str,
        data: Any,
        inputs: list[SymbolicTensor],
        where: str,
    ) -> dict[str, Any]:
        if not isinstance(data, dict):
            raise fail(where, "attrs must be a JSON object")
        attrs: dict[str, Any] = {}
        for key, value in data.items():
            at = f"{where}: attr {key!r}"
            if key in _SUBGRAPHS.get(op_type, ()):
                attrs[key] = self._subgraph(graph, value, at)
            elif key == "var_id" and op_type in _VARIABLE_OPS:
                attrs[key] = self._variable(value, at).id
            else:
                attrs[key] = self._reader.decode(value, at)
        check_node(op_type, attrs, [t.dtype for t in inputs], where)
        if op_type in _VARIABLE_OPS:
            variable = registry.lookup_variable(attrs["var_id"])
            check_variable(attrs, variable, where)
        return attrs

    def _subgraph(self, outer: Graph, value: Any, where: str) -> Graph:
        if not isinstance(value, list) or len(value) != 2 or value[0] != "graph":
            raise fail(where, "expected a subgraph ['graph', {...}]")
        graph, _, _ = self.build(value[1], where, outer)
        return graph

    def _variable(self, value: Any, where: str) -> Any:
        if not isinstance(value, list) or len(value) != 2 or value[0] != "var":
            raise fail(where, "expected a variable reference ['var', index]")
        index = value[1]
        if type(index) is not int or not 0 <= index < len(self._variables):
            raise fail(where, f"refers to the missing variable {str(index)[:20]}")
        return self._variables[index]

    def _op(self, graph: Graph, name: Any, where: str) -> Operation:
        if type(name) is not str or not _has(graph, name):
            raise fail(
                where, f"refers to {str(name)[:40]!r}, which is not an earlier node"
            )
        return graph.get_operation_by_name(name)

    def _tensor(self, graph: Graph, ref: Any, where: str) -> SymbolicTensor:
        if not isinstance(ref, list) or len(ref) != 2:
            raise fail(where, "a tensor reference must be [node name, output index]")
        op = self._op(graph, ref[0], where)
        index = ref[1]
        if type(index) is not int or not 0 <= index < len(op.outputs):
            raise fail(where, f"{op.name!r} has no output {str(index)[:20]}")
        return op.outputs[index]


_VARIABLE_OPS = frozenset(name for name in SCHEMA if "var_id" in SCHEMA[name].attrs)


def _has(graph: Graph, name: str) -> bool:
    try:
        graph.get_operation_by_name(name)
    except KeyError:
        return False
    return True


def _check_keys(data: Any, keys: set[str], where: str, what: str) -> None:
    if not isinstance(data, dict) or set(data) != keys:
        got = sorted(data) if isinstance(data, dict) else type(data).__name__
        raise fail(
            where, f"a {what} must have exactly the fields {sorted(keys)}, got {got}"
        )


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise fail(where, f"expected a list, got {type(value).__name__}")
    return value


def _location(value: Any, where: str) -> SourceLocation | None:
    if value is None:
        return None
    if (
        isinstance(value, list)
        and len(value) == 2
        and type(value[0]) is str
        and type(value[1]) is int
    ):
        return SourceLocation(value[0], value[1])
    raise fail(where, "location must be null or [file, line]")


def _check_operands(
    opdef: registry.OpDef, inputs: list[SymbolicTensor], where: str
) -> None:
    """The dtype checks `op_registry.apply` makes before a rule runs."""
    positions = opdef.unify_positions or (range(len(inputs)) if opdef.unify else ())
    found = {inputs[i].dtype for i in positions if i < len(inputs)}
    if len(found) > 1:
        names = ", ".join(sorted(d.name for d in found))
        raise fail(where, f"{opdef.name} operands must share one dtype, got {names}")
    if opdef.allowed is not None and found and not found <= opdef.allowed:
        raise fail(where, f"{opdef.name} does not support {found.pop()} tensors")


def _fits(
    placeholders: Sequence[SymbolicTensor], values: Sequence[SymbolicTensor]
) -> bool:
    return len(placeholders) == len(values) and all(
        p.dtype is v.dtype and is_compatible(p.shape, v.shape)
        for p, v in zip(placeholders, values)
    )


def _scalar_of(tensor: SymbolicTensor, allowed: Any) -> bool:
    return tensor.dtype in allowed and tensor.shape in ((), None)


def _check_control_flow(
    op_type: str, inputs: list[SymbolicTensor], attrs: dict[str, Any], where: str
) -> None:
    """Inputs, outputs and dtypes of `If`/`While` subgraphs match the node."""
    if op_type == "If":
        then, orelse = attrs["then_branch"], attrs["else_branch"]
        if not inputs or not _scalar_of(inputs[0], {dtypes.bool_}):
            raise fail(where, "the condition of an If must be a bool scalar")
        for branch in (then, orelse):
            if not _fits(branch.inputs, inputs[1:]):
                raise fail(where, "a branch's inputs do not match the If's inputs")
        if [t.dtype for t in then.outputs] != [t.dtype for t in orelse.outputs]:
            raise fail(where, "the branches return different dtypes")
        return
    cond, body = attrs["cond"], attrs["body"]
    n, limited = attrs["num_loop_vars"], attrs["has_maximum_iterations"]
    carried = inputs[: len(inputs) - 1] if limited else inputs
    if n > len(carried) or len(body.inputs) != len(carried):
        raise fail(where, "the loop's inputs do not match its body's")
    if not (_fits(cond.inputs, carried) and _fits(body.inputs, carried)):
        raise fail(where, "the loop's inputs do not match its cond's and body's")
    if limited and not _scalar_of(inputs[-1], dtypes.INTEGER):
        raise fail(where, "maximum_iterations must be an integer scalar")
    if len(cond.outputs) != 1 or not _scalar_of(cond.outputs[0], {dtypes.bool_}):
        raise fail(where, "a loop's cond must return one bool scalar")
    if not _fits(body.inputs[:n], body.outputs):
        raise fail(where, "the body's outputs do not match the loop variables")
