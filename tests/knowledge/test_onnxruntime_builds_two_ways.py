"""``onnxruntime-build-mismatch`` through pytest and ``rocmcompat check`` (once the check is registered)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_rocmcompat.knowledge.checks import onnxruntime_builds as ort
from pytest_rocmcompat.knowledge.checks import registry
from tests.knowledge.two_ways import UNRELATED, predicted_and_unrelated, run_cases

pytestmark = pytest.mark.skipif(ort.ID not in registry.CHECKS, reason=f"{ort.ID} is not registered yet")

# verbatim: microsoft/onnxruntime#26996 (onnxruntime and onnxruntime-gpu both installed)
TWO_BUILDS = (
    "Specified provider ‘CUDAExecutionProvider’ is not in available provider names. Available providers: "
    "‘AzureExecutionProvider, CPUExecutionProvider’"
)
# verbatim: pykeio/ort#548 (a CUDA 12 build where only CUDA 13 is installed)
CUDA_12_ON_13 = (
    "[ONNXRuntimeError] : 1 : FAIL : Failed to load library "
    "/home/meh/devel/ort-cuda-13-fail/target/debug/libonnxruntime_providers_cuda.so with error: "
    "libcublasLt.so.12: cannot open shared object file: No such file or directory"
)


# verbatim: k2-fsa/sherpa-onnx#1110 (the ROCm provider library not finding a ROCm library it links)
ROCM_LIB = (
    "[ONNXRuntimeError] : 1 : FAIL : Failed to load library libonnxruntime_providers_rocm.so with error: "
    "libMIOpen.so.1: cannot open shared object file: No such file or directory"
)
# a ROCm 6.4 machine replayed from the recorded H100 (its GPU, platform and torch stated over it)
ROCM_6 = ("platform=rocm", "arch=gfx942", "rocm=6.4.1", "torch=2.7.1+rocm6.4")


@pytest.mark.parametrize(
    ("stack", "predicted", "reason"),
    [
        # two distributions (onnxruntime-gpu 1.27.0 matches the replayed CUDA 13): a risk, as which one owns
        # the files depends on the install order, so an unrelated failure carries no likely cause
        (("lib.onnxruntime=1.27.0", "lib.onnxruntime-gpu=1.27.0"), TWO_BUILDS, None),
        # the replayed H100's torch is 2.11.0+cu130: onnxruntime-gpu 1.23.2's wheel loads CUDA 12
        (("lib.onnxruntime-gpu=1.23.2",), CUDA_12_ON_13, "onnxruntime-gpu 1.23.2 (its PyPI wheel) needs CUDA 12"),
        (
            (*ROCM_6, "lib.onnxruntime-rocm=1.22.2.post3"),
            ROCM_LIB,
            "onnxruntime-rocm 1.22.2.post3 (its PyPI wheel) is built against ROCm 7.2.4",
        ),
    ],
)
def test_predicted_failure_is_known_bad_and_an_unrelated_one_stays_fail(
    pytester: pytest.Pytester, stack: tuple[str, ...], predicted: str, reason: str | None
) -> None:
    found, unrelated = predicted_and_unrelated(pytester, predicted, stack, uses="onnxruntime")
    assert found["rocm_outcome"] == "known-bad" and found["rocm_rule"] == ort.ID
    assert unrelated.get("rocm_outcome", "fail") == "fail" and "rocm_rule" not in unrelated
    if reason is None:
        assert "rocm_diagnosis" not in unrelated, unrelated
        return
    assert unrelated["rocm_diagnosis"].startswith(f"{ort.ID}: {reason}")
    assert UNRELATED not in unrelated["rocm_diagnosis"]


def test_the_other_findings_failure_is_not_claimed(pytester: pytest.Pytester) -> None:
    # two distributions, and onnxruntime-gpu 1.27.0 (CUDA 13) matches the replayed torch 2.11.0+cu130:
    # a CUDA library failure is not what this stack predicts
    stack = ("lib.onnxruntime=1.27.0", "lib.onnxruntime-gpu=1.27.0")
    cases = run_cases(pytester, CUDA_12_ON_13, stack, uses="onnxruntime")
    assert cases["test_predicted"].get("rocm_outcome", "fail") == "fail", cases["test_predicted"]
    assert "rocm_rule" not in cases["test_predicted"]
    # both findings on one stack: two rules (a certain one and a risk), each claiming only its own failures
    both = run_cases(pytester, TWO_BUILDS, ("lib.onnxruntime=1.23.2", "lib.onnxruntime-gpu=1.23.2"), uses="onnxruntime")
    assert both["test_predicted"]["rocm_rule"] == f"{ort.ID}:at-risk-own-messages"


def test_rocmcompat_check_finds_it_in_a_pip_freeze(tmp_path: Path) -> None:
    freeze = tmp_path / "freeze.txt"
    freeze.write_text(
        "torch==2.9.0+cu130\nonnxruntime==1.23.2\nonnxruntime-gpu==1.23.2\nnumpy==2.1.2\n", encoding="utf-8"
    )
    proc = subprocess.run(
        [sys.executable, "-m", "pytest_rocmcompat", "check", str(freeze), "--json"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr
    texts = [p["text"] for p in json.loads(proc.stdout)["problems"]]
    assert any(t.startswith(f"[{ort.ID}] onnxruntime 1.23.2 and onnxruntime-gpu 1.23.2") for t in texts), texts
    assert any("onnxruntime-gpu 1.23.2 (its PyPI wheel) needs CUDA 12" in t for t in texts), texts
