"""Nothing lost on interruption, within a bound: SIGINT and SIGTERM, once, twice or more.

A CI time limit or a cancel arrives as SIGTERM or SIGINT, often twice (GitHub Actions: SIGINT,
SIGTERM 7.5 s later, SIGKILL 2.5 s after that). By default the first SIGTERM kills Python on
the spot, and a second Ctrl-C interrupts the very writers that were saving the results.
While a session runs, the process that writes the results (the only one, or pytest-xdist's
controller) handles both:

* The **first** signal becomes ``KeyboardInterrupt``: pytest unwinds as for Ctrl-C, every
  ``pytest_sessionfinish`` writer runs, and tests collected but never finished are recorded as
  skipped with the reason ``not run``; the exit status is pytest's ``INTERRUPTED`` (2).
* A first signal that arrives once the results are being written interrupts nothing: the
  writers go on, however long they take (a slow writer loses nothing to one cancel), and the
  exit status is 2.
* **Any later** signal interrupts nothing either: every process the session started is killed
  at once (not waited for), and the session gets :data:`BOUND_S` seconds to finish writing.
  Past that (a writer that is stuck), it puts what JUnit it has in place, removes its temporary
  files and exits with status 2: the escape hatch of a stuck shutdown, bounded.
* Once the writers are done after any signal, whatever still lives below this process (a
  subreaper: what killed workers started comes to it) is killed.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Generator
from types import FrameType

import pytest

NOT_RUN_INTERRUPTED = "not run: the session was interrupted before this test finished"
NOT_RUN_STOPPED = "not run: the session stopped early (-x / --maxfail) before this test"
BOUND_S = 1.5  # after the second signal, the most the session may still take (then it salvages and exits)
SALVAGE_S = 0.4  # then the most writing what the session holds may take (BOUND_S + SALVAGE_S < 2 s)
_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class InterruptGuard:
    """Install on session start, remove on session end; only from the main thread.

    ``kill_children`` kills every process the session started (called once, at the second
    signal); ``salvage`` puts the results in place as they are (called if the bound expires);
    ``prepare`` imports what writing an interrupted session's results needs, when the writers start after a
    signal: never from a signal handler, whose import can land inside the main thread's own (on Python 3.11 a
    nested import on one thread breaks the import lock's bookkeeping: ``KeyError`` in ``_ModuleLock.acquire``);
    ``sweep`` kills whatever is still alive below this process once the writers are done (after
    any signal: workers killed by a group signal die without cleaning up, and what they started
    is orphaned to this process).
    """

    def __init__(
        self,
        kill_children: Callable[[], None],
        salvage: Callable[[], None],
        sweep: Callable[[], None] = lambda: None,
        prepare: Callable[[], None] = lambda: None,
    ) -> None:
        self.kill_children, self.salvage, self.sweep, self.prepare = kill_children, salvage, sweep, prepare
        self._previous: dict[int, Callable | int | None] = {}
        self.received: list[str] = []  # signal names, in order
        self.finishing = False  # the results are being written: nothing may interrupt them
        self.armed = False

    def install(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        for signum in _SIGNALS:
            current = signal.getsignal(signum)
            default = signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL
            if current is default:  # someone else handles it: leave it to them
                self._previous[signum] = signal.signal(signum, self._handle)

    def remove(self) -> None:
        """Restore the previous handlers, unless a signal came: then the process is on its way out,
        and a late signal (a cancel repeated while Python shuts down) must not turn a complete run
        into a death by signal, so SIGINT and SIGTERM are ignored from here on.
        """
        if self.armed:  # the writers are done: the bound has served (at exit Python resets SIGALRM's
            signal.setitimer(signal.ITIMER_REAL, 0)  # handler, and a pending timer would kill with -14)
        if self.received:  # ignored, not handled: Python resets handled signals to their default at
            for signum in self._previous:  # exit, an ignored one stays ignored until the process ends
                signal.signal(signum, signal.SIG_IGN)
            self._previous = {}
            return
        for signum, previous in self._previous.items():
            if signal.getsignal(signum) == self._handle:
                signal.signal(signum, previous)
        self._previous = {}

    @property
    def interrupted(self) -> bool:
        return bool(self.received)

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        name = signal.Signals(signum).name
        self.received.append(name)
        if len(self.received) == 1:
            if not self.finishing:
                raise KeyboardInterrupt(f"{name} received (a CI cancel or time limit?): writing results before exiting")
            return  # the results are being written: they go on, unbounded until a second signal
        self._arm()

    def _arm(self) -> None:
        """Kill what the session started and give the writers :data:`BOUND_S` seconds (once)."""
        if self.armed:
            return
        self.armed = True
        try:
            signal.signal(signal.SIGALRM, self._expire)
            signal.setitimer(signal.ITIMER_REAL, BOUND_S)
        finally:
            self.kill_children()

    def _expire(self, signum: int, frame: FrameType | None) -> None:
        # salvage gets SALVAGE_S of its own; past that SIGALRM's default action ends the process
        # (status -14 rather than 2, but within the bound: a stuck file system cannot hold it)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        signal.setitimer(signal.ITIMER_REAL, SALVAGE_S)
        try:
            self.salvage()
        finally:
            _say_and_flush(
                f"rocmcompat: the session was still writing its results {BOUND_S} s after the second signal;"
                " what it held was written, and it exits now (status 2)"
            )
            os._exit(int(pytest.ExitCode.INTERRUPTED))


def _say_and_flush(line: str) -> None:
    """Before ``os._exit``: what the terminal was shown so far (buffered on a pipe) plus ``line``."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is sys.stderr:
                stream.write(f"\n{line}\n")
            stream.flush()
        except Exception:  # a closed or broken stream: nothing more can be said
            pass


GUARD_KEY = pytest.StashKey[InterruptGuard]()  # the controller's guard, removed at unconfigure


def install_guard(
    config: pytest.Config,
    kill_children: Callable[[], None],
    salvage: Callable[[], None],
    sweep: Callable[[], None] = lambda: None,
    prepare: Callable[[], None] = lambda: None,
) -> None:
    """The process that writes the results turns SIGINT/SIGTERM into a bounded, lossless stop."""
    config.stash[GUARD_KEY] = guard = InterruptGuard(kill_children, salvage, sweep, prepare)
    guard.install()
    if not config.pluginmanager.has_plugin(_FINISHING_PLUGIN):
        config.pluginmanager.register(_Finishing(), _FINISHING_PLUGIN)


_FINISHING_PLUGIN = "rocmcompat-interrupt-finishing"


class _Finishing:
    @pytest.hookimpl(tryfirst=True, wrapper=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> Generator[None, object, object]:
        """Around every writer: a signal no longer interrupts them, and a signalled run exits 2.

        Also when the signal came after the last test: a cancelled run is not a green run.
        """
        start_finishing(session)
        try:
            return (yield)
        finally:
            guard = guard_of(session.config)
            if guard is not None and guard.interrupted:
                session.exitstatus = pytest.ExitCode.INTERRUPTED
                guard.sweep()


def guard_of(config: pytest.Config) -> InterruptGuard | None:
    return config.stash.get(GUARD_KEY, None)


def start_finishing(session: pytest.Session) -> None:
    """From here on the results are being written: a signal no longer interrupts, it arms the bound. After a
    signal, what the writers and a salvage need is imported here, in the main thread's own time.
    """
    guard = guard_of(session.config)
    if guard is not None:
        guard.finishing = True
        if guard.interrupted:
            guard.prepare()


def remove_guard(config: pytest.Config) -> None:
    guard = config.stash.get(GUARD_KEY, None)
    if guard is not None:
        guard.remove()


def not_run(collected: list[str], finished: set[str]) -> list[str]:
    """Collected tests without a final result, in collection order."""
    return [nodeid for nodeid in collected if nodeid not in finished]
