"""Nothing lost on interruption: SIGTERM behaves like Ctrl-C, and tests that never ran are named.

A CI time limit usually arrives as SIGTERM, which by default kills Python on the
spot: no JUnit file, no report. While a session runs, the controller turns the
first SIGTERM into ``KeyboardInterrupt``, so pytest unwinds the way it does for
Ctrl-C and every ``pytest_sessionfinish`` writer still runs; a second SIGTERM
kills at once. Tests collected but never finished are then recorded as skipped
with the reason ``not run``.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from types import FrameType

import pytest

NOT_RUN_INTERRUPTED = "not run: the session was interrupted before this test finished"
NOT_RUN_STOPPED = "not run: the session stopped early (-x / --maxfail) before this test"


class SigtermAsInterrupt:
    """Install on session start, remove on session end; only from the main thread."""

    def __init__(self) -> None:
        self._previous: Callable | int | None = None
        self.received = False

    def install(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:  # someone else handles it
            return
        self._previous = signal.signal(signal.SIGTERM, self._handle)

    def remove(self) -> None:
        if self._previous is not None and signal.getsignal(signal.SIGTERM) == self._handle:
            signal.signal(signal.SIGTERM, self._previous)
        self._previous = None

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.received = True
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM kills at once
        raise KeyboardInterrupt("SIGTERM received (a CI time limit?): writing results before exiting")


SIGTERM_KEY = pytest.StashKey[SigtermAsInterrupt]()  # the controller's handler, removed at unconfigure


def install_sigterm(config: pytest.Config) -> None:
    """The controller (the process that writes the results) turns the first SIGTERM into Ctrl-C."""
    config.stash[SIGTERM_KEY] = sigterm = SigtermAsInterrupt()
    sigterm.install()


def remove_sigterm(config: pytest.Config) -> None:
    sigterm = config.stash.get(SIGTERM_KEY, None)
    if sigterm is not None:
        sigterm.remove()


def not_run(collected: list[str], finished: set[str]) -> list[str]:
    """Collected tests without a final result, in collection order."""
    return [nodeid for nodeid in collected if nodeid not in finished]
