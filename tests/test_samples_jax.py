"""Every numeric sample under `jax.jit(autograph.to_graph(f))` with JAX inputs:
the compiled function gives what plain Python gives on the same values.

Skips (with the reason) when JAX cannot be imported; the `test` extra
installs it.
"""

from __future__ import annotations

import pytest

from tests.equivalence import assert_jax_equivalent, require_jax
from tests.samples import ALL_SAMPLES, Sample, Static

CASES = [
    pytest.param(sample, id=sample.id)
    for sample in ALL_SAMPLES
    if sample.tensor_args is not None
]


@pytest.mark.parametrize("sample", CASES)
def test_jitted_sample_matches_python(sample: Sample) -> None:
    require_jax()
    for args in sample.tensor_args.values:
        static = tuple(i for i, a in enumerate(args) if isinstance(a, Static))
        values = tuple(a.value if isinstance(a, Static) else a for a in args)
        assert_jax_equivalent(sample.fn, *values, static=static)
