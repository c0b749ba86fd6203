"""Isolated tests: real child processes that crash, abort, exit, hang or run out of memory."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pytest_rocmcompat.knowledge.diagnoses import diagnose
from tests.conftest import CPU_ENV, process_running

SESSION = """
import ctypes, os, resource, subprocess, sys, time
import pytest

def test_plain_pass():
    pass

@pytest.mark.isolated(timeout=60)
def test_isolated_pass():
    pass

@pytest.mark.isolated(timeout=60)
def test_isolated_assert():
    assert 1 == 2

@pytest.mark.isolated(timeout=60)
def test_segfault():
    ctypes.string_at(0)

@pytest.mark.isolated(timeout=60)
def test_abort():
    os.abort()

@pytest.mark.isolated(timeout=60)
def test_exit_3():
    os._exit(3)

@pytest.mark.isolated(timeout=3)
def test_sleeps_forever():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1000)"])
    with open("grandchild.pid", "w") as fh:
        fh.write(str(child.pid))
    time.sleep(1000)

@pytest.mark.isolated(timeout=60)
def test_memory_error():
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
    hoard = []
    while True:
        hoard.append(bytearray(64 << 20))

@pytest.mark.isolated(timeout=60)
def test_rocm_memory_fault():
    # Recorded ROCm output (ROCm/legacy-rocm-build#2235, Radeon VII / gfx906), then the abort it causes.
    sys.stderr.write("Memory access fault by GPU node-10 (Agent handle: 0x7538750) on address (nil). "
                     "Reason: Page not present or supervisor privilege.\\n")
    sys.stderr.flush()
    os.abort()

def test_plain_after():
    pass
"""


@pytest.fixture
def env_file(pytester: pytest.Pytester):
    path = pytester.path / "env.json"
    path.write_text(CPU_ENV.to_json(), encoding="utf-8")
    return path


def _outcomes(xml: Path) -> dict[str, dict[str, str]]:
    root = ET.parse(xml).getroot()
    return {
        case.get("name"): {p.get("name"): p.get("value") for p in case.iter("property")}
        for case in root.iter("testcase")
    }


def test_every_death_is_an_outcome_and_nothing_survives(pytester: pytest.Pytester, env_file) -> None:
    pytester.makepyfile(test_session=SESSION)
    result = pytester.runpytest_subprocess(
        "--rocm-env",
        str(env_file),
        "-p",
        "no:cacheprovider",
        "-v",
        "--junitxml",
        "out.xml",
        "--rocm-report",
        "r.md",
        timeout=240,
    )
    result.stdout.fnmatch_lines_random(
        [
            "*test_plain_pass PASSED*",
            "*test_isolated_pass PASSED*",
            "*test_isolated_assert FAILED*",
            "*test_segfault CRASHED*",
            "*test_abort CRASHED*",
            "*test_exit_3 CRASHED*",
            "*test_sleeps_forever HANG*",
            "*test_memory_error FAILED*",
            "*test_rocm_memory_fault CRASHED [[]diagnosis: hip-memory-access-fault[]]*",
            "*test_plain_after PASSED*",
        ]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert result.parseoutcomes() == {"failed": 7, "passed": 3}
    props = _outcomes(pytester.path / "out.xml")
    assert props["test_segfault"] == {
        "rocm_outcome": "crashed",
        "rocm_signature": "segmentation-fault",
        "rocm_diagnosis": diagnose("SIGSEGV").property_value(),
        "rocm_isolation": "forked",  # a fresh child of the template, which survives the crash
    }
    assert props["test_abort"]["rocm_outcome"] == "crashed"
    assert props["test_exit_3"]["rocm_outcome"] == "crashed"
    assert props["test_sleeps_forever"]["rocm_outcome"] == "hang"
    assert props["test_rocm_memory_fault"] == {
        "rocm_outcome": "crashed",
        "rocm_signature": "hip-memory-access-fault",
        "rocm_diagnosis": diagnose("Memory access fault by GPU node-10").property_value(),
        "rocm_isolation": "forked",
    }
    out = result.stdout.str()
    assert "died from SIGSEGV" in out and "died from SIGABRT" in out and "exited with code 3" in out
    assert "killed after the 3 s time limit" in out and "MemoryError" in out
    assert "Memory access fault by GPU node-10" in out  # the child's output tail is attached
    pid = int((pytester.path / "grandchild.pid").read_text())
    assert not process_running(pid), "the hung test's grandchild survived the time limit"
    report = (pytester.path / "r.md").read_text()
    assert "💥 crashed" in report and "⏳ hang" in report and "hip-memory-access-fault" in report


DIAGNOSED = r"""
import os, sys, time
import pytest

# Recorded ROCm wording (pytorch/pytorch#109929): the runtime prints this, then aborts the process.
FAULT = ("Memory access fault by GPU node-1 (Agent handle: 0x55d0c8e0) on address 0x7f2a1c000000. "
         "Reason: Page not present or supervisor privilege.")

@pytest.mark.isolated(timeout=60)
def test_fault_isolated():
    sys.stderr.write(FAULT + "\n")
    sys.stderr.flush()
    os.abort()

def test_fault_in_process():
    raise RuntimeError(FAULT)

@pytest.mark.isolated(timeout=2)
def test_watchdog_hang():
    print("[rank0]:[E ProcessGroupNCCL.cpp:607] Watchdog caught collective operation timeout: "
          "WorkNCCL(SeqNum=1, OpType=ALLREDUCE) ran for 600000 milliseconds before timing out.", flush=True)
    time.sleep(1000)

def test_slow_signature_crash():
    sys.stderr.write(FAULT + "\n" + "a" * 40 + "!\n")
    sys.stderr.flush()
    os.abort()
"""

SLOW_SIGNATURE = """
known_bad:
  - id: slow-sig
    when: {platform: cpu}
    applies_to: {nodeids: ["test_diag.py::test_slow_signature_crash"]}
    action: isolate
    signature: '(a|aa)+$'
    reason: a slow signature must not stop the session
"""


def test_isolated_crash_and_hang_are_diagnosed_like_an_in_process_failure(pytester: pytest.Pytester, env_file) -> None:
    """A death no rule claims carries its diagnosis in the terminal line, JUnit and both reports,
    with the same ``rocm_diagnosis`` value as the same text raised in-process."""
    import subprocess
    import sys

    pytester.makepyfile(test_diag=DIAGNOSED)
    pytester.makefile(".yaml", matrix=SLOW_SIGNATURE)
    result = pytester.runpytest_subprocess(
        "--rocm-env",
        str(env_file),
        "--rocm-matrix=matrix.yaml",
        "-p",
        "no:cacheprovider",
        "-rA",
        "--junitxml",
        "out.xml",
        "--rocm-report",
        "r.md",
        timeout=240,
    )
    out = result.stdout.str()
    assert "INTERNALERROR" not in out, out
    assert result.parseoutcomes() == {"failed": 4}, out
    # the short summary line, as for a diagnosed in-process failure (FAILED [diagnosis: ...])
    result.stdout.fnmatch_lines_random(
        [
            "CRASHED [[]diagnosis: hip-memory-access-fault[]] test_diag.py::test_fault_isolated*",
            "FAILED [[]diagnosis: hip-memory-access-fault[]] test_diag.py::test_fault_in_process*",
            "HANG [[]diagnosis: collective-timeout[]] test_diag.py::test_watchdog_hang*",
            "CRASHED [[]diagnosis: hip-memory-access-fault[]] test_diag.py::test_slow_signature_crash*",
        ]
    )
    # the failure shows the likely cause, the usual fix and the link, as in-process
    assert out.count("diagnosis hip-memory-access-fault: likely cause:") == 3, out
    assert "diagnosis collective-timeout: likely cause:" in out
    # a signature that runs out of time on a crash's output is a note, as on a raised failure
    assert "known-bad rule slow-sig (matrix.yaml:2): signature '(a|aa)+$' took longer than" in out
    props = _outcomes(pytester.path / "out.xml")
    isolated, in_process = props["test_fault_isolated"], props["test_fault_in_process"]
    assert in_process["rocm_diagnosis"].startswith("hip-memory-access-fault: the GPU touched an unmapped page")
    assert isolated == {
        "rocm_outcome": "crashed",
        "rocm_signature": "hip-memory-access-fault",
        "rocm_diagnosis": in_process["rocm_diagnosis"],
        "rocm_isolation": "forked",
    }
    hang = props["test_watchdog_hang"]
    assert hang["rocm_outcome"] == "hang" and hang["rocm_diagnosis"].startswith("collective-timeout: ")
    slow = props["test_slow_signature_crash"]
    assert slow["rocm_outcome"] == "crashed" and slow["rocm_rule"] == "slow-sig"
    assert slow["rocm_diagnosis"] == in_process["rocm_diagnosis"]
    assert slow["rocm_note"] == "rule slow-sig applies but its signature did not match"
    headline = "[diagnosis: hip-memory-access-fault: the GPU touched an unmapped page (ROCm)"
    report = (pytester.path / "r.md").read_text()
    assert report.count(headline) == 3, report
    assert "[diagnosis: collective-timeout: " in report
    merged = subprocess.run(
        [sys.executable, "-m", "pytest_rocmcompat", "report", "out.xml"],
        cwd=pytester.path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert merged.returncode == 0, merged.stderr
    # the merged report gives the likely cause a column of its own, beside the failure's message
    merged_out = merged.stdout
    assert "hip-memory-access-fault: the GPU touched an unmapped page (ROCm)" in merged_out, merged_out
    assert "collective-timeout: a collective did not finish in time" in merged_out, merged_out


def test_rule_signature_turns_a_crash_into_known_bad(pytester: pytest.Pytester, env_file) -> None:
    pytester.makefile(
        ".yaml",
        matrix="""
        known_bad:
          - id: fault
            when: {platform: cpu}
            applies_to: {nodeids: ["test_session.py::test_rocm_memory_fault", "test_session.py::test_abort"]}
            action: isolate
            signature: "Memory access fault by GPU node-\\\\d+"
            reason: recorded fault
    """,
    )
    pytester.makepyfile(
        test_session=SESSION.replace("@pytest.mark.isolated(timeout=60)\ndef test_rocm", "def test_rocm")
    )
    result = pytester.runpytest_subprocess(
        "--rocm-env",
        str(env_file),
        "--rocm-matrix",
        "matrix.yaml",
        "-v",
        "-k",
        "rocm_memory_fault or abort",
        timeout=120,
    )
    # The rule isolates the unmarked test; its crash matches the signature; abort's does not.
    result.stdout.fnmatch_lines_random(["*test_rocm_memory_fault KNOWN-BAD*", "*test_abort CRASHED*"])


def test_timeout_from_ini_and_bad_timeout(pytester: pytest.Pytester, env_file) -> None:
    pytester.makeini("[pytest]\nrocm_isolate_timeout = 1.5\n")
    pytester.makepyfile("""
        import time, pytest
        @pytest.mark.isolated
        def test_slow():
            time.sleep(60)
    """)
    result = pytester.runpytest_subprocess("--rocm-env", str(env_file), timeout=60)
    result.stdout.fnmatch_lines(["*killed after the 1.5 s time limit*"])
    pytester.makepyfile("""
        import pytest
        @pytest.mark.isolated(timeout="soon")
        def test_slow(): pass
    """)
    result = pytester.runpytest_subprocess("--rocm-env", str(env_file), timeout=60)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*test_slow: isolated(timeout='soon'): the time limit must be a number of seconds > 0"]
    )
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_child_uses_the_parent_environment(pytester: pytest.Pytester, env_file) -> None:
    pytester.makepyfile("""
        import pytest
        @pytest.mark.isolated(timeout=60)
        def test_env(request):
            from pytest_rocmcompat.plugin import state_of
            env = state_of(request.config).env
            assert env.source == "overridden" and env.archs == ("gfx942",)
    """)
    result = pytester.runpytest_subprocess("--rocm-env", str(env_file), "--rocm-set", "arch=gfx942", timeout=60)
    assert result.parseoutcomes() == {"passed": 1}


def test_xdist_worker_killed_in_mid_test(pytester: pytest.Pytester, env_file) -> None:
    """`pytest -n 2` with one worker killed: that test is `crashed`, every other result and the report remain."""
    pytest.importorskip("xdist")
    pytester.makepyfile(
        test_kill="""
        import os, signal, pytest
        @pytest.mark.parametrize("i", range(6))
        def test_fine(i):
            pass
        def test_kills_its_worker():
            os.kill(os.getpid(), signal.SIGKILL)
        def test_fails():
            assert 0
    """
    )
    result = pytester.runpytest_subprocess(
        "-n", "2", "--rocm-env", str(env_file), "--rocm-report", "r.md", "-p", "no:cacheprovider", "-rA", timeout=240
    )
    result.stdout.fnmatch_lines(["*CRASHED*test_kills_its_worker*"])
    outcomes = result.parseoutcomes()
    assert outcomes["passed"] == 6 and outcomes["failed"] == 2
    report = (pytester.path / "r.md").read_text()
    assert "test_kill.py::test_kills_its_worker" in report and "crashed while running" in report
    import re

    assert re.search(r"\| \*\*total\*\* +\| 6 +\| 1 +\| 0 +\| 0 +\| 0 +\| 0 +\| 1 +\| 0 ", report), report


def test_pinning_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from pytest_rocmcompat.running import pinning
    from pytest_rocmcompat.running.pinning import pin_this_worker, publish, worker_slice

    monkeypatch.setattr(pinning, "_pinned_pid", None)  # this test process plays a worker below
    assert worker_slice(list("01234567"), 1, 4) == ["2", "3"]
    assert worker_slice(list("01"), 2, 3) == ["0"]  # more workers than GPUs: shared, round-robin
    env = {"CUDA_VISIBLE_DEVICES": "4,5,6,7"}
    publish("cuda", 8, env)
    assert env["ROCMCOMPAT_XDIST_DEVICES"] == "4,5,6,7"  # an existing restriction is respected
    assert env["ROCMCOMPAT_XDIST_CONTROLLER"] == str(os.getpid())
    worker = dict(env, PYTEST_XDIST_WORKER="gw1", PYTEST_XDIST_WORKER_COUNT="2")
    # a process another controller started (a session some test started) is no worker of this one
    assert pin_this_worker(dict(worker), parent_pid=os.getpid() + 1) is None
    assert pin_this_worker(worker, parent_pid=os.getpid()) == ["6", "7"] and worker["CUDA_VISIBLE_DEVICES"] == "6,7"
    # once per process: an in-process session inside the worker's test does not pin again
    assert pin_this_worker(dict(env, PYTEST_XDIST_WORKER="gw0"), parent_pid=os.getpid()) is None
    assert pin_this_worker({"CUDA_VISIBLE_DEVICES": "0"}) is None  # not an xdist worker
    publish("cpu", 0, env := {})
    assert env == {}


def test_xdist_workers_pinned_to_disjoint_gpus(pytester: pytest.Pytester) -> None:
    """A replayed 8-GPU MI300X node, -n 2: each worker sees its own four GPUs before conftest runs."""
    pytest.importorskip("xdist")
    from tests.conftest import MI300_ENV

    (pytester.path / "env.json").write_text(MI300_ENV.to_json())
    pytester.makeconftest("""
        import os
        SEEN_AT_CONFTEST = os.environ.get("HIP_VISIBLE_DEVICES")
    """)
    pytester.makepyfile("""
        import os, pytest
        import conftest
        def test_where():
            worker = os.environ["PYTEST_XDIST_WORKER"]
            with open(worker + ".txt", "w") as fh:
                fh.write(conftest.SEEN_AT_CONFTEST)
        @pytest.mark.parametrize("i", range(4))
        def test_more(i):
            test_where()
        @pytest.mark.gpus(4)
        def test_four(): pass
        @pytest.mark.gpus(8)
        def test_eight():  # more than a worker's slice: borrowed, in a child that sees all eight
            assert os.environ["HIP_VISIBLE_DEVICES"] == "0,1,2,3,4,5,6,7"
        @pytest.mark.gpus(9)
        def test_nine(): pass
    """)
    result = pytester.runpytest_subprocess(
        "-n", "2", "--rocm-env", "env.json", "--rocm-gpu-policy=all", "-rs", "-p", "no:cacheprovider", timeout=120
    )
    result.stdout.fnmatch_lines(["*needs 9 GPU(s), this environment has 8*"])
    seen = {p.stem: p.read_text() for p in pytester.path.glob("gw*.txt")}
    assert seen == {"gw0": "0,1,2,3", "gw1": "4,5,6,7"}, seen
    assert result.parseoutcomes() == {"passed": 7, "skipped": 1}


def test_isolated_test_between_modules_and_skips_inside(pytester: pytest.Pytester, env_file) -> None:
    """An isolated test before a test of another module; a skip inside an isolated test under -rs."""
    pytester.makepyfile(
        test_a="""
            import pytest
            @pytest.fixture(scope="module")
            def shared():
                return 1
            def test_in_process(shared):
                assert shared == 1
            @pytest.mark.isolated(timeout=60)
            def test_isolated_skips():
                pytest.skip("nothing to check in this environment")
        """,
        test_b="""
            def test_next_module():
                pass
        """,
    )
    result = pytester.runpytest_subprocess(
        "--rocm-env", str(env_file), "--rocm-no-bundled", "-rs", "-p", "no:cacheprovider", timeout=120
    )
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert result.parseoutcomes() == {"passed": 2, "skipped": 1}
    result.stdout.fnmatch_lines(["SKIPPED [[]1[]] *nothing to check in this environment"])
    assert "INTERNALERROR" not in result.stdout.str() and "not torn down" not in result.stdout.str()


ADDRESS_SPACE_SUITE = """
import resource, pytest

HOARD = []  # kept: the process stays full while its failure is reported

def _vm_bytes():
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmSize:"))

@pytest.mark.isolated(timeout=60)
def test_exhausts_its_address_space():
    # what an out-of-memory test leaves behind: no room for one more mapping (on a GPU host,
    # where CUDA's libraries map gigabytes, a 2 GiB RLIMIT_AS is already below what is mapped)
    limit = _vm_bytes()
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    HOARD.append(bytearray(64 << 20))

@pytest.mark.isolated(timeout=60)
def test_next():
    pass
"""


def test_a_test_that_exhausts_its_memory_fails_as_itself(pytester: pytest.Pytester, env_file: Path) -> None:
    """Reporting the failure needs no memory the test left: MemoryError is the outcome, not a crash
    of the reporting code (seen on the H100 host, where the template's mappings fill a 2 GiB limit)."""
    pytester.makepyfile(test_as=ADDRESS_SPACE_SUITE)
    result = pytester.runpytest_subprocess("--rocm-env", str(env_file), "-p", "no:cacheprovider", "-v", timeout=240)
    result.stdout.fnmatch_lines_random(["*test_exhausts_its_address_space FAILED*", "*test_next PASSED*"])
    assert "MemoryError" in result.stdout.str()
    assert "CRASHED" not in result.stdout.str(), result.stdout.str()
