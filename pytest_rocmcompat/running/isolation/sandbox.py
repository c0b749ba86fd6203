"""Parent side of isolation: sandbox processes that run isolated tests.

A :class:`Sandbox` is a spawned (never forked) ``python -m pytest`` session (see
:mod:`.child`) with its own temporary directory: the commands' result files, its
output log (a file, never a pipe: a process the test leaves behind cannot block
anything) and its ``--basetemp``. By default it is a *template* that forks one fresh
child per test (:mod:`.template`); on request (``reuse``) it runs tests itself, one
after another. :class:`SandboxPool` keeps one template (and one reusable sandbox, if
asked for) per test-running process: a crash or hang costs the template one child, not
a restart; a reusable sandbox is replaced after anything but a clean result. The next
sandbox starts ahead of need. Every wait is bounded by the test's time limit plus a
small grace; every path (pass, failure, crash, hang, interrupt) removes the directory
and leaves no process behind.
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
from pytest_rocmcompat.running.isolation.child import ISOLATED_VAR, PARENT_VAR, PRELOAD_VAR, SPAWNED, end_path
from pytest_rocmcompat.running.isolation.roots import sandbox_parent
from pytest_rocmcompat.running.processes import (
    become_subreaper,
    children_of,
    command_of,
    descendants,
    kill_tree,
)

TAIL_CHARS = 6000
CLOSE_GRACE_S = 5.0  # a sandbox told to stop gets this long to finish its session
START_LIMIT_S = 120.0  # a sandbox must be ready for its test within this (its own start-up, apart)
END_GRACE_S = 2.0  # a template reports a killed child's end within this, else it is replaced


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
    mode: str = ""  # forked | spawned | reused: how the test got its process ("" if it never began)
    note: str = ""  # why a template could not fork (spawned), or what it could not preload
    standby: str = ""  # a standby ran it: whether its GPU runtime was warmed ("" : forked for it)

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
    template: bool = True  # fork a child per test (else run tests itself: reuse)
    preload: tuple[str, ...] = ()
    used: int = 0
    spent: bool = False  # can take no further test (a template that could not fork ran one itself)
    dir: Path = field(init=False)
    proc: subprocess.Popen = field(init=False)

    def __post_init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="rocmcompat-isolated-", dir=sandbox_parent()))
        try:
            env_file = self.dir / "env.json"
            env_file.write_text(self.env_json, encoding="utf-8")
            self.log = self.dir / "output.log"
            environ = dict(self.environ if self.environ is not None else os.environ)
            environ[PARENT_VAR] = str(os.getpid())
            environ[ISOLATED_VAR] = "1"
            if self.template:
                environ[PRELOAD_VAR] = ",".join(self.preload)
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

    def run(
        self, nodeid: str, timeout: float, environ: dict[str, str] | None = None, standby: dict | None = None
    ) -> ChildEnd:
        """Run one test (a template runs it in a forked child that sees ``environ``).

        ``standby`` (a template only): the next isolated test's environment and whether it uses a
        GPU, for a child forked ahead of need (:mod:`.standby`). Afterwards :attr:`spent` says
        whether the sandbox can take another test.
        """
        result = self.dir / f"result-{self.used}.json"
        ended = end_path(result)
        self.used += 1
        offset = self.log.stat().st_size
        start = time.monotonic()
        before = children_of(os.getpid())
        returncode: int | None = 0
        command = {"nodeid": nodeid, "result": str(result), "fork": self.template, "environ": self._seen(environ)}
        if standby is not None and self.template:
            command["standby"] = {**standby, "environ": self._seen(standby.get("environ"))}
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(json.dumps(command).encode() + b"\n")
            self.proc.stdin.flush()
        except OSError:  # it died before the command: its exit code says how
            pass
        watch = _ResultFile(result)
        data = watch.read()
        pause = 0.001
        began: float | None = None  # when the sandbox began the test (a start-up still under way: None)
        sandbox_died = False
        kept: set[int] = set()  # the template's processes that are no leftover of this test
        while True:
            now = time.monotonic()
            if began is None and data:
                began = now
            end = _read(ended)  # written once the process that ran the test is done with it
            if end:
                returncode = int(end.get("returncode", 70))
                kept = _kept(end)
                data = _read(result)
                break
            if self.proc.poll() is not None:
                returncode, sandbox_died = self.proc.returncode, True
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
        mode = str(data.get("mode", ""))
        if mode == SPAWNED or (not self.template and returncode != 0) or sandbox_died:
            self.spent = True
        notes: tuple[str, ...] = ()
        if self.spent:  # crash, hang or early exit of the sandbox itself: the whole tree goes
            if returncode == 0 and data.get("done") and not sandbox_died:
                notes = self._kill_leftovers(kept)
            self.kill(adopted=children_of(os.getpid()) - before)
            self._kill_late_orphans(before)
        elif returncode is None:  # a template's child hung: kill it, keep the template
            if not self._kill_child(data.get("pid"), ended):
                self.spent = True
                self.kill(adopted=children_of(os.getpid()) - before)
        elif returncode == 0 and data.get("done"):
            notes = self._kill_leftovers(kept)
        else:  # the child crashed or exited early: what it left goes, unnamed
            kill_tree(sorted(descendants([self.proc.pid]) - kept))
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
            mode,
            str(data.get("note", "")),
            str(data.get("standby", "")),
        )

    def _kill_late_orphans(self, before: set[int]) -> None:
        """Kill what a dead sandbox's processes leave to this process (a subreaper) as they die.

        A dead template's forked child dies after it (its parent-death signal), and only then are
        its children reparented here: a scan made while it was exiting saw neither it as their
        parent nor them as ours. Each round kills and reaps what is ours now; once a round finds
        nothing, every exit that could orphan more has completed.
        """
        for _ in range(20):
            late = children_of(os.getpid()) - before - {self.proc.pid}
            if not late:
                return
            kill_tree(sorted(late))

    def _seen(self, environ: dict[str, str] | None) -> dict[str, str] | None:
        """The environment a child sees: ``environ`` and the sandbox's own variables (None: the template's)."""
        if environ is None:
            return None
        return {**environ, PARENT_VAR: str(os.getpid()), ISOLATED_VAR: "1"}

    def _kill_leftovers(self, kept: set[int]) -> tuple[str, ...]:
        """Kill what a finished test left running in the sandbox (not the ``kept`` processes: :func:`_kept`)."""
        leftovers = sorted(descendants([self.proc.pid]) - kept)
        notes = tuple(f"{pid} {command_of(pid)}" for pid in leftovers)
        if leftovers:
            kill_tree(leftovers)
        return notes

    def _kill_child(self, pid: object, ended: Path) -> bool:
        """Kill a template's hung child and all it started; True once the template saw it end.

        The standby forked for the next test is no orphan of the hung one: it is kept (:func:`_kept`).
        """
        if isinstance(pid, int) and pid != self.proc.pid:
            kill_tree([pid])
        deadline = time.monotonic() + END_GRACE_S
        while not ended.exists():
            if time.monotonic() > deadline or self.proc.poll() is not None:
                return False
            time.sleep(0.01)
        kill_tree(sorted(descendants([self.proc.pid]) - _kept(_read(ended))))  # orphans it left to the template
        return True

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
        """Let the sandbox end its session (bounded), then make sure nothing of it is left.

        A template that forked every test has nothing to finish (its children ran the tests and
        ended; its own session ran no test and no fixture): it is killed at once, sparing the
        seconds Python takes to tear down an imported torch. A sandbox that ran tests itself (a
        reusable one, or a template that could not fork) ends its session: its fixtures' teardown.
        """
        if not self.used or (self.template and not self.spent):
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


def _kept(end: dict) -> set[int]:
    """The template's children that an end file says are no leftover of the test: the standby
    waiting for the next test, and children past their ``_exit`` call (the test's own process
    among them) that the kernel is still tearing down. What those started is not kept.
    """
    pids = [end.get("standby"), *(end.get("exiting") or ())]
    return {pid for pid in pids if isinstance(pid, int) and not isinstance(pid, bool)}


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


# What a forked child may see differently from its template: GPU visibility is read when the GPU
# runtime starts (in the child, never in the template), the plugin's own variables when used.
_CHILD_VARIABLES = frozenset(
    {"CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL"}
)


def forkable(environ: dict[str, str], base: dict[str, str]) -> bool:
    """Whether a child forked from a template started in ``base`` may run a test seeing ``environ``."""
    changed = {k for k in environ.keys() | base.keys() if environ.get(k) != base.get(k)}
    return all(k in _CHILD_VARIABLES or k.startswith("ROCMCOMPAT_") for k in changed)


class SandboxPool:
    """The sandboxes of one test-running process (the only process, or an xdist worker).

    One template (fresh processes, the default) and, for tests that ask to reuse a process,
    one reusable sandbox; each started on first need and again ahead of need.
    """

    def __init__(self, argv: list[str], cwd: Path, env_json: str, preload: tuple[str, ...] = ()) -> None:
        self.argv, self.cwd, self.env_json, self.preload = argv, cwd, env_json, preload
        self.template: Sandbox | None = None
        self.current: Sandbox | None = None  # the reusable sandbox
        self.started = 0  # sandboxes started (for the benchmark and tests)
        self.base = dict(os.environ)
        become_subreaper()  # orphans of a dead sandbox come to this process, which kills them

    def prestart(self, *, reuse: bool = False) -> None:
        """Start a sandbox now, ahead of the test that will need it."""
        if reuse and self.current is None:
            self.current = self._new(template=False)
        elif not reuse and self.template is None:
            self.template = self._new()

    def _new(self, environ: dict[str, str] | None = None, *, template: bool = True) -> Sandbox:
        self.started += 1
        return Sandbox(self.argv, self.cwd, self.env_json, environ, template=template, preload=self.preload)

    def run(
        self,
        nodeid: str,
        timeout: float,
        *,
        environ: dict[str, str] | None = None,
        reuse: bool = False,
        fresh: bool = False,
        more: bool = True,
        standby: dict | None = None,
    ) -> tuple[ChildEnd, bool]:
        """Run one test; returns its end and whether its sandbox takes another test.

        By default the test runs in a child forked from the template, seeing ``environ`` when
        given (GPU visibility). ``reuse``: in the reusable sandbox instead, after earlier tests
        (``fresh``: one that has run nothing); ``more``: another isolated test follows;
        ``standby``: what the template prepares for it (:meth:`Sandbox.run`).
        """
        if reuse:
            return self._run_reusable(nodeid, timeout, environ=environ, fresh=fresh, more=more)
        if environ is not None and not forkable(environ, self.base):
            return self._run_alone(nodeid, timeout, environ, template=True), False  # other libraries, paths ...
        sandbox = self.template or self._new()
        self.template = None
        try:
            end = sandbox.run(nodeid, timeout, environ, standby)
        except BaseException:
            sandbox.kill()
            raise
        if not sandbox.spent:
            self.template = sandbox
        elif more:
            self.prestart()
        return end, not sandbox.spent

    def _run_alone(self, nodeid: str, timeout: float, environ: dict[str, str], *, template: bool) -> ChildEnd:
        """A test that must see another environment than the pool's: a sandbox started in it, used once."""
        sandbox = self._new(environ, template=template)
        try:
            return sandbox.run(nodeid, timeout)
        finally:
            sandbox.close()

    def _run_reusable(
        self, nodeid: str, timeout: float, *, environ: dict[str, str] | None, fresh: bool, more: bool
    ) -> tuple[ChildEnd, bool]:
        if environ is not None:
            return self._run_alone(nodeid, timeout, environ, template=False), False
        if self.current is not None and fresh and self.current.used:
            self.current.close()
            self.current = None
        sandbox = self.current or self._new(template=False)
        self.current = None
        try:
            end = sandbox.run(nodeid, timeout)
        except BaseException:
            sandbox.kill()
            raise
        if end.returncode == 0 and end.done and not fresh and _clean(end):
            self.current = sandbox
            return end, True
        if not sandbox.spent:  # alive but not to be trusted with another test
            sandbox.kill()
        if more:
            self.prestart(reuse=True)
        return end, False

    def close(self) -> None:
        for sandbox in (self.template, self.current):
            if sandbox is not None:
                sandbox.close()
        self.template = self.current = None


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
