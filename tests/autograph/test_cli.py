"""Tests for the `autograph` command (autograph/cli.py) and its file reader."""

from __future__ import annotations

import importlib
import importlib.util
import io
import os
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

import autograph
from autograph import cli
from autograph.tools import highlight

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "demo.py"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(path: Path, source: str) -> str:
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path.name


def load(path: Path) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    return tmp_path


GENERATORS = """\
def numbers(n):
    for i in range(n):
        yield i


def total(xs):
    s = 0
    for x in xs:
        s += x
    return s
"""


# -- what it prints -------------------------------------------------------------


def test_one_function_prints_exactly_what_to_code_returns(capsys):
    demo = load(DEMO)
    for name in ("relu", "collatz", "first_multiple", "index_of"):
        code, out, err = run(capsys, f"{DEMO}::{name}")
        assert (code, err) == (0, "")
        assert out == autograph.to_code(getattr(demo, name))


def test_every_function_and_method_is_printed_under_a_header_with_its_line(
    capsys, in_tmp
):
    write(
        in_tmp / "model.py",
        """\
        def double(x):
            return 2 * x


        class Model:
            def step(self, x):
                return x
        """,
    )
    code, out, err = run(capsys, "model.py")
    assert (code, err) == (0, "")
    assert out == (
        "# double (model.py:1)\n"
        "def double(x):\n"
        "    return 2 * x\n"
        "\n"
        "# Model.step (model.py:6)\n"
        "def step(self, x):\n"
        "    return x\n"
    )


def test_a_method_is_selected_by_its_class_and_name(capsys, in_tmp):
    write(
        in_tmp / "model.py",
        """\
        class Model:
            def step(self, x):
                if x > 0:
                    x = -x
                return x
        """,
    )
    code, out, _ = run(capsys, "model.py::Model.step")
    assert code == 0
    assert out.startswith("def step(self, x):\n")
    assert "ag__." in out


def test_the_file_is_read_as_text_and_never_imported_or_run(capsys, in_tmp):
    write(
        in_tmp / "effects.py",
        """\
        open("ran.txt", "w").write("the module ran")
        raise SystemExit("importing this file must not happen")


        def relu(x):
            if x > 0:
                return x
            return 0
        """,
    )
    code, out, _ = run(capsys, "effects.py")
    assert code == 0
    assert out.startswith("# relu (effects.py:5)\ndef relu(x):\n")
    assert "ag__." in out
    assert not (in_tmp / "ran.txt").exists()
    assert "effects" not in sys.modules


def test_free_names_are_resolved_from_the_module_text_like_to_code_does(
    capsys, in_tmp, monkeypatch
):
    write(
        in_tmp / "names.py",
        """\
        import math
        import numpy as np
        from os import path as osp


        def range(n):
            return [n]


        class Scale:
            @staticmethod
            def apply(x):
                return x


        def uses_libraries(x):
            return np.abs(x) + math.sqrt(x) + len(osp.sep)


        def shadows_a_builtin(n):
            total = 0
            for i in range(n):
                total += Scale.apply(i) + helper(i)
            print(total)
            return total


        def helper(i):
            return i
        """,
    )
    monkeypatch.syspath_prepend(str(in_tmp))
    module = load(in_tmp / "names.py")
    for name in ("uses_libraries", "shadows_a_builtin"):
        code, out, _ = run(capsys, f"names.py::{name}")
        assert code == 0
        assert out == autograph.to_code(getattr(module, name))
    assert "ag__.converted_call(range, n)" in out
    # (A class the user defines is user code: its static method is converted.)
    assert "ag__.converted_call(Scale.apply, i)" in out and "ag__.print_(total)" in out


def test_a_dash_reads_the_source_from_standard_input(capsys, monkeypatch):
    source = "def neg(x):\n    return -x if x > 0 else x\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(source.encode())))
    code, out, _ = run(capsys, "-")
    assert code == 0
    assert out.startswith("# neg (<stdin>:1)\ndef neg(x):\n")


def test_a_directory_stands_for_the_python_files_under_it(capsys, in_tmp):
    (in_tmp / "pkg" / "sub").mkdir(parents=True)
    write(in_tmp / "pkg" / "a.py", "def a():\n    return 1\n")
    write(in_tmp / "pkg" / "sub" / "b.py", "def b():\n    return 2\n")
    write(in_tmp / "pkg" / "notes.txt", "def c(): pass\n")
    code, out, _ = run(capsys, "pkg")
    assert code == 0
    headers = [line for line in out.splitlines() if line.startswith("#")]
    assert headers == [
        f"# a ({os.path.join('pkg', 'a.py')}:1)",
        f"# b ({os.path.join('pkg', 'sub', 'b.py')}:1)",
    ]


# -- options --------------------------------------------------------------------


def test_diff_prints_a_unified_diff_from_the_original_to_the_converted(capsys):
    code, out, _ = run(capsys, "--diff", f"{DEMO}::collatz")
    assert code == 0
    lines = out.splitlines()
    assert lines[:2] == [
        f"--- {DEMO}::collatz (original, line 15)",
        f"+++ {DEMO}::collatz (converted)",
    ]
    assert "-    while n != 1:" in lines
    converted = autograph.to_code(load(DEMO).collatz).splitlines()
    added = [line[1:] for line in lines[2:] if line.startswith("+")]
    assert added and all(line in converted for line in added)


def test_diff_side_prints_original_and_converted_in_two_columns(capsys):
    code, out, _ = run(capsys, "--diff=side", f"{DEMO}::collatz")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["original", "converted"]
    assert lines[2].split() == ["def", "collatz(n):", "def", "collatz(n):"]
    assert any(
        "def collatz(n):" not in line and "ag__.while_stmt(" in line for line in lines
    )


def test_the_diff_style_may_follow_with_an_equals_sign_or_a_space(capsys):
    target = f"{DEMO}::relu"
    side = run(capsys, "--diff=side", target)
    assert run(capsys, "--diff", "side", target) == side
    assert run(capsys, target, "--diff") == run(capsys, "--diff=unified", target)


def test_output_writes_the_result_to_a_file_and_nothing_to_stdout(capsys, in_tmp):
    code, out, _ = run(capsys, "--output", "converted.py", f"{DEMO}::relu")
    assert (code, out) == (0, "")
    assert (in_tmp / "converted.py").read_text() == autograph.to_code(load(DEMO).relu)


def test_color_always_highlights_keywords_and_operator_calls_and_nothing_else(
    capsys,
):
    _, plain, _ = run(capsys, "--color=never", f"{DEMO}::relu")
    code, colored, _ = run(capsys, "--color=always", f"{DEMO}::relu")
    assert code == 0
    assert highlight.strip(colored) == plain
    assert f"{highlight.KEYWORD}def{highlight.RESET}" in colored
    assert f"{highlight.OPERATOR_CALL}ag__{highlight.RESET}." in colored


def test_color_auto_is_on_only_for_a_terminal_without_no_color(monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert cli._use_color("auto", None, Terminal())
    assert not cli._use_color("auto", None, io.StringIO())
    assert not cli._use_color("auto", "out.py", Terminal())
    assert cli._use_color("always", "out.py", io.StringIO())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not cli._use_color("auto", None, Terminal())


def test_check_prints_nothing_when_everything_converts(capsys):
    assert run(capsys, "--check", str(DEMO)) == (0, "", "")


def test_check_reports_a_generator_with_its_line_and_a_caret_and_exits_1(
    capsys, in_tmp
):
    write(in_tmp / "gen.py", GENERATORS)
    code, out, err = run(capsys, "--check", "gen.py")
    assert (code, out) == (1, "")
    assert err == (
        "gen.py: in function 'numbers':\n"
        "gen.py:3:9: error: 'yield' is not supported: generators cannot be "
        "converted; mark the generator with @autograph.do_not_convert\n"
        "    3 |         yield i\n"
        "      |         ^^^^^^^\n"
    )


def test_one_unconvertible_function_does_not_stop_the_others(capsys, in_tmp):
    write(in_tmp / "gen.py", GENERATORS)
    code, out, err = run(capsys, "gen.py")
    assert code == 1
    assert out.startswith("# total (gen.py:6)\ndef total(xs):\n")
    assert "in function 'numbers'" in err


def test_a_match_statement_is_reported_with_a_caret_and_a_nested_class_converts(
    capsys, in_tmp
):
    write(
        in_tmp / "unsupported.py",
        """\
        def pick(x):
            match x:
                case 0:
                    return "zero"
            return "other"


        def make():
            class Point:
                pass
            return Point
        """,
    )
    code, _, err = run(capsys, "--check", "unsupported.py")
    assert code == 1
    assert err == (
        "unsupported.py: in function 'pick':\n"
        "unsupported.py:2:5: error: 'match' statements are not supported; use "
        "if/elif (or move the match into a helper marked "
        "@autograph.do_not_convert)\n"
        "    2 |     match x:\n"
        "      |     ^^^^^^^^\n"
    )


def test_a_syntax_error_prints_file_line_column_and_a_caret(capsys, in_tmp):
    write(in_tmp / "bad.py", "def f(x):\n    return (x +\n\n\ndef g():\n    pass\n")
    code, out, err = run(capsys, "bad.py")
    assert (code, out) == (1, "")
    assert err == (
        "bad.py:2:12: error: '(' was never closed\n"
        "    2 |     return (x +\n"
        "      |            ^\n"
    )


def test_a_null_byte_is_reported_as_an_error_of_the_file(capsys, in_tmp):
    (in_tmp / "nul.py").write_bytes(b"def f():\n    return 1\x00\n")
    assert run(capsys, "nul.py") == (
        1,
        "",
        "nul.py: error: source code string cannot contain null bytes\n",
    )


# -- usage errors ---------------------------------------------------------------


def test_a_missing_file_is_a_usage_error_that_names_it(capsys, in_tmp):
    assert run(capsys, "nope.py") == (
        2,
        "",
        "autograph: error: cannot read 'nope.py': No such file or directory\n",
    )


def test_a_missing_function_is_a_usage_error_that_lists_the_functions(capsys):
    code, out, err = run(capsys, f"{DEMO}::colatz")
    assert (code, out) == (2, "")
    assert err == (
        f"autograph: error: no function 'colatz' in {DEMO} (did you mean "
        "'collatz'?); it defines: relu, collatz, first_multiple, index_of\n"
    )


def test_a_missing_function_is_reported_before_anything_is_printed(capsys, in_tmp):
    write(in_tmp / "empty.py", "x = 1\n")
    code, out, err = run(capsys, str(DEMO), "empty.py::f")
    assert (code, out) == (2, "")
    assert err == (
        "autograph: error: no function 'f' in empty.py; it defines no functions\n"
    )


MODEL = """\
class Model:
    def step(self, x):
        if x > 0:
            x = -x
        return x


def train(model, x):
    return model.step(x)
"""


def test_a_method_name_alone_suggests_the_class_and_method(capsys, in_tmp):
    write(in_tmp / "model.py", MODEL)
    code, out, err = run(capsys, "model.py::step")
    assert (code, out) == (2, "")
    assert err == (
        "autograph: error: no function 'step' in model.py (did you mean "
        "'Model.step'?); it defines: Model.step, train\n"
    )
    _, _, err = run(capsys, "model.py::Model.stpe")
    assert "(did you mean 'Model.step'?)" in err


def test_a_method_name_shared_by_classes_suggests_each(capsys, in_tmp):
    write(
        in_tmp / "two.py",
        "class A:\n    def f(self): pass\nclass B:\n    def f(self): pass\n",
    )
    _, _, err = run(capsys, "two.py::f")
    assert "(did you mean 'A.f' or 'B.f'?)" in err


def test_a_file_without_functions_says_there_is_nothing_to_convert(capsys, in_tmp):
    write(in_tmp / "consts.py", "import os\nX = 1\nclass Empty:\n    pass\n")
    assert run(capsys, "consts.py") == (
        0,
        "",
        "autograph: nothing to convert: 'consts.py' defines no functions (the "
        "command converts top-level functions and the methods of top-level "
        "classes)\n",
    )
    (in_tmp / "pkg").mkdir()
    write(in_tmp / "pkg" / "__init__.py", "")
    _, _, err = run(capsys, "pkg")
    assert "nothing to convert: the .py files under 'pkg' define no functions" in err


def test_each_function_is_written_as_soon_as_it_is_converted(monkeypatch, in_tmp):
    write(in_tmp / "model.py", MODEL)
    stdout = io.StringIO()
    monkeypatch.setattr(sys, "stdout", stdout)
    seen = []
    convert = cli.SourceFile.convert

    def spy(self, function, **kwargs):
        seen.append(stdout.getvalue())
        return convert(self, function, **kwargs)

    monkeypatch.setattr(cli.SourceFile, "convert", spy)
    assert cli.main(["--color=never", "model.py"]) == 0
    assert seen[0] == ""
    assert seen[1].startswith("# Model.step (model.py:2)\ndef step(self, x):")
    assert stdout.getvalue().startswith(seen[1] + "\n# train (model.py:8)\n")


def test_output_to_a_file_streams_too_and_an_empty_result_makes_an_empty_file(
    capsys, in_tmp
):
    write(in_tmp / "model.py", MODEL)
    write(in_tmp / "consts.py", "X = 1\n")
    assert run(capsys, "model.py", "-o", "out.py")[:2] == (0, "")
    _, expected, _ = run(capsys, "--color=never", "model.py")
    assert (in_tmp / "out.py").read_text(encoding="utf-8") == expected
    assert run(capsys, "consts.py", "-o", "empty.py")[:2] == (0, "")
    assert (in_tmp / "empty.py").read_text(encoding="utf-8") == ""


def test_a_target_ending_in_colons_is_a_usage_error(capsys):
    code, _, err = run(capsys, f"{DEMO}::")
    assert code == 2
    assert err == f"autograph: error: no function name after '::' in '{DEMO}::'\n"


def test_bad_arguments_exit_with_status_2(capsys):
    code, _, err = run(capsys, "--color=sometimes", str(DEMO))
    assert code == 2
    assert "invalid choice: 'sometimes'" in err


def test_help_shows_examples_and_documents_the_exit_codes(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0
    assert "autograph model.py::train_step" in out
    assert "autograph --check src/" in out
    assert (
        "exit status:\n"
        "  0  everything converted\n"
        "  1  a function could not be converted, or a file does not parse\n"
        "  2  usage error: bad arguments, a missing file or function\n"
    ) in out


def test_version_names_the_program_and_python(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0
    assert out.startswith("autograph ")
    assert f"(Python {sys.version_info[0]}.{sys.version_info[1]}." in out


def test_python_dash_m_autograph_runs_the_command_and_returns_its_status():
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "autograph", f"{DEMO}::relu"],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        check=False,
        timeout=60,
    )
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == autograph.to_code(load(DEMO).relu)
    missing = subprocess.run(
        [sys.executable, "-m", "autograph", "no/such/file.py"],
        capture_output=True,
        env=env,
        cwd=REPO,
        check=False,
        timeout=60,
    )
    assert missing.returncode == 2


def test_the_console_script_entry_point_is_the_cli_main():
    entry = importlib.import_module("autograph.__main__")
    assert entry.main is cli.main
