"""GPU allocation between pytest-xdist workers: no two running tests share a GPU.

Each worker is pinned to its own slice of the GPUs (``pinning``). While a test
runs, its worker holds an exclusive lock file per GPU the test may use, in a
directory the controller creates for the session (``ROCMCOMPAT_GPU_LOCK_DIR``).
A ``gpus(n)`` test that needs more GPUs than its worker's slice borrows the
others: it waits for their locks (taken in one global order, so two borrowers
cannot deadlock) and runs in an isolated child process that sees exactly those
devices.
"""

from __future__ import annotations

import fcntl
import os
import re
from collections.abc import Generator, Iterator, Sequence
from contextlib import contextmanager

import pytest

LOCK_DIR_VAR = "ROCMCOMPAT_GPU_LOCK_DIR"
DEVICES_KEY = pytest.StashKey[Sequence[str]]()  # the GPUs a test holds while it runs
BORROWED_KEY = pytest.StashKey[str]()  # visibility value for a test that borrows GPUs


@contextmanager
def holding(directory: str, devices: Sequence[str], order: Sequence[str]) -> Iterator[None]:
    """Hold exclusive locks on ``devices``, taken in the global ``order`` (no deadlock)."""
    rank = {d: i for i, d in enumerate(order)}
    handles = []
    try:
        for device in sorted(set(devices), key=lambda d: (rank.get(d, len(rank)), d)):
            fh = open(os.path.join(directory, f"gpu-{_safe(device)}.lock"), "a+b")  # noqa: SIM115
            handles.append(fh)
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        yield
    finally:
        for fh in reversed(handles):
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
            fh.close()


def borrowed_set(mine: Sequence[str], devices: Sequence[str], need: int) -> list[str]:
    """``need`` devices: the worker's own, then the next free-standing ones; in global order."""
    chosen = list(mine[:need])
    chosen += [d for d in devices if d not in chosen][: need - len(chosen)]
    return sorted(chosen, key=lambda d: devices.index(d) if d in devices else len(devices))


def _safe(device: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", device)


class GpuAllocator:
    """Registered in pinned xdist workers only: every test holds its GPUs' locks while it runs."""

    def __init__(self, directory: str, mine: list[str], devices: list[str]) -> None:
        self.directory = directory
        self.mine = mine
        self.devices = devices

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_protocol(
        self, item: pytest.Item, nextitem: pytest.Item | None
    ) -> Generator[None, object, object]:
        with holding(self.directory, item.stash.get(DEVICES_KEY, self.mine), self.devices):
            return (yield)
