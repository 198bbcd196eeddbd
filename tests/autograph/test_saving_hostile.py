"""`autograph.load` and the CLI on hostile and odd files: zip bombs, links
to `/dev/zero`, FIFOs, impossible `.npy` headers. Each must fail fast with a
`LoadError` (a usage error for the CLI), never hang or allocate the bomb."""

from __future__ import annotations

import io
import os
import threading
import tracemalloc
import zipfile
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from autograph import cli
from autograph.saving import LoadError, load, values
from tests.autograph.test_saving_fuzz import _load_error, _write

pytestmark = pytest.mark.skipif(os.name != "posix", reason="FIFOs and /dev/zero")


@pytest.fixture
def original() -> dict[str, bytes]:
    from tests.autograph.test_saving_fuzz import _original_files

    return _original_files()


def _finishes(work: Callable[[], Any], seconds: float = 20.0) -> Any:
    """`work()`'s result or exception; fails the test if it blocks."""
    outcome: list[Any] = []

    def target() -> None:
        try:
            outcome.append(("value", work()))
        except BaseException as e:  # handed to the test
            outcome.append(("error", e))

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert outcome, f"still running after {seconds} s (it blocks or reads forever)"
    kind, value = outcome[0]
    if kind == "error":
        raise value
    return value


def _npy_member(header: dict[str, Any], data: bytes = b"") -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, header)
    return np.lib.format.magic(1, 0) + buffer.getvalue()[8:] + data


def _npz_replacing_first(
    original: dict[str, bytes], member: bytes, **zip_args
) -> bytes:
    """The saved `.npz` with its first array replaced by `member`'s bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(original["arrays.npz"])) as source:
        names = source.namelist()
        with zipfile.ZipFile(buffer, "w", **zip_args) as target:
            for name in names:
                data = member if name == "a0.npy" else source.read(name)
                target.writestr(name, data)
    return buffer.getvalue()


def test_a_zip_bomb_is_refused_before_it_is_inflated(original, tmp_path):
    # 256 MB of zeros deflate to about 250 KB.
    count = 64 << 20
    member = io.BytesIO()
    header = {"descr": "<f4", "fortran_order": False, "shape": (count,)}
    with (
        zipfile.ZipFile(member, "w", zipfile.ZIP_DEFLATED) as archive,
        archive.open("a0.npy", "w", force_zip64=True) as f,
    ):
        f.write(_npy_member(header))
        zeros = bytes(1 << 22)
        for _ in range(count * 4 // len(zeros)):
            f.write(zeros)
    assert len(member.getvalue()) < 1 << 20
    _write(tmp_path, {**original, "arrays.npz": member.getvalue()})
    tracemalloc.start()
    try:
        with pytest.raises(LoadError, match="refused as a zip bomb") as info:
            load(tmp_path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert str(info.value).startswith("arrays.npz: a0.npy inflates from ")
    assert peak < 16 << 20


def test_arrays_are_inflated_within_a_running_cap(original, tmp_path, monkeypatch):
    monkeypatch.setattr(values, "MAX_ARRAY_BYTES", 64)
    message = _load_error(tmp_path, original)
    assert "more than 64 bytes" in message


def test_a_member_larger_than_declared_is_refused(original, tmp_path):
    header = {"descr": "<f4", "fortran_order": False, "shape": (2,)}
    member = _npy_member(header, bytes(16))  # 4 more bytes than the shape holds
    files = {**original, "arrays.npz": _npz_replacing_first(original, member)}
    assert _load_error(tmp_path, files) == (
        "arrays.npz/a0.npy: array data is truncated or too long"
    )


def test_an_npy_header_with_an_impossible_shape_is_a_load_error(original, tmp_path):
    header = {"descr": "<f4", "fortran_order": False, "shape": (0, 2**62)}
    files = {
        **original,
        "arrays.npz": _npz_replacing_first(original, _npy_member(header)),
    }
    message = _load_error(tmp_path, files)
    assert message.startswith("arrays.npz/a0.npy: bad .npy header field 'shape': ")
    assert "(0, 4611686018427387904)" in message


def test_arrays_linked_to_dev_zero_are_refused_at_once(original, tmp_path):
    _write(tmp_path, {"function.json": original["function.json"]})
    (tmp_path / "arrays.npz").symlink_to("/dev/zero")
    with pytest.raises(LoadError) as info:
        _finishes(lambda: load(tmp_path))
    assert str(info.value) == "arrays.npz: not a regular file (a character device)"


def test_a_fifo_is_refused_without_blocking(original, tmp_path):
    _write(tmp_path, {"arrays.npz": original["arrays.npz"]})
    os.mkfifo(tmp_path / "function.json")
    with pytest.raises(LoadError) as info:
        _finishes(lambda: load(tmp_path))
    assert str(info.value) == "function.json: not a regular file (a FIFO)"


def test_every_load_failure_is_a_load_error(original, tmp_path, monkeypatch):
    # A check the loader lacks still surfaces as a LoadError.
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise IndexError("list index out of range")

    monkeypatch.setattr("autograph.saving.decode_params", broken)
    message = _load_error(tmp_path, original)
    assert message == (
        "function.json: not a valid saved function (IndexError: list index out "
        "of range)"
    )


# -- the CLI ------------------------------------------------------------------------


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = _finishes(lambda: cli.main(list(argv)))
    return code, capsys.readouterr().err


def test_the_cli_refuses_a_fifo_without_blocking(capsys, tmp_path):
    path = tmp_path / "model.py"
    os.mkfifo(path)
    code, err = _cli(capsys, str(path))
    assert code == cli.EXIT_USAGE
    assert (
        err
        == f"autograph: error: cannot read {str(path)!r}: not a regular file (a FIFO)\n"
    )


def test_the_cli_refuses_dev_zero(capsys, tmp_path):
    path = tmp_path / "model.py"
    path.symlink_to("/dev/zero")
    code, err = _cli(capsys, str(path))
    assert code == cli.EXIT_USAGE
    assert "not a regular file (a character device)" in err


def test_the_cli_caps_what_it_reads(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(cli, "MAX_SOURCE_BYTES", 100)
    path = tmp_path / "model.py"
    path.write_text("def f(x):\n    return x\n" + "#" * 200 + "\n")
    code, err = _cli(capsys, str(path))
    assert code == cli.EXIT_USAGE
    assert err.endswith("larger than 100 bytes\n")


def test_the_cli_help_says_what_it_reads(capsys):
    assert cli.main(["--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert (
        "Only regular files are read (not FIFOs or devices), and at most 16 MiB" in out
    )
