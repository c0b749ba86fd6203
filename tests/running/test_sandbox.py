"""Reusable isolation sandboxes: reuse, replacement, poisoning, leftovers and no survivors.

Real pytest sessions in real subprocesses; the processes a test starts are real
processes, found and checked through /proc afterwards.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from pytest_rocmcompat.outcomes import Outcome
from pytest_rocmcompat.report.junit_read import read_run
from tests.conftest import CPU_ENV, process_running

POISON = """
import json, os, sys, pytest
STATE = {"touched": False}

@pytest.mark.isolated(timeout=60, reuse=True)
def test_a_passes_and_changes_the_process(tmp_path):
    # A clean pass: what it changes in its module, os.environ, cwd and sys.path is undone.
    STATE["touched"] = True
    os.environ["POISONED"] = "1"
    sys.path.insert(0, "/poison")
    os.chdir(tmp_path)
    open(os.path.join(os.environ["PIDS"], "a"), "w").write(str(os.getpid()))
    assert os.environ["ROCMCOMPAT_ISOLATED"] == "1"

@pytest.mark.isolated(timeout=60, reuse=True)
def test_b_reuses_the_sandbox():
    assert not STATE["touched"] and "POISONED" not in os.environ and "/poison" not in sys.path
    assert os.getcwd() == os.environ["START_DIR"]
    open(os.path.join(os.environ["PIDS"], "b"), "w").write(str(os.getpid()))

@pytest.mark.isolated(timeout=60, reuse=True)
def test_c_poisons_a_library_and_fails():
    json.POISON = True  # library state, which a module re-import would not undo
    open(os.path.join(os.environ["PIDS"], "c"), "w").write(str(os.getpid()))
    assert 0, "poisoned"

@pytest.mark.isolated(timeout=60, reuse=True)
def test_d_never_sees_the_poison():
    assert not hasattr(json, "POISON")
    open(os.path.join(os.environ["PIDS"], "d"), "w").write(str(os.getpid()))

@pytest.mark.isolated(timeout=60, fresh=True)
def test_e_asks_for_a_fresh_process():
    open(os.path.join(os.environ["PIDS"], "e"), "w").write(str(os.getpid()))

def test_f_in_process():
    assert "ROCMCOMPAT_ISOLATED" not in os.environ
"""

LEFTOVERS = """
import os, subprocess, sys, pytest

def _spawn(name, code):
    proc = subprocess.Popen([sys.executable, "-c", code])  # inherits the test's stdout and stderr
    open(os.path.join(os.environ["PIDS"], name), "w").write(str(proc.pid))

@pytest.mark.isolated(timeout=150)
def test_background_holds_the_output():
    _spawn("background", "import time; time.sleep(600)")

@pytest.mark.isolated(timeout=150)
def test_setsid_escapee():
    # Double fork + setsid: the escapee is in another session and its parent has exited.
    code = ("import os, sys, time\\n"
            "if os.fork() == 0:\\n"
            "    os.setsid()\\n"
            "    if os.fork() == 0:\\n"
            "        open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(600)\\n"
            "    os._exit(0)\\n"
            "os.wait()\\n")
    subprocess.run([sys.executable, "-c", code, os.path.join(os.environ["PIDS"], "escapee")], check=True)
"""

KILLED = """
import os, subprocess, sys, time, pytest

@pytest.mark.parametrize("i", range(4))
def test_fine(i):
    pass

@pytest.mark.isolated(timeout=120)
def test_isolated_sleeps():
    pids = os.environ["PIDS"]
    grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    escapee = subprocess.Popen([sys.executable, "-c", "import os, time; os.setsid(); time.sleep(600)"])
    for name, pid in (("sandbox", os.getpid()), ("runner", os.getppid()), ("grandchild", grandchild.pid),
                      ("escapee", escapee.pid)):
        open(os.path.join(pids, name + ".tmp"), "w").write(str(pid))
        os.rename(os.path.join(pids, name + ".tmp"), os.path.join(pids, name))
    time.sleep(600)

def test_after():
    pass
"""


def _pids(folder: Path) -> dict[str, int]:
    return {p.name: int(p.read_text()) for p in folder.iterdir() if not p.name.endswith(".tmp")}


def _wait_dead(pids: dict[str, int], seconds: float = 10.0) -> list[str]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        alive = [f"{name}={pid}" for name, pid in pids.items() if process_running(pid)]
        if not alive:
            return []
        time.sleep(0.1)
    return alive


def _report_totals(markdown: str) -> Counter:
    row = next(line for line in markdown.splitlines() if line.startswith("| **total**"))
    values = [int(v) for v in row.strip("| ").split("|")[1:] if v.strip()]
    return Counter({o.value: n for o, n in zip(Outcome, values) if n})


def _session(tmp: Path, source: str, *extra: str) -> tuple[list[str], dict[str, str]]:
    (tmp / "test_suite.py").write_text(source)
    (tmp / "pids").mkdir()
    (tmp / "tmp").mkdir()
    env_file = tmp / "env.json"
    env_file.write_text(CPU_ENV.to_json(), encoding="utf-8")
    argv = [
        sys.executable,
        "-m",
        "pytest",
        "test_suite.py",
        "-p",
        "no:cacheprovider",
        "-rA",
        "--rocm-env",
        str(env_file),
        "--junitxml",
        "out/junit.xml",
        "--rocm-report",
        "out/report.md",
        *extra,
    ]
    env = dict(os.environ, PIDS=str(tmp / "pids"), TMPDIR=str(tmp / "tmp"), START_DIR=str(tmp))
    return argv, env


def _check_outputs(tmp: Path, expected: set[str]) -> dict[str, str]:
    """One JUnit testcase per test, the report's totals equal to JUnit's, no sandbox directory left."""
    run = read_run(str(tmp / "out" / "junit.xml"))
    names = [case.test.rsplit("::", 1)[-1] for case in run.cases]
    assert sorted(names) == sorted(expected), names
    outcomes = {case.test.rsplit("::", 1)[-1]: case.outcome.value for case in run.cases}
    assert _report_totals((tmp / "out" / "report.md").read_text()) == Counter(outcomes.values())
    assert not list((tmp / "tmp").glob("rocmcompat-*")), "a sandbox directory was left behind"
    return outcomes


def test_sandbox_reused_after_a_clean_pass_replaced_after_poison(tmp_path: Path) -> None:
    argv, env = _session(tmp_path, POISON)
    out = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 1, out.stdout + out.stderr
    outcomes = _check_outputs(
        tmp_path,
        {
            "test_a_passes_and_changes_the_process",
            "test_b_reuses_the_sandbox",
            "test_c_poisons_a_library_and_fails",
            "test_d_never_sees_the_poison",
            "test_e_asks_for_a_fresh_process",
            "test_f_in_process",
        },
    )
    assert outcomes == {
        "test_a_passes_and_changes_the_process": "pass",
        "test_b_reuses_the_sandbox": "pass",
        "test_c_poisons_a_library_and_fails": "fail",
        "test_d_never_sees_the_poison": "pass",
        "test_e_asks_for_a_fresh_process": "pass",
        "test_f_in_process": "pass",
    }, out.stdout
    pids = _pids(tmp_path / "pids")
    assert pids["a"] == pids["b"] == pids["c"], "a clean pass hands its sandbox on"
    assert pids["d"] != pids["c"], "a failing test's sandbox was reused"
    assert pids["e"] != pids["d"], "a test asking for a fresh process got a used one"
    assert not _wait_dead(pids)


@pytest.mark.parametrize("xdist", [False, True], ids=["serial", "-n 2"])
def test_leftover_processes_are_killed_and_noted_the_test_passes(tmp_path: Path, xdist: bool) -> None:
    if xdist:
        pytest.importorskip("xdist")
    argv, env = _session(tmp_path, LEFTOVERS, *(["-n", "2"] if xdist else []))
    start = time.monotonic()
    out = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    took = time.monotonic() - start
    assert out.returncode == 0, out.stdout + out.stderr
    outcomes = _check_outputs(tmp_path, {"test_background_holds_the_output", "test_setsid_escapee"})
    assert set(outcomes.values()) == {"pass"}
    # A leftover holding the output would make the session wait for the 150 s time limit; a loaded
    # 2-core machine takes well under 100 s without one (a wide margin: no timing race).
    assert took < 100, f"a leftover process made the session wait ({took:.1f} s)"
    pids = _pids(tmp_path / "pids")
    assert set(pids) == {"background", "escapee"}
    assert not _wait_dead(pids), "a process the test left behind survived"
    assert out.stdout.count("the test left processes running; they were killed") == 2, out.stdout
    assert f"pid {pids['escapee']} " in out.stdout


def _kill_mid_test(tmp: Path, argv: list[str], env: dict[str, str], action) -> subprocess.CompletedProcess:
    proc = subprocess.Popen(argv, cwd=tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while not (tmp / "pids" / "escapee").exists():
        assert time.monotonic() < deadline and proc.poll() is None, proc.stdout.read().decode()
        time.sleep(0.05)
    action(proc, _pids(tmp / "pids"))
    out, _ = proc.communicate(timeout=120)
    return subprocess.CompletedProcess(argv, proc.returncode, out.decode("utf-8", "replace"))


TESTS = {"test_fine[0]", "test_fine[1]", "test_fine[2]", "test_fine[3]", "test_isolated_sleeps", "test_after"}


def test_sigkill_of_an_xdist_worker_during_an_isolated_test(tmp_path: Path) -> None:
    pytest.importorskip("xdist")
    argv, env = _session(tmp_path, KILLED, "-n", "2")
    out = _kill_mid_test(tmp_path, argv, env, lambda proc, pids: os.kill(pids["runner"], signal.SIGKILL))
    assert out.returncode == 1, out.stdout
    pids = _pids(tmp_path / "pids")
    assert not _wait_dead(pids), "the dead worker's sandbox or its processes survived"
    outcomes = _check_outputs(tmp_path, TESTS)
    assert outcomes["test_isolated_sleeps"] == "crashed", outcomes  # JUnit says crashed, as the report does
    assert "crashed" in out.stdout


@pytest.mark.parametrize("mode", ["serial, two SIGTERMs 0.15 s apart", "-n 2, SIGTERM"])
def test_sigterm_of_the_controller_leaves_nothing(tmp_path: Path, mode: str) -> None:
    xdist = mode.startswith("-n")
    if xdist:
        pytest.importorskip("xdist")
    argv, env = _session(tmp_path, KILLED, *(["-n", "2"] if xdist else []))

    def terminate(proc: subprocess.Popen, pids: dict[str, int]) -> None:
        proc.send_signal(signal.SIGTERM)
        if not xdist:
            time.sleep(0.15)
            proc.send_signal(signal.SIGTERM)

    out = _kill_mid_test(tmp_path, argv, env, terminate)
    assert out.returncode != 0, out.stdout
    assert not _wait_dead(_pids(tmp_path / "pids")), "a process of the isolated test survived"
    assert not list((tmp_path / "tmp").glob("rocmcompat-*")), "a sandbox directory was left behind"
    if not xdist:  # the second SIGTERM kills at once: no JUnit promised
        return
    assert (tmp_path / "out" / "junit.xml").is_file(), out.stdout
    outcomes = _check_outputs(tmp_path, TESTS)
    assert re.match(r"skipped|crashed", outcomes["test_isolated_sleeps"])
