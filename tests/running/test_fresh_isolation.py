"""Isolation means a fresh process: no state crosses from one isolated test to the next (issue 24).

Real sessions in subprocesses (serial and ``-n 2``), real forks from a real template, real JUnit.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.conftest import CPU_ENV

pytest.importorskip("torch")

# Test a changes everything a test can change in its process and passes; test b, run after it,
# must see none of it. The pids (of the test and of its parent, the template) go to files.
LEAKS = """
import json, os, random, sys
import pytest
import torch

KEEP = []

def _note(name):
    with open(os.path.join(os.environ["PIDS"], name), "w") as fh:
        fh.write(f"{os.getpid()} {os.getppid()}")

@pytest.mark.isolated(timeout=120)
def test_a_changes_its_process():
    _note("a")
    torch.set_default_dtype(torch.float64)
    os.environ["LEAKED_VAR"] = "1"
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.manual_seed(1234)
    random.seed(1234)
    json.dumps = lambda *a, **k: "monkeypatched"
    sys.modules["leaked_module"] = type(sys)("leaked_module")
    KEEP.append(torch.ones(1024, 1024))

@pytest.mark.isolated(timeout=120)
def test_b_sees_a_clean_process():
    _note("b")
    assert torch.get_default_dtype() == torch.float32, "default dtype leaked"
    assert "LEAKED_VAR" not in os.environ, "environment variable leaked"
    assert torch.backends.cudnn.benchmark is False, "cudnn.benchmark leaked"
    assert torch.backends.cuda.matmul.allow_tf32 is False, "allow_tf32 leaked"
    torch.manual_seed(1234)
    seeded = torch.rand(3)
    assert torch.initial_seed() == 1234
    assert json.dumps({}) == "{}", "monkeypatched module leaked"
    assert "leaked_module" not in sys.modules, "sys.modules entry leaked"
    assert KEEP == [], "a kept tensor leaked"
    assert seeded.shape == (3,)

@pytest.mark.isolated(timeout=120)
def test_c_seed_is_not_inherited():
    _note("c")
    # torch's default generator starts from its default seed in a process no test touched
    assert torch.initial_seed() == torch.default_generator.initial_seed()
    assert torch.get_default_dtype() == torch.float32
"""

CRASH_BETWEEN = """
import os, signal
import pytest

def _note(name):
    with open(os.path.join(os.environ["PIDS"], name), "w") as fh:
        fh.write(f"{os.getpid()} {os.getppid()}")

@pytest.mark.isolated(timeout=120)
def test_1_before():
    _note("before")

@pytest.mark.isolated(timeout=120)
def test_2_crashes():
    _note("crash")
    os.kill(os.getpid(), signal.SIGSEGV)

@pytest.mark.isolated(timeout=3)
def test_3_hangs():
    _note("hang")
    import time
    time.sleep(600)

@pytest.mark.isolated(timeout=120)
def test_4_after():
    _note("after")
"""

THREAD_CONFTEST = """
import threading, time
threading.Thread(target=time.sleep, args=(600,), name="conftest-poller", daemon=True).start()
"""


@pytest.fixture
def env_file(pytester: pytest.Pytester) -> Path:
    path = pytester.path / "env.json"
    path.write_text(CPU_ENV.to_json(), encoding="utf-8")
    return path


def _props(junit: Path) -> dict[str, dict[str, str]]:
    found: dict[str, dict[str, str]] = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        found[str(case.get("name"))] = {p.get("name", ""): p.get("value", "") for p in case.iter("property")}
    return found


def _pids(folder: Path) -> dict[str, tuple[int, int]]:
    out = {}
    for path in folder.iterdir():
        pid, parent = path.read_text().split()
        out[path.name] = (int(pid), int(parent))
    return out


def _run(pytester: pytest.Pytester, env_file: Path, source: str, *args: str) -> pytest.RunResult:
    pytester.makepyfile(test_state=source)
    pids = pytester.mkdir("pids")
    pytester.makeini("[pytest]\nrocm_isolate_preload = torch\n")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PIDS", str(pids))
        return pytester.runpytest_subprocess(
            "--rocm-env", str(env_file), "-p", "no:cacheprovider", "--junitxml=out.xml", "-rA", *args, timeout=300
        )


@pytest.mark.parametrize("xdist", [False, True], ids=["serial", "-n 2"])
def test_no_state_crosses_from_one_isolated_test_to_the_next(
    pytester: pytest.Pytester, env_file: Path, xdist: bool
) -> None:
    if xdist:
        pytest.importorskip("xdist")
    result = _run(pytester, env_file, LEAKS, *(["-n", "2"] if xdist else []))
    out = result.stdout.str()
    assert result.ret == 0, out
    assert result.parseoutcomes() == {"passed": 3}, out
    props = _props(pytester.path / "out.xml")
    assert {name: p.get("rocm_isolation") for name, p in props.items()} == dict.fromkeys(props, "forked")
    assert "rocmcompat isolation: 3 isolated test(s): 3 forked" in out, out
    pids = _pids(pytester.path / "pids")
    assert len({pid for pid, _ in pids.values()}) == 3, "each test has a process of its own"
    if not xdist:  # one template forked all three (under xdist, one per worker)
        assert len({parent for _, parent in pids.values()}) == 1, pids


def test_a_crash_or_hang_costs_one_child_not_the_template(pytester: pytest.Pytester, env_file: Path) -> None:
    result = _run(pytester, env_file, CRASH_BETWEEN)
    out = result.stdout.str()
    for line in ("CRASHED*test_2_crashes*", "HANG*test_3_hangs*", "PASSED*test_4_after*"):
        result.stdout.fnmatch_lines([line])
    pids = _pids(pytester.path / "pids")
    parents = {name: parent for name, (_, parent) in pids.items()}
    assert len(set(parents.values())) == 1, f"the template was restarted: {pids}\n{out}"
    assert _props(pytester.path / "out.xml")["test_4_after"]["rocm_isolation"] == "forked"


def test_an_unsafe_template_spawns_each_test_and_says_why_once(pytester: pytest.Pytester, env_file: Path) -> None:
    pytester.makeconftest(THREAD_CONFTEST)
    result = _run(pytester, env_file, LEAKS)
    out = result.stdout.str()
    assert result.ret == 0, out  # each test still starts from a process no other test touched
    props = _props(pytester.path / "out.xml")
    modes = {name: p["rocm_isolation"] for name, p in props.items()}
    assert all(m.startswith("spawned: ") and "conftest-poller" in m for m in modes.values()), modes
    assert "rocmcompat isolation: 3 isolated test(s): 3 spawned" in out, out
    assert out.count("spawned, not forked, because the template runs Python threads (conftest-poller)") == 1, out
    pids = _pids(pytester.path / "pids")
    assert len({pid for pid, _ in pids.values()}) == 3


@pytest.mark.parametrize("how", ["ini", "marker"])
def test_reuse_is_an_explicit_opt_in_and_shares_state(pytester: pytest.Pytester, env_file: Path, how: str) -> None:
    source = LEAKS
    if how == "marker":
        source = source.replace("@pytest.mark.isolated(timeout=120)", "@pytest.mark.isolated(timeout=120, reuse=True)")
    pytester.makepyfile(test_state=source)
    pids = pytester.mkdir("pids")
    pytester.makeini("[pytest]\nrocm_isolate_reuse = true\n" if how == "ini" else "[pytest]\n")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PIDS", str(pids))
        result = pytester.runpytest_subprocess(
            "--rocm-env", str(env_file), "-p", "no:cacheprovider", "--junitxml=out.xml", timeout=300
        )
    out = result.stdout.str()
    # what test a changed reaches test b: the price of reuse, and why it is not the default
    result.stdout.fnmatch_lines(["*default dtype leaked*"])
    props = _props(pytester.path / "out.xml")
    assert props["test_a_changes_its_process"]["rocm_isolation"] == "reused", out
    seen = _pids(pytester.path / "pids")
    assert seen["a"][0] == seen["b"][0], "test b did not run in test a's process"


GPU_LEAKS = """
import os
import pytest
import torch

KEEP = []

def _note(name):
    with open(os.path.join(os.environ["PIDS"], name), "w") as fh:
        fh.write(f"{os.getpid()} {os.getppid()}")

@pytest.mark.isolated(timeout=120)
def test_a_fills_the_gpu():
    _note("a")
    assert not torch.cuda.is_initialized(), "the template initialised the GPU runtime"
    KEEP.append(torch.ones(256 << 20, device="cuda"))  # 1 GiB kept alive on the GPU
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.cuda.manual_seed(1234)
    torch.set_default_device("cuda")
    assert torch.cuda.memory_allocated() >= 1 << 30

@pytest.mark.isolated(timeout=120)
def test_b_gets_a_clean_gpu_process():
    _note("b")
    assert not torch.cuda.is_initialized(), "a CUDA context reached this process"
    assert torch.ones(1).device.type == "cpu", "the default device leaked"
    assert torch.cuda.memory_allocated() == 0, "GPU memory of the previous test is counted here"
    assert torch.backends.cuda.matmul.allow_tf32 is False, "allow_tf32 leaked"
    x = torch.ones(2048, 2048, device="cuda")
    assert float((x @ x).sum()) == 2048.0 ** 3
"""


def _gpu_host() -> bool:
    """A GPU device node exists (checked without initialising a GPU runtime in this process)."""
    return Path("/dev/nvidia0").exists() or Path("/dev/kfd").exists()


@pytest.mark.skipif(not _gpu_host(), reason="needs a GPU host (runs on the H100 through bench/gpu_host.sh)")
@pytest.mark.parametrize("declared", [False, True], ids=["unmarked", "gpus(1): warmed standby"])
@pytest.mark.parametrize("xdist", [False, True], ids=["serial", "-n 2"])
def test_no_gpu_state_crosses_on_a_real_gpu(pytester: pytest.Pytester, xdist: bool, declared: bool) -> None:
    """Declared GPU tests run in standbys whose CUDA driver started ahead: still nothing crosses."""
    if xdist:
        pytest.importorskip("xdist")
    source = GPU_LEAKS
    if declared:
        source = source.replace(
            "@pytest.mark.isolated(timeout=120)", "@pytest.mark.isolated(timeout=120)\n@pytest.mark.gpus(1)"
        )
    pytester.makepyfile(test_state=source)
    pids = pytester.mkdir("pids")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PIDS", str(pids))
        mp.setenv("PYTORCH_NVML_BASED_CUDA_CHECK", "1")
        result = pytester.runpytest_subprocess(
            "-p", "no:cacheprovider", "--junitxml=out.xml", "-rA", *(["-n", "2"] if xdist else []), timeout=300
        )
    out = result.stdout.str()
    assert result.parseoutcomes() == {"passed": 2}, out
    modes = {name: p.get("rocm_isolation") for name, p in _props(pytester.path / "out.xml").items()}
    if declared and not xdist:  # test b's process was forked and its driver started while test a ran
        assert modes == {"test_a_fills_the_gpu": "forked", "test_b_gets_a_clean_gpu_process": "forked: standby, warmed"}
    elif declared:  # under -n 2 each worker may get one of the two: no next test to prepare for
        assert all(m in ("forked", "forked: standby, warmed") for m in modes.values()), modes
    else:
        assert modes == dict.fromkeys(modes, "forked"), modes
    seen = _pids(pytester.path / "pids")
    assert seen["a"][0] != seen["b"][0]
