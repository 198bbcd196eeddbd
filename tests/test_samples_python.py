"""Every sample of the corpus: converted code behaves like the original.

One test per sample and argument tuple, in plain Python mode (no tensors).
The corpus itself is checked too, so that it keeps covering what it claims.
"""

from __future__ import annotations

import collections

import pytest

from tests.equivalence import assert_equivalent, run_captured
from tests.samples import ALL_SAMPLES, Sample

CASES = [
    pytest.param(sample, args, id=f"{sample.id}-{i}")
    for sample in ALL_SAMPLES
    for i, args in enumerate(sample.python_args)
]


@pytest.mark.parametrize(("sample", "args"), CASES)
def test_converted_sample_behaves_like_the_original(
    sample: Sample, args: tuple
) -> None:
    assert_equivalent(sample.fn, *args)


def test_sample_names_are_unique() -> None:
    counts = collections.Counter(sample.id for sample in ALL_SAMPLES)
    assert [name for name, n in counts.items() if n > 1] == []


def test_every_sample_has_python_arguments() -> None:
    assert [s.id for s in ALL_SAMPLES if not s.python_args] == []


@pytest.mark.parametrize(
    "error_type",
    [ZeroDivisionError, AssertionError, UnboundLocalError, ValueError, IndexError],
)
def test_corpus_includes_samples_that_raise(error_type: type) -> None:
    raised = [
        sample.id
        for sample in ALL_SAMPLES
        for args in sample.python_args
        if isinstance(run_captured(sample.fn, args, {}).error, error_type)
    ]
    assert raised, f"no sample raises {error_type.__name__}"


def test_corpus_includes_samples_that_print() -> None:
    printing = [
        sample.id
        for sample in ALL_SAMPLES
        for args in sample.python_args
        if run_captured(sample.fn, args, {}).stdout
    ]
    assert len(printing) >= 5
