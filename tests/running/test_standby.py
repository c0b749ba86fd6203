"""A standby child forked ahead of the next isolated test (issue 24): still a fresh process.

Real sessions in subprocesses, real forks from a real template, real signals; survivors are
looked for in every process's environment (``/proc/PID/environ``) by a marker only this test's
processes carry.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from pytest_rocmcompat.running.isolation.standby import Standby, wait_for_command
from tests.conftest import CPU_ENV
from tests.running.test_fresh_isolation import CRASH_BETWEEN, LEAKS, _pids, _props

pytest.importorskip("torch")

ALWAYS = "[pytest]\nrocm_isolate_preload = torch\nrocm_isolate_standby = always\n"


def _carrying(marker: str) -> list[int]:
    """Living processes whose environment holds ``marker`` (this test's own process excluded)."""
    found = []
    needle = marker.encode()
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as fh:
                if needle in fh.read():
                    with open(f"/proc/{name}/stat", "rb") as st:
                        if st.read().rsplit(b")", 1)[1].split()[0] != b"Z":
                            found.append(int(name))
        except OSError:
            continue
    return found


@pytest.fixture
def env_file(pytester: pytest.Pytester) -> Path:
    path = pytester.path / "env.json"
    path.write_text(CPU_ENV.to_json(), encoding="utf-8")
    return path


def _run(pytester: pytest.Pytester, env_file: Path, source: str, ini: str, *args: str) -> tuple[pytest.RunResult, str]:
    pytester.makepyfile(test_state=source)
    pids = pytester.mkdir("pids")
    pytester.makeini(ini)
    marker = f"ROCMCOMPAT_STANDBY_PROBE_{uuid.uuid4().hex}"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PIDS", str(pids))
        mp.setenv(marker, "1")
        result = pytester.runpytest_subprocess(
            "--rocm-env", str(env_file), "-p", "no:cacheprovider", "--junitxml=out.xml", "-rA", *args, timeout=300
        )
    return result, marker


@pytest.mark.parametrize("xdist", [False, True], ids=["serial", "-n 2"])
def test_a_standby_runs_the_next_test_in_a_process_no_test_touched(
    pytester: pytest.Pytester, env_file: Path, xdist: bool
) -> None:
    if xdist:
        pytest.importorskip("xdist")
    result, marker = _run(pytester, env_file, LEAKS, ALWAYS, *(["-n", "2"] if xdist else []))
    out = result.stdout.str()
    assert result.ret == 0, out  # test b and c see none of what test a changed
    assert result.parseoutcomes() == {"passed": 3}, out
    modes = {name: p.get("rocm_isolation") for name, p in _props(pytester.path / "out.xml").items()}
    standby = [m for m in modes.values() if m.startswith("forked: standby, not warmed")]
    assert all(m == "forked" or m in standby for m in modes.values()), modes
    pids = _pids(pytester.path / "pids")
    assert len({pid for pid, _ in pids.values()}) == 3, "each test has a process of its own"
    if not xdist:
        assert modes["test_a_changes_its_process"] == "forked", modes  # nothing was ahead of the first
        assert len(standby) == 2, modes
        assert len({parent for _, parent in pids.values()}) == 1, f"one template forked all: {pids}"
        assert "rocmcompat isolation: 3 isolated test(s): 3 forked" in out, out
        assert "rocmcompat isolation: 2 forked ahead as standby (2 not warmed)" in out, out
    assert _carrying(marker) == [], "a standby or template outlived the session"


def test_a_crash_or_hang_in_a_standby_costs_one_child(pytester: pytest.Pytester, env_file: Path) -> None:
    result, marker = _run(pytester, env_file, CRASH_BETWEEN, ALWAYS)
    out = result.stdout.str()
    for line in ("CRASHED*test_2_crashes*", "HANG*test_3_hangs*", "PASSED*test_4_after*"):
        result.stdout.fnmatch_lines([line])
    pids = _pids(pytester.path / "pids")
    assert len({parent for _, parent in pids.values()}) == 1, f"the template was restarted: {pids}\n{out}"
    modes = {name: p.get("rocm_isolation") for name, p in _props(pytester.path / "out.xml").items()}
    # the standbys of the tests after a crash and a hang are no leftovers of theirs: kept, and used
    assert all(modes[name].startswith("forked: standby") for name in ("test_2_crashes", "test_3_hangs", "test_4_after"))
    assert _carrying(marker) == []


def test_a_standby_left_waiting_by_a_stopped_session_goes_with_it(pytester: pytest.Pytester, env_file: Path) -> None:
    source = (
        "import pytest\n"
        "@pytest.mark.isolated(timeout=60)\ndef test_1_fails():\n    assert False\n"
        "@pytest.mark.isolated(timeout=60)\ndef test_2_never_runs():\n    pass\n"
    )
    result, marker = _run(pytester, env_file, source, ALWAYS, "-x")
    assert result.parseoutcomes() == {"failed": 1}, result.stdout.str()
    assert _carrying(marker) == [], "the standby prepared for test_2 outlived the session"


@pytest.mark.parametrize("signals", [(signal.SIGTERM, signal.SIGTERM), (signal.SIGINT,)], ids=["TERM+TERM", "INT"])
def test_signals_while_a_standby_waits_leave_nothing(
    pytester: pytest.Pytester, env_file: Path, signals: tuple[signal.Signals, ...]
) -> None:
    pids = pytester.mkdir("pids")
    pytester.makeini(ALWAYS)
    pytester.makepyfile(
        test_sleep=(
            "import os, time, pytest\n"
            "@pytest.mark.isolated(timeout=120)\ndef test_1_sleeps():\n"
            "    open(os.path.join(os.environ['PIDS'], 'sleeping'), 'w').write(str(os.getpid()))\n"
            "    time.sleep(60)\n"
            "@pytest.mark.isolated(timeout=120)\ndef test_2_next():\n    pass\n"
        )
    )
    marker = f"ROCMCOMPAT_STANDBY_PROBE_{uuid.uuid4().hex}"
    env = {**os.environ, "PIDS": str(pids), marker: "1", "PYTEST_ADDOPTS": "-p no:cacheprovider"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "pytest", "--rocm-env", str(env_file), "--junitxml=out.xml", "-q"],
        cwd=pytester.path,
        env=env,
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 120
    while not (pids / "sleeping").exists():
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()[0].decode()
        time.sleep(0.05)
    time.sleep(0.5)  # the standby for test_2 is forked and waiting
    for i, signum in enumerate(signals):
        if i:
            time.sleep(0.15)
        os.killpg(proc.pid, signum)
    out = proc.communicate(timeout=30)[0].decode()
    assert proc.returncode == 2, out  # pytest's interrupted status
    names = set(_props(pytester.path / "out.xml"))
    assert names == {"test_1_sleeps", "test_2_next"}, out  # every collected test, one outcome each
    time.sleep(0.2)
    assert _carrying(marker) == [], "a process of the session survived the signals"


def test_the_standby_mode_is_checked(pytester: pytest.Pytester, env_file: Path) -> None:
    result, _ = _run(pytester, env_file, "def test_x():\n    pass\n", "[pytest]\nrocm_isolate_standby = sometimes\n")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*ini rocm_isolate_standby = 'sometimes': one of gpu, always, off*"])


def test_a_standby_takes_only_a_command_for_the_environment_it_set() -> None:
    """Real forks: a mismatched command releases the standby (it exits), a matching one reaches it."""
    for environ, expected in ((None, "handed"), ({"CUDA_VISIBLE_DEVICES": "1"}, "released")):
        read, write = os.pipe()
        out_read, out_write = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the standby
            os.close(write)
            os.close(out_read)
            command = wait_for_command(read)
            os.write(out_write, json.dumps(command).encode())
            os._exit(0)
        os.close(read)
        os.close(out_write)
        exits, notice = os.pipe()  # the standby's exit notice (unused here: it is reaped below)
        os.close(notice)
        standby = Standby(pid, write, None, exits)
        command = {"nodeid": "t::x", "environ": environ}
        assert standby.hand(command) is (expected == "handed")
        if expected == "handed":
            os.close(exits)
        got = json.loads(os.read(out_read, 65536).decode())
        os.close(out_read)
        assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
        assert got == (command if expected == "handed" else None)


WARM = """
import torch
from pytest_rocmcompat.running.isolation.standby import warm_gpu_runtime
print(warm_gpu_runtime(), torch.cuda.is_initialized(), bool(torch.version.cuda))
"""


def test_the_warm_up_starts_the_driver_only_and_says_why_not() -> None:
    """In a process of its own (a warm-up in this one would give it a CUDA context)."""
    env = {**os.environ, "PYTORCH_NVML_BASED_CUDA_CHECK": "1"}
    done = subprocess.run([sys.executable, "-c", WARM], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    said, initialised, cuda_build = done.stdout.split()[:-2], done.stdout.split()[-2], done.stdout.split()[-1]
    assert initialised == "False", "the warm-up touched torch's own CUDA state"
    gpu = Path("/dev/nvidia0").exists()
    if cuda_build == "True" and gpu:
        assert said == ["warmed"], done.stdout
    else:
        assert said[:2] == ["not", "warmed:"], done.stdout
    hidden = subprocess.run(
        [sys.executable, "-c", WARM],
        capture_output=True,
        text=True,
        timeout=120,
        env={**env, "CUDA_VISIBLE_DEVICES": ""},
    )
    assert hidden.stdout.startswith("not warmed:"), hidden.stdout + hidden.stderr
