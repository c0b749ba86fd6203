"""Reading a user-named input file safely: a regular UTF-8 file of bounded size.

Paths come from users and from files anyone may edit (matrix files, their ``include:``
names, ``--rocm-env`` replays), so reading one must not block (a FIFO), never end
(``/dev/zero``), or take the machine's memory: the file is opened non-blocking, checked
with ``fstat`` before a byte is read, and read only up to the limit.
"""

from __future__ import annotations

import os
import stat

MAX_FILE_BYTES = 1 * 2**20


class InputError(ValueError):
    """A file that is not acceptable as input; ``line`` when a place in it is at fault."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


def read_text_file(path: str, limit: int = MAX_FILE_BYTES, what: str = "a matrix file") -> str:
    """The UTF-8 text of a regular file of at most ``limit`` bytes; :class:`InputError` otherwise."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(21, "is a directory", path)
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"is not a regular file ({_kind(st.st_mode)}); give {what}")
        if st.st_size > limit:
            raise InputError(f"is {_size(st.st_size)}; {what} may be at most {_size(limit)}")
        data = fh.read(limit + 1)
    if len(data) > limit:  # grew while being read
        raise InputError(f"is larger than {_size(limit)}, the most {what} may be")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = len(data[data.rfind(b"\n", 0, exc.start) + 1 : exc.start].decode("utf-8", "replace")) + 1
        raise InputError(
            f"not UTF-8 text: byte 0x{data[exc.start]:02x} at column {column} ({exc.reason})", line
        ) from None


def _kind(mode: int) -> str:
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a plain file"


def _size(n: int) -> str:
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{n} bytes"
