"""Where the plugin's caches live, and reading and writing their entries safely.

Both caches (checked matrix files, the live probe's result) keep plain-JSON entries in a
directory of this user's. An entry is read only from a directory and a file this user owns and
no one else can write, only if it is a regular file (a FIFO planted in its place cannot block)
of bounded size; entries are written private (0600) into a directory created 0700, atomically.
Whatever goes wrong means "no entry": a cache never changes a result, so it never raises.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

CACHE_DIR_VAR = "ROCMCOMPAT_CACHE_DIR"
OFF = "off"


def cache_dir(environ: Mapping[str, str] = os.environ) -> Path | None:
    """Where entries live, or ``None`` when caching is off."""
    chosen = environ.get(CACHE_DIR_VAR)
    if chosen is not None:
        return None if chosen.strip().lower() in (OFF, "") else Path(chosen)
    base = environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base, "pytest-rocmcompat")


def private(st: os.stat_result) -> bool:
    """Owned by this user and writable by no one else."""
    getuid = getattr(os, "getuid", None)
    owner_ok = getuid is None or st.st_uid == getuid()
    return owner_ok and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def trusted_dir(directory: Path) -> bool:
    try:
        return private(os.stat(directory))
    except OSError:
        return False


def read_entry(path: Path, limit: int) -> bytes | None:
    """The bytes of a trusted entry (see the module docstring), or ``None``.

    Raises only what reading raises (``OSError``); callers treat any exception as a miss.
    """
    if not trusted_dir(path.parent):
        return None
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode) or not private(st) or st.st_size > limit:
            return None
        return fh.read(limit + 1)


def write_entry(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` (private, atomic) in a private directory; False if it could not."""
    from pytest_rocmcompat.safe_io.atomic import write_atomic

    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not trusted_dir(path.parent):
        return False
    write_atomic(str(path), data, mode=0o600)  # readers never see half a file
    return True
