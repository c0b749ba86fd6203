"""How a forked test's process ends (issue 24): its end is known when it calls ``_exit``, a crash
still when a process it forked holds its pipe, and a template is not waited for at the session's end.

Real sessions in subprocesses, real forks and signals; survivors are looked for by an environment
marker only this test's processes carry (``test_standby._carrying``).
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from tests.conftest import CPU_ENV
from tests.running.test_fresh_isolation import _pids, _props
from tests.running.test_standby import _carrying, _run

pytest.importorskip("torch")

FORKING = """
import os, signal, time
import pytest

def _fork_sleeper(name):
    pid = os.fork()
    if pid == 0:  # holds every descriptor of the test's process, its exit notice among them
        time.sleep(120)
        os._exit(0)
    with open(os.path.join(os.environ["PIDS"], name), "w") as fh:
        fh.write(f"{pid} {os.getpid()}")

@pytest.mark.isolated(timeout=60)
def test_1_forks_then_crashes():
    _fork_sleeper("sleeper1")
    os.kill(os.getpid(), signal.SIGSEGV)

@pytest.mark.isolated(timeout=60)
def test_2_after():
    with open(os.path.join(os.environ["PIDS"], "after"), "w") as fh:
        fh.write(f"{os.getpid()} {os.getppid()}")

@pytest.mark.isolated(timeout=60)
def test_3_forks_and_passes():
    _fork_sleeper("sleeper3")
"""


@pytest.fixture
def env_file(pytester: pytest.Pytester) -> Path:
    path = pytester.path / "env.json"
    path.write_text(CPU_ENV.to_json(), encoding="utf-8")
    return path


@pytest.mark.parametrize("xdist", [False, True], ids=["serial", "-n 2"])
def test_a_crash_is_seen_while_a_process_the_test_forked_holds_its_exit_pipe(
    pytester: pytest.Pytester, env_file: Path, xdist: bool
) -> None:
    if xdist:
        pytest.importorskip("xdist")
    extra = ["-n", "2", "--dist", "loadfile"] if xdist else []  # one worker: one template forks all three
    start = time.monotonic()
    result, marker = _run(pytester, env_file, FORKING, "[pytest]\nrocm_isolate_preload = torch\n", *extra)
    took = time.monotonic() - start
    out = result.stdout.str()
    result.stdout.fnmatch_lines(["CRASHED*test_1_forks_then_crashes*"])
    result.stdout.fnmatch_lines(["PASSED*test_2_after*"])
    result.stdout.fnmatch_lines(["PASSED*test_3_forks_and_passes*"])
    # The sleepers hold the crashed process's pipe for 120 s: its end came from the kernel, not the
    # pipe's close, and within the test's 60 s limit (no hang was declared, no template replaced).
    assert "HANG" not in out, out
    assert took < 100, f"the crash was noticed only when the forked process let its pipe go ({took:.1f} s)"
    pids = _pids(pytester.path / "pids")
    props = _props(pytester.path / "out.xml")
    assert props["test_2_after"]["rocm_isolation"] == "forked"
    # Test 3's own process, past its _exit, is no leftover; the process it forked is, and is named.
    test3 = pids["sleeper3"][1]
    assert out.count("the test left processes running; they were killed") == 1, out
    assert f"pid {pids['sleeper3'][0]} " in out, out
    assert not re.search(rf"pid {test3}\b", out), f"the test's own exiting process was called a leftover\n{out}"
    assert _carrying(marker) == [], "a process of the session survived it"


FINISH_CONFTEST = """
import os

def pytest_sessionfinish(session):
    if os.environ.get("ROCMCOMPAT_ISOLATED") == "1":  # a sandbox's own session end
        with open(os.path.join(os.environ["PIDS"], f"finished-{os.getpid()}"), "w") as fh:
            fh.write("finished")
"""

PLAIN = """
import pytest

@pytest.mark.isolated(timeout=60)
def test_one():
    pass

@pytest.mark.isolated(timeout=60)
def test_two():
    pass
"""


@pytest.mark.parametrize("mode", ["fresh", "reuse"])
def test_a_template_is_not_waited_for_a_reusable_sandbox_ends_its_session(
    pytester: pytest.Pytester, env_file: Path, mode: str
) -> None:
    """A template ran no test and no fixture: killed at the end, not left to tear torch down; a
    reusable sandbox ran its tests itself, so its session ends (its session fixtures' teardown)."""
    pytester.makeconftest(FINISH_CONFTEST)
    ini = "[pytest]\nrocm_isolate_preload = torch\n" + ("rocm_isolate_reuse = true\n" if mode == "reuse" else "")
    result, marker = _run(pytester, env_file, PLAIN, ini)
    assert result.ret == 0, result.stdout.str()
    finished = sorted(p.name for p in (pytester.path / "pids").glob("finished-*"))
    assert len(finished) == (1 if mode == "reuse" else 0), finished
    assert _carrying(marker) == [], "a sandbox survived the session"
