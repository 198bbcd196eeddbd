"""Typed values in JSON, and the array file: how saved data is spelled.

Every value is a JSON list whose first item names its type, so loading
never guesses (and never runs anything to find out):

    >>> import numpy as np
    >>> writer = Writer()
    >>> writer.encode((1, 2.5, None))
    ['tuple', [['int', 1], ['float', '0x1.4000000000000p+1'], ['none']]]
    >>> writer.encode({"a": [True]})
    ['dict', [[['str', 'a'], ['list', [['bool', True]]]]]]
    >>> writer.encode(np.array([1, 2], np.int32)), sorted(writer.arrays)
    (['array', 'a0'], ['a0'])
    >>> Reader(writer.arrays).decode(['tuple', [['int', 1], ['none']]])
    (1, None)

Numeric arrays go to one `.npz` file (`np.savez`), referenced by key; string
arrays are stored in the JSON (a `.npy` of strings would need pickle).
`read_arrays` reads the `.npz` without `np.load`: it checks each member's
name, size, header and dtype (no object dtypes) before copying its bytes, so
a hostile file cannot run code, and a truncated or inconsistent one raises
`LoadError`. Against zip bombs, it checks the declared sizes (in total, and
each member's inflation ratio) before inflating anything, then inflates
member by member, in chunks, straight into the array (never more than
declared, and within a running cap). Only a regular file is opened (not a
FIFO or `/dev/zero`).
"""

from __future__ import annotations

import math
import re
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from autograph.tools.regular_files import FileRefusedError, open_regular
from runtime import dtypes
from runtime.tensor_spec import TensorSpec

__all__ = ["LoadError", "Reader", "Writer", "read_arrays", "write_arrays"]

MAX_DEPTH = 100
"""How deeply saved values may nest (deeper ones are refused)."""
MAX_ARRAY_BYTES = 1 << 32
"""The most array data (uncompressed) a saved function may hold."""
MAX_INFLATION = 100
"""The most a compressed `.npz` member may inflate (`save` stores them as
they are; a member inflating more than this, past `_SMALL_MEMBER`, is
refused as a zip bomb)."""
_SMALL_MEMBER = 1 << 20
_CHUNK = 1 << 20

_NUMERIC = {d.np_dtype: d for d in dtypes.ALL if d is not dtypes.string}
_ARRAY_NAME = re.compile(r"a(0|[1-9][0-9]{0,8})\.npy")


class LoadError(ValueError):
    """A saved function that cannot be loaded: corrupt, truncated or unsafe."""


def fail(where: str, message: str) -> LoadError:
    """A `LoadError` saying where (`function 0: graph: node 'add'`) and what."""
    return LoadError(f"{where}: {message}" if where else message)


class Writer:
    """Encodes values; collects the numeric arrays to write to the `.npz`.

    Args:
        hook: Called first for each value; returns its encoding, or None to
            encode the value as usual (used for subgraphs and variables).
    """

    def __init__(self, hook: Callable[[Any], Any] | None = None) -> None:
        self.arrays: dict[str, np.ndarray] = {}
        self._hook = hook

    def array(self, value: Any) -> str:
        """Stores a numeric array; returns its key."""
        key = f"a{len(self.arrays)}"
        self.arrays[key] = np.asarray(value)
        return key

    def encode(self, value: Any) -> Any:
        """The typed JSON form of `value`.

        Raises:
            ValueError: For a value that has no saved form (objects, functions).
        """
        if self._hook is not None:
            found = self._hook(value)
            if found is not None:
                return found
        t = type(value)
        if value is None:
            return ["none"]
        if t in (bool, int, str):
            return [t.__name__, value]
        if t is float:
            return ["float", value.hex()]
        if t in (tuple, list):
            return [t.__name__, [self.encode(v) for v in value]]
        if t is dict:
            return [
                "dict",
                [[self.encode(k), self.encode(v)] for k, v in value.items()],
            ]
        if isinstance(value, dtypes.DType):
            return ["dtype", value.name]
        if t is TensorSpec:
            return ["spec", self.encode(value.shape), value.dtype.name, value.name]
        if isinstance(value, (np.ndarray, np.generic)):
            if value.dtype.kind == "O":
                items = [str(v) for v in np.asarray(value).ravel().tolist()]
                return ["strings", list(np.shape(value)), items]
            if value.dtype not in _NUMERIC:
                raise ValueError(f"cannot save an array of dtype {value.dtype}")
            kind = "scalar" if isinstance(value, np.generic) else "array"
            return [kind, self.array(value)]
        raise ValueError(
            f"cannot save the {t.__name__} {_short(value)}: only tensors, "
            "Python scalars, and tuples, lists and dicts of them can be saved"
        )


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


class Reader:
    """Decodes typed JSON values, checking every field.

    Args:
        arrays: The arrays of the `.npz`, by key.
        hook: Called with (tag, payload, where) for tags this class does not
            know (`graph`, `var`); returns the value or raises `LoadError`.
    """

    def __init__(
        self,
        arrays: dict[str, np.ndarray],
        hook: Callable[[str, list[Any], str], Any] | None = None,
    ) -> None:
        self.arrays = arrays
        self.used: set[str] = set()
        self._hook = hook

    def decode(self, data: Any, where: str = "", depth: int = 0) -> Any:
        """The value `data` encodes.

        Raises:
            LoadError: Naming `where` and what is wrong.
        """
        if depth > MAX_DEPTH:
            raise fail(where, f"values nest more than {MAX_DEPTH} deep")
        if not isinstance(data, list) or not data or not isinstance(data[0], str):
            raise fail(
                where, f"expected a typed value like ['int', 1], got {_short(data)}"
            )
        tag, *payload = data
        simple = {"bool": bool, "int": int, "str": str}
        if tag == "none":
            _arity(payload, 0, tag, where)
            return None
        if tag in simple:
            _arity(payload, 1, tag, where)
            if type(payload[0]) is not simple[tag]:
                raise fail(where, f"a {tag} value must be a JSON {tag}")
            return payload[0]
        if tag == "float":
            _arity(payload, 1, tag, where)
            try:
                return float.fromhex(payload[0])
            except (TypeError, ValueError, OverflowError):
                raise fail(where, f"bad float {_short(payload[0])}") from None
        if tag in ("tuple", "list"):
            _arity(payload, 1, tag, where)
            items = _json_list(payload[0], where)
            values = [self.decode(v, where, depth + 1) for v in items]
            return tuple(values) if tag == "tuple" else values
        if tag == "dict":
            _arity(payload, 1, tag, where)
            result = {}
            for pair in _json_list(payload[0], where):
                if not isinstance(pair, list) or len(pair) != 2:
                    raise fail(where, "a dict item must be a [key, value] pair")
                key = self.decode(pair[0], where, depth + 1)
                try:
                    hash(key)
                except TypeError:
                    raise fail(where, "a dict key must be hashable") from None
                result[key] = self.decode(pair[1], where, depth + 1)
            return result
        if tag == "dtype":
            _arity(payload, 1, tag, where)
            return self.dtype(payload[0], where)
        if tag == "spec":
            _arity(payload, 3, tag, where)
            shape = self.shape(self.decode(payload[0], where, depth + 1), where)
            name = payload[2]
            if name is not None and type(name) is not str:
                raise fail(where, "a TensorSpec name must be a string or null")
            return TensorSpec(shape, self.dtype(payload[1], where), name)
        if tag in ("array", "scalar"):
            _arity(payload, 1, tag, where)
            array = self.array(payload[0], where)
            return array[()] if tag == "scalar" else array
        if tag == "strings":
            _arity(payload, 2, tag, where)
            return self._strings(payload[0], payload[1], where)
        if self._hook is not None:
            return self._hook(tag, payload, where)
        raise fail(where, f"unknown value type {_short(tag)}")

    def dtype(self, name: Any, where: str) -> dtypes.DType:
        """The DType named `name` (one of the runtime's dtypes, or `variant`)."""
        for d in (*dtypes.ALL, dtypes.variant):
            if d.name == name:
                return d
        raise fail(where, f"unknown dtype {_short(name)}")

    def shape(self, value: Any, where: str) -> Any:
        """`value` checked as a static shape: None or a tuple of ints >= 0/None."""
        if value is None:
            return None
        if type(value) is not tuple or len(value) > 64:
            raise fail(where, f"bad shape {_short(value)}")
        for d in value:
            if d is not None and (type(d) is not int or not 0 <= d < 2**62):
                raise fail(where, f"bad shape {_short(value)}")
        return value

    def array(self, key: Any, where: str) -> np.ndarray:
        """The array stored under `key`."""
        if type(key) is not str or key not in self.arrays:
            raise fail(where, f"refers to the missing array {_short(key)}")
        self.used.add(key)
        return self.arrays[key]

    def _strings(self, shape: Any, items: Any, where: str) -> np.ndarray:
        dims = self.shape(tuple(shape) if isinstance(shape, list) else shape, where)
        items = _json_list(items, where)
        if dims is None or math.prod(dims) != len(items):
            raise fail(where, "a string array's shape does not match its items")
        if any(type(s) is not str for s in items):
            raise fail(where, "a string array holds a non-string")
        array = np.empty(len(items), dtype=object)
        array[:] = items
        return array.reshape(dims)


def _arity(payload: list[Any], n: int, tag: str, where: str) -> None:
    if len(payload) != n:
        raise fail(where, f"a {tag} value takes {n} fields, got {len(payload)}")


def _json_list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise fail(where, f"expected a list, got {_short(value)}")
    return value


# -- the array file ------------------------------------------------------------


def write_arrays(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """Writes `arrays` to the `.npz` file `path` (`np.savez`, no pickle)."""
    with open(path, "wb") as f:
        np.savez(f, **arrays)


def read_arrays(path: Path) -> dict[str, np.ndarray]:
    """Reads and checks every array of the `.npz` file `path`.

    Raises:
        LoadError: A missing, corrupt or truncated file, one that is not a
            regular file, a member that is not a plain numeric `.npy`
            (object arrays included), too much data, or a zip bomb.
    """
    where = path.name
    try:
        file = open_regular(path)
    except FileRefusedError as e:
        raise fail(where, str(e)) from None
    except OSError as e:
        raise fail(where, f"cannot read it ({e.strerror})") from None
    with file:
        try:
            archive = zipfile.ZipFile(file)
        except Exception as e:  # zipfile raises many types for a corrupt archive
            raise fail(where, f"not a readable .npz file ({e})") from None
        with archive:
            infos = archive.infolist()
            _check_declared_sizes(infos, where)
            arrays: dict[str, np.ndarray] = {}
            budget = MAX_ARRAY_BYTES
            for info in infos:
                member = f"{where}/{info.filename}"
                array = _read_member(archive, info, member, budget)
                budget -= array.nbytes
                arrays[info.filename[:-4]] = array
    return arrays


def _check_declared_sizes(infos: list[zipfile.ZipInfo], where: str) -> None:
    """Refuses, before inflating anything, what the zip directory says is
    too much: odd names, too many bytes in total, or a bomb's ratio."""
    if sum(info.file_size for info in infos) > MAX_ARRAY_BYTES:
        raise fail(where, f"holds more than {MAX_ARRAY_BYTES} bytes of arrays")
    for info in infos:
        if not _ARRAY_NAME.fullmatch(info.filename):
            raise fail(where, f"unexpected member {info.filename[:40]!r}")
        if info.compress_type != zipfile.ZIP_STORED and info.file_size > max(
            _SMALL_MEMBER, MAX_INFLATION * info.compress_size
        ):
            raise fail(
                where,
                f"{info.filename} inflates from {info.compress_size} to "
                f"{info.file_size} bytes, more than {MAX_INFLATION}x: refused "
                "as a zip bomb",
            )


def _read_member(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, where: str, budget: int
) -> np.ndarray:
    """The checked array of one `.npy` member, inflated chunk by chunk into
    its own buffer; never unpickles, never reads past the declared size."""
    try:
        stream = archive.open(info)
    except Exception as e:  # a bad local header, an unsupported compression
        raise fail(where, f"is corrupt ({e})") from None
    with stream:
        shape, fortran, dtype, offset = _read_npy_header(stream, where)
        native = _check_npy_dtype(dtype, where)
        count = _check_npy_shape(shape, dtype.itemsize, where)
        nbytes = count * dtype.itemsize
        if nbytes > budget:
            raise fail(where, f"the arrays hold more than {MAX_ARRAY_BYTES} bytes")
        if info.file_size - offset != nbytes:
            raise fail(where, "array data is truncated or too long")
        flat = np.empty(count, dtype=dtype)
        view = memoryview(flat).cast("B")
        done = 0
        try:
            while done < nbytes:
                chunk = stream.read(min(_CHUNK, nbytes - done))
                if not chunk:
                    break
                view[done : done + len(chunk)] = chunk
                done += len(chunk)
            extra = stream.read(1)  # also makes zipfile check the CRC
        except Exception as e:  # zlib, CRC, truncation: all mean corrupt
            raise fail(where, f"is corrupt ({e})") from None
        if done != nbytes or extra:
            raise fail(where, "array data is truncated or too long")
    array = flat.reshape(shape, order="F" if fortran else "C")
    if array.dtype != native or not array.flags.c_contiguous:
        array = array.astype(native, order="C")
    return array


def _read_npy_header(stream: Any, where: str) -> tuple[Any, bool, np.dtype, int]:
    """(shape, fortran order, dtype, data offset) of a `.npy` stream."""
    try:
        version = np.lib.format.read_magic(stream)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(stream)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(stream)
        else:
            raise ValueError(f"unsupported .npy version {version}")
        offset = stream.tell()
    except Exception as e:  # a header that is not what np.save writes
        raise fail(where, f"bad .npy header ({e})") from None
    return shape, bool(fortran), dtype, offset


def _check_npy_dtype(dtype: np.dtype, where: str) -> np.dtype:
    """The native-order form of a supported numeric `dtype`."""
    native = dtype.newbyteorder("=") if dtype.byteorder not in "=|" else dtype
    if dtype.hasobject or native not in _NUMERIC:
        raise fail(where, f"unsupported array dtype {dtype}")
    return native


def _check_npy_shape(shape: Any, itemsize: int, where: str) -> int:
    """The element count of a header's shape, checked to be one NumPy can
    make within `MAX_ARRAY_BYTES` (also with a zero dimension)."""
    if type(shape) is not tuple or len(shape) > 64:
        raise fail(where, f"bad .npy header field 'shape': {_short(shape)}")
    for d in shape:
        if type(d) is not int or d < 0:
            raise fail(where, f"bad .npy header field 'shape': {_short(shape)}")
    if math.prod(d for d in shape if d) * itemsize > MAX_ARRAY_BYTES:
        raise fail(
            where,
            f"bad .npy header field 'shape': {_short(shape)} is larger than "
            f"{MAX_ARRAY_BYTES} bytes",
        )
    return math.prod(shape)
