"""Long sessions: caches free what dropped modules and Functions held, and
graphs nested as deep as a program's calls go still run.

A notebook that re-runs cells for hours, or a program that loads and drops
plugin modules, converts thousands of functions. The conversion cache, the
cache of converted callees and the executor's `linecache` entries must not
keep the dropped ones (their code, trees, module globals) alive.
"""

from __future__ import annotations

import gc
import importlib.util
import linecache
import sys
import weakref
from pathlib import Path

import autograph
import runtime as rt
from autograph.impl import api, transpiler

MODULE = """
def helper(x):
    if x > 0:
        return x
    return -x


def total(x):
    result = x * 0
    for i in range(3):
        result += helper(x)
    return result
"""


def load_module(path: Path, name: str):
    path.write_text(MODULE)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def executor_files() -> set[str]:
    return {k for k in linecache.cache if k.startswith("<rt-executor-")}


def use_and_drop(tmp_path: Path, index: int) -> tuple[list[weakref.ref], set[str]]:
    """Converts and traces a fresh module's functions; returns weak references
    to what must die once the caller drops everything, and the `linecache`
    names of the graphs compiled meanwhile."""
    before = executor_files()
    module = load_module(tmp_path / f"plugin_{index}.py", f"plugin_{index}")
    converted = autograph.to_graph(module.total)
    with api.always_run_converted():
        assert converted(2) == 6  # converts `helper` through converted_call
    traced = autograph.function(module.total)
    assert float(traced(rt.constant(-1.0))) == 3.0
    assert autograph.to_code(module.helper).startswith("def helper")
    return [
        weakref.ref(module),
        weakref.ref(module.total),
        weakref.ref(module.helper),
        weakref.ref(module.helper.__code__),
        weakref.ref(traced),
        weakref.ref(traced.concrete_functions[0]),
    ], executor_files() - before


def test_dropped_modules_and_functions_are_freed(tmp_path):
    refs, compiled = use_and_drop(tmp_path, 0)
    assert compiled  # the trace compiled a graph
    gc.collect()
    alive = [r() for r in refs if r() is not None]
    assert alive == []
    assert executor_files() & compiled == set()


def test_conversion_cache_does_not_grow_with_dropped_modules(tmp_path):
    gc.collect()
    entries = len(transpiler._cache)
    for i in range(5):
        use_and_drop(tmp_path, i)
    gc.collect()
    assert len(transpiler._cache) == entries
    assert not any(name.startswith("plugin_") for name in sys.modules)


def test_a_live_function_stays_cached(tmp_path):
    module = load_module(tmp_path / "kept.py", "kept")
    first = transpiler.convert_entity(
        module.total, recursive=True, is_library=lambda name: False
    )
    gc.collect()
    again = transpiler.convert_entity(
        module.total, recursive=True, is_library=lambda name: False
    )
    assert again is first


def test_the_per_file_import_cache_is_bounded(tmp_path):
    from autograph.pyct import source_check

    for i in range(source_check._IMPORTS_KEPT + 10):
        use_and_drop(tmp_path, 100 + i)
    assert len(source_check._imports) <= source_check._IMPORTS_KEPT


def test_twenty_two_functions_each_looping_and_calling_the_next_trace_and_run(
    tmp_path,
):
    # 21 graph loops nested through calls: more than the 20 blocks Python
    # allows in one function, so the executor calls the deepest as functions.
    depth = 22
    lines = ["import runtime as rt", ""]
    for k in range(depth - 1):
        lines += [
            f"def f{k}(x, n):",
            "    for i in rt.range(n):",
            f"        x = f{k + 1}(x, n)",
            "    return x",
            "",
        ]
    lines += [f"def f{depth - 1}(x, n):", "    return x + 1", ""]
    path = tmp_path / "deep.py"
    path.write_text("\n".join(lines))
    spec = importlib.util.spec_from_file_location("deep_nesting", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    traced = autograph.function(module.f0)
    assert int(traced(rt.constant(5), rt.constant(1))) == 6
    assert int(traced(rt.constant(5), rt.constant(0))) == 5


def test_equal_code_of_a_dropped_module_does_not_evict_a_live_ones(tmp_path):
    # Code objects compare equal across files (the filename is not
    # compared): the weak caches must key by identity, or dropping one
    # module forgets the other's conversion and its converted code.
    first = load_module(tmp_path / "first.py", "first_copy")
    second = load_module(tmp_path / "second.py", "second_copy")
    assert first.total.__code__ == second.total.__code__
    transpiler.convert_entity(first.total, recursive=True, is_library=lambda n: False)
    kept = transpiler.convert_entity(
        second.total, recursive=True, is_library=lambda name: False
    )
    del first
    gc.collect()
    assert transpiler.is_converted_code(kept.code)
    again = transpiler.convert_entity(
        second.total, recursive=True, is_library=lambda name: False
    )
    assert again is kept


def test_to_code_then_to_graph_runs_the_code_to_graph_alone_makes():
    def clipped(x, n):
        total = 0
        for i in range(n):
            if i > x:
                break
            total += i
        return total

    text = autograph.to_code(clipped)
    entity = transpiler.convert_entity(
        clipped, recursive=True, is_library=lambda name: False
    )
    assert entity.source == text  # the same conversion, compiled on first use
    assert autograph.to_graph(clipped)(3, 10) == clipped(3, 10) == 6
    transpiler.clear_cache()
    fresh = transpiler.convert_entity(
        clipped, recursive=True, is_library=lambda name: False
    )
    assert fresh.code.co_code == entity.code.co_code
    assert list(fresh.code.co_positions()) == list(entity.code.co_positions())
