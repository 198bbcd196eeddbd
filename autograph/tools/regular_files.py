"""Reading files that may be hostile: regular files only, and never too much.

`autograph.load` and the CLI read paths that strangers may hand them. A path
may be a symlink to `/dev/zero` (endless), a FIFO (opening it blocks until
someone writes), or a huge file. `open_regular` opens without blocking and
refuses anything but a regular file; `read_capped` reads at most a limit.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = os.path.join(d, "f.txt")
    ...     _ = open(path, "w").write("hello")
    ...     with open_regular(path) as f:
    ...         read_capped(f, 10)
    b'hello'
    >>> try:
    ...     open_regular(os.devnull)
    ... except FileRefusedError as e:
    ...     print(e)
    not a regular file (a character device)
"""

from __future__ import annotations

import os
import stat
from typing import BinaryIO

__all__ = ["FileRefusedError", "open_regular", "read_capped"]

_CHUNK = 1 << 20

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class FileRefusedError(ValueError):
    """A path that is not a regular file, or a file larger than allowed."""


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """Opens `path` (symlinks followed) for binary reading if it is a regular file.

    Opening never blocks: a FIFO is opened non-blocking, seen to be a FIFO,
    and closed.

    Raises:
        FileRefusedError: `path` is a FIFO, device, socket or directory.
        OSError: `path` cannot be opened (missing, no permission).
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = next((k for test, k in _KINDS if test(mode)), "not a file")
            raise FileRefusedError(f"not a regular file ({kind})")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_capped(stream: BinaryIO, limit: int) -> bytes:
    """All of `stream`, or FileRefusedError if it holds more than `limit` bytes.

    Reads in chunks: `read(limit + 1)` would allocate the whole limit at once,
    however small the file.
    """
    chunks = []
    total = 0
    while True:
        chunk = stream.read(min(_CHUNK, limit + 1 - total))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise FileRefusedError(f"larger than {limit} bytes")
