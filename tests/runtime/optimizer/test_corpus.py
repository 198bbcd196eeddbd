"""The shared sample corpus gives identical results with and without each pass.

Every sample with tensor arguments is traced by `autograph.function` with
`optimize=False`; then each pass alone, and the whole pipeline, rewrites the
traced graph, and the rewritten graph must give the same results (dtype,
shape and bits), print the same text and raise the same error.
"""

from __future__ import annotations

import contextlib
import io
from typing import Any

import pytest

from autograph.tracing import ConcreteFunction, function
from runtime import optimizer
from tests.runtime.optimizer.util import assert_identical
from tests.samples import ALL_SAMPLES, Sample

SAMPLES = [
    pytest.param(sample, id=sample.id)
    for sample in ALL_SAMPLES
    if sample.tensor_args is not None
]
PASSES = [pytest.param(p, id=p.__name__) for p in optimizer.PASSES]
PASSES.append(pytest.param(optimizer.optimize, id="optimize"))


def _outcome(fn: Any, args: tuple[Any, ...]) -> tuple[Any, str | None, str]:
    buffer = io.StringIO()
    result, error = None, None
    with contextlib.redirect_stdout(buffer):
        try:
            result = fn(*args)
        except Exception as e:  # the error is part of the outcome
            error = f"{type(e).__name__}: {e}"
    return result, error, buffer.getvalue()


def _assert_same_structure_and_bits(expected: Any, actual: Any) -> None:
    if isinstance(expected, (tuple, list)):
        assert type(actual) is type(expected) and len(actual) == len(expected)
        for e, a in zip(expected, actual):
            _assert_same_structure_and_bits(e, a)
    elif isinstance(expected, dict):
        assert list(actual) == list(expected)
        for key in expected:
            _assert_same_structure_and_bits(expected[key], actual[key])
    elif expected is None:
        assert actual is None
    else:
        assert_identical(expected.numpy(), actual.numpy())


@pytest.mark.parametrize("run_pass", PASSES)
@pytest.mark.parametrize("sample", SAMPLES)
def test_the_pass_keeps_what_each_sample_computes(sample: Sample, run_pass: Any):
    for args in sample.tensor_args():
        try:
            traced = function(sample.fn, optimize=False).get_concrete_function(*args)
        except Exception:  # fails while tracing: no graph to optimize
            continue
        new = run_pass(traced.graph, traced.inputs, traced.outputs)
        rewritten = ConcreteFunction(
            traced.name,
            traced.params,
            new,
            list(new.inputs),
            traced.structured_outputs,
            list(new.outputs),
        )
        expected = _outcome(traced, args)
        actual = _outcome(rewritten, args)
        assert actual[1:] == expected[1:]
        _assert_same_structure_and_bits(expected[0], actual[0])
