"""`autograph.saving`: save traced functions, load and run them without source."""

from __future__ import annotations

import contextlib
import io
import json
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import runtime as rt
from autograph.saving import load, save
from autograph.tracing import function
from tests.samples import ALL_SAMPLES, Sample

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAMPLES = [
    pytest.param(sample, id=sample.id)
    for sample in ALL_SAMPLES
    if sample.tensor_args is not None
]


def _outcome(fn, *args, **kwargs):
    buffer = io.StringIO()
    result, error = None, None
    with contextlib.redirect_stdout(buffer):
        try:
            result = fn(*args, **kwargs)
        except Exception as e:  # the error is part of the outcome
            error = f"{type(e).__name__}: {e}"
    return _plain(result), error, buffer.getvalue()


def _plain(value):
    """Tensors as (dtype, shape, bytes or items); structure kept."""
    if isinstance(value, (tuple, list)):
        return type(value)(_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if value is None:
        return None
    array = np.asarray(value.numpy())
    data = array.tolist() if array.dtype.kind == "O" else array.tobytes()
    return (array.dtype.str, array.shape, data)


@pytest.mark.parametrize("sample", SAMPLES)
def test_a_loaded_sample_gives_what_the_function_gave(sample: Sample, tmp_path):
    traced = function(sample.fn)
    argument_lists = sample.tensor_args()
    expected = [_outcome(traced, *args) for args in argument_lists]
    if not traced.concrete_functions:
        pytest.skip("no trace succeeded")
    save(traced, tmp_path)
    loaded = load(tmp_path)
    assert len(loaded.concrete_functions) == len(traced.concrete_functions)
    assert [_outcome(loaded, *args) for args in argument_lists] == expected


# -- a function with several traces --------------------------------------------------


def scaled_sum(x, n, scale=2.0):
    total = rt.zeros_like(x)
    for _ in rt.range(n):
        total += x * scale
    if rt.reduce_sum(total) > 0:
        total = total - 1.0
    return {"total": total, "first": total[0]}


@pytest.fixture
def scaled(tmp_path):
    traced = function(scaled_sum)
    traced(rt.constant([1.0, 2.0]), rt.constant(3))
    traced(rt.constant([1.0, 2.0, 3.0]), rt.constant(1), scale=0.5)
    traced(rt.constant([1, 2], rt.float64), rt.constant(2))
    save(traced, tmp_path)
    return traced, load(tmp_path)


def test_calls_go_to_the_trace_the_function_would_run(scaled):
    traced, loaded = scaled
    calls = [
        ((rt.constant([4.0, 5.0]), rt.constant(2)), {}),
        ((rt.constant([4.0, 5.0, 6.0]), rt.constant(2)), {"scale": 0.5}),
        ((rt.constant([4.0, 5.0], rt.float64), rt.constant(1)), {}),
        ((), {"x": rt.constant([-1.0, 0.0]), "n": rt.constant(2)}),
    ]
    for args, kwargs in calls:
        assert _outcome(loaded, *args, **kwargs) == _outcome(traced, *args, **kwargs)
    assert len(loaded.concrete_functions) == 3


def test_a_wrong_dtype_raises_a_type_error_naming_the_argument(scaled):
    _, loaded = scaled
    with pytest.raises(TypeError, match="argument 'n' must be an int32 tensor"):
        loaded(rt.constant([1.0, 2.0]), rt.constant(2.0))


def test_a_refused_call_lists_each_trace_with_its_dtypes_and_shapes(scaled):
    # It listed "scaled_sum(x, n); scaled_sum(x, n)": nothing told the
    # traces apart.
    _, loaded = scaled
    with pytest.raises(TypeError) as e:
        loaded(rt.constant([1.0, 2.0]), rt.constant(2.0))
    assert str(e.value).endswith(
        "traced only for: scaled_sum(x: float32 (2,), n: int32 (), scale=2.0); "
        "scaled_sum(x: float32 (3,), n: int32 (), scale=0.5); "
        "scaled_sum(x: float64 (2,), n: int32 (), scale=2.0)"
    ), str(e.value)


def test_a_wrong_shape_raises_a_value_error_naming_the_argument(scaled):
    _, loaded = scaled
    with pytest.raises(ValueError, match="argument 'x' must have a shape compatible"):
        loaded(rt.constant([1.0, 2.0, 3.0, 4.0]), rt.constant(2))


def test_a_python_value_never_traced_is_a_type_error(scaled):
    _, loaded = scaled
    with pytest.raises(TypeError, match="argument 'scale' was traced with"):
        loaded(rt.constant([1.0, 2.0]), rt.constant(2), scale=3.0)


def test_arguments_that_do_not_bind_raise_like_python(scaled):
    _, loaded = scaled
    with pytest.raises(TypeError, match=r"scaled_sum\(\): .*unexpected keyword"):
        loaded(rt.constant([1.0, 2.0]), rt.constant(2), size=3)


def test_a_loaded_trace_serves_only_the_dict_key_order_it_was_traced_with(tmp_path):
    # The loaded function ran the trace made for {'b', 'a'} for a dict whose
    # keys came in the order 'a', 'b' (the first value: 2, not Python's 1).
    def first_value(d):
        for k in d:
            return d[k]

    f = function(first_value)
    f({"b": rt.constant(2), "a": rt.constant(1)})
    save(f, tmp_path)
    loaded = load(tmp_path)
    assert int(loaded({"b": rt.constant(2), "a": rt.constant(1)})) == 2
    with pytest.raises(TypeError, match="keys are in another order"):
        loaded({"a": rt.constant(1), "b": rt.constant(2)})
    f({"a": rt.constant(1), "b": rt.constant(2)})
    save(f, tmp_path / "both")
    both = load(tmp_path / "both")
    assert int(both({"a": rt.constant(1), "b": rt.constant(2)})) == 1
    assert int(both({"b": rt.constant(2), "a": rt.constant(1)})) == 2


def test_an_input_signature_with_unknown_sizes_accepts_any_size(tmp_path):
    traced = function(
        lambda x: rt.reduce_sum(x * x),
        input_signature=[rt.TensorSpec([None], rt.float32)],
    )
    traced.get_concrete_function()
    save(traced, tmp_path)
    loaded = load(tmp_path)
    assert float(loaded(rt.constant([1.0, 2.0, 3.0]))) == 14.0
    assert float(loaded(x=rt.constant([2.0]))) == 4.0
    with pytest.raises(TypeError, match="argument 'x'"):
        loaded(rt.constant([1, 2]))


# -- variables ---------------------------------------------------------------------


def test_variables_are_restored_and_shared_by_every_trace(tmp_path):
    v = rt.Variable([1.0, 2.0], name="v")

    def accumulate(x):
        v.assign_add(x)
        return v.read_value()

    traced = function(accumulate)
    traced(rt.constant([1.0, 1.0]))
    traced(rt.constant(10.0))
    save(traced, tmp_path)
    v.assign([0.0, 0.0])
    loaded = load(tmp_path)
    (restored,) = loaded.variables
    assert isinstance(restored, rt.Variable) and restored.name == "v"
    assert restored.numpy().tolist() == [12.0, 13.0]  # the value when saved
    assert loaded(rt.constant([1.0, 1.0])).numpy().tolist() == [13.0, 14.0]
    assert loaded(rt.constant(1.0)).numpy().tolist() == [14.0, 15.0]
    assert v.numpy().tolist() == [0.0, 0.0]  # the original is not touched


def test_a_concrete_function_saves_alone(tmp_path):
    traced = function(lambda x, k=3: x * k).get_concrete_function(rt.constant(2))
    save(traced, tmp_path)
    loaded = load(tmp_path)
    assert int(loaded(rt.constant(5))) == 15
    assert len(loaded.concrete_functions) == 1


def test_loops_conds_prints_asserts_and_tensor_arrays_survive(tmp_path):
    def squares(n):
        ta = rt.TensorArray(rt.int32, size=0, dynamic_size=True)
        for i in rt.range(n):
            ta = ta.write(i, i * i)
        out = ta.stack()
        rt.print("squares:", out)
        rt.Assert(rt.size(out) < 10, ["too many"])
        return out

    traced = function(squares)
    expected = [_outcome(traced, rt.constant(k)) for k in (4, 12)]
    save(traced, tmp_path)
    loaded = load(tmp_path)
    assert [_outcome(loaded, rt.constant(k)) for k in (4, 12)] == expected
    assert "InvalidArgumentError: assertion failed: too many" in expected[1][1]


def test_a_loaded_function_saves_again_with_the_same_signatures(scaled, tmp_path):
    traced, loaded = scaled
    save(loaded, tmp_path / "again")
    again = load(tmp_path / "again")
    assert again.pretty_printed_concrete_signatures() == (
        traced.pretty_printed_concrete_signatures()
    )
    args = (rt.constant([4.0, 5.0]), rt.constant(2))
    assert _outcome(again, *args) == _outcome(traced, *args)


# -- what cannot be saved ------------------------------------------------------------


def test_a_function_never_called_cannot_be_saved(tmp_path):
    with pytest.raises(ValueError, match="has no traced concrete functions"):
        save(function(lambda x: x), tmp_path)


def test_an_argument_traced_by_identity_cannot_be_saved(tmp_path):
    class Model:
        scale = 2.0

    model = Model()
    traced = function(lambda model, x: x * model.scale)
    traced(model, rt.constant(1.0))
    with pytest.raises(ValueError, match="argument 'model' was traced with the object"):
        save(traced, tmp_path)


# -- the files -----------------------------------------------------------------------


def test_the_files_are_json_and_an_npz_numpy_reads_without_pickle(tmp_path):
    traced = function(lambda x: x + rt.constant(np.arange(3, dtype=np.int64)))
    traced(rt.constant(np.zeros(3, np.int64)))
    save(traced, tmp_path)
    assert sorted(os.listdir(tmp_path)) == ["arrays.npz", "function.json"]
    document = json.loads((tmp_path / "function.json").read_text())
    assert document["format"] == "autograph.saved_function"
    assert document["version"] == 1
    with np.load(tmp_path / "arrays.npz", allow_pickle=False) as arrays:
        assert any(a.tolist() == [0, 1, 2] for a in arrays.values())


def test_a_loaded_function_runs_in_a_fresh_process_without_the_source(tmp_path):
    module_dir = tmp_path / "user_code"
    module_dir.mkdir()
    (module_dir / "user_model.py").write_text(
        textwrap.dedent(
            """
            import runtime as rt
            from autograph.tracing import function

            weights = rt.Variable([[1.0, 2.0], [3.0, 4.0]], name="weights")

            @function
            def predict(x, steps):
                y = x
                i = 0
                while i < steps:
                    y = rt.tanh(rt.matmul(y, weights))
                    i += 1
                rt.print("predicted", y)
                return y
            """
        )
    )
    save_dir = tmp_path / "saved"
    program = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(module_dir)!r})
        import numpy as np, runtime as rt
        import user_model
        x = rt.constant(np.array([[0.5, -0.5]], np.float32))
        print(user_model.predict(x, rt.constant(3)).numpy().tolist())
        from autograph.saving import save
        save(user_model.predict, {str(save_dir)!r})
        """
    )
    saved = _python(program)
    loader = textwrap.dedent(
        f"""
        import importlib.util, numpy as np, runtime as rt
        assert importlib.util.find_spec("user_model") is None
        from autograph.saving import load
        loaded = load({str(save_dir)!r})
        x = rt.constant(np.array([[0.5, -0.5]], np.float32))
        print(loaded(x, rt.constant(3)).numpy().tolist())
        """
    )
    restored = _python(loader)
    assert restored == saved
    assert restored.startswith("predicted")


def _python(program: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT.parent,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout
