"""One launch per world per session, shared by the session's pytest-xdist workers.

The tests of one world read one launch's results. Under ``-n N`` with xdist's default
``--dist load`` they land on different workers, and each worker launched the world again:
on the H100 host the main job took 88 s with ``-n 4`` against 61 s serially, most of it
repeated two- and three-rank launches. The first process that needs a world takes a file
lock in the session's folder (``ROCMCOMPAT_SANDBOX_ROOT``, shared by the controller and its
workers, removed with the session), launches, and leaves the result beside the lock; the
others wait on the lock and read it. A launch that raised leaves nothing: the next waiter
launches itself. Without a session folder (the plugin off), each process launches its own.
"""

from __future__ import annotations

import fcntl
import os
import pickle
import re
import time
from collections.abc import Callable
from typing import TypeVar

from pytest_rocmcompat.running.isolation.roots import sandbox_parent
from pytest_rocmcompat.safe_io.atomic import write_atomic

T = TypeVar("T")
POLL_S = 0.1


class SharedWaitTimeout(TimeoutError):
    """Another process held a world's launch for longer than the wait limit."""


def _paths(folder: str, key: str) -> tuple[str, str]:
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", key)[:120]
    return os.path.join(folder, f"{safe}.lock"), os.path.join(folder, f"{safe}.pickle")


def once_per_session(key: str, make: Callable[[], T], wait_s: float) -> T:
    """``make()``'s result for ``key``, computed once in this session (its workers included).

    ``wait_s``: how long to wait for another process's ``make()`` before giving up with
    :class:`SharedWaitTimeout` (the launch's own time limit plus a margin is right).
    """
    root = sandbox_parent()
    if root is None:
        return make()
    folder = os.path.join(root, "launches")
    os.makedirs(folder, mode=0o700, exist_ok=True)
    lock_path, result_path = _paths(folder, key)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + wait_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "another process"
                    raise SharedWaitTimeout(
                        f"waited {wait_s:.0f} s for the launch of {key}, held by {holder}"
                    ) from None
                time.sleep(POLL_S)
        if os.path.exists(result_path):  # our own session's file, in a 0700 folder
            with open(result_path, "rb") as fh:
                return pickle.load(fh)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} {os.environ.get('PYTEST_XDIST_WORKER', '')}".strip().encode(), 0)
        value = make()
        write_atomic(result_path, pickle.dumps(value), mode=0o600)
        return value
    finally:
        os.close(fd)  # releases the lock
