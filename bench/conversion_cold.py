"""The cold penalty: each phase of a conversion right after something else
evicted the CPU caches, against the same conversion warm.

`bench_conversion.py`'s rounds against TensorFlow time each of our
conversions right after a TensorFlow AutoGraph conversion of the same
function (~20 ms of Python that churns memory); there a conversion costs
~1.5x what it costs back to back (`conversion_phases.py`). This script
measures where that goes. For each corpus function it converts two fresh
copies: the first right after the evictor ran ("cold"), the second right
after the first ("warm"), so both see the same machine load. It prints, per
phase (the timers of `conversion_phases.py`), the median over the 5-15
line functions of each one's median over rounds, cold and warm, most grown
first, and the whole `to_graph` call's.

Evictors (`--evict`):

* ``tf``: TensorFlow AutoGraph converts the same function (the default
  when TensorFlow is importable; e.g. with a TensorFlow virtual
  environment: ``PYTHONPATH=$PWD tfvenv/bin/python bench/conversion_cold.py``);
* ``flush``: writes a buffer of ``--flush-mb`` MiB (default 12, which costs
  about what a TensorFlow conversion does; 2 costs little: the penalty is
  what falls out of the last-level cache, not out of L2);
* ``typecache``: clears CPython's type attribute cache only;
* ``gc``: a full collection.

With ``--rewarm``, a small function (`_rewarm`) is converted between the
evictor and the cold conversion: what it does not win back is the share of
the penalty that depends on the function converted. After a TensorFlow
conversion it wins back two thirds to three quarters: the penalty is mostly
a fixed cost per phase (reloading what the phase's code touches), not one
that grows with the tree.

Not part of `make bench`. Run:
``python bench/conversion_cold.py [--evict KIND] [--rounds N]``.
"""

import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # before anything imports NumPy

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import argparse
import contextlib
import gc
import importlib.util
import inspect
import io
import statistics
import tempfile
import time
from collections.abc import Callable
from typing import Any

import autograph
from autograph.impl import api, transpiler
from bench.bench_conversion import clear_cache, corpus_copies, unwrap
from bench.conversion_phases import install_timers, timed

WHOLE = "to_graph (the whole call)"


def evictor(kind: str, flush_mb: int) -> Callable[[Any], None]:
    """What runs before each cold conversion (given the corpus sample)."""
    if kind == "tf":
        import tensorflow as tf

        def tf_conversion(sample: Any) -> None:
            with (
                contextlib.redirect_stderr(io.StringIO()),
                contextlib.suppress(Exception),
            ):
                tf.autograph.to_graph(sample.fn)

        return tf_conversion
    if kind == "flush":
        buffer, zeros = bytearray(flush_mb << 20), bytes(flush_mb << 20)

        def flush(sample: Any) -> None:
            buffer[:] = zeros

        return flush
    if kind == "typecache":
        return lambda sample: sys._clear_type_cache()
    if kind == "gc":
        return lambda sample: gc.collect()
    raise SystemExit(f"unknown evictor {kind!r}")


def _rewarm(x: Any, n: int) -> Any:
    """What `--rewarm` converts after the evictor: an if, a for, a while."""
    y = 0
    if x > 0:
        y = x + 1
    else:
        y = x - 1
    for i in range(n):
        y = y * 2 + i
    while y > 100:
        y = y // 2
    return y


def rewarmed(evict: Callable[[Any], None]) -> Callable[[Any], None]:
    """`evict`, then a fresh conversion of `_rewarm`."""

    def evict_then_rewarm(sample: Any) -> None:
        evict(sample)
        transpiler.clear_cache()
        autograph.to_graph(_rewarm)

    return evict_then_rewarm


def measure(
    evict: Callable[[Any], None], rounds: int
) -> dict[str, dict[str, list[dict[str, float]]]]:
    """Per mode ("cold", "warm"), per corpus function of 5-15 lines, the
    seconds of each phase in each round."""
    totals: dict[str, float] = {}
    runs: dict[str, dict[str, list[dict[str, float]]]] = {"cold": {}, "warm": {}}
    restore = install_timers(totals)
    restore += [
        timed(api, "_convert_function", "api: _convert_function", totals),
        timed(transpiler, "instantiate", "  instantiate", totals),
        timed(api, "_dispatcher", "api: _dispatcher", totals),
    ]
    try:
        with tempfile.TemporaryDirectory(prefix="autograph-bench-") as tmp:
            copies = corpus_copies(Path(tmp), 2 * rounds)
            for first, second in zip(copies, copies):
                clear_cache()
                for cold, warm in zip(first, second):
                    lines = len(inspect.getsourcelines(unwrap(cold.fn))[0])
                    inspect.getsourcelines(unwrap(warm.fn))  # (as for `cold`)
                    evict(cold)
                    for mode, sample in (("cold", cold), ("warm", warm)):
                        totals.clear()
                        start = time.perf_counter()
                        autograph.to_graph(sample.fn)
                        totals[WHOLE] = time.perf_counter() - start
                        if 5 <= lines <= 15:
                            runs[mode].setdefault(sample.id, []).append(dict(totals))
    finally:
        for undo in restore:
            undo()
    return runs


def median_ms(per_function: dict[str, list[dict[str, float]]], label: str) -> float:
    """The median over functions of each one's median over rounds."""
    return 1e3 * statistics.median(
        statistics.median(run.get(label, 0.0) for run in function_runs)
        for function_runs in per_function.values()
    )


def main() -> None:
    """Prints the phases, most grown first."""
    arguments = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    has_tf = importlib.util.find_spec("tensorflow") is not None
    arguments.add_argument(
        "--evict",
        default="tf" if has_tf else "flush",
        choices=("tf", "flush", "typecache", "gc"),
    )
    arguments.add_argument("--flush-mb", type=int, default=12)
    arguments.add_argument("--rounds", type=int, default=4)
    arguments.add_argument(
        "--rewarm", action="store_true", help="convert a small function after it"
    )
    options = arguments.parse_args()
    evict = evictor(options.evict, options.flush_mb)
    runs = measure(rewarmed(evict) if options.rewarm else evict, options.rounds)
    labels = {label for run in runs["cold"].values() for r in run for label in r}
    rows = [
        (label, median_ms(runs["cold"], label), median_ms(runs["warm"], label))
        for label in labels
    ]
    print(
        f"evictor {options.evict}{' then _rewarm' * options.rewarm}; "
        f"{len(runs['cold'])} functions of 5-15 lines, "
        f"{options.rounds} rounds; median ms (phases' medians do not add up)"
    )
    print(f"{'phase':34} {'cold':>7} {'warm':>7} {'grown':>7}")
    for label, cold, warm in sorted(rows, key=lambda row: row[2] - row[1]):
        print(f"{label:34} {cold:7.4f} {warm:7.4f} {cold - warm:7.4f}")


if __name__ == "__main__":
    main()
