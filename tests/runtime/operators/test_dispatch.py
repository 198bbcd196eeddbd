"""The dispatch tables: class-hierarchy lookup with a per-type cache,
backends that decline, and lazily loaded backends."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

from runtime.operators import dispatch
from runtime.operators.control_flow import for_stmt, if_stmt, while_stmt
from runtime.operators.logical import and_


class Traced:
    def __init__(self, value):
        self.value = value

    def __bool__(self):
        return bool(self.value)

    def __iter__(self):
        return iter(self.value)


class JitTraced(Traced):
    pass


@pytest.fixture
def backend():
    calls = []

    def if_impl(cond, body, orelse, state, names, places):
        calls.append(type(cond).__name__)
        return "backend"

    dispatch.register("if_stmt", Traced, if_impl)
    yield calls
    dispatch.unregister("if_stmt", Traced)


def test_subclass_finds_its_nearest_registered_base(backend):
    assert if_stmt(JitTraced(1), lambda: "python", None, (), ()) == "backend"
    assert backend == ["JitTraced"]
    # The answer is cached per exact type: one dict hit next time.
    assert dispatch.TABLES["if_stmt"][JitTraced] is not None
    assert dict.get(dispatch.TABLES["if_stmt"], JitTraced) is not None


def test_unregistering_drops_cached_answers(backend):
    dispatch.lookup("if_stmt", JitTraced(1))
    dispatch.unregister("if_stmt", Traced)
    assert dispatch.lookup("if_stmt", JitTraced(1)) is None
    assert if_stmt(JitTraced(1), lambda: "python", None, (), ()) == "python"


def test_a_backend_may_decline_and_python_runs():
    seen = []

    def declines(*args, **kwargs):
        seen.append(args[0])
        return NotImplemented

    for op in ("if_stmt", "while_stmt", "and_", "for_stmt"):
        dispatch.register(op, Traced, declines)
    try:
        assert if_stmt(Traced(0), lambda: "t", lambda: "f", (), ()) == "f"
        assert and_(Traced(1), lambda: "right") == "right"
        # A declined while test is a Python condition: the loop goes on.
        n = while_stmt(lambda n: Traced(n < 3), lambda n: n + 1, (0,), ("n",))
        assert n == 3
        assert for_stmt(Traced([1, 2]), lambda x, s: s + x, (0,), ("s",)) == 3
    finally:
        for op in ("if_stmt", "while_stmt", "and_", "for_stmt"):
            dispatch.unregister(op, Traced)
    assert len(seen) >= 6


def test_lazy_backend_loads_when_a_value_of_its_library_is_seen(monkeypatch):
    fake_type = type("FakeArray", (), {"__module__": "fakelib.core"})
    backend = types.ModuleType("fakelib_backend")
    imported = []

    def import_module(name):
        imported.append(name)
        dispatch.register("not_", fake_type, lambda a: "fake not")
        return backend

    monkeypatch.setattr(dispatch.importlib, "import_module", import_module)
    dispatch.register_lazy_backend("fakelib", "fakelib_backend")
    try:
        assert imported == []  # nothing until a value of the library shows up
        assert dispatch.lookup("not_", fake_type()) is not None
        assert imported == ["fakelib_backend"]
    finally:
        dispatch._LAZY.pop("fakelib", None)
        dispatch.unregister("not_", fake_type)


def _run_probe(tmp_path: Path, code: str) -> None:
    """Runs `code` in a fresh interpreter (nothing imported yet) that must
    exit cleanly."""
    probe = tmp_path / "probe.py"
    probe.write_text(code)
    root = str(Path(__file__).resolve().parents[3])
    result = subprocess.run(
        [sys.executable, str(probe)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": root},
    )
    assert result.returncode == 0, result.stderr


def test_import_and_python_use_leave_jax_unimported(tmp_path):
    code = textwrap.dedent(
        """
        import sys, autograph, runtime
        import runtime.operators
        def f(x):
            while x > 1:
                x = x // 2 if x % 2 == 0 else 3 * x + 1
            return x
        assert autograph.to_graph(f)(27) == 1
        assert autograph.function(lambda x: x + 1)(runtime.constant(1)).numpy() == 2
        assert "jax" not in sys.modules, "jax was imported"
        """
    )
    _run_probe(tmp_path, code)


def test_a_function_converted_before_its_backends_library_is_imported_uses_it(
    tmp_path,
):
    # While nothing is active a to_graph result runs the original without
    # asking any backend; importing a lazy backend's library must wake it.
    pytest.importorskip("jax", reason="JAX is not installed (the 'jax' extra)")
    code = textwrap.dedent(
        """
        import sys, autograph
        from runtime import context
        def collatz(x):
            steps = 0
            while x > 1:
                x = x // 2 if x % 2 == 0 else 3 * x + 1
                steps += 1
            return steps
        g = autograph.to_graph(collatz)
        assert context.ACTIVE_HINT[0] == 0 and "jax" not in sys.modules
        import jax, jax.numpy as jnp
        assert int(jax.jit(g)(jnp.int32(27))) == 111
        """
    )
    _run_probe(tmp_path, code)
