"""Reading a user-named input file safely: a regular UTF-8 file of bounded size.

Paths come from users and from files anyone may edit (matrix files, their ``include:``
names, ``--rocm-env`` replays), so reading one must not block (a FIFO), never end
(``/dev/zero``), or take the machine's memory: the file is opened non-blocking, checked
with ``fstat`` before a byte is read, and read only up to the limit.

Text is UTF-8, strictly, unless it starts with a byte-order mark: then the mark says the
encoding and is dropped, as pip reads requirements files (its ``auto_decode``). Windows
PowerShell 5 writes ``pip freeze > FILE`` as UTF-16 LE with a mark, Notepad writes UTF-8 with
one. UTF-32's marks are tried before UTF-16's (``FF FE 00 00`` starts with ``FF FE``).
"""

from __future__ import annotations

import codecs
import os
import stat

MAX_FILE_BYTES = 1 * 2**20
# (mark, codec that reads what follows it, name shown): UTF-32 before UTF-16, whose LE mark is a prefix.
BYTE_ORDER_MARKS = (
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32 LE"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32 BE"),
    (codecs.BOM_UTF8, "utf-8", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16 LE"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16 BE"),
)


class InputError(ValueError):
    """A file that is not acceptable as input; ``line`` when a place in it is at fault."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


def read_text_file(path: str, limit: int = MAX_FILE_BYTES, what: str = "a matrix file") -> str:
    """The text of a regular file of at most ``limit`` bytes (:func:`decode_text`); :class:`InputError` otherwise."""
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
    return decode_text(data)


def decode_text(data: bytes) -> str:
    """``data`` as text: by its byte-order mark (dropped) if it starts with one, else strict UTF-8.

    Bytes the encoding cannot read raise :class:`InputError` with the line and the column.
    """
    body, codec, shown = data, "utf-8", ""
    for mark, mark_codec, name in BYTE_ORDER_MARKS:
        if data.startswith(mark):
            body, codec, shown = data[len(mark) :], mark_codec, name
            break
    try:
        return body.decode(codec)
    except UnicodeDecodeError as exc:
        before = body[: exc.start].decode(codec, "replace")
        line = before.count("\n") + 1
        column = len(before) - (before.rfind("\n") + 1) + 1
        what = f"{shown} text (it starts with a {shown} byte-order mark)" if shown else "UTF-8 text"
        raise InputError(f"not {what}: byte 0x{body[exc.start]:02x} at column {column} ({exc.reason})", line) from None


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
