"""Child side of isolation: a sandbox pytest session that runs isolated tests one at a time.

The sandbox is ``python -m pytest <the session's options> --rocm-child-result DIR``
(see :mod:`.args`). It collects nothing at start; its run loop reads one command
(JSON: node id, result file, whether to fork, the environment) per line from stdin.

A *template* sandbox (the default, see :mod:`.template`) runs no test itself: it forks
one child per command, and the child collects its one test, runs it with pytest's own
protocol and exits; the template waits for it and writes how it ended (``RESULT.end``).
No test ever sees what an earlier one changed. When forking is unsafe (the template
initialised a GPU runtime, or runs threads), the template runs the test itself and exits
after it: still a process no other test touched.

A *reusable* sandbox (opt-in: ``isolated(reuse=True)``, ini ``rocm_isolate_reuse``) runs
its tests itself, one after another, and undoes what a passing test may have changed in
the process: ``os.environ``, the working directory and ``sys.path`` are restored, the
test's module is dropped from ``sys.modules``; anything else (torch's default dtype,
seeds, backend flags, GPU memory) carries over, which is why it is not the default. A
failing test never hands its process on: the parent replaces the sandbox.

Either way the test's reports and warnings reach the result file after every report, so
a test that crashes the process still leaves what happened before the crash; the file is
complete once it says ``"done": true``. The sandbox is a child subreaper (orphans of the
test's processes, ``setsid`` or not, stay its descendants) and dies with its parent: if the
parent is killed, the sandbox kills every descendant, removes its directory and exits.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import sys
import warnings
from pathlib import Path

import pytest

from pytest_rocmcompat.running.isolation.standby import Standby, wait_for_command, warm_gpu_runtime
from pytest_rocmcompat.running.isolation.template import REPORTING_MODULES, fork_blocker, native_threads, preload
from pytest_rocmcompat.running.processes import become_subreaper, die_with_parent, kill_tree, reap_adopted
from pytest_rocmcompat.safe_io.atomic import write_atomic

PARENT_VAR = "ROCMCOMPAT_SANDBOX_PARENT"  # the pid the sandbox must die with
ISOLATED_VAR = "ROCMCOMPAT_ISOLATED"  # "1" in an isolated test's process: a test can tell
PRELOAD_VAR = "ROCMCOMPAT_SANDBOX_PRELOAD"  # set for a template: what to import ahead (removed at start)
FORKED, SPAWNED, REUSED = "forked", "spawned", "reused"  # how an isolated test got its process


# Bound at import: a test may replace ``json.dumps`` (its own monkeypatch, a library's) in its process,
# and the result file must still be JSON.
_dumps = json.dumps


def _exit_code(pid: int, exits: int) -> tuple[int, bool]:
    """Wait for child ``pid`` to end: ``(returncode, reaped)``; closes ``exits``.

    The child writes its exit code on ``exits`` just before ``_exit`` (after which nothing it runs
    can change its status): that code is returned at once, unreaped, while the kernel still tears
    the process down. A child that dies without writing one (a crash, a kill) is reaped and its
    status returned; its death is also noticed while a process the test forked holds the pipe open.
    """
    try:
        while True:
            ready, _, _ = select.select([exits], [], [], 0.05)
            if ready:
                try:
                    data = os.read(exits, 1)
                except InterruptedError:
                    continue
                if data:
                    return data[0], False
            try:
                done, status = os.waitpid(pid, 0 if ready else os.WNOHANG)
            except ChildProcessError:  # reaped elsewhere: how it ended is unknown
                return 70, True
            if done:
                return os.waitstatus_to_exitcode(status), True
    finally:
        os.close(exits)


def end_path(result: str | Path) -> Path:
    """Where the sandbox writes how the process that ran the test ended."""
    return Path(f"{result}.end")


class SandboxServer:
    """Registered in the sandbox; skips the initial collection and runs the command loop."""

    def __init__(self, config: pytest.Config, directory: str) -> None:
        self.config = config
        self.dir = Path(directory)
        self.path: str | None = None
        self.reports: list[dict] = []
        self.warnings: list[dict] = []
        self.errors: list[str] = []
        self.mode, self.note = REUSED, ""
        self.template = PRELOAD_VAR in os.environ
        self.preload = [m for m in os.environ.pop(PRELOAD_VAR, "").split(",") if m]
        self.standby: Standby | None = None  # a template's child forked ahead for the next test
        self.standby_note = ""  # in a child that was a standby: whether its GPU runtime was warmed
        self.exiting: set[int] = set()  # children past their _exit call, not yet reaped

    def start(self) -> None:
        become_subreaper()
        die_with_parent(signal.SIGTERM)
        signal.signal(signal.SIGTERM, self._on_sigterm)
        parent = os.environ.get(PARENT_VAR)
        if parent and parent.isdigit() and os.getppid() != int(parent):  # died before we could listen
            self._die()

    def _on_sigterm(self, signum: int, frame: object) -> None:
        self._die()

    def _die(self) -> None:
        """The parent is gone (or asks): no process and no file of ours may outlive it."""
        kill_tree([os.getpid()], include_roots=False, grace_s=0.5)
        shutil.rmtree(self.dir, ignore_errors=True)
        os._exit(128 + signal.SIGTERM)

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection(self, session: pytest.Session) -> bool:
        return True  # tests arrive one by one, in the run loop

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        # The plugin's own reporting modules too: a child whose test exhausted its memory (or set
        # RLIMIT_AS) must not need to import anything to report that failure.
        problems = preload([*self.preload, *REPORTING_MODULES]) if self.template else []
        ready_threads = native_threads()  # what importing torch started counts as ready
        environ, cwd, path = dict(os.environ), os.getcwd(), list(sys.path)
        for line in sys.stdin:
            command = json.loads(line)
            if command.get("fork"):
                blocker = fork_blocker(ready_threads)
                if blocker is None:
                    self._fork(session, command, problems)
                    continue
                self._release_standby()
                # Not safe to fork: this process runs the test and ends, so no other test sees it.
                self._serve(session, command, SPAWNED, "; ".join([blocker, *problems]))
                self._end(command, 0)
                return True
            self._release_standby()
            modules = self._serve(session, command, REUSED, "")
            self._end(command, 0)
            os.environ.clear()
            os.environ.update(environ)
            os.chdir(cwd)
            sys.path[:] = path
            for name in modules:
                sys.modules.pop(name, None)
            reap_adopted()
        self._release_standby()
        return True

    def _release_standby(self) -> None:
        if self.standby is not None:
            self.standby.drop()
            self.exiting.add(self.standby.pid)
            self.standby = None

    def _serve(self, session: pytest.Session, command: dict, mode: str, note: str) -> list[str]:
        """Run the command's test in this process; the names of the test modules it imported."""
        self.path, self.reports, self.warnings, self.errors = command["result"], [], [], []
        self.mode, self.note = mode, note
        if command.get("environ") is not None:
            os.environ.clear()
            os.environ.update(command["environ"])
        self._write(done=False)  # started: the test's time limit counts from here
        modules = self._run(session, command["nodeid"])
        self._write(done=True)
        return modules

    def _fork(self, session: pytest.Session, command: dict, problems: list[str]) -> None:
        """Run the command's test in a child forked from this template; write its end once it exits.

        The test goes to the standby prepared for it when the standby sees its environment, else
        to a child forked now; while it runs, the next standby is forked (``command["standby"]``).
        The fork check the run loop made still holds: forking changes nothing in this process.
        The end is written as soon as the child has called ``_exit`` (:func:`_exit_code`), not
        when the kernel has finished tearing it down (about 0.1 s with a CUDA context): nothing
        the child runs can change its exit status after that call.
        """
        standby, self.standby = self.standby, None
        if standby is not None and standby.hand(command):
            pid, exits = standby.pid, standby.exits
        else:
            if standby is not None:  # released (hand dropped it): it exits by itself, no leftover of the test's
                self.exiting.add(standby.pid)
            pid, exits = self._fork_child(session, problems, command)
        spec = command.get("standby")
        if spec is not None:
            self.standby = self._fork_standby(session, problems, spec)
        returncode, reaped = _exit_code(pid, exits)
        if not reaped:
            self.exiting.add(pid)
        # Zombies go: children past _exit that are gone by now, and what the test's own processes
        # left to this subreaper. Only those still being torn down stay listed as exiting.
        self.exiting -= reap_adopted()
        self._end(command, returncode)

    def _fork_standby(self, session: pytest.Session, problems: list[str], spec: dict) -> Standby:
        """Fork a standby: it sets ``spec["environ"]``, warms the GPU runtime if asked, and waits."""
        read, write = os.pipe()
        pid, exits = self._fork_child(session, problems, None, (spec, read, write))
        os.close(read)
        return Standby(pid, write, spec.get("environ"), exits)

    def _fork_child(
        self, session: pytest.Session, problems: list[str], command: dict | None, standby: tuple | None = None
    ) -> tuple[int, int]:
        """Fork a child that runs ``command`` (or, a standby, the one that reaches its pipe).

        Returns its pid and the read end of the pipe on which it writes its exit code just before
        ``_exit`` (:func:`_exit_code`).
        """
        template = os.getpid()
        sys.stdout.flush()
        sys.stderr.flush()
        exits, notice = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: one test, then _exit (no session end, no atexit of the template's)
            code = 70
            try:
                os.close(exits)
                signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the template's handler would kill its tree
                die_with_parent(signal.SIGKILL)
                if os.getppid() != template:
                    os._exit(code)
                stdin = os.open(os.devnull, os.O_RDONLY)  # the commands are the template's, not the test's
                os.dup2(stdin, 0)
                os.close(stdin)
                sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115  # lives until _exit
                warmed = ""
                if standby is not None:
                    spec, read, write = standby
                    os.close(write)
                    if spec.get("environ") is not None:
                        os.environ.clear()
                        os.environ.update(spec["environ"])
                    warmed = warm_gpu_runtime() if spec.get("warm") else "not warmed"
                    command = wait_for_command(read)
                if command is not None:
                    self.standby_note = warmed
                    self._serve(session, command, FORKED, "; ".join(problems))
                code = 0
            except BaseException:
                import traceback

                traceback.print_exc()
            finally:
                try:
                    sys.stdout.flush()
                    sys.stderr.flush()
                finally:
                    try:
                        os.write(notice, bytes((code,)))
                    finally:
                        os._exit(code)
        os.close(notice)
        return pid, exits

    def _end(self, command: dict, returncode: int) -> None:
        """Write how the test's process ended; the standby and the children still exiting are no leftovers."""
        standby = self.standby.pid if self.standby is not None else None
        end = {"returncode": returncode, "standby": standby, "exiting": sorted(self.exiting)}
        write_atomic(str(end_path(command["result"])), _dumps(end))

    def _run(self, session: pytest.Session, nodeid: str) -> list[str]:
        """Collect and run one test; the names of the test modules to drop afterwards."""
        target, _, rest = nodeid.partition("::")
        arg = str(self.config.rootpath / target) + (f"::{rest}" if rest else "")
        try:
            items = session.perform_collect([arg])
        except (pytest.UsageError, Exception) as exc:
            self.errors.append(f"could not collect {nodeid}: {exc}")
            return []
        item = next((i for i in items if i.nodeid == nodeid), None)
        if item is None:
            if not self.errors:
                self.errors.append(f"collecting {nodeid} in the isolated process found no such test")
            return []
        item.ihook.pytest_runtest_protocol(item=item, nextitem=None)
        module = getattr(getattr(item, "module", None), "__name__", None)
        return [module] if module else []

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed and self.path is not None:
            self.errors.append(f"collection failed:\n{report.longreprtext}")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        data = self.config.hook.pytest_report_to_serializable(config=self.config, report=report)
        if data is not None and self.path is not None:
            self.reports.append(data)
            self._write(done=False)

    def pytest_warning_recorded(
        self, warning_message: warnings.WarningMessage, when: str, nodeid: str, location: object
    ) -> None:
        category = warning_message.category
        self.warnings.append(
            {
                "message": str(warning_message.message),
                "category": f"{category.__module__}.{category.__qualname__}",
                "filename": str(warning_message.filename),
                "lineno": warning_message.lineno,
                "when": when,
                "nodeid": nodeid,
            }
        )

    def _write(self, *, done: bool) -> None:
        if self.path is not None:
            write_atomic(
                self.path,
                _dumps(
                    {
                        "reports": self.reports,
                        "warnings": self.warnings,
                        "errors": self.errors,
                        "done": done,
                        "pid": os.getpid(),
                        "mode": self.mode,
                        "note": self.note,
                        "standby": self.standby_note,
                    }
                ),
            )
