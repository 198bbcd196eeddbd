"""`import autograph` and the CLI load neither the runtime nor NumPy (issue 24).

Each check runs in a fresh interpreter: this test process has long since
imported both. The public API is unchanged: every name of `autograph.__all__`
is there, and is the object its defining module holds.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import autograph

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("numpy", "runtime", "jax")


def fresh(code: str, cwd: Path = REPO) -> dict:
    """Runs `code` in a new interpreter; it prints one JSON value last."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


LOADED = f"""
import json, sys
print(json.dumps({{m: m in sys.modules for m in {HEAVY!r}}}))
"""


def test_import_autograph_loads_neither_the_runtime_nor_numpy():
    loaded = fresh("import autograph\nautograph.set_loop_options\n" + LOADED)
    assert loaded == dict.fromkeys(HEAVY, False)


def test_the_cli_converts_without_the_runtime_or_numpy(tmp_path):
    # A `try` too: the compiler tells the runtime about handlers only for
    # code that will run, never for the CLI's text.
    (tmp_path / "model.py").write_text(
        textwrap.dedent(
            """\
            import autograph

            def f(x):
                while x > 0:
                    x -= 1
                    autograph.set_loop_options(maximum_iterations=3)
                try:
                    x = 1 // x
                except ZeroDivisionError:
                    x = 0
                return x
            """
        )
    )
    loaded = fresh(
        textwrap.dedent(
            """
        import io, sys
        from autograph import cli
        out = io.StringIO()
        stdout, sys.stdout = sys.stdout, out
        code = cli.main(["model.py", "--diff"])
        sys.stdout = stdout
        assert code == 0 and "ag__.while_stmt" in out.getvalue(), out.getvalue()
        """
        )
        + LOADED,
        cwd=tmp_path,
    )
    assert loaded == dict.fromkeys(HEAVY, False)


def test_the_runtime_loads_when_a_name_that_needs_it_is_first_read():
    loaded = fresh("import autograph\nautograph.to_graph\n" + LOADED)
    assert loaded == {"numpy": True, "runtime": True, "jax": False}


@pytest.mark.parametrize("name", autograph.__all__)
def test_every_public_name_is_the_object_its_module_defines(name):
    value = getattr(autograph, name)
    module = importlib.import_module(value.__module__)
    assert getattr(module, value.__name__) is value
    assert name in dir(autograph)


def test_show_is_the_function_not_its_module():
    assert callable(autograph.show)
    assert autograph.show.__module__ == "autograph.show"


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'to_grpah'"):
        autograph.to_grpah  # noqa: B018


MAP_WITH_AN_IF = """
def halve_big(x):
    if x > 2:  # a graph `if`: needs conversion
        x = x // 2
    return x
"""


@pytest.mark.parametrize("runtime_first", [False, True])
def test_dataset_functions_are_converted_whichever_is_imported_first(
    tmp_path, runtime_first
):
    """`autograph` hands `runtime.data` its converter when the runtime loads
    (or at once, when it is already loaded)."""
    (tmp_path / "fns.py").write_text(MAP_WITH_AN_IF)
    imports = (
        "import runtime as rt\nimport autograph"
        if runtime_first
        else "import autograph\nimport runtime as rt"
    )
    values = fresh(
        imports
        + """
import json
from fns import halve_big
ds = rt.data.Dataset.range(6).map(halve_big)
print(json.dumps([int(v) for v in ds]))
""",
        cwd=tmp_path,
    )
    assert values == [0, 1, 2, 1, 2, 2]
