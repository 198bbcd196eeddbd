"""Every sample with tensor arguments: the traced graph gives the eager result.

Skips while ``runtime`` or ``autograph.function`` cannot be imported.
"""

from __future__ import annotations

import pytest

from tests.equivalence import assert_graph_equivalent, require_graph_mode
from tests.samples import ALL_SAMPLES, Sample

CASES = [
    pytest.param(sample, id=sample.id)
    for sample in ALL_SAMPLES
    if sample.tensor_args is not None
]


@pytest.mark.parametrize("sample", CASES)
def test_traced_sample_matches_the_eager_run(sample: Sample) -> None:
    require_graph_mode()  # skips before the tensors are built, while runtime is missing
    for args in sample.tensor_args():
        assert_graph_equivalent(sample.fn, *args)
