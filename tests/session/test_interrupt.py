"""Nothing lost: SIGTERM or Ctrl-C in mid-session still leaves JUnit and the report, naming what never ran.

Real pytest sessions in real subprocesses, interrupted from outside while a test runs.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from junitparser import JUnitXml, Skipped

from tests.conftest import process_running

SUITE = """
import os, time, pytest
def test_a_passes():
    pass
def test_b_fails():
    assert 0
def test_c_runs_when_interrupted():
    open("started", "w").close()
    time.sleep(60)
def test_d_never_starts():
    pass
@pytest.mark.parametrize("i", range(3))
def test_e_never_starts(i):
    pass
"""
ISOLATED = """
import os, time, pytest
@pytest.mark.isolated(timeout=120)
def test_child_sleeps():
    with open("child.pid", "w") as fh:
        fh.write(str(os.getpid()))
    time.sleep(60)
def test_after():
    pass
"""


def _interrupt(tmp: Path, source: str, sig: int, *extra: str) -> tuple[int, float]:
    (tmp / "test_suite.py").write_text(source)
    argv = [
        sys.executable,
        "-m",
        "pytest",
        "test_suite.py",
        "-p",
        "no:cacheprovider",
        "--rocm-no-bundled",
        "--junitxml",
        "out/junit.xml",
        "--rocm-report",
        "out/report.md",
        *extra,
    ]
    env = dict(os.environ, HF_TOKEN="hf_plantedSecretValue12345678")
    proc = subprocess.Popen(argv, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    deadline = time.monotonic() + 90
    marker = tmp / ("child.pid" if "isolated" in source else "started")
    while not marker.exists():
        assert time.monotonic() < deadline and proc.poll() is None, proc.stdout.read().decode()
        time.sleep(0.1)
    time.sleep(0.3)
    sent = time.monotonic()
    proc.send_signal(sig)
    out, _ = proc.communicate(timeout=60)
    assert b"Traceback" not in out or b"KeyboardInterrupt" in out
    return proc.returncode, time.monotonic() - sent


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
def test_interrupted_session_writes_junit_and_report(tmp_path: Path, sig: int) -> None:
    rc, seconds = _interrupt(tmp_path, SUITE, sig)
    assert rc == pytest.ExitCode.INTERRUPTED and seconds < 30
    xml = JUnitXml.fromfile(str(tmp_path / "out" / "junit.xml"))
    cases = {c.name: c for suite in xml for c in suite}
    assert set(cases) == {
        "test_a_passes",
        "test_b_fails",
        "test_c_runs_when_interrupted",
        "test_d_never_starts",
        "test_e_never_starts[0]",
        "test_e_never_starts[1]",
        "test_e_never_starts[2]",
    }
    assert cases["test_a_passes"].is_passed and not cases["test_b_fails"].is_passed
    for name in ("test_c_runs_when_interrupted", "test_d_never_starts", "test_e_never_starts[1]"):
        result = cases[name].result
        assert result and isinstance(result[0], Skipped) and result[0].message.startswith("not run"), name
    assert not list((tmp_path / "out").glob("*.tmp")), "the temporary JUnit file was left behind"
    report = (tmp_path / "out" / "report.md").read_text()
    assert "## Not run" in report and "test_suite.py::test_d_never_starts" in report
    for text in (report, (tmp_path / "out" / "junit.xml").read_text()):
        assert "hf_plantedSecretValue12345678" not in text


def test_sigterm_kills_the_isolated_child_too(tmp_path: Path) -> None:
    rc, _ = _interrupt(tmp_path, ISOLATED, signal.SIGTERM)
    assert rc == pytest.ExitCode.INTERRUPTED
    pid = int((tmp_path / "child.pid").read_text())
    deadline = time.monotonic() + 10
    while process_running(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not process_running(pid), f"isolated child {pid} survived the interrupted session"
    xml = JUnitXml.fromfile(str(tmp_path / "out" / "junit.xml"))
    names = {c.name for suite in xml for c in suite}
    assert names == {"test_child_sleeps", "test_after"}


def test_sigterm_under_xdist(tmp_path: Path) -> None:
    pytest.importorskip("xdist")
    rc, seconds = _interrupt(tmp_path, SUITE, signal.SIGTERM, "-n", "2")
    assert rc == pytest.ExitCode.INTERRUPTED and seconds < 30
    xml = JUnitXml.fromfile(str(tmp_path / "out" / "junit.xml"))
    names = {c.name for suite in xml for c in suite}
    assert "test_c_runs_when_interrupted" in names and "test_a_passes" in names
    assert len(names) == 7, names  # everything collected is accounted for


def test_collect_only_marks_nothing_not_run(tmp_path: Path) -> None:
    (tmp_path / "test_suite.py").write_text("def test_x(): pass\n")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "--junitxml",
            "j.xml",
            "--rocm-report",
            "r.md",
            "-p",
            "no:cacheprovider",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "## Not run" not in (tmp_path / "r.md").read_text()


def test_the_writers_imports_happen_outside_the_signal_handlers() -> None:
    """Found by CI (TERM+TERM on an isolated test): the second signal's handler imported junitparser while the main
    thread was itself importing lxml for the writers, and Python 3.11's import lock bookkeeping raised KeyError. What
    the writers need is now imported when they start after a signal (``prepare``), never by a handler.
    """
    import signal

    from pytest_rocmcompat.session.interrupt import InterruptGuard

    calls: list[str] = []
    guard = InterruptGuard(
        kill_children=lambda: calls.append("kill"),
        salvage=lambda: calls.append("salvage"),
        prepare=lambda: calls.append("prepare"),
    )
    try:
        with pytest.raises(KeyboardInterrupt):
            guard._handle(signal.SIGTERM, None)  # the first signal: unwind, import nothing
        assert calls == []
        guard.finishing = True
        guard._handle(signal.SIGTERM, None)  # the second: kill and arm the bound, import nothing
        assert calls == ["kill"]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)


def test_prepare_runs_when_the_writers_start_after_a_signal_only() -> None:
    from types import SimpleNamespace

    from pytest_rocmcompat.session.interrupt import GUARD_KEY, InterruptGuard, start_finishing

    for received, expected in (([], []), (["SIGTERM"], ["prepare"])):
        calls: list[str] = []
        guard = InterruptGuard(lambda: None, lambda: None, prepare=lambda c=calls: c.append("prepare"))
        guard.received = list(received)
        config = SimpleNamespace(stash={GUARD_KEY: guard})
        start_finishing(SimpleNamespace(config=config))  # type: ignore[arg-type]
        assert guard.finishing and calls == expected
