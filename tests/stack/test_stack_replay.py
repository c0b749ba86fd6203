"""``pytest --rocm-stack FILE``: exactly the stack a file states, nothing from this machine (issue 25, item 3)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from importlib import metadata
from pathlib import Path

import pytest

from pytest_rocmcompat.stack.stack_replay import rocm_stack_option, stack_file_environment

NUMPY_FAILURE = "A module that was compiled using NumPy 1.x cannot be run in NumPy 2.1.0 as it may crash."
TESTS = f"""
import pytest

def test_import_torch():
    raise ImportError({NUMPY_FAILURE!r})
"""


def _props(pytester: pytest.Pytester) -> dict[str, str]:
    case = next(ET.parse(pytester.path / "junit.xml").getroot().iter("testcase"))
    return {p.get("name") or "": p.get("value") or "" for p in case.iter("property")}


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    pytester.makepyfile(test_stack=TESTS)
    return pytester.runpytest("-p", "no:cacheprovider", "--junitxml", "junit.xml", "-rA", *args)


def test_the_host_has_what_the_partial_stack_lacks() -> None:
    """The premise: this machine has NumPy 2, which the partial stack below does not list."""
    assert int(metadata.version("numpy").split(".")[0]) >= 2


def test_a_partial_stack_reports_nothing_about_packages_it_does_not_contain(pytester: pytest.Pytester) -> None:
    pytester.makefile(".txt", requirements="torch==2.2.2\n")
    result = _run(pytester, "--rocm-stack=requirements.txt")
    result.assert_outcomes(failed=1)  # no numpy in the stack: the NumPy rule stays silent
    props = _props(pytester)
    assert "rocm_rule" not in props and props["rocm_diagnosis"].startswith("numpy2-abi: ")  # named, not claimed
    result.stdout.fnmatch_lines(["*environment*replay*requirements.txt*"])
    assert "numpy" not in result.stdout.str().split("rocmcompat summary", 1)[1].split("outcomes", 1)[0]


def test_the_same_stack_with_the_package_is_judged(pytester: pytest.Pytester) -> None:
    pytester.makefile(".txt", requirements="torch==2.2.2\nnumpy==2.1.0\n")
    result = _run(pytester, "--rocm-stack=requirements.txt")
    result.assert_outcomes(xfailed=1)
    assert _props(pytester)["rocm_rule"] == "numpy2-torch-built-against-numpy1"


def test_rocm_set_keeps_its_meaning_on_top(pytester: pytest.Pytester) -> None:
    pytester.makefile(".txt", requirements="torch==2.2.2\n")
    result = _run(pytester, "--rocm-stack=requirements.txt", "--rocm-set", "lib.numpy=2.1.0")
    result.assert_outcomes(xfailed=1)
    assert _props(pytester)["rocm_rule"] == "numpy2-torch-built-against-numpy1"


def test_an_unpinned_requirement_is_a_usage_error_naming_file_and_line(pytester: pytest.Pytester) -> None:
    pytester.makefile(".txt", requirements="torch==2.2.2\nnumpy>=2\n")
    result = _run(pytester, "--rocm-stack=requirements.txt")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--rocm-stack*requirements.txt:2*"])
    assert "Traceback" not in result.stderr.str()


def test_the_option_records_exactly_the_file(tmp_path) -> None:
    req = tmp_path / "requirements.txt"
    req.write_text("torch==2.5.1+rocm6.2\nvllm==0.6.3\n", encoding="utf-8")
    _, env = stack_file_environment(str(req))
    assert env.platform == "rocm" and env.libraries == {"vllm": "0.6.3"} and env.source == "replay"
    with open(rocm_stack_option(str(req)), encoding="utf-8") as fh:
        recorded = json.load(fh)
    assert recorded["torch"] == "2.5.1+rocm6.2" and recorded["libraries"] == {"vllm": "0.6.3"}
    assert rocm_stack_option(str(req)) == rocm_stack_option(str(req))  # parsed twice, written once


def test_the_recorded_file_is_private_unguessable_and_gone_at_exit(tmp_path) -> None:
    """Recorded with mkstemp (a name nobody can plant in a shared /tmp), 0600, removed when the
    process that recorded it exits (it used to stay in /tmp for good under a predictable name)."""
    req = tmp_path / "requirements.txt"
    req.write_text("torch==2.5.1+rocm6.2\n", encoding="utf-8")
    code = (
        "import os, sys\n"
        "from pytest_rocmcompat.stack.stack_replay import rocm_stack_option\n"
        f"out = rocm_stack_option({str(req)!r})\n"
        "print(out)\n"
        "print(oct(os.stat(out).st_mode & 0o777))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "TMPDIR": str(tmp_path)},
    )
    assert proc.returncode == 0, proc.stderr
    out, mode = proc.stdout.split()
    assert out.endswith("-requirements.txt.json") and Path(out).parent == tmp_path
    assert mode == "0o600"
    assert not Path(out).exists(), "the recorded stack outlived its process"


def test_a_collect_env_report_is_replayed_with_its_gpus(pytester: pytest.Pytester) -> None:
    """A real report (H100 PCIe, torch 2.0.1+cu117: no sm_90 kernels) replayed: its GPU's failure is known-bad."""
    report = Path(__file__).parent.parent / "data" / "collect_env" / "nvidia_h100pcie_torch2.0.1_pt110153.txt"
    (pytester.path / "collect_env.txt").write_text(report.read_text(encoding="utf-8"), encoding="utf-8")
    pytester.makepyfile(
        test_gpu="""
import pytest

@pytest.mark.gpus(1)
def test_matmul():
    raise RuntimeError("CUDA error: no kernel image is available for execution on the device")

@pytest.mark.gpus(1)
def test_other():
    raise ValueError("a genuinely different regression")
"""
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-rA", "--rocm-stack=collect_env.txt")
    result.assert_outcomes(xfailed=1, failed=1)
    result.stdout.fnmatch_lines(["*environment: platform=cuda arch=sm_90 x1*torch=2.0.1+cu117*"])


def test_standard_input_is_refused_under_pytest(pytester: pytest.Pytester) -> None:
    result = _run(pytester, "--rocm-stack=-")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--rocm-stack: standard input (-) is not read under pytest*"])


def test_nvidias_cuda_wheels_say_the_stack_is_cuda(tmp_path: Path) -> None:
    """An untagged torch beside nvidia-*-cu12 wheels (what PyPI's CUDA torch installs) is a CUDA stack."""
    (tmp_path / "r.txt").write_text("torch==2.5.1\nnvidia-nccl-cu12==2.21.5\n", encoding="utf-8")
    assert stack_file_environment(str(tmp_path / "r.txt"))[1].platform == "cuda"
    (tmp_path / "r.txt").write_text("torch==2.5.1\nnumpy==1.26.4\n", encoding="utf-8")
    assert stack_file_environment(str(tmp_path / "r.txt"))[1].platform == "cpu"
    (tmp_path / "r.txt").write_text("torch==2.5.1+rocm6.2\nnvidia-nccl-cu12==2.21.5\n", encoding="utf-8")
    assert stack_file_environment(str(tmp_path / "r.txt"))[1].platform == "rocm"  # the build's own tag first
