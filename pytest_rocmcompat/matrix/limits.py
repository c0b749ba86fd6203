"""Limits on what a matrix file may be: a regular UTF-8 file of bounded size, bounded values.

Matrix paths and ``include:`` names come from users and from files anyone may edit, so
reading one must not block (a FIFO), never end (``/dev/zero``), or take the machine's memory
(a 10 MB file): the file is opened non-blocking, checked with ``fstat`` before a byte is
read, and read only up to the limit.
"""

from __future__ import annotations

import os
import stat

MAX_FILE_BYTES = 1 * 2**20  # the shared database of 80+ rules is ~50 KB
MAX_VERSION_CHARS = 100  # a version or specifier text
MAX_NUMBER_PART_DIGITS = 30  # one number inside a version ("6.2.41133" has at most 5)
MAX_DEPTH = 64  # nesting of lists and mappings


class InputError(ValueError):
    """A file that is not acceptable as input; ``line`` when a place in it is at fault."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


def read_text_file(path: str, limit: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of a regular file of at most ``limit`` bytes; :class:`InputError` otherwise."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(21, "is a directory", path)
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"is not a regular file ({_kind(st.st_mode)}); give a matrix file")
        if st.st_size > limit:
            raise InputError(f"is {_size(st.st_size)}; a matrix file may be at most {_size(limit)}")
        data = fh.read(limit + 1)
    if len(data) > limit:  # grew while being read
        raise InputError(f"is larger than {_size(limit)}, the most a matrix file may be")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = len(data[data.rfind(b"\n", 0, exc.start) + 1: exc.start].decode("utf-8", "replace")) + 1
        raise InputError(f"not UTF-8 text: byte 0x{data[exc.start]:02x} at column {column} ({exc.reason})",
                         line) from None


def version_length_problem(text: str) -> str | None:
    """Why a version or specifier text is too long to be one, or ``None``."""
    if len(text) > MAX_VERSION_CHARS:
        return f"is {len(text)} characters long; a version or specifier has at most {MAX_VERSION_CHARS}"
    run = longest_digit_run(text)
    if run > MAX_NUMBER_PART_DIGITS:
        return f"has a number of {run} digits; a version's numbers have at most {MAX_NUMBER_PART_DIGITS}"
    return None


def longest_digit_run(text: str) -> int:
    best = current = 0
    for char in text:
        current = current + 1 if "0" <= char <= "9" else 0
        best = max(best, current)
    return best


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
