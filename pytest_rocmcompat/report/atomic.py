"""Write files so that a reader never sees half of one: temporary file, then rename."""

from __future__ import annotations

import os
import tempfile


def write_atomic(path: str, text: str | bytes) -> None:
    """Replace ``path`` with ``text`` (or bytes) in one rename; the old file survives any failure."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=os.path.basename(path), dir=directory)
    try:
        with (os.fdopen(fd, "wb") if isinstance(text, bytes) else os.fdopen(fd, "w", encoding="utf-8")) as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
