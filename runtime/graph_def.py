"""Plain-data and text views of a graph: `GraphDef`, its text dump, DOT.

    >>> import runtime as rt
    >>> g = rt.Graph()
    >>> with g.as_default():
    ...     x = g.placeholder(rt.float32, (2,), "x")
    ...     y = rt.negative(x)
    >>> print(g.as_graph_def())
    input: "x"
    node {
      name: "x"
      op: "Placeholder"
      attr { key: "dtype" value: float32 }
      attr { key: "shape" value: (2,) }
    }
    node {
      name: "neg"
      op: "Neg"
      input: "x"
    }
    <BLANKLINE>

Input names follow TensorFlow: `op` for output 0, `op:k` for output k, and
`^op` for a control input.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

import numpy as np

from runtime import op_registry
from runtime.dtypes import DType
from runtime.graph import Graph, SourceLocation
from runtime.ops.printing import format_value
from runtime.shapes import format_shape

__all__ = ["GraphDef", "NodeDef", "graph_def", "import_graph_def", "to_dot"]


@dataclasses.dataclass(frozen=True)
class NodeDef:
    """One node as plain data.

    Attributes:
        name: The node's unique name.
        op: Its op type (a key of `runtime.op_registry`).
        input: Input tensor names, then `^name` control inputs.
        attr: Its attrs (subgraphs as nested `GraphDef`s).
        location: `file:line` of the user code that created it, or None.
    """

    name: str
    op: str
    input: list[str]
    attr: dict[str, Any]
    location: str | None = None


@dataclasses.dataclass(frozen=True)
class GraphDef:
    """A graph as plain data; `str()` is a readable text dump.

    Attributes:
        node: The nodes in creation order.
        inputs: For subgraphs, the names of its input placeholders.
        outputs: For subgraphs, the names of the tensors it returns.
    """

    node: list[NodeDef]
    inputs: list[str] = dataclasses.field(default_factory=list)
    outputs: list[str] = dataclasses.field(default_factory=list)

    def __str__(self) -> str:
        return "".join(line + "\n" for line in _text_lines(self, 0))


def _tensor_name(tensor: Any) -> str:
    index = tensor.value_index
    return tensor.op.name if index == 0 else f"{tensor.op.name}:{index}"


def graph_def(graph: Any) -> GraphDef:
    """The GraphDef of `graph` (subgraphs included, recursively)."""

    nodes = []
    for op in graph.get_operations():
        inputs = [_tensor_name(t) for t in op.inputs]
        inputs += [f"^{c.name}" for c in op.control_inputs]
        attrs = {
            k: graph_def(v) if isinstance(v, Graph) else v for k, v in op.attrs.items()
        }
        nodes.append(NodeDef(op.name, op.type, inputs, attrs, op.traceback_line))
    return GraphDef(
        nodes,
        [_tensor_name(t) for t in graph.inputs],
        [_tensor_name(t) for t in graph.outputs],
    )


def import_graph_def(
    gdef: GraphDef,
    name: str = "imported",
    variable_ids: Mapping[int, int] | None = None,
    *,
    outer_graph: Any = None,
) -> Any:
    """Rebuilds a `Graph` from a GraphDef (the inverse of `as_graph_def`).

    Every op type must be registered; shapes and dtypes are recomputed by the
    ops' rules, and automatic control dependencies are added again (control
    inputs in the GraphDef are not needed).

    Args:
        gdef: The graph as plain data.
        name: The new graph's name.
        variable_ids: Maps `var_id` attrs of the GraphDef to the ids of the
            live `Variable`s the new graph should use (default: unchanged).
        outer_graph: For subgraphs: the graph they are nested in.

    Raises:
        KeyError: For an unknown op type or variable id.
        ValueError: For an input that names no earlier node.
    """

    graph = Graph(name, outer_graph=outer_graph)
    tensors: dict[str, Any] = {}

    def tensor(ref: str) -> Any:
        op_name, _, index = ref.partition(":")
        try:
            return tensors[op_name][int(index or 0)]
        except (KeyError, IndexError):
            raise ValueError(f"input {ref!r} names no earlier node output") from None

    for node in gdef.node:
        opdef = op_registry.get(node.op)
        attrs = dict(node.attr)
        for key, value in attrs.items():
            if isinstance(value, GraphDef):
                attrs[key] = import_graph_def(
                    value, f"{node.name}/{key}", variable_ids, outer_graph=graph
                )
        if "var_id" in attrs and variable_ids is not None:
            attrs["var_id"] = variable_ids[attrs["var_id"]]
        inputs = [tensor(ref) for ref in node.input if not ref.startswith("^")]
        subgraphs = [v for v in attrs.values() if isinstance(v, Graph)]
        stateful = opdef.stateful or any(g.is_stateful for g in subgraphs)
        op = graph.create_op(
            opdef, inputs, attrs, name=node.name, name_is_unique=True, stateful=stateful
        )
        op.location = None if node.location is None else _location(node.location)
        tensors[node.name] = op.outputs
    graph.inputs = [tensor(ref) for ref in gdef.inputs]
    graph.outputs = [tensor(ref) for ref in gdef.outputs]
    return graph


def _location(text: str) -> Any:

    filename, _, line = text.rpartition(":")
    return SourceLocation(filename, int(line)) if line.isdigit() else None


def _format_attr(value: Any) -> str:
    if isinstance(value, DType):
        return value.name
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        if array.dtype.kind == "O" and array.ndim == 0:
            return json.dumps(str(array[()]))
        text = format_value(array)
        return text if array.ndim == 0 else f"{text} shape={format_shape(array.shape)}"
    if isinstance(value, str):
        return json.dumps(value)
    return repr(value)


def _text_lines(gdef: GraphDef, depth: int) -> list[str]:
    pad = "  " * depth
    lines = [f'{pad}input: "{name}"' for name in gdef.inputs]
    for node in gdef.node:
        lines.append(f"{pad}node {{")
        lines.append(f'{pad}  name: "{node.name}"')
        lines.append(f'{pad}  op: "{node.op}"')
        lines.extend(f'{pad}  input: "{name}"' for name in node.input)
        for key, value in node.attr.items():
            if isinstance(value, GraphDef):
                lines.append(f"{pad}  attr {{")
                lines.append(f'{pad}    key: "{key}"')
                lines.append(f"{pad}    value {{")
                lines.extend(_text_lines(value, depth + 3))
                lines.append(f"{pad}    }}")
                lines.append(f"{pad}  }}")
            else:
                lines.append(
                    f'{pad}  attr {{ key: "{key}" value: {_format_attr(value)} }}'
                )
        lines.append(f"{pad}}}")
    lines.extend(f'{pad}output: "{name}"' for name in gdef.outputs)
    return lines


def _dot_id(text: str) -> str:
    return '"' + text.replace('"', '\\"') + '"'


def to_dot(graph: Any) -> str:
    """Graphviz DOT text for `graph`; cond/while subgraphs are clusters."""
    lines = [
        f"digraph {_dot_id(graph.name)} {{",
        "  compound=true;",
        '  node [shape=box, style=rounded, fontname="Helvetica"];',
    ]
    _dot_body(graph, "", lines, 1)
    lines.append("}")
    return "\n".join(lines) + "\n"


def _dot_body(graph: Any, prefix: str, lines: list[str], depth: int) -> None:

    pad = "  " * depth
    for op in graph.get_operations():
        node = _dot_id(prefix + op.name)
        lines.append(f'{pad}{node} [label="{op.name}\\n{op.type}"];')
        for t in op.inputs:
            lines.append(f"{pad}{_dot_id(prefix + t.op.name)} -> {node};")
        for c in op.control_inputs:
            lines.append(f"{pad}{_dot_id(prefix + c.name)} -> {node} [style=dashed];")
        for key, value in op.attrs.items():
            if not isinstance(value, Graph):
                continue
            path = f"{prefix}{op.name}/{key}/"
            lines.append(f"{pad}subgraph {_dot_id('cluster_' + path[:-1])} {{")
            lines.append(f'{pad}  label="{op.name}: {key}";')
            lines.append(f"{pad}  style=dashed;")
            _dot_body(value, path, lines, depth + 1)
            lines.append(f"{pad}}}")
            ops = value.get_operations()
            if ops:
                anchor = _dot_id(path + ops[0].name)
                cluster = _dot_id("cluster_" + path[:-1])
                lines.append(
                    f"{pad}{node} -> {anchor} [style=dotted, arrowhead=none, "
                    f"lhead={cluster}];"
                )
