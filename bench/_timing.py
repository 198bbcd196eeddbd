"""Timing helpers shared by the benches: interleaved rounds, medians, JSON.

The benches never assert on timings; they print a table and write their
figures to ``bench/out/<name>.json`` (untracked), or to the tracked
``bench/results/<name>.json`` that README.md quotes when
``AUTOGRAPH_BENCH_RECORD=1`` (``make bench RECORD=1``).

BLAS threads are pinned to one (``OPENBLAS_NUM_THREADS=1``) so figures do
not depend on the machine's core count. That only works before NumPy loads,
so every bench script sets it first thing; this module sets it too, and
warns if NumPy was loaded without it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import json
import os
import platform
import statistics
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

if "numpy" in sys.modules and os.environ.get("OPENBLAS_NUM_THREADS") != "1":
    warnings.warn(
        "NumPy was imported before OPENBLAS_NUM_THREADS=1 was set; set it at "
        "the top of the bench script",
        RuntimeWarning,
        stacklevel=2,
    )
os.environ["OPENBLAS_NUM_THREADS"] = "1"

RECORD = os.environ.get("AUTOGRAPH_BENCH_RECORD", "") not in ("", "0")
RESULTS_DIR = Path(__file__).resolve().parent / ("results" if RECORD else "out")


@dataclasses.dataclass(frozen=True)
class Timing:
    """Per-call times of one candidate.

    Attributes:
        name: The candidate's name.
        median_s: Median seconds per call over all rounds.
        samples_s: Seconds per call, one figure per round.
        calls_per_sample: Calls timed together for one figure.
    """

    name: str
    median_s: float
    samples_s: tuple[float, ...]
    calls_per_sample: int


@contextlib.contextmanager
def quiet_gc() -> Iterator[None]:
    """Collects garbage, then keeps the collector off inside the block."""
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def time_call(fn: Callable[[], Any]) -> float:
    """Seconds one call of ``fn`` takes (for work that can run only once)."""
    with quiet_gc():
        start = time.perf_counter()
        fn()
        return time.perf_counter() - start


def _calls_per_sample(fn: Callable[[], Any], min_sample_s: float) -> int:
    """How many calls make one timed sample last at least ``min_sample_s``."""
    number = 1
    while True:
        start = time.perf_counter()
        for _ in range(number):
            fn()
        if time.perf_counter() - start >= min_sample_s:
            return number
        number *= 2


def compare(
    candidates: Mapping[str, Callable[[], Any]],
    *,
    rounds: int = 21,
    min_sample_s: float = 0.01,
) -> dict[str, Timing]:
    """Times candidates in interleaved rounds and returns their medians.

    Each round times every candidate once, in an order rotated from round
    to round, so drifts of the machine (frequency, other load) hit all of
    them alike.

    Args:
        candidates: Name -> a callable taking no arguments.
        rounds: Rounds to run; the median is over these.
        min_sample_s: Each sample repeats its call until it lasts this long.

    Returns:
        Name -> ``Timing``, in the order of ``candidates``.
    """
    names = list(candidates)
    numbers = {
        name: _calls_per_sample(candidates[name], min_sample_s) for name in names
    }
    samples: dict[str, list[float]] = {name: [] for name in names}
    for round_index in range(rounds):
        shift = round_index % len(names)
        for name in names[shift:] + names[:shift]:
            fn, number = candidates[name], numbers[name]
            with quiet_gc():
                start = time.perf_counter()
                for _ in range(number):
                    fn()
                elapsed = time.perf_counter() - start
            samples[name].append(elapsed / number)
    return {
        name: Timing(
            name, statistics.median(samples[name]), tuple(samples[name]), numbers[name]
        )
        for name in names
    }


def ratio(timings: Mapping[str, Timing], numerator: str, denominator: str) -> float:
    """``median(numerator) / median(denominator)``."""
    return timings[numerator].median_s / timings[denominator].median_s


def environment() -> dict[str, Any]:
    """What the figures were measured on."""
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "machine": platform.machine(),
        "system": platform.system(),
        "cpu_count": os.cpu_count(),
        "openblas_num_threads": os.environ.get("OPENBLAS_NUM_THREADS"),
    }


def write_results(name: str, payload: Mapping[str, Any]) -> Path:
    """Writes ``payload`` plus the environment to ``<RESULTS_DIR>/<name>.json``.

    Args:
        name: The bench's name, e.g. ``"overhead"``.
        payload: JSON-serializable figures.

    Returns:
        The path written.
    """
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / f"{name}.json"
    document = {"bench": name, "environment": environment(), **payload}
    path.write_text(json.dumps(document, indent=2, sort_keys=False) + "\n")
    return path
