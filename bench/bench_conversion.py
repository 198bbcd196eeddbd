"""Conversion time: the sample corpus, and generated functions of growing size.

Three figures:

* the median time ``autograph.to_graph`` takes to convert each function of
  the sample corpus (tests/samples) from scratch (target: at most 1 ms for a
  5-15 line function), timed as a program meets it (collector on), and
  also right after a full collection (cold caches; see ``TIMERS``);
* ``to_graph`` and ``to_code`` against TensorFlow AutoGraph on the same
  functions in the same rounds, when TensorFlow is importable, with the
  part of a conversion that is CPython's compiler's alone (parse the
  source, compile it, compile the converted code) as a floor;
* the time to convert generated functions of 10, 100 and 1,000 statements,
  in three shapes (a mix of ifs and loops, a chain of if/else blocks, and
  ifs without else), in total and per statement; the marginal cost of a
  statement should stay flat as size grows (conversion is meant to be
  linear; see DESIGN.md).

Every timed conversion is a cache miss: each round re-imports the corpus
from a fresh temporary file, with its lines shifted, so every function has a
new code object; generated functions get a new name and file per round.
``autograph.impl.api.clear_cache()`` is called between rounds when it exists.

Run: ``python bench/bench_conversion.py`` (or ``make bench``). Writes
``bench/out/conversion.json``. Never asserts on timings.
"""

import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # before anything imports NumPy

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import ast
import contextlib
import functools
import importlib
import importlib.util
import inspect
import io
import itertools
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import autograph
from autograph.impl import transpiler
from autograph.pyct import loader, parser
from bench._timing import time_call, write_results
from tests.samples import TOPICS

TARGET_MS = 1.0
CORPUS_ROUNDS = 16
SIZES = (10, 100, 1000)
_ids = itertools.count()


def clear_cache() -> None:
    """Empties autograph's conversion cache, if it has one."""
    try:
        api = importlib.import_module("autograph.impl.api")
    except ImportError:
        return
    clear = getattr(api, "clear_cache", None)
    if callable(clear):
        clear()


def import_fresh(source: str, directory: Path, package: str | None) -> ModuleType:
    """Imports ``source`` as a new module from a new file in ``directory``.

    Args:
        source: Module source text.
        directory: Where to write the file.
        package: The package the module belongs to (for relative imports).

    Returns:
        The executed module.
    """
    stem = f"_fresh_{os.getpid()}_{next(_ids)}"
    name = f"{package}.{stem}" if package else stem
    path = directory / f"{stem}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def unwrap(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The plain function behind a partial or a bound method."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    return getattr(fn, "__func__", fn)


def corpus_copies(directory: Path, rounds: int) -> Iterator[list[Any]]:
    """Yields, per round, fresh copies of every corpus sample.

    Each round imports every topic module again from a new file with its
    lines shifted down by the round number, so no code object repeats.
    """
    sources = [
        Path(importlib.import_module(f"tests.samples.{topic}").__file__).read_text()
        for topic in TOPICS
    ]
    for round_index in range(rounds):
        samples: list[Any] = []
        for source in sources:
            shifted = "\n" * (round_index + 1) + source
            module = import_fresh(shifted, directory, "tests.samples")
            samples.extend(module.SAMPLES)
        yield samples


def time_in_program(fn: Callable[[], Any]) -> float:
    """Seconds one call of ``fn`` takes with the collector as the program has it."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


# How a conversion is timed; rounds alternate between the two.
# - in_program: as a user's program meets it, the cyclic collector on (its
#   pauses during conversion count). The headline figure.
# - after_full_collection: bench._timing.time_call, which runs a full
#   collection before the call and turns the collector off during it. The
#   collection walks every live object (NumPy, the corpus modules, ...) and
#   evicts the CPU caches, so this times a cold start (~20% slower); it is
#   reported too, for comparison with earlier figures, which used it alone.
TIMERS: dict[str, Callable[[Callable[[], Any]], float]] = {
    "in_program": time_in_program,
    "after_full_collection": time_call,
}


def bench_corpus(directory: Path) -> dict[str, Any]:
    """Median fresh conversion time of each corpus function, and a summary,
    for each way of timing (see `TIMERS`)."""
    times: dict[str, dict[str, list[float]]] = {mode: {} for mode in TIMERS}
    lines: dict[str, int] = {}
    for round_index, samples in enumerate(corpus_copies(directory, CORPUS_ROUNDS)):
        mode = list(TIMERS)[round_index % len(TIMERS)]
        clear_cache()
        for sample in samples:
            convert = functools.partial(autograph.to_graph, sample.fn)
            times[mode].setdefault(sample.id, []).append(TIMERS[mode](convert))
            lines[sample.id] = len(inspect.getsourcelines(unwrap(sample.fn))[0])
    result = _corpus_figures(times["in_program"], lines)
    result["after_full_collection"] = _corpus_figures(
        times["after_full_collection"], lines
    )["summary"]
    return result


TF_ROUNDS = 8


def bench_against_tensorflow(directory: Path) -> dict[str, Any] | None:
    """Our `to_graph` / `to_code` against TensorFlow AutoGraph's on fresh
    copies of the corpus, in the same rounds (None without TensorFlow).

    Rounds alternate between `to_graph` and `to_code` (a function is
    converted once per round, by each converter, in an order that flips from
    round to round). Figures are medians over the 5-15 line functions both
    convert; `tf_over_ours` is TensorFlow's median over ours.

    Each function's CPython compiler work (`cpython_work`: parsing its
    source, compiling it, compiling its converted code) is timed in the
    same rounds too: `tf_over_cpython_compiler` is the ratio a converter
    doing nothing else would reach, the ceiling of `tf_over_ours`.
    """
    try:
        import tensorflow as tf
    except ImportError:
        return None
    pairs = {
        "to_graph": (autograph.to_graph, tf.autograph.to_graph),
        "to_code": (autograph.to_code, tf.autograph.to_code),
    }
    times: dict[str, dict[str, dict[str, list[float]]]] = {
        mode: {"ours": {}, "tensorflow": {}} for mode in pairs
    }
    failed: set[str] = set()
    lines: dict[str, int] = {}
    floor: dict[str, list[float]] = {}
    with contextlib.redirect_stderr(io.StringIO()):  # TF's conversion warnings
        for round_index, samples in enumerate(corpus_copies(directory, TF_ROUNDS)):
            mode = list(pairs)[round_index % 2]
            compiler_work = {s.id: cpython_work(s.fn) for s in samples}
            clear_cache()
            converters = list(zip(("ours", "tensorflow"), pairs[mode]))
            if round_index % 4 >= 2:
                converters.reverse()
            for sample in samples:
                lines[sample.id] = len(inspect.getsourcelines(unwrap(sample.fn))[0])
                for who, convert in converters:
                    try:
                        seconds = time_in_program(functools.partial(convert, sample.fn))
                    except Exception:  # TF converts less of Python than we do
                        failed.add(sample.id)
                        continue
                    times[mode][who].setdefault(sample.id, []).append(seconds)
                seconds = time_in_program(compiler_work[sample.id])
                floor.setdefault(sample.id, []).append(seconds)
    result: dict[str, Any] = {"tensorflow": tf.__version__, "rounds": TF_ROUNDS}
    for mode, by_who in times.items():
        common = [
            name
            for name in by_who["ours"]
            if name not in failed and 5 <= lines[name] <= 15
        ]
        medians = {
            who: statistics.median(
                statistics.median(by_who[who][name]) for name in common
            )
            * 1e3
            for who in by_who
        }
        floor_ms = statistics.median(statistics.median(floor[n]) for n in common) * 1e3
        result[mode] = {
            "functions_5_to_15_lines": len(common),
            "ours_median_ms": medians["ours"],
            "tensorflow_median_ms": medians["tensorflow"],
            "tf_over_ours": medians["tensorflow"] / medians["ours"],
            "cpython_compiler_median_ms": floor_ms,
            "tf_over_cpython_compiler": medians["tensorflow"] / floor_ms,
        }
    result["tensorflow_failed"] = len(failed)
    return result


def cpython_work(fn: Callable[..., Any]) -> Callable[[], Any]:
    """What CPython's compiler alone does in a conversion of `fn`, as a call
    to time: parse the definition's source, compile it (the stale-source
    check: is it the code the function runs?) and compile the converted
    code. No converter that checks its source and compiles its output can
    be faster than this call; the TF figures report it as a floor."""
    function = unwrap(fn)
    filename = function.__code__.co_filename
    text = parser.parse_entity(function).source
    node = transpiler.convert_entity(
        function, recursive=True, is_library=lambda name: False
    ).node
    # Inside a function of `ag__` and the free variables, as converted code
    # is compiled (a `nonlocal` needs the enclosing binding).
    params = [ast.arg(arg=name) for name in ("ag__", *function.__code__.co_freevars)]
    factory = ast.FunctionDef(
        name="factory",
        args=ast.arguments(
            posonlyargs=[], args=params, kwonlyargs=[], kw_defaults=[], defaults=[]
        ),
        body=[node if isinstance(node, ast.stmt) else ast.Expr(node), ast.Pass()],
        decorator_list=[],
    )
    converted = ast.fix_missing_locations(ast.Module(body=[factory], type_ignores=[]))

    def work() -> None:
        compile(ast.parse(text), filename, "exec", dont_inherit=True)
        compile(converted, filename, "exec", dont_inherit=True)

    return work


def _corpus_figures(
    times: dict[str, list[float]], lines: dict[str, int]
) -> dict[str, Any]:
    per_function = {
        name: {"lines": lines[name], "median_ms": statistics.median(ts) * 1e3}
        for name, ts in times.items()
    }
    typical = sorted(
        row["median_ms"] for row in per_function.values() if 5 <= row["lines"] <= 15
    )
    summary = {
        "functions": len(per_function),
        "functions_5_to_15_lines": len(typical),
        "median_ms_5_to_15_lines": statistics.median(typical),
        "p90_ms_5_to_15_lines": typical[int(0.9 * (len(typical) - 1))],
        "max_ms_5_to_15_lines": typical[-1],
        "target_ms": TARGET_MS,
        "within_target": statistics.median(typical) <= TARGET_MS,
    }
    return {"summary": summary, "functions": per_function}


def _mixed_statement(k: int) -> list[str]:
    v, w = f"v{k % 10}", f"v{(k + 3) % 10}"
    shapes = [
        [f"if {v} > {k % 7}:", f"    {w} = {w} + {v}", "else:", f"    {w} = {w} - 1"],
        ["for i in range(n):", f"    {v} = {v} + i"],
        [f"while {v} > 100:", f"    {v} = {v} - 7"],
        [f"{v} = {w} * 2 - {k % 5}"],
        [f"if {v} < {w}:", f"    {v} = {w}"],
    ]
    return shapes[k % len(shapes)]


def _if_else_statement(k: int) -> list[str]:
    v = f"v{k % 10}"
    return [f"if {v} > {k % 7}:", f"    {v} = {v} - 1", "else:", f"    {v} = {v} + 2"]


def _if_statement(k: int) -> list[str]:
    v = f"v{k % 10}"
    return [f"if {v} > {k % 7}:", f"    {v} = {v} - 1"]


SHAPES: dict[str, Callable[[int], list[str]]] = {
    "mixed": _mixed_statement,
    "if_else_chain": _if_else_statement,
    "sequential_ifs": _if_statement,
}


def generated_source(name: str, shape: Callable[[int], list[str]], size: int) -> str:
    """A function of ``size`` top-level statements (plus set-up and return)."""
    body = [f"v{k} = x + {k}" for k in range(10)]
    for k in range(size):
        body += shape(k)
    body.append("return " + " + ".join(f"v{k}" for k in range(10)))
    return f"def {name}(x, n):\n" + "".join(f"    {line}\n" for line in body)


@contextlib.contextmanager
def compile_timer() -> Iterator[list[float]]:
    """Times CPython's `compile` of the converted code inside the block.

    Yields a list that collects the seconds of each compilation (bench-only
    instrumentation of autograph.pyct.loader).
    """
    seconds: list[float] = []
    original = loader.compile_module

    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            seconds.append(time.perf_counter() - start)

    loader.compile_module = timed
    try:
        yield seconds
    finally:
        loader.compile_module = original


def time_generated(
    shape: Callable[[int], list[str]], size: int, directory: Path
) -> tuple[float, float, int]:
    """Median fresh conversion time (s) of a generated function, the median
    time of CPython's compile within it, and the function's lines."""
    times, compiles = [], []
    for _ in range(3 if size >= 1000 else 7):
        name = f"generated_{next(_ids)}"
        source = generated_source(name, shape, size)
        fn = getattr(import_fresh(source, directory, None), name)
        clear_cache()
        with compile_timer() as compiled:
            times.append(time_call(functools.partial(autograph.to_graph, fn)))
        compiles.append(sum(compiled))
    return statistics.median(times), statistics.median(compiles), source.count("\n")


def bench_generated(directory: Path) -> dict[str, Any]:
    """Fresh conversion time of generated functions, and its growth.

    The marginal cost of a statement, (t(large) - t(small)) / (large - small),
    is the same for every step of sizes when conversion is linear, so
    ``marginal_growth`` (last step over first) is then about 1. It is also
    given without CPython's `compile` of the converted code
    (``marginal_growth_without_compile``): compiling a function that
    defines thousands of nested functions is superlinear in CPython itself
    (a 1,000-if function's compile takes ~45x its 100-if twin's).
    """
    results: dict[str, Any] = {}
    for shape_name, shape in SHAPES.items():
        sizes = {}
        for size in SIZES:
            median, compiled, lines = time_generated(shape, size, directory)
            sizes[size] = {
                "statements": size,
                "lines": lines,
                "median_ms": median * 1e3,
                "compile_ms": compiled * 1e3,
                "us_per_statement": median / size * 1e6,
            }
        marginal = _marginal(sizes, lambda row: row["median_ms"])
        own = _marginal(sizes, lambda row: row["median_ms"] - row["compile_ms"])
        results[shape_name] = {
            "sizes": {str(size): row for size, row in sizes.items()},
            "marginal_us_per_statement": marginal,
            "marginal_growth": _growth(marginal),
            "marginal_us_per_statement_without_compile": own,
            "marginal_growth_without_compile": _growth(own),
        }
    return results


def _marginal(
    sizes: dict[int, dict[str, Any]], ms: Callable[[dict[str, Any]], float]
) -> dict[str, float]:
    """Microseconds per added statement between successive sizes."""
    return {
        f"{small}->{large}": (ms(sizes[large]) - ms(sizes[small]))
        / (large - small)
        * 1e3
        for small, large in itertools.pairwise(SIZES)
    }


def _growth(marginal: dict[str, float]) -> float:
    first, *_, last = marginal.values()
    return last / first


def main() -> None:
    """Runs both benches, prints their figures, writes the JSON."""
    with tempfile.TemporaryDirectory(prefix="autograph-bench-") as tmp:
        directory = Path(tmp)
        corpus = bench_corpus(directory)
        generated = bench_generated(directory)
        # Last: importing TensorFlow grows the heap, which slows what follows.
        tensorflow = bench_against_tensorflow(directory)
    summary = corpus["summary"]
    cold = corpus["after_full_collection"]
    print(
        f"corpus: {summary['functions']} functions; 5-15 lines "
        f"({summary['functions_5_to_15_lines']}): median "
        f"{summary['median_ms_5_to_15_lines']:.3f} ms, p90 "
        f"{summary['p90_ms_5_to_15_lines']:.3f} ms (target <= {TARGET_MS} ms); "
        f"after a full collection: median {cold['median_ms_5_to_15_lines']:.3f} ms, "
        f"p90 {cold['p90_ms_5_to_15_lines']:.3f} ms"
    )
    if tensorflow is None:
        print("TensorFlow: not installed, the ratios to TF AutoGraph were not measured")
    else:
        for mode in ("to_graph", "to_code"):
            row = tensorflow[mode]
            print(
                f"{mode} vs TF AutoGraph {tensorflow['tensorflow']} (same rounds, "
                f"{row['functions_5_to_15_lines']} functions of 5-15 lines): ours "
                f"{row['ours_median_ms']:.3f} ms, TF {row['tensorflow_median_ms']:.2f}"
                f" ms: {row['tf_over_ours']:.1f}x; CPython's compiler alone "
                f"{row['cpython_compiler_median_ms']:.3f} ms: TF over it "
                f"{row['tf_over_cpython_compiler']:.1f}x"
            )
    for shape_name, rows in generated.items():
        figures = ", ".join(
            f"{size}: {row['median_ms']:.1f} ms ({row['us_per_statement']:.0f} us/stmt)"
            for size, row in rows["sizes"].items()
        )
        print(
            f"{shape_name:15} {figures};"
            f" marginal cost growth {rows['marginal_growth']:.2f}x"
            f" ({rows['marginal_growth_without_compile']:.2f}x without"
            " CPython's compile)"
        )
    path = write_results(
        "conversion",
        {
            "target_ms": TARGET_MS,
            "corpus": corpus,
            "tensorflow": tensorflow,
            "generated": generated,
        },
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
