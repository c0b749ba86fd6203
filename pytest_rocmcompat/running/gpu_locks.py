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
import json
import os
import re
import sys
import time
from collections.abc import Generator, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import IO

import pytest

from pytest_rocmcompat.markers import DEFAULT_GPU_WAIT_TIMEOUT

LOCK_DIR_VAR = "ROCMCOMPAT_GPU_LOCK_DIR"
DEVICES_KEY = pytest.StashKey[Sequence[str]]()  # the GPUs a test holds while it runs
BORROWED_KEY = pytest.StashKey[str]()  # visibility value for a test that borrows GPUs
WAIT_FAILED_KEY = pytest.StashKey[str]()  # the test waited past the limit: why (its setup error)


NOTICE_AFTER_S = 5.0  # a wait longer than this is said on stderr, naming the holder
_POLL_S = 0.05
_held: dict[str, int] = {}  # lock files this process holds, and how many holders nest in it


class GpuWaitTimeout(Exception):
    """A test waited longer than the limit for a GPU another test holds (the holder may be hung)."""


def _holder_of(path: str) -> str:
    """Who holds the lock file at ``path`` and for how long, as its holder recorded it."""
    try:
        with open(path, encoding="utf-8") as fh:
            record = json.loads(fh.read() or "{}")
        held = time.time() - float(record.get("since", time.time()))
        return f"{record.get('test', '?')} (pid {record.get('pid', '?')}, {record.get('worker', '?')}) for {held:.0f} s"
    except (OSError, ValueError, TypeError, AttributeError):
        return "an unknown test"


def _acquire(fh: IO[bytes], path: str, device: str, holder: dict[str, object], wait_limit: float) -> None:
    started = time.monotonic()
    noticed = False
    while True:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            waited = time.monotonic() - started
            if waited >= wait_limit:
                raise GpuWaitTimeout(
                    f"rocmcompat: {holder.get('test')} waited {waited:.0f} s for GPU {device}, held by "
                    f"{_holder_of(path)}; the holder may be hung (ini rocm_gpu_wait_timeout = {wait_limit:g})"
                ) from None
            if not noticed and waited >= NOTICE_AFTER_S:
                noticed = True
                print(
                    f"rocmcompat: {holder.get('test')} waits for GPU {device}, held by {_holder_of(path)}",
                    file=sys.__stderr__,
                    flush=True,
                )
            time.sleep(_POLL_S)
    fh.seek(0)
    fh.truncate()
    fh.write(json.dumps({**holder, "since": time.time()}).encode())
    fh.flush()


@contextmanager
def holding(
    directory: str,
    devices: Sequence[str],
    order: Sequence[str],
    *,
    holder: dict[str, object] | None = None,
    wait_limit: float = DEFAULT_GPU_WAIT_TIMEOUT,
) -> Iterator[None]:
    """Hold exclusive locks on ``devices``, taken in the global ``order`` (no deadlock).

    A lock this process already holds (a session started in-process by the test holding it) is
    not taken again: the nested session runs on the GPUs its test holds. A wait past
    :data:`NOTICE_AFTER_S` is said on stderr; past ``wait_limit`` it raises :class:`GpuWaitTimeout`
    naming the holder.
    """
    rank = {d: i for i, d in enumerate(order)}
    who = {"pid": os.getpid(), "worker": os.environ.get("PYTEST_XDIST_WORKER", ""), **(holder or {})}
    handles: list[tuple[str, IO[bytes] | None]] = []
    try:
        for device in sorted(set(devices), key=lambda d: (rank.get(d, len(rank)), d)):
            path = os.path.join(directory, f"gpu-{_safe(device)}.lock")
            if _held.get(path):
                _held[path] += 1
                handles.append((path, None))
                continue
            opened: IO[bytes] = open(path, "a+b")  # noqa: SIM115  closed in the finally below
            try:
                _acquire(opened, path, device, who, wait_limit)
            except BaseException:
                opened.close()
                raise
            _held[path] = 1
            handles.append((path, opened))
        yield
    finally:
        for path, fh in reversed(handles):
            _held[path] -= 1
            if fh is not None:
                del _held[path]
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
    """Registered in pinned xdist workers only: a test holds its GPUs' locks while it runs (every
    test under policy ``all``; under ``marked``, those that declare GPU use).

    A wait past the limit does not stop the session: the waiting test ends as an error in its
    setup (run in-process, never isolated), naming the holder; the next test waits afresh.
    """

    def __init__(
        self,
        directory: str,
        mine: list[str],
        devices: list[str],
        wait_limit: float = DEFAULT_GPU_WAIT_TIMEOUT,
        *,
        every_test: bool = True,
    ) -> None:
        self.directory = directory
        self.mine = mine
        self.devices = devices
        self.wait_limit = wait_limit
        self.every_test = every_test  # policy "all"; "marked": only tests given GPUs at collection

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_protocol(
        self, item: pytest.Item, nextitem: pytest.Item | None
    ) -> Generator[None, object, object]:
        if not self.every_test and DEVICES_KEY not in item.stash:
            return (yield)  # a test that declares no GPU use: no lock, as under plain xdist
        with ExitStack() as stack:
            try:
                stack.enter_context(
                    holding(
                        self.directory,
                        item.stash.get(DEVICES_KEY, self.mine),
                        self.devices,
                        holder={"test": item.nodeid},
                        wait_limit=self.wait_limit,
                    )
                )
            except GpuWaitTimeout as exc:
                item.stash[WAIT_FAILED_KEY] = str(exc)
            return (yield)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        failed = item.stash.get(WAIT_FAILED_KEY, None)
        if failed is not None:
            raise GpuWaitTimeout(failed)
