"""Parent side of isolation: sandbox processes that run isolated tests one after another.

A :class:`Sandbox` is a spawned (never forked) ``python -m pytest`` session (see
:mod:`.child`) with its own temporary directory: the commands' result files, its
output log (a file, never a pipe: a process the test leaves behind cannot block
anything) and its ``--basetemp``. :class:`SandboxPool` keeps one per test-running
process, replaces it after anything but a clean result, and starts the next one
ahead of need. Every wait is bounded by the test's time limit plus a small grace;
every path (pass, failure, crash, hang, interrupt) removes the directory and leaves
no process behind.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from pytest_rocmcompat.outcomes import PROP_OUTCOME
from pytest_rocmcompat.running.isolation.child import ISOLATED_VAR, PARENT_VAR
from pytest_rocmcompat.running.processes import become_subreaper, children_of, command_of, descendants, kill_tree

TAIL_CHARS = 6000
CLOSE_GRACE_S = 5.0  # a sandbox told to stop gets this long to finish its session
START_LIMIT_S = 120.0  # a sandbox must be ready for its test within this (its own start-up, apart)


@dataclass(frozen=True)
class ChildEnd:
    """How one isolated test ended in its sandbox."""

    returncode: int | None  # None: killed by the time limit; 0: finished (the sandbox lives on)
    output: str
    seconds: float
    reports: tuple[dict, ...]
    warnings: tuple[dict, ...] = ()
    errors: tuple[str, ...] = ()
    leftovers: tuple[str, ...] = ()  # processes the test left running (killed): "pid command"
    done: bool = False  # the sandbox wrote the complete result
    started: bool = False  # the sandbox began the test (else it never got that far)

    @property
    def hung(self) -> bool:
        return self.returncode is None

    @property
    def signal_name(self) -> str | None:
        from pytest_rocmcompat.running.processes import signal_name

        return signal_name(self.returncode)


@dataclass
class Sandbox:
    """One sandbox process and its directory."""

    argv: list[str]
    cwd: Path
    env_json: str
    environ: dict[str, str] | None = None
    used: int = 0
    dir: Path = field(init=False)
    proc: subprocess.Popen = field(init=False)

    def __post_init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="rocmcompat-isolated-"))
        try:
            env_file = self.dir / "env.json"
            env_file.write_text(self.env_json, encoding="utf-8")
            self.log = self.dir / "output.log"
            environ = dict(self.environ if self.environ is not None else os.environ)
            environ[PARENT_VAR] = str(os.getpid())
            environ[ISOLATED_VAR] = "1"
            with open(self.log, "wb") as out:
                self.proc = subprocess.Popen(
                    [
                        *self.argv,
                        "--basetemp",
                        str(self.dir / "tmp"),
                        "--rocm-child-result",
                        str(self.dir),
                        "--rocm-child-env",
                        str(env_file),
                    ],
                    cwd=self.cwd,
                    stdin=subprocess.PIPE,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                    env=environ,
                )
        except BaseException:
            shutil.rmtree(self.dir, ignore_errors=True)
            raise

    def run(self, nodeid: str, timeout: float) -> ChildEnd:
        """Run one test; the sandbox is still alive afterwards only if ``returncode == 0``."""
        result = self.dir / f"result-{self.used}.json"
        self.used += 1
        offset = self.log.stat().st_size
        start = time.monotonic()
        before = children_of(os.getpid())
        returncode: int | None = 0
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(json.dumps({"nodeid": nodeid, "result": str(result)}).encode() + b"\n")
            self.proc.stdin.flush()
        except OSError:  # it died before the command: its exit code says how
            pass
        watch = _ResultFile(result)
        data = watch.read()
        pause = 0.001
        began: float | None = None  # when the sandbox began the test (a start-up still under way: None)
        while not data.get("done"):
            now = time.monotonic()
            if began is None and data:
                began = now
            if self.proc.poll() is not None:
                returncode = self.proc.returncode
                data = _read(result)
                break
            if (now - began > timeout) if began is not None else (now - start > max(timeout, START_LIMIT_S)):
                returncode = None
                break
            time.sleep(pause)
            pause = min(pause * 1.5, 0.02)
            data = watch.read()
        seconds = time.monotonic() - (began or start)
        output = self._output(offset)  # before a kill removes the directory
        leftovers: list[int] = []
        if data.get("done") and returncode == 0:
            leftovers = sorted(descendants([self.proc.pid]))
            notes = tuple(f"{pid} {command_of(pid)}" for pid in leftovers)
            if leftovers:
                kill_tree(leftovers)
        else:  # crash, hang or early exit: the whole tree goes, and orphans it left to this process
            notes = ()
            self.kill(adopted=children_of(os.getpid()) - before)
        return ChildEnd(
            returncode,
            output,
            seconds,
            tuple(data.get("reports", ())),
            tuple(data.get("warnings", ())),
            tuple(data.get("errors", ())),
            notes,
            bool(data.get("done")),
            bool(data),
        )

    def _output(self, offset: int) -> str:
        try:
            with open(self.log, "rb") as fh:
                fh.seek(max(offset, self.log.stat().st_size - 4 * TAIL_CHARS))
                return fh.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def kill(self, adopted: set[int] | frozenset[int] = frozenset()) -> None:
        """SIGKILL the sandbox, every descendant and ``adopted`` orphans; remove the directory."""
        old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
        try:
            # A sandbox already reaped (poll() saw it die) is no root: its pid may be reused by now.
            alive = [self.proc.pid] if self.proc.returncode is None else []
            kill_tree([*alive, *adopted], keep=alive)
            try:
                self.proc.wait(timeout=CLOSE_GRACE_S)
            except subprocess.TimeoutExpired:
                pass
            self._close_pipe()
            shutil.rmtree(self.dir, ignore_errors=True)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)

    def close(self) -> None:
        """Let the sandbox end its session (bounded), then make sure nothing of it is left."""
        if not self.used:  # nothing ran: nothing to finish
            self.kill()
            return
        self._close_pipe()
        try:
            self.proc.wait(timeout=CLOSE_GRACE_S)
        except subprocess.TimeoutExpired:
            pass
        except BaseException:
            self.kill()
            raise
        self.kill()

    def _close_pipe(self) -> None:
        try:
            if self.proc.stdin is not None and not self.proc.stdin.closed:
                self.proc.stdin.close()
        except OSError:
            pass


class _ResultFile:
    """A result file, parsed again only when it changed (it is polled while the test runs)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.seen: tuple[int, int, int] | None = None
        self.data: dict = {}

    def read(self) -> dict:
        try:
            stat = os.stat(self.path)
        except OSError:
            return self.data
        if (stat.st_mtime_ns, stat.st_ino, stat.st_size) != self.seen:  # replaced atomically: a new inode
            self.seen = (stat.st_mtime_ns, stat.st_ino, stat.st_size)
            self.data = _read(self.path)
        return self.data


def _read(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


class SandboxPool:
    """The sandboxes of one test-running process (the only process, or an xdist worker)."""

    def __init__(self, argv: list[str], cwd: Path, env_json: str) -> None:
        self.argv, self.cwd, self.env_json = argv, cwd, env_json
        self.current: Sandbox | None = None
        self.started = 0  # sandboxes started (for the benchmark and tests)
        become_subreaper()  # orphans of a dead sandbox come to this process, which kills them

    def prestart(self) -> None:
        """Start a sandbox now, ahead of the test that will need it."""
        if self.current is None:
            self.current = self._new()

    def _new(self, environ: dict[str, str] | None = None) -> Sandbox:
        self.started += 1
        return Sandbox(self.argv, self.cwd, self.env_json, environ)

    def run(
        self,
        nodeid: str,
        timeout: float,
        *,
        environ: dict[str, str] | None = None,
        fresh: bool = False,
        more: bool = True,
    ) -> tuple[ChildEnd, bool]:
        """Run one test; returns its end and whether the sandbox may run another.

        ``environ``: a test that must see another environment gets a sandbox of its own;
        ``fresh``: it gets one that has run nothing; ``more``: another isolated test follows.
        """
        if environ is not None:
            sandbox = self._new(environ)
            try:
                end = sandbox.run(nodeid, timeout)
            finally:
                sandbox.close()
            return end, False
        if self.current is not None and fresh and self.current.used:
            self.current.close()
            self.current = None
        sandbox = self.current or self._new()
        self.current = None
        try:
            end = sandbox.run(nodeid, timeout)
        except BaseException:
            sandbox.kill()
            raise
        if end.returncode == 0 and end.done and not fresh and _clean(end):
            self.current = sandbox
            return end, True
        if end.returncode == 0:  # alive but not to be trusted with another test
            sandbox.kill()
        if more:
            self.prestart()
        return end, False

    def close(self) -> None:
        if self.current is not None:
            sandbox, self.current = self.current, None
            sandbox.close()


def _clean(end: ChildEnd) -> bool:
    """Only a test that passed or skipped cleanly, in every phase, hands its process on."""
    if end.errors:
        return False
    for report in end.reports:
        if report.get("outcome") == "failed" or report.get("wasxfail") is not None:
            return False
        if any(
            name == PROP_OUTCOME and value not in ("pass", "skipped")
            for name, value in report.get("user_properties", ())
        ):
            return False
    return True
