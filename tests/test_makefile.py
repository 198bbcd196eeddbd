"""The Makefile installs what each target needs and no more (issue 23).

`make -n -B` prints what a target would run on a fresh machine (a `.venv`
that does not exist yet) without running it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="no make")


def dry_run(target: str, tmp_path: Path, *variables: str) -> str:
    done = subprocess.run(
        ["make", "-n", "-B", target, f"VENV={tmp_path / 'venv'}", *variables],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout


def installs(commands: str) -> list[str]:
    return [line for line in commands.splitlines() if "pip install" in line]


def test_make_demo_installs_the_package_alone(tmp_path):
    commands = dry_run("demo", tmp_path)
    assert [line.split()[-1] for line in installs(commands)] == ["."]
    assert "autograph examples/demo.py" in commands


@pytest.mark.parametrize(
    ("target", "extras"),
    [
        ("test", ["'.[test]'"]),
        ("fuzz", ["'.[test]'"]),
        ("lint", ["'.[lint]'"]),
        ("bench", ["'.[jax]'"]),
        ("examples", ["'.[jax]'"]),
        ("notebook", ["'.[notebook]'"]),
    ],
)
def test_each_target_installs_its_own_extra(tmp_path, target, extras):
    commands = dry_run(target, tmp_path)
    assert [line.split()[-1] for line in installs(commands)] == extras


def test_make_bench_records_only_when_asked(tmp_path):
    assert "AUTOGRAPH_BENCH_RECORD= " in dry_run("bench", tmp_path)
    recorded = dry_run("bench", tmp_path, "RECORD=1")
    assert "AUTOGRAPH_BENCH_RECORD=1 " in recorded


@pytest.mark.parametrize(("record", "folder"), [("", "out"), ("1", "results")])
def test_bench_figures_go_to_an_untracked_folder_unless_recorded(record, folder):
    env = {**os.environ, "AUTOGRAPH_BENCH_RECORD": record, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", "from bench import _timing; print(_timing.RESULTS_DIR)"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert Path(done.stdout.strip()) == ROOT / "bench" / folder
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", "bench/out/x.json"], cwd=ROOT, check=False
    )
    assert ignored.returncode == 0  # bench/out/ is gitignored
