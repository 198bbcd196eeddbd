"""Loading is safe: a corrupt, truncated or hostile save raises `LoadError`.

Pinned messages first (each says what is wrong and where), then a
hypothesis fuzz test: it mutates the saved JSON and `.npz` (truncations,
flipped bytes, replaced fields, op names, dtypes, references and arrays) and
requires `load` to raise `LoadError` or to give a function whose calls
either dispatch-fail with `TypeError`/`ValueError` naming an argument or run
(possibly raising `InvalidArgumentError`). Nothing is ever unpickled.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import pickle
import signal
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import runtime as rt
from autograph.saving import LoadError, load, save
from autograph.tracing import function
from runtime import op_registry

WEIGHTS = rt.Variable([1.0, -1.0, 0.5], name="weights")


def rich(x, n, scale=2.0):
    total = rt.zeros_like(x)
    for i in rt.range(n):
        total += x * scale + WEIGHTS * rt.cast(i, rt.float32)
    if rt.reduce_sum(total) > 0:
        total = total - 1.0
    else:
        total = -total
    rt.print("total", total, "first", total[0])
    WEIGHTS.assign_add(x * 0.0)
    return {"total": total, "max": rt.reduce_max(total)}


CALLS = [
    (rt.constant([1.0, 2.0, 3.0]), rt.constant(2)),
    (rt.constant([0.5, 0.5, -2.0]), 1),
]


@contextlib.contextmanager
def _saved() -> Iterator[Path]:
    import tempfile

    with tempfile.TemporaryDirectory() as directory:
        traced = function(rich)
        for args in CALLS:
            traced(*args)
        save(traced, directory)
        yield Path(directory)


_ORIGINAL: dict[str, bytes] = {}


def _original_files() -> dict[str, bytes]:
    """The saved files of `rich` (made once)."""
    if not _ORIGINAL:
        with _saved() as directory:
            _ORIGINAL.update({p.name: p.read_bytes() for p in directory.iterdir()})
    return dict(_ORIGINAL)


@pytest.fixture
def original() -> dict[str, bytes]:
    return _original_files()


def _write(directory: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        (directory / name).write_bytes(data)


def _document(files: dict[str, bytes]) -> Any:
    return json.loads(files["function.json"])


def _with_document(files: dict[str, bytes], document: Any) -> dict[str, bytes]:
    return {**files, "function.json": json.dumps(document).encode()}


def _load_error(tmp_path: Path, files: dict[str, bytes]) -> str:
    _write(tmp_path, files)
    with pytest.raises(LoadError) as info:
        load(tmp_path)
    return str(info.value)


def _first_node(document: Any, op: str) -> dict[str, Any]:
    return next(n for n in document["functions"][0]["graph"]["nodes"] if n["op"] == op)


# -- pinned messages ------------------------------------------------------------------


def test_the_unchanged_save_loads(original, tmp_path):
    _write(tmp_path, original)
    assert len(load(tmp_path).concrete_functions) == 2


def test_a_missing_directory_says_which_file_it_cannot_read(tmp_path):
    with pytest.raises(LoadError, match=r"^function.json: cannot read it"):
        load(tmp_path / "nowhere")


def test_a_newer_format_version_is_refused(original, tmp_path):
    document = _document(original)
    document["version"] = 2
    assert _load_error(tmp_path, _with_document(original, document)) == (
        "function.json: saved with format version 2, but this version of autograph "
        "reads versions up to 1"
    )


def test_truncated_json_is_not_valid_json(original, tmp_path):
    files = {**original, "function.json": original["function.json"][:100]}
    assert _load_error(tmp_path, files).startswith("function.json: not valid JSON")


def test_an_op_type_outside_the_registry_is_refused(original, tmp_path):
    document = _document(original)
    node = _first_node(document, "Mul")
    node["op"] = "os.system"
    message = _load_error(tmp_path, _with_document(original, document))
    assert message == (
        f"function 0: graph: node {node['name']!r}: unknown op type 'os.system'"
    )


def test_a_reference_to_a_later_node_is_refused(original, tmp_path):
    document = _document(original)
    nodes = document["functions"][0]["graph"]["nodes"]
    nodes[2]["inputs"] = [[nodes[-1]["name"], 0]]
    message = _load_error(tmp_path, _with_document(original, document))
    assert message.endswith(
        f"input 0: refers to {nodes[-1]['name']!r}, which is not an earlier node"
    )


def test_a_missing_output_index_is_refused(original, tmp_path):
    document = _document(original)
    node = _first_node(document, "Mul")
    node["inputs"][0][1] = 7
    assert "has no output 7" in _load_error(
        tmp_path, _with_document(original, document)
    )


def test_an_unknown_dtype_is_refused(original, tmp_path):
    document = _document(original)
    _first_node(document, "Placeholder")["attrs"]["dtype"] = ["dtype", "float128"]
    assert "unknown dtype 'float128'" in _load_error(
        tmp_path, _with_document(original, document)
    )


def test_an_attr_of_the_wrong_type_is_refused(original, tmp_path):
    document = _document(original)
    node = _first_node(document, "Max")
    node["attrs"]["keepdims"] = ["str", "yes"]
    message = _load_error(tmp_path, _with_document(original, document))
    assert message.endswith("attr 'keepdims' must be a bool, got 'yes'")


def test_operands_of_different_dtypes_are_refused(original, tmp_path):
    document = _document(original)
    _first_node(document, "Mul")["inputs"][1] = ["n", 0]
    assert "Mul operands must share one dtype, got float32, int32" in _load_error(
        tmp_path, _with_document(original, document)
    )


def test_an_object_array_is_refused_and_never_unpickled(original, tmp_path):
    marker = tmp_path / "unpickled"

    class Bomb:
        def __reduce__(self):
            return (marker.write_text, ("boom",))

    buffer = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(original["arrays.npz"])) as archive:
        names = archive.namelist()
    arrays = {name[:-4]: np.array([Bomb()], dtype=object) for name in names}
    np.savez(buffer, **arrays)
    message = _load_error(tmp_path, {**original, "arrays.npz": buffer.getvalue()})
    assert message.endswith("unsupported array dtype object")
    assert not marker.exists()


def test_a_truncated_array_file_is_refused(original, tmp_path):
    files = {**original, "arrays.npz": original["arrays.npz"][:-30]}
    assert _load_error(tmp_path, files).startswith("arrays.npz: ")


def test_an_array_of_another_dtype_than_its_constant_is_refused(original, tmp_path):
    buffer = io.BytesIO()
    with np.load(io.BytesIO(original["arrays.npz"]), allow_pickle=False) as arrays:
        replaced = {k: v.astype(np.int64) for k, v in arrays.items()}
    np.savez(buffer, **replaced)
    message = _load_error(tmp_path, {**original, "arrays.npz": buffer.getvalue()})
    assert "holds int64" in message or "is not a float32 array" in message


# -- fuzzing --------------------------------------------------------------------------

FILES = ("function.json", "arrays.npz")
NAMES = [*op_registry.names(), "os.system", "eval", ""]
VALUES = st.one_of(
    st.integers(-3, 2**40),
    st.text(max_size=4),
    st.none(),
    st.booleans(),
    st.sampled_from(NAMES),
    st.sampled_from(["float32", "int64", "bool", "string", "variant", "float128"]),
    st.sampled_from(
        [
            [],
            {},
            ["int", 3],
            ["int", -1],
            ["float", "nan"],
            ["none"],
            ["dtype", "int32"],
            ["graph", {}],
            ["var", 5],
            ["array", "a0"],
            ["scalar", "a1"],
            ["strings", [1], ["x"]],
            ["tuple", [["int", 0]]],
            ["x", 0],
            ["add", 9],
        ]
    ),
)
ARRAYS = st.builds(
    lambda dtype, shape: np.zeros(shape, dtype),
    st.sampled_from(["float32", "float64", "int32", "int64", "bool", "int8", "c8"]),
    st.lists(st.integers(0, 3), max_size=3).map(tuple),
)
MUTATIONS = st.one_of(
    st.tuples(st.just("truncate"), st.sampled_from(FILES), st.floats(0, 1)),
    st.tuples(
        st.just("flip"), st.sampled_from(FILES), st.floats(0, 1), st.integers(1, 255)
    ),
    st.tuples(st.just("replace"), st.floats(0, 1), VALUES),
    st.tuples(st.just("delete"), st.floats(0, 1)),
    st.tuples(st.just("array"), st.floats(0, 1), ARRAYS),
)


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path] if path else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += _paths(item, (*path, i))
    return found


def _mutate(files: dict[str, bytes], mutation: tuple[Any, ...]) -> dict[str, bytes]:
    kind, *args = mutation
    files = dict(files)
    if kind in ("truncate", "flip"):
        name, where = args[0], args[1]
        data = bytearray(files[name])
        if not data:
            return files
        at = min(int(where * len(data)), len(data) - 1)
        if kind == "truncate":
            del data[at:]
        else:
            data[at] ^= args[2]
        files[name] = bytes(data)
        return files
    if kind == "array":
        buffer = io.BytesIO()
        try:
            with np.load(io.BytesIO(files["arrays.npz"]), allow_pickle=False) as npz:
                items = dict(npz.items())
        except Exception:  # an earlier mutation broke the file already
            return files
        keys = sorted(items) or ["a0"]
        items[keys[min(int(args[0] * len(keys)), len(keys) - 1)]] = args[1]
        np.savez(buffer, **items)
        files["arrays.npz"] = buffer.getvalue()
        return files
    try:
        document = copy.deepcopy(_document(files))
    except ValueError:  # an earlier mutation broke the JSON already
        return files
    paths = _paths(document)
    path = paths[min(int(args[0] * len(paths)), len(paths) - 1)]
    parent = document
    for key in path[:-1]:
        parent = parent[key]
    if kind == "delete":
        del parent[path[-1]]
    else:
        parent[path[-1]] = args[1]
    return _with_document(files, document)


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    def expire(signum: int, frame: Any) -> None:
        raise TimeoutError

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _refuse_pickle(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("loading unpickled something")


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(mutations=st.lists(MUTATIONS, min_size=1, max_size=3))
def test_a_mutated_save_loads_and_runs_or_raises_load_error(
    tmp_path, monkeypatch, mutations
):
    files = _original_files()
    for mutation in mutations:
        files = _mutate(files, mutation)
    _write(tmp_path, files)
    monkeypatch.setattr(pickle, "loads", _refuse_pickle)
    monkeypatch.setattr(pickle, "load", _refuse_pickle)
    try:
        loaded = load(tmp_path)
    except LoadError:
        return
    for args in CALLS:
        try:
            loaded.get_concrete_function(*args)
        except (TypeError, ValueError):  # the call fits no (mutated) signature
            continue
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                with _time_limit(2):
                    loaded(*args)
            except (rt.errors.InvalidArgumentError, TimeoutError, MemoryError):
                pass  # a graph may fail on bad values, loop forever, or be huge
