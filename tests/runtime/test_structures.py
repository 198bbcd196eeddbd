"""rt.nest, rt.TensorSpec, dtypes, and the runtime's layering."""

from __future__ import annotations

import collections
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import runtime as rt
from runtime import nest

Point = collections.namedtuple("Point", "x y")


def test_flatten_visits_dicts_in_sorted_key_order():
    assert nest.flatten({"b": [1, 2], "a": (3, None)}) == [3, None, 1, 2]


def test_pack_sequence_as_rebuilds_every_container_kind():
    structure = (Point(0, [0]), {"k": 0}, [0])
    assert nest.pack_sequence_as(structure, [1, 2, 3, 4]) == (
        Point(1, [2]),
        {"k": 3},
        [4],
    )


def test_map_structure_applies_to_matching_leaves():
    assert nest.map_structure(lambda a, b: a * b, {"x": (2, 3)}, {"x": (4, 5)}) == {
        "x": (8, 15)
    }


@pytest.mark.parametrize(
    ("a", "b", "error"),
    [
        ((1, 2), (1,), ValueError),
        ((1, [2]), (1, 2), ValueError),
        ({"a": 1}, {"b": 1}, ValueError),
        ((1, 2), [1, 2], TypeError),
        (Point(1, 2), (1, 2), TypeError),
    ],
)
def test_assert_same_structure_rejects_differences(a, b, error):
    with pytest.raises(error, match="the two structures don't match"):
        nest.assert_same_structure(a, b)


def test_tensor_arrays_flatten_to_their_handle_when_composites_expand():
    ta = rt.TensorArray(rt.int32, size=1)
    assert nest.flatten([ta]) == [ta]
    assert nest.flatten([ta], expand_composites=True) == [ta.handle]
    rebuilt = nest.pack_sequence_as([ta], [ta.handle], expand_composites=True)[0]
    assert isinstance(rebuilt, rt.TensorArray) and rebuilt.dtype is rt.int32


def test_tensor_spec_is_frozen_hashable_and_matches_compatible_tensors():
    spec = rt.TensorSpec([None, 3], rt.float32, "x")
    assert spec == rt.TensorSpec((None, 3), "float32", "x")
    assert len({spec, rt.TensorSpec([None, 3], rt.float32, "x")}) == 1
    assert spec.is_compatible_with(rt.zeros([2, 3]))
    assert not spec.is_compatible_with(rt.zeros([2, 4]))
    assert not spec.is_compatible_with(rt.zeros([2, 3], rt.int32))
    assert rt.TensorSpec(None).is_compatible_with(rt.zeros([1, 2, 3]))
    with pytest.raises(AttributeError):
        spec.shape = (1,)


def test_dtypes_map_to_numpy_and_back():
    for dtype in (rt.float32, rt.float64, rt.int32, rt.int64, rt.bool):
        assert rt.as_dtype(dtype.np_dtype) is dtype
        assert rt.as_dtype(dtype.name) is dtype
    assert rt.as_dtype(np.array(["a"]).dtype) is rt.string
    assert repr(rt.float32) == "rt.float32" and str(rt.int64) == "int64"
    with pytest.raises(TypeError, match="unsupported NumPy dtype float16"):
        rt.as_dtype(np.float16)


def test_runtime_never_imports_autograph():
    root = pathlib.Path(rt.__file__).parent
    for path in root.rglob("*.py"):
        text = path.read_text()
        assert "import autograph" not in text and "from autograph" not in text, path
    code = (
        "import sys, runtime; "
        "print(any(m.split('.')[0] == 'autograph' for m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=root.parent,
        check=True,
    )
    assert out.stdout.strip() == "False"


_Pair = collections.namedtuple("_Pair", "x y")
_NESTED = {"b": [1, (2, 3)], "a": _Pair(4, {"z": 5, "y": 6})}


def test_map_structure_with_paths_gives_flatten_with_paths_paths():
    seen = []
    nest.map_structure_with_paths(lambda p, v: seen.append((p, v)), _NESTED)
    assert seen == nest.flatten_with_paths(_NESTED)


def test_map_structure_with_paths_rebuilds_each_container_as_its_type():
    out = nest.map_structure_with_paths(lambda p, v: len(p), _NESTED)
    assert out == {"b": [2, (3, 3)], "a": _Pair(2, {"z": 3, "y": 3})}
    assert list(out) == ["b", "a"] and list(out["a"].y) == ["z", "y"]


def test_map_structure_of_one_structure_visits_leaves_in_flatten_order():
    seen = []
    out = nest.map_structure(lambda v: seen.append(v) or -v, _NESTED)
    assert seen == nest.flatten(_NESTED)
    assert out == {"b": [-1, (-2, -3)], "a": _Pair(-4, {"z": -5, "y": -6})}


def test_sorted_keys_falls_back_to_repr_for_keys_that_do_not_compare():
    assert nest.sorted_keys({"b": 1, "a": 2}) == ["a", "b"]
    assert nest.sorted_keys({1: 0, "a": 0}) == ["a", 1]  # "'a'" < "1"
