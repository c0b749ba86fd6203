"""GPU allocation under pytest-xdist: pinned slices, lock files, borrowing for gpus(n) > slice.

Real xdist workers and real lock files; the GPUs are a replayed 4-GPU ROCm node (no GPU
here), so what is checked is what each test was given to see and when it ran.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from itertools import combinations

import pytest

from pytest_rocmcompat.running.gpu_locks import GpuWaitTimeout, borrowed_set, holding
from pytest_rocmcompat.stack.environment import GPU, Environment

FOUR_GPUS = Environment(
    platform="rocm",
    python="3.12.3",
    torch="2.6.0+rocm6.3",
    rocm="6.3.1",
    gpus=tuple(GPU(i, "AMD Instinct MI300X", "gfx942", 206141652992, "amd") for i in range(4)),
)


def test_borrowed_set_takes_own_devices_first_in_global_order() -> None:
    assert borrowed_set(["2"], ["0", "1", "2", "3"], 2) == ["0", "2"]
    assert borrowed_set(["2", "3"], ["0", "1", "2", "3"], 3) == ["0", "2", "3"]
    assert borrowed_set(["1"], ["0", "1"], 1) == ["1"]


def _hold_in_child(tmp_path, devices: list[str], seconds: float, test: str = "tests/t.py::holder"):
    """Another process holds ``devices`` for ``seconds``; returns once it holds them."""
    ready = tmp_path / f"ready-{test.rsplit(':', 1)[-1]}"
    script = textwrap.dedent(
        f"""
        import pathlib, time
        from pytest_rocmcompat.running.gpu_locks import holding
        with holding({str(tmp_path)!r}, {devices!r}, ["0", "1", "2"], holder={{"test": {test!r}}}):
            pathlib.Path({str(ready)!r}).write_text("held")
            time.sleep({seconds!r})
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not ready.exists():
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        assert time.monotonic() < deadline, "the child never took the lock"
        time.sleep(0.02)
    return proc


def test_locks_exclude_other_processes_and_release(tmp_path) -> None:
    child = _hold_in_child(tmp_path, ["1"], 0.5)
    start = time.monotonic()
    with holding(str(tmp_path), ["1", "0"], ["0", "1", "2"]):  # reversed on purpose: taken in global order
        waited = time.monotonic() - start
    child.wait(30)
    assert waited >= 0.2, "took GPU 1 while another process held it"


def test_a_process_does_not_wait_for_a_lock_it_holds_itself(tmp_path) -> None:
    """A session started in-process by a test (pytester.runpytest) runs on the GPUs that test holds:
    taking them again neither blocks nor releases them early."""
    order = ["0", "1"]
    with holding(str(tmp_path), ["0"], order):
        with holding(str(tmp_path), ["0", "1"], order, wait_limit=2):
            pass
        # still held by the outer holder: another process cannot take it
        probe = subprocess.run(
            [
                sys.executable,
                "-c",
                "from pytest_rocmcompat.running.gpu_locks import holding, GpuWaitTimeout\n"
                f"try:\n    with holding({str(tmp_path)!r}, ['0'], ['0'], wait_limit=0.3): print('took')\n"
                "except GpuWaitTimeout as exc: print('waited:', exc)",
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert probe.stdout.startswith("waited:"), probe.stdout + probe.stderr


def test_a_long_wait_names_the_holder_and_the_limit_ends_the_waiter(tmp_path, capfd) -> None:
    child = _hold_in_child(tmp_path, ["2"], 8.0, test="tests/test_x.py::test_slow_holder")
    try:
        with (
            pytest.raises(GpuWaitTimeout, match=r"test_slow_holder \(pid \d+, .*\) for \d+ s") as info,
            holding(str(tmp_path), ["2"], ["0", "1", "2"], holder={"test": "me"}, wait_limit=0.6),
        ):
            pass
        assert "waited" in str(info.value) and "rocm_gpu_wait_timeout" in str(info.value)
    finally:
        child.kill()
        child.wait(30)


@pytest.mark.parametrize("policy", ["marked", "all"])
def test_gpus_tests_never_share_a_gpu_under_xdist(pytester: pytest.Pytester, policy: str) -> None:
    """-n 4 on a replayed 4-GPU node: gpus(2) tests borrow a second GPU; no GPU is used twice at once;
    each test sees exactly its GPUs (under "marked", from a child process that sees only them)."""
    pytest.importorskip("xdist")
    (pytester.path / "env.json").write_text(FOUR_GPUS.to_json())
    log = pytester.path / "log.jsonl"
    pytester.makepyfile(f"""
        import json, os, time, pytest
        def record(name, seconds):
            start = time.time()
            time.sleep(seconds)
            line = json.dumps({{"test": name, "devices": os.environ["HIP_VISIBLE_DEVICES"],
                               "start": start, "end": time.time()}})
            with open({str(log)!r}, "a") as fh:
                fh.write(line + "\\n")
        @pytest.mark.gpus(1)
        @pytest.mark.parametrize("i", range(8))
        def test_one(i):
            record(f"one{{i}}", 0.3)
        @pytest.mark.gpus(2)
        def test_two_a():
            record("two_a", 0.6)
        @pytest.mark.gpus(2)
        def test_two_b():
            record("two_b", 0.6)
        @pytest.mark.gpus(9)
        def test_nine():
            pass
    """)
    result = pytester.runpytest_subprocess(
        "-n",
        "4",
        "--rocm-env",
        "env.json",
        "--rocm-no-bundled",
        f"--rocm-gpu-policy={policy}",
        "-rs",
        "-p",
        "no:cacheprovider",
        timeout=240,
    )
    assert result.parseoutcomes() == {"passed": 10, "skipped": 1}, result.stdout.str()
    result.stdout.fnmatch_lines(["*needs 9 GPU(s), this environment has 4*"])
    runs = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(runs) == 10
    sizes = {r["test"]: len(r["devices"].split(",")) for r in runs}
    assert sizes["two_a"] == sizes["two_b"] == 2 and all(sizes[f"one{i}"] == 1 for i in range(8))
    for a, b in combinations(runs, 2):
        shared = set(a["devices"].split(",")) & set(b["devices"].split(","))
        if shared:
            assert a["end"] <= b["start"] or b["end"] <= a["start"], (a, b)


def test_lock_directory_removed_after_the_session(pytester: pytest.Pytester, tmp_path) -> None:
    pytest.importorskip("xdist")
    (pytester.path / "env.json").write_text(FOUR_GPUS.to_json())
    pytester.makepyfile("""
        import os
        def test_where():
            with open("lockdir.txt", "w") as fh:
                fh.write(os.environ["ROCMCOMPAT_GPU_LOCK_DIR"])
            assert os.path.isdir(os.environ["ROCMCOMPAT_GPU_LOCK_DIR"])
    """)
    result = pytester.runpytest_subprocess(
        "-n", "2", "--rocm-env", "env.json", "--rocm-no-bundled", "-p", "no:cacheprovider", timeout=120
    )
    assert result.parseoutcomes() == {"passed": 1}
    lock_dir = (pytester.path / "lockdir.txt").read_text()
    import os

    assert lock_dir and not os.path.exists(lock_dir)


def test_rocr_visible_devices_narrowed_with_the_slice(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ROCR_VISIBLE_DEVICES set (as Slurm does): each worker's ROCR list is its slice, HIP counts within it;
    a borrowing gpus(4) test sees the controller's whole ROCR list again."""
    pytest.importorskip("xdist")
    monkeypatch.setenv("ROCR_VISIBLE_DEVICES", "4,5,6,7")
    (pytester.path / "env.json").write_text(FOUR_GPUS.to_json())
    pytester.makepyfile("""
        import os, pytest
        def seen():
            return os.environ.get("ROCR_VISIBLE_DEVICES"), os.environ.get("HIP_VISIBLE_DEVICES")
        @pytest.mark.gpus(1)
        @pytest.mark.parametrize("i", range(4))
        def test_slice(i):
            with open(os.environ["PYTEST_XDIST_WORKER"] + ".txt", "w") as fh:
                fh.write("|".join(seen()))
        @pytest.mark.gpus(4)
        def test_all():
            assert seen() == ("4,5,6,7", "0,1,2,3")
    """)
    result = pytester.runpytest_subprocess(
        "-n",
        "2",
        "--rocm-env",
        "env.json",
        "--rocm-no-bundled",
        "--rocm-gpu-policy=all",
        "-p",
        "no:cacheprovider",
        timeout=180,
    )
    assert result.parseoutcomes() == {"passed": 5}, result.stdout.str()
    seen = {p.stem: p.read_text() for p in pytester.path.glob("gw*.txt")}
    assert seen == {"gw0": "4,5|0,1", "gw1": "6,7|0,1"}, seen


ONE_GPU = Environment(
    platform="cuda",
    python="3.12.3",
    torch="2.11.0+cu130",
    cuda="13.0",
    gpus=(GPU(0, "NVIDIA H100 80GB HBM3", "sm_90", 85520809984, "nvidia"),),
)


@pytest.mark.parametrize("policy", ["marked", "all"])
def test_sessions_started_inside_tests_never_wait_on_their_ancestors(pytester: pytest.Pytester, policy: str) -> None:
    """-n 2 on a replayed one-GPU host, every test holding GPU 0 while it runs: an isolated test (its
    sandbox is a pytest session the worker started), a test that runs `pytest -n 2` and one that runs
    serial `pytest` in a subprocess, and an in-process `runpytest`. Before, each waited forever for the
    lock its own worker held; now each is a session of its own."""
    pytest.importorskip("xdist")
    (pytester.path / "env.json").write_text(ONE_GPU.to_json())
    inner = pytester.path / "inner"
    inner.mkdir()
    (inner / "test_inner.py").write_text(
        "import os\ndef test_a():\n    assert os.environ.get('CUDA_VISIBLE_DEVICES') in (None, '0')\ndef test_b():\n    pass\n"
    )
    pytester.makeconftest("pytest_plugins = ['pytester']")
    pytester.makepyfile(
        textwrap.dedent(
            f"""
            import os, subprocess, sys, pytest
            INNER = {str(inner)!r}
            ARGS = ["--rocm-env", {str(pytester.path / "env.json")!r}, "--rocm-no-bundled", "-p", "no:cacheprovider", "-q"]

            @pytest.mark.isolated(timeout=60)
            @pytest.mark.gpus(1)
            def test_isolated():
                assert os.environ.get("CUDA_VISIBLE_DEVICES") in (None, "0")

            @pytest.mark.gpus(1)
            @pytest.mark.parametrize("workers", [[], ["-n", "2"]])
            def test_nested_subprocess(workers):
                proc = subprocess.run([sys.executable, "-m", "pytest", INNER, *ARGS, *workers],
                                      capture_output=True, text=True, timeout=90)
                assert proc.returncode == 0, proc.stdout + proc.stderr
                assert "2 passed" in proc.stdout

            def test_nested_unmarked():
                proc = subprocess.run([sys.executable, "-m", "pytest", INNER, *ARGS, "-n", "2"],
                                      capture_output=True, text=True, timeout=90)
                assert proc.returncode == 0, proc.stdout + proc.stderr

            @pytest.mark.gpus(1)
            def test_in_process(pytester):
                pytester.makepyfile(test_x="def test_x():\\n    pass\\n")
                result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
                assert result.ret == 0
            """
        )
    )
    result = pytester.runpytest_subprocess(
        "-n",
        "2",
        "--rocm-env",
        "env.json",
        "--rocm-no-bundled",
        "-p",
        "no:cacheprovider",
        "-rfE",
        f"--rocm-gpu-policy={policy}",
        "test_sessions_started_inside_tests_never_wait_on_their_ancestors.py",
        timeout=240,
    )
    outcomes = result.parseoutcomes()
    outcomes.pop("warnings", None)  # a host plugin's (pytest-benchmark warns in every xdist worker)
    assert outcomes == {"passed": 5}, result.stdout.str() + result.stderr.str()


def test_a_gpu_wait_past_the_limit_is_an_error_naming_the_holder(pytester: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    (pytester.path / "env.json").write_text(ONE_GPU.to_json())
    pytester.makeini("[pytest]\nrocm_gpu_wait_timeout = 1.5\n")
    pytester.makepyfile(
        """
        import time, pytest
        @pytest.mark.gpus(1)
        @pytest.mark.parametrize("i", range(2))
        def test_holds(i):
            time.sleep(8)
        """
    )
    result = pytester.runpytest_subprocess(
        "-n", "2", "--rocm-env", "env.json", "--rocm-no-bundled", "-p", "no:cacheprovider", "-rfE", timeout=120
    )
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed") == 1 and outcomes.get("errors", outcomes.get("error")) == 1, outcomes
    result.stdout.fnmatch_lines(["*waited * s for GPU 0, held by *test_holds* (pid *) for * s*"])


@pytest.mark.parametrize("value", ["soon", "-3", "0"])
def test_gpu_wait_timeout_ini_is_checked(pytester: pytest.Pytester, value: str) -> None:
    pytester.makeini(f"[pytest]\nrocm_gpu_wait_timeout = {value}\n")
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--rocm-no-bundled")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: rocmcompat: *tox.ini: ini rocm_gpu_wait_timeout*{value}*"])


def test_marked_policy_leaves_tests_without_gpus_as_plain_xdist_runs_them(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default policy on a replayed 4-GPU node, -n 4: tests that declare no GPU run side by side
    (no lock) and see the visibility variables the session was started with; a `skipif` on the GPU
    count still sees every GPU; declared tests get their GPUs exclusively."""
    pytest.importorskip("xdist")
    monkeypatch.setenv("HIP_VISIBLE_DEVICES", "0,1,2,3")
    (pytester.path / "env.json").write_text(FOUR_GPUS.to_json())
    log = pytester.path / "log.jsonl"
    pytester.makeini("[pytest]\nrocm_gpu_fixtures = gpu_device\n")
    pytester.makeconftest(
        """
        import pytest
        @pytest.fixture
        def gpu_device():
            return "gpu"
        """
    )
    pytester.makepyfile(
        f"""
        import json, os, time, pytest
        def record(name, seconds=1.0):
            start = time.time()
            time.sleep(seconds)
            line = json.dumps({{"test": name, "seen": os.environ.get("HIP_VISIBLE_DEVICES"), "start": start,
                               "end": time.time(), "isolated": os.environ.get("ROCMCOMPAT_ISOLATED")}})
            with open({str(log)!r}, "a") as fh:
                fh.write(line + "\\n")
        @pytest.mark.parametrize("i", range(4))
        def test_host(i):
            record(f"host{{i}}")
        @pytest.mark.skipif(len(os.environ.get("HIP_VISIBLE_DEVICES", "").split(",")) < 4, reason="needs 4")
        def test_counts_gpus():
            record("counts", 0.1)
        def test_by_fixture(gpu_device):
            record("fixture", 0.5)
        @pytest.mark.gpus(1)
        def test_declared():
            record("declared", 0.5)
        """
    )
    result = pytester.runpytest_subprocess(
        "-n", "4", "--rocm-env", "env.json", "--rocm-no-bundled", "-p", "no:cacheprovider", "-rs", timeout=240
    )
    assert result.parseoutcomes() == {"passed": 7}, result.stdout.str()
    runs = {r["test"]: r for r in (json.loads(line) for line in log.read_text().splitlines())}
    hosts = [runs[f"host{i}"] for i in range(4)]
    assert {r["seen"] for r in hosts} == {"0,1,2,3"} and runs["counts"]["seen"] == "0,1,2,3"
    assert any(a["start"] < b["end"] and b["start"] < a["end"] for a, b in combinations(hosts, 2)), (
        "tests without GPUs did not run side by side"
    )
    # declared tests see exactly their worker's GPU, from a child process of their own
    assert len(runs["declared"]["seen"].split(",")) == 1 and len(runs["fixture"]["seen"].split(",")) == 1
    assert runs["declared"]["isolated"] == runs["fixture"]["isolated"] == "1"
    assert not any(r["isolated"] for r in hosts)


def test_marked_policy_on_a_one_gpu_host_runs_declared_tests_in_process_one_at_a_time(
    pytester: pytest.Pytester,
) -> None:
    pytest.importorskip("xdist")
    (pytester.path / "env.json").write_text(ONE_GPU.to_json())
    log = pytester.path / "log.jsonl"
    pytester.makepyfile(
        f"""
        import json, os, time, pytest
        @pytest.mark.gpus(1)
        @pytest.mark.parametrize("i", range(4))
        def test_gpu(i):
            start = time.time()
            time.sleep(0.4)
            with open({str(log)!r}, "a") as fh:
                fh.write(json.dumps({{"start": start, "end": time.time(), "worker": os.environ["PYTEST_XDIST_WORKER"],
                                     "isolated": os.environ.get("ROCMCOMPAT_ISOLATED")}}) + "\\n")
        """
    )
    result = pytester.runpytest_subprocess(
        "-n", "4", "--rocm-env", "env.json", "--rocm-no-bundled", "-p", "no:cacheprovider", timeout=240
    )
    assert result.parseoutcomes() == {"passed": 4}, result.stdout.str()
    runs = [json.loads(line) for line in log.read_text().splitlines()]
    assert len({r["worker"] for r in runs}) > 1, "the tests did not spread over workers"
    assert not any(r["isolated"] for r in runs), "a one-GPU host needs no child process to confine a test"
    for a, b in combinations(runs, 2):
        assert a["end"] <= b["start"] or b["end"] <= a["start"], (a, b)


def test_gpu_policy_ini_is_checked(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nrocm_gpu_policy = some\n")
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--rocm-no-bundled")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*ini rocm_gpu_policy = 'some': one of marked, all, none*"])
