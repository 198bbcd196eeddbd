"""`save` and `load`: traced graphs as files, runnable without the Python code.

    >>> import tempfile, numpy as np
    >>> import runtime as rt
    >>> from autograph.tracing import function
    >>> @function
    ... def scale(x, factor=2):
    ...     return x * factor
    >>> _ = scale(rt.constant([1.0, 2.0]))
    >>> with tempfile.TemporaryDirectory() as path:
    ...     save(scale, path)
    ...     loaded = load(path)
    >>> loaded(rt.constant([3.0, 4.0])).numpy()
    array([6., 8.], dtype=float32)
    >>> len(loaded.concrete_functions)
    1

A saved function is a directory with two files:

* `function.json`: the format and its version, the function's name and
  Python signature, its variables (name, dtype, shape), and per traced
  `ConcreteFunction` its parameters (names, `TensorSpec`s, Python values),
  its graph (see `graphs`) and the structure of its outputs;
* `arrays.npz`: the tensor constants and variable values (`np.savez`).

Loading reads both without `pickle`, `eval` or `exec`, checks every field
(types, ranges, op names against the registry, references to earlier nodes
and existing outputs, dtypes, shapes, subgraph arities), rebuilds each graph
op by op (the ops' shape rules run; no kernel does), and restores each
variable as a new `rt.Variable` shared by all traces. A file that is
corrupt, truncated, from a newer format, or hostile raises `LoadError` (a
`ValueError`) saying what is wrong and where; nothing else escapes `load`.
Only regular files are read (a FIFO or a link to `/dev/zero` is refused
without blocking), and no more than `MAX_JSON_BYTES` of JSON.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import runtime as rt
from autograph.saving.functions import (
    LoadedFunction,
    check_inputs,
    decode_params,
    decode_signature,
    decode_structure,
    encode_params,
    encode_signature,
    encode_structure,
)
from autograph.saving.graphs import GraphReader, encode_graph
from autograph.saving.values import (
    LoadError,
    Reader,
    Writer,
    fail,
    read_arrays,
    write_arrays,
)
from autograph.tools.regular_files import (
    FileRefusedError,
    open_regular,
    read_capped,
)
from autograph.tracing import ConcreteFunction
from runtime import op_registry
from runtime.shapes import is_compatible

__all__ = ["FORMAT", "FORMAT_VERSION", "LoadError", "LoadedFunction", "load", "save"]

FORMAT = "autograph.saved_function"
FORMAT_VERSION = 1
GRAPH_FILE = "function.json"
ARRAY_FILE = "arrays.npz"
MAX_JSON_BYTES = 1 << 28
_TOP_KEYS = {"format", "version", "name", "signature", "variables", "functions"}
_FUNCTION_KEYS = {"params", "graph", "outputs"}


def save(function_or_concrete: Any, path: str | os.PathLike[str]) -> None:
    """Writes every trace of a `Function` (or one `ConcreteFunction`) to `path`.

    Args:
        function_or_concrete: An `autograph.function` result that has been
            called (or asked for concrete functions), a `ConcreteFunction`,
            or a loaded function.
        path: A directory; created if missing, its two files overwritten.

    Raises:
        ValueError: A Function with no traces; a trace whose arguments or
            results have no saved form (an object argument, a namedtuple);
            an op type that cannot be saved.
    """
    target = function_or_concrete
    if isinstance(target, ConcreteFunction):
        name, signature, concretes = target.name, None, [target]
    else:
        concretes = list(target.concrete_functions)
        name = getattr(target, "_name", None) or getattr(target, "name", "function")
        signature = getattr(target, "_signature", None)
        if not concretes:
            raise ValueError(
                f"{name} has no traced concrete functions to save; call it (or "
                "get_concrete_function) with the arguments to save it for"
            )
    writer = Writer()
    variables: dict[int, int] = {}
    functions = []
    for concrete in concretes:
        counter = [0]
        functions.append(
            {
                "params": encode_params(name, concrete.params, writer),
                "graph": encode_graph(
                    concrete.optimized_graph,
                    concrete.inputs,
                    concrete.outputs,
                    writer,
                    variables,
                ),
                "outputs": encode_structure(
                    concrete.structured_outputs, writer, counter
                ),
            }
        )
    document = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "name": name,
        "signature": None if signature is None else encode_signature(signature, writer),
        "variables": [
            _encode_variable(op_registry.lookup_variable(var_id), writer)
            for var_id, _ in sorted(variables.items(), key=lambda item: item[1])
        ],
        "functions": functions,
    }
    directory = Path(path)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / GRAPH_FILE).write_text(json.dumps(document, indent=1) + "\n")
    write_arrays(directory / ARRAY_FILE, writer.arrays)


def _encode_variable(variable: Any, writer: Writer) -> dict[str, Any]:
    return {
        "name": variable.name,
        "dtype": variable.dtype.name,
        "shape": writer.encode(variable.shape),
        "trainable": bool(variable.trainable),
        "value": writer.encode(variable.numpy()),
    }


def load(path: str | os.PathLike[str]) -> LoadedFunction:
    """Restores a function saved by `save`; nothing in the files is executed.

    Returns:
        A `LoadedFunction`: call it like the saved function; it has
        `.concrete_functions` and `.variables`.

    Raises:
        LoadError: A missing, corrupt, truncated, newer-format or hostile
            save, naming the file, node or field that is wrong.
    """
    try:
        return _load(Path(path))
    except LoadError:
        raise
    except RecursionError:
        raise LoadError(f"{GRAPH_FILE}: nests too deeply") from None
    except (ValueError, TypeError, KeyError, IndexError, OverflowError) as e:
        # A check this loader lacks: still a LoadError, saying what failed.
        raise LoadError(
            f"{GRAPH_FILE}: not a valid saved function ({type(e).__name__}: "
            f"{str(e)[:200]})"
        ) from e


def _load(directory: Path) -> LoadedFunction:
    document = _read_json(directory / GRAPH_FILE)
    arrays = read_arrays(directory / ARRAY_FILE)
    if not isinstance(document, dict) or set(document) != _TOP_KEYS:
        raise LoadError(f"{GRAPH_FILE}: not a saved function (wrong top-level fields)")
    if document["format"] != FORMAT:
        raise LoadError(
            f"{GRAPH_FILE}: not a saved function (format {document['format']!r:.40})"
        )
    version = document["version"]
    if type(version) is not int or version < 1:
        raise LoadError(f"{GRAPH_FILE}: bad format version {version!r:.40}")
    if version > FORMAT_VERSION:
        raise LoadError(
            f"{GRAPH_FILE}: saved with format version {version}, but this version "
            f"of autograph reads versions up to {FORMAT_VERSION}"
        )
    name = document["name"]
    if type(name) is not str:
        raise LoadError(f"{GRAPH_FILE}: the name must be a string")
    reader = Reader(arrays)
    variables = [
        _decode_variable(v, reader, f"variable {i}")
        for i, v in enumerate(_items(document["variables"], "variables"))
    ]
    signature = None
    if document["signature"] is not None:
        signature = decode_signature(document["signature"], reader, "signature")
    graphs = GraphReader(reader, variables)
    concretes = [
        _decode_function(name, data, reader, graphs, f"function {i}")
        for i, data in enumerate(_items(document["functions"], "functions"))
    ]
    if not concretes or (signature is None and len(concretes) != 1):
        raise LoadError(f"{GRAPH_FILE}: expected one function, or a signature")
    unused = sorted(set(arrays) - reader.used)
    if unused:
        raise LoadError(f"{ARRAY_FILE}: holds arrays nothing uses: {unused[:5]}")
    return LoadedFunction(name, signature, concretes, variables)


def _read_json(path: Path) -> Any:
    try:
        with open_regular(path) as f:
            data = read_capped(f, MAX_JSON_BYTES)
    except FileRefusedError as e:
        raise LoadError(f"{path.name}: {e}") from None
    except OSError as e:
        raise LoadError(f"{path.name}: cannot read it ({e.strerror})") from None
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise LoadError(f"{path.name}: not valid JSON ({str(e)[:80]})") from None


def _items(value: Any, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise LoadError(f"{GRAPH_FILE}: {what} must be a list")
    return value


def _decode_variable(data: Any, reader: Reader, where: str) -> Any:
    keys = {"name", "dtype", "shape", "trainable", "value"}
    if not isinstance(data, dict) or set(data) != keys:
        raise fail(where, f"must have exactly the fields {sorted(keys)}")
    if type(data["name"]) is not str or type(data["trainable"]) is not bool:
        raise fail(where, "bad name or trainable flag")
    dtype = reader.dtype(data["dtype"], where)
    shape = reader.shape(reader.decode(data["shape"], where), where)
    value = reader.decode(data["value"], where)
    if not hasattr(value, "dtype") or rt.as_dtype(value.dtype) is not dtype:
        raise fail(where, f"its value is not a {dtype} array")
    if not is_compatible(shape, value.shape):
        raise fail(where, f"its value's shape {value.shape} does not fit {shape}")
    return rt.Variable(
        value.copy(),
        dtype=dtype,
        name=data["name"],
        trainable=data["trainable"],
        shape=shape,
    )


def _decode_function(
    name: str, data: Any, reader: Reader, graphs: GraphReader, where: str
) -> ConcreteFunction:
    if not isinstance(data, dict) or set(data) != _FUNCTION_KEYS:
        raise fail(where, f"must have exactly the fields {sorted(_FUNCTION_KEYS)}")
    params = decode_params(data["params"], reader, where)
    graph, inputs, outputs = graphs.build(data["graph"], f"{where}: graph")
    check_inputs(params, inputs, where)
    structure = decode_structure(data["outputs"], reader, outputs, f"{where}: outputs")
    try:
        return ConcreteFunction(name, params, graph, inputs, structure, outputs)
    except Exception as e:  # the executor refused the plan
        raise fail(where, f"cannot run the graph ({type(e).__name__}: {e})") from None
