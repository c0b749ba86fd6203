"""Child side of isolation: a sandbox pytest session that runs isolated tests one at a time.

The sandbox is ``python -m pytest <the session's options> --rocm-child-result DIR``
(see :mod:`.args`). It collects nothing at start; its run loop reads one command
(JSON: node id, result file) per line from stdin, collects that one test, runs it
with pytest's own protocol (every fixture torn down after it) and writes the test's
reports, and the warnings it raised, to the result file after every report, so a
test that crashes the process still leaves what happened before the crash. The
file is complete once it says ``"done": true``.

Between tests the sandbox undoes what a passing test may have changed in the
process: ``os.environ``, the working directory and ``sys.path`` are restored, the
test's module is dropped from ``sys.modules`` (the next test imports its module
afresh) and processes the test left running are killed by the parent. A failing
test never hands its process on: the parent replaces the sandbox.

The sandbox is a child subreaper (orphans of the test's processes, ``setsid`` or
not, stay its descendants) and dies with its parent: if the parent is killed, the
sandbox kills every descendant, removes its directory and exits.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import warnings
from pathlib import Path

import pytest

from pytest_rocmcompat.running.processes import become_subreaper, die_with_parent, kill_tree, reap_adopted
from pytest_rocmcompat.safe_io.atomic import write_atomic

PARENT_VAR = "ROCMCOMPAT_SANDBOX_PARENT"  # the pid the sandbox must die with
ISOLATED_VAR = "ROCMCOMPAT_ISOLATED"  # "1" in an isolated test's process: a test can tell


class SandboxServer:
    """Registered in the sandbox; skips the initial collection and runs the command loop."""

    def __init__(self, config: pytest.Config, directory: str) -> None:
        self.config = config
        self.dir = Path(directory)
        self.path: str | None = None
        self.reports: list[dict] = []
        self.warnings: list[dict] = []
        self.errors: list[str] = []

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
        environ, cwd, path = dict(os.environ), os.getcwd(), list(sys.path)
        for line in sys.stdin:
            command = json.loads(line)
            self.path, self.reports, self.warnings, self.errors = command["result"], [], [], []
            self._write(done=False)  # started: the test's time limit counts from here
            modules = self._run(session, command["nodeid"])
            self._write(done=True)
            os.environ.clear()
            os.environ.update(environ)
            os.chdir(cwd)
            sys.path[:] = path
            for name in modules:
                sys.modules.pop(name, None)
            reap_adopted()
        return True

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
                json.dumps({"reports": self.reports, "warnings": self.warnings, "errors": self.errors, "done": done}),
            )
