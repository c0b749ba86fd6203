"""Write files so that a reader never sees half of one: temporary file, then rename.

The file gets the mode a plain ``open(path, "w")`` would give it (``0666 & ~umask``, as
pytest's own files), not ``mkstemp``'s private 0600, unless the caller asks for one.
"""

from __future__ import annotations

import os
import tempfile


def current_umask() -> int:
    """This process's umask, read without changing it where Linux shows it (thread-safe)."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomic(path: str, text: str | bytes, mode: int | None = None) -> None:
    """Replace ``path`` with ``text`` (or bytes) in one rename; the old file survives any failure.

    ``mode`` defaults to ``0666 & ~umask``. Text is UTF-8; a character UTF-8 cannot hold (a
    lone surrogate) is written as ``?`` rather than losing the whole file.
    """
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    data = text if isinstance(text, bytes) else text.encode("utf-8", "replace")
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=os.path.basename(path), dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fchmod(fh.fileno(), 0o666 & ~current_umask() if mode is None else mode)
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
