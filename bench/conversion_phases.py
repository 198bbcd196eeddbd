"""Where conversion time goes: each phase of `to_graph` / `to_code`, in real time.

cProfile inflates small Python functions several times over (a 0.6 ms
conversion takes 2 ms under it), so the shares it shows mislead. This
script times each phase with `time.perf_counter` around the phase's
outermost call (a recursive call is not timed twice) while converting fresh
copies of the sample corpus, as `bench_conversion.py` does, and prints the
mean milliseconds per conversion of each phase and its share of the whole:
parsing (of which the source check), the survey, each pass of the pipeline
(with the analyses inside `variables` and `control_flow`), positions, and
compiling the converted code (`function_code`); with `--code`, `to_code`'s
unparsing too.

The timers add a little to each phase: compare phases, or runs of this
script, not its total with `bench_conversion.py`'s figures. It is not part
of `make bench` (no figure goal rests on it).

Run: ``python bench/conversion_phases.py [--code] [--rounds N]``.
"""

import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # before anything imports NumPy

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import argparse
import functools
import tempfile
import time
from collections.abc import Callable
from typing import Any

import autograph
from autograph.impl import code_registry, codegen, transpiler
from autograph.pyct import loader, parser, source_check
from autograph.pyct.static_analysis import definedness, liveness
from bench.bench_conversion import clear_cache, corpus_copies


def timed(
    owner: Any, name: str, label: str, totals: dict[str, float]
) -> Callable[[], None]:
    """Replaces `owner.name` by a function adding its outermost calls' time
    to `totals[label]`; returns what puts the original back."""
    original = getattr(owner, name)
    depth = [0]

    @functools.wraps(original)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if depth[0]:
            return original(*args, **kwargs)
        depth[0] += 1
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            depth[0] -= 1
            totals[label] = totals.get(label, 0.0) + time.perf_counter() - start

    setattr(owner, name, wrapper)
    return lambda: setattr(owner, name, original)


def phases(code: bool, rounds: int) -> tuple[dict[str, float], int]:
    """Seconds per phase over `rounds` fresh copies of the corpus, and the
    number of conversions."""
    totals: dict[str, float] = {}
    restore = install_timers(totals, code)
    convert = autograph.to_code if code else autograph.to_graph
    count = 0
    try:
        with tempfile.TemporaryDirectory(prefix="autograph-bench-") as tmp:
            for samples in corpus_copies(Path(tmp), rounds):
                clear_cache()
                for sample in samples:
                    convert(sample.fn)
                    count += 1
    finally:
        for undo in restore:
            undo()
    return totals, count


def install_timers(
    totals: dict[str, float], code: bool = False
) -> list[Callable[[], None]]:
    """Times each phase into `totals` (seconds by label); returns what puts
    the originals back."""
    restore = [
        timed(transpiler, "_convert", "conversion (all of it)", totals),
        timed(parser, "parse_entity", "parse: parse_entity", totals),
        timed(parser, "_parse_block", "  ast.parse of the block", totals),
        timed(source_check, "compiles_to", "  source check (a compile)", totals),
        timed(code_registry, "user_names", "user_names", totals),
        timed(transpiler, "survey", "survey", totals),
        timed(liveness, "annotate", "  liveness", totals),
        timed(definedness, "annotate", "  definedness (both passes)", totals),
        timed(codegen, "fill_locations", "fill_locations", totals),
        timed(loader, "function_code", "load_function (compile)", totals),
    ]
    restore += [
        timed(step.module, "transform", f"pass {step.name}", totals)
        for step in transpiler.PIPELINE
    ]
    if code:
        restore.append(timed(codegen, "to_source", "to_source (to_code)", totals))
    return restore


def main() -> None:
    """Prints the phases, most expensive first."""
    arguments = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    arguments.add_argument("--code", action="store_true", help="time to_code")
    arguments.add_argument("--rounds", type=int, default=8)
    options = arguments.parse_args()
    totals, count = phases(options.code, options.rounds)
    whole = totals["conversion (all of it)"]
    if "to_source (to_code)" in totals:
        whole += totals["to_source (to_code)"]
    print(f"{count} conversions; mean ms per conversion, share of the whole")
    for label, seconds in sorted(totals.items(), key=lambda item: -item[1]):
        print(f"{label:34} {seconds / count * 1e3:7.4f}  {seconds / whole:6.1%}")


if __name__ == "__main__":
    main()
