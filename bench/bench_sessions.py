"""Long sessions: retrace cost, memory of dropped modules, per-call overhead.

Figures (issue #15):

* **retrace cost at 10 / 1,000 / 4,000 traces**: a `Function` already
  holding N traces (one per input length) traces one more signature; the
  median time of such a retrace (tracing included), and its ratio to the
  10-trace figure (goal: flat). As a control, the same figure for a fresh
  `Function` holding 10 traces while the N-trace one is alive: a retrace
  slows with the size of the heap (every part of tracing does, as with
  any large live heap), and the control separates that from the cost of
  the cache lookup;
* **memory after converting and dropping 2,000 modules' functions**: each
  module (a fresh file holding `MODULE` of tests/autograph/test_long_sessions)
  has a function calling a helper in a loop; both are converted
  (`to_graph`, run through `converted_call`), and `to_code`; the module is
  then dropped. Resident memory (RSS) and traced Python memory
  (`tracemalloc`) before and after, and the number of conversion-cache
  entries left;
* **per-call overhead of `to_graph(f)`** on plain values for a one-line
  `relu` (goal: at most 2x the original), interleaved rounds;
* **a traced `x + 1`** on an eager scalar tensor, against NumPy's `a + 1`
  (goal: at most 1 us per call);
* **`to_code` / `to_graph`**: each over fresh copies of the sample corpus
  (every conversion a cache miss), total time per round (goal: at most
  1.5x).

Run: ``python bench/bench_sessions.py`` (or ``make bench``). Writes
``bench/out/sessions.json``. Never asserts on timings.
"""

import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # before anything imports NumPy

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gc
import statistics
import tempfile
import time
import tracemalloc
import warnings
from typing import Any

import numpy as np

import autograph
import runtime as rt
from autograph.impl import api, transpiler
from autograph.tracing.diagnostics import RetracingWarning
from bench._timing import compare, quiet_gc, ratio, write_results
from bench.bench_conversion import corpus_copies, import_fresh, unwrap
from tests.autograph.test_long_sessions import MODULE as MODULE_SOURCE

TRACE_COUNTS = (10, 1000, 4000)
RETRACES_TIMED = 30
MODULES = 2000
CORPUS_ROUNDS = 6


# -- retrace cost ----------------------------------------------------------------


def _first(x):
    return x[0] + 1.0


def _retrace_ms(traced: Any, first_size: int) -> float:
    """Median milliseconds of tracing `traced` for new input lengths."""
    samples = []
    for k in range(RETRACES_TIMED):
        value = np.zeros(first_size + k, np.float32)
        with quiet_gc():
            start = time.perf_counter()
            traced(value)
            samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e3


def retrace_cost(count: int) -> dict[str, float]:
    """One more trace of a Function holding `count` traces, and the control."""
    traced = autograph.function(_first)
    control = autograph.function(_first)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RetracingWarning)
        for n in range(1, count + 1):
            traced(np.zeros(n, np.float32))
        for n in range(1, 11):
            control(np.zeros(n, np.float32))
        retrace = _retrace_ms(traced, count + 1)
        fresh = _retrace_ms(control, 10**6)
    assert traced.tracing_count == count + RETRACES_TIMED
    return {
        "traces": count,
        "retrace_ms": retrace,
        "control_10_traces_same_heap_ms": fresh,
        "ratio_to_control": retrace / fresh,
    }


# -- memory of dropped modules ------------------------------------------------------


def _rss_mb() -> float:
    """Resident memory of this process, in MB (Linux; else 0)."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
    except OSError:
        return 0.0
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


def dropped_modules_memory(directory: Path) -> dict[str, Any]:
    """Converts and drops `MODULES` modules' functions; memory before/after."""

    def use(index: int) -> None:
        module = import_fresh(MODULE_SOURCE, directory, None)
        converted = autograph.to_graph(module.total)
        with api.always_run_converted():
            converted(index)  # converts `helper` through converted_call
        autograph.to_code(module.helper)
        del sys.modules[module.__name__]

    use(-1)  # warm up imports and caches
    gc.collect()
    tracemalloc.start()
    before_traced, _ = tracemalloc.get_traced_memory()
    before_rss = _rss_mb()
    entries_before = len(transpiler._cache)
    for index in range(MODULES):
        use(index)
    gc.collect()
    after_traced, _ = tracemalloc.get_traced_memory()
    after_rss = _rss_mb()
    tracemalloc.stop()
    return {
        "modules": MODULES,
        "traced_python_mb_added": (after_traced - before_traced) / 1e6,
        "rss_mb_before": before_rss,
        "rss_mb_after": after_rss,
        "conversion_cache_entries_added": len(transpiler._cache) - entries_before,
    }


# -- per-call overhead -----------------------------------------------------------


def relu(x):
    return x if x > 0 else 0


def to_graph_overhead() -> dict[str, Any]:
    """relu against to_graph(relu) on a Python float, interleaved."""
    converted = autograph.to_graph(relu)
    assert converted(3.0) == relu(3.0) and converted(-1.0) == relu(-1.0)
    timings = compare(
        {"original": lambda: relu(3.0), "to_graph": lambda: converted(3.0)}
    )
    return {
        "original_ns": timings["original"].median_s * 1e9,
        "to_graph_ns": timings["to_graph"].median_s * 1e9,
        "added_ns": (timings["to_graph"].median_s - timings["original"].median_s) * 1e9,
        "ratio": ratio(timings, "to_graph", "original"),
        "note": "each figure includes the same lambda call around the call",
    }


def traced_call_overhead() -> dict[str, Any]:
    """A traced `x + 1` on an eager scalar against NumPy's `a + 1`."""

    @autograph.function
    def increment(x):
        return x + 1

    x = rt.constant(1.0)
    a = np.float32(1.0)
    assert float(increment(x)) == 2.0
    timings = compare({"numpy": lambda: a + 1, "traced": lambda: increment(x)})
    return {
        "numpy_us": timings["numpy"].median_s * 1e6,
        "traced_us": timings["traced"].median_s * 1e6,
        "ratio": ratio(timings, "traced", "numpy"),
    }


# -- to_code against to_graph --------------------------------------------------------


def code_over_graph(directory: Path) -> dict[str, Any]:
    """Seconds to_graph and to_code take over fresh copies of the corpus."""
    rounds = corpus_copies(directory, 2 * CORPUS_ROUNDS)
    times: dict[str, list[float]] = {"to_graph": [], "to_code": []}
    for round_index, samples in enumerate(rounds):
        # Alternate which one a round times, on its own fresh copy.
        name = "to_graph" if round_index % 2 == 0 else "to_code"
        convert = autograph.to_graph if name == "to_graph" else autograph.to_code
        functions = [unwrap(sample.fn) for sample in samples]
        with quiet_gc():
            start = time.perf_counter()
            for fn in functions:
                convert(fn, recursive=False)
            times[name].append(time.perf_counter() - start)
    graph = statistics.median(times["to_graph"])
    code = statistics.median(times["to_code"])
    return {
        "functions_per_round": len(functions),
        "to_graph_ms": graph * 1e3,
        "to_code_ms": code * 1e3,
        "ratio": code / graph,
    }


def main() -> None:
    """Runs every figure, prints them, writes the JSON."""
    retraces = [retrace_cost(count) for count in TRACE_COUNTS]
    base = retraces[0]["retrace_ms"]
    for row in retraces:
        row["ratio_to_10_traces"] = row["retrace_ms"] / base
        print(
            f"retrace at {row['traces']:>5} traces: {row['retrace_ms']:7.3f} ms "
            f"({row['ratio_to_10_traces']:.2f}x the 10-trace figure; a Function "
            f"with 10 traces, same heap: "
            f"{row['control_10_traces_same_heap_ms']:.3f} ms)"
        )
    with tempfile.TemporaryDirectory() as directory:
        memory = dropped_modules_memory(Path(directory))
        print(
            f"{MODULES} modules converted and dropped: "
            f"+{memory['traced_python_mb_added']:.2f} MB traced, RSS "
            f"{memory['rss_mb_before']:.0f} -> {memory['rss_mb_after']:.0f} MB, "
            f"{memory['conversion_cache_entries_added']} cache entries left"
        )
        code = code_over_graph(Path(directory))
    overhead = to_graph_overhead()
    print(
        f"to_graph(relu): {overhead['to_graph_ns']:.0f} ns vs "
        f"{overhead['original_ns']:.0f} ns ({overhead['ratio']:.2f}x, "
        f"+{overhead['added_ns']:.0f} ns)"
    )
    traced = traced_call_overhead()
    print(
        f"traced x + 1: {traced['traced_us']:.3f} us (NumPy "
        f"{traced['numpy_us']:.3f} us)"
    )
    print(
        f"to_code / to_graph: {code['to_code_ms']:.1f} / {code['to_graph_ms']:.1f} "
        f"ms = {code['ratio']:.2f}x"
    )
    path = write_results(
        "sessions",
        {
            "retrace": retraces,
            "dropped_modules": memory,
            "to_graph_overhead": overhead,
            "traced_call": traced,
            "to_code_over_to_graph": code,
        },
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
