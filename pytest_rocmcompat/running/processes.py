"""Child-process helpers shared by isolation and the multi-process launchers.

Linux gives two guarantees used here: a *child subreaper* (``PR_SET_CHILD_SUBREAPER``)
adopts every orphan among its descendants, even one that called ``setsid``, so a
process tree can always be walked through ``/proc`` by parent pid; and a
*parent-death signal* (``PR_SET_PDEATHSIG``) tells a child that the process that
started it is gone, even after ``SIGKILL``. Elsewhere both are no-ops and the
process-group kill is what is left.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import time
from collections.abc import Iterable

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36


def signal_name(returncode: int | None) -> str | None:
    """``SIGSEGV`` for a process killed by signal 11 (``returncode`` -11), else ``None``."""
    if returncode is None or returncode >= 0:
        return None
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def kill_group(pgid: int) -> None:
    """SIGKILL a process group (a child started with ``start_new_session=True``) and all it spawned."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _prctl(option: int, value: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def become_subreaper() -> bool:
    """Adopt this process's orphaned descendants (Linux); True when it worked."""
    return _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def die_with_parent(signum: int = signal.SIGTERM) -> bool:
    """Receive ``signum`` when the parent process dies (Linux); True when it worked."""
    return _prctl(_PR_SET_PDEATHSIG, int(signum))


def _stat_fields(pid: int | str) -> list[bytes] | None:
    """The fields of ``/proc/PID/stat`` after ``pid (comm)``: state, ppid, pgrp, session, ..."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return None
    return stat[stat.rfind(b")") + 2 :].split()  # comm may hold spaces and parentheses


def _all_stats() -> dict[int, list[bytes]]:
    """Pid -> :func:`_stat_fields` of every process this user can see."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return {}
    found = {}
    for name in names:
        if name.isdigit() and (fields := _stat_fields(name)) is not None:
            found[int(name)] = fields
    return found


def _parents() -> dict[int, int]:
    """Pid -> parent pid of every process this user can see."""
    return {pid: int(fields[1]) for pid, fields in _all_stats().items() if len(fields) > 1}


def in_sessions(sessions: set[int]) -> set[int]:
    """Processes whose session or process group is one of ``sessions``."""
    return {
        pid
        for pid, fields in _all_stats().items()
        if len(fields) > 3 and (int(fields[2]) in sessions or int(fields[3]) in sessions)
    }


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting to be reaped does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    fields = _stat_fields(pid)
    if fields is None:
        return True  # no /proc: trust kill(0)
    return fields[0] not in (b"Z", b"X")


def descendants(roots: Iterable[int]) -> set[int]:
    """Every living descendant of ``roots`` (not the roots themselves), by parent pid."""
    table = _parents()
    children: dict[int, list[int]] = {}
    for pid, ppid in table.items():
        children.setdefault(ppid, []).append(pid)
    found: set[int] = set()
    todo = list(roots)
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def children_of(pid: int) -> set[int]:
    """The direct children of ``pid`` (``/proc/PID/task/*/children`` where the kernel has it)."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
        found: set[int] = set()
        for task in tasks:
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as fh:
                found.update(int(child) for child in fh.read().split())
        return found
    except (OSError, ValueError):
        return {child for child, parent in _parents().items() if parent == pid}


def command_of(pid: int) -> str:
    """The command line of ``pid`` (for notes), or ``?``."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()[:200] or "?"
    except OSError:
        return "?"


def kill_tree(
    roots: Iterable[int], *, include_roots: bool = True, grace_s: float = 2.0, keep: Iterable[int] = ()
) -> list[int]:
    """SIGKILL ``roots`` (optionally) and all their descendants; returns the pids killed.

    The tree is first frozen with SIGSTOP until no new process appears (a stopped
    process cannot fork), so nothing escapes between the walk and the kill. Killed
    processes that are this process's children (direct or adopted) are reaped, waiting
    at most ``grace_s``, except ``keep`` (children a ``Popen`` object waits for itself).
    """
    roots = [pid for pid in roots if pid > 0]
    victims: set[int] = set(roots) if include_roots else set()
    for pid in victims:
        _signal(pid, signal.SIGSTOP)
    for _ in range(100):
        found = descendants(roots) - victims
        if not found:
            break
        for pid in found:
            _signal(pid, signal.SIGSTOP)
        victims |= found
    for pid in victims:
        _signal(pid, signal.SIGKILL)
    deadline = time.monotonic() + grace_s
    pending = set(victims) - set(keep)
    while pending and time.monotonic() < deadline:
        for pid in list(pending):
            try:
                done, _status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:  # not ours to reap: its parent or init does
                pending.discard(pid)
                continue
            if done:
                pending.discard(pid)
        if pending:
            time.sleep(0.005)
    return sorted(victims)


def kill_every_descendant(rounds: int = 50) -> None:
    """SIGKILL every living descendant of this process, waiting for none (an interrupted session).

    ``rounds=1``: one sweep, at once. More rounds: until none is left. A process that dies by its
    parent-death signal orphans its children only as it exits; as a subreaper this process then
    adopts them, so each round catches what the last one orphaned. Children are left for their
    owners to reap (a ``Popen`` object, pytest-xdist's gateways).
    """
    for round_ in range(rounds):
        if round_:
            time.sleep(0.01)
        living = sorted(pid for pid in descendants([os.getpid()]) if alive(pid))
        if not living:
            return
        kill_tree(living, grace_s=0.0)


def identity(pid: int) -> tuple[bytes, str] | None:
    """(start time, command line) of a living ``pid``, or None (gone, or a zombie): the same pid
    seen later is the same process only if both match (pids are reused).
    """
    fields = _stat_fields(pid)
    if fields is None or len(fields) < 20 or fields[0] in (b"Z", b"X"):
        return None
    return fields[19], command_of(pid)


def reap_adopted() -> set[int]:
    """Reap zombie children (those this process adopted as subreaper too; never blocks); their pids."""
    reaped: set[int] = set()
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return reaped
        if pid == 0:
            return reaped
        reaped.add(pid)


def _signal(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except (ProcessLookupError, PermissionError):
        pass


class TreeGuard:
    """Every process started between ``__enter__`` and :meth:`kill` — and all they started, ``setsid``
    or not — is found and killed: the roots given, their descendants, and orphans this process adopted
    as subreaper meanwhile (children of exited roots).
    """

    def __init__(self) -> None:
        become_subreaper()
        self.before = children_of(os.getpid())

    def kill(self, roots: Iterable[int]) -> list[int]:
        mine = children_of(os.getpid())
        roots = [pid for pid in roots if pid in mine]  # a reaped root's pid may be another process's now
        adopted = mine - self.before - set(roots)
        return kill_tree([*roots, *adopted], keep=roots)
