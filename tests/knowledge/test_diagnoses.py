"""Diagnoses: a failure no rule explains is named with its likely cause, on the terminal, in JUnit and reports."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_rocmcompat.cli.main import main
from pytest_rocmcompat.knowledge.diagnoses import TABLE, annotate, diagnose, diagnoses, headline_of
from pytest_rocmcompat.report.junit_read import read_run

# Verbatim failure texts from public reports (the diagnosis link or docs/known-bad-sources.md), one or more per class.
QUOTED: dict[str, list[str]] = {
    "nvls-multicast-bind": [
        "Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 "
        "'the operation cannot be performed in the present state'",
        "transport/nvls.cc:254 NCCL WARN Cuda failure 401 'the operation cannot be performed in the present state'",
    ],
    "dynamo-python-gate": [
        "RuntimeError: Dynamo is not supported on Python 3.12+",
        "RuntimeError: Python 3.12+ not yet supported for torch.compile",
    ],
    "driver-too-old": [
        "RuntimeError: The NVIDIA driver on your system is too old (found version 11040).",
        "CUDA driver version is insufficient for CUDA runtime version",
    ],
    "fp8-unsupported-arch": [
        'ValueError("type fp8e4nv not supported in this architecture. The supported fp8 dtypes are '
        "('fp8e4b15', 'fp8e5')\")",
        "AssertionError: fp8e4nv data type is not supported on CUDA arch < 89",
        "RuntimeError: torch._scaled_mm is only supported on CUDA devices with compute capability >= 9.0 or 8.9, "
        "or ROCm MI300+",
    ],
    "no-kernel-for-arch": [
        "RuntimeError: CUDA error: no kernel image is available for execution on the device",
        "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
        "RuntimeError: HIP error: invalid device function",
        "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.",
        "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory",
    ],
    "flash-attn-arch-unsupported": ["RuntimeError: FlashAttention only supports Ampere GPUs or newer."],
    "bf16-unsupported-arch": ["Bfloat16 is only supported on GPUs with compute capability of at least 8.0"],
    "extension-abi-mismatch": [
        "ImportError: /usr/lib/python3.10/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: "
        "undefined symbol: _ZN3c104cuda9SetDeviceEi",
    ],
    "numpy2-abi": [
        "A module that was compiled using NumPy 1.x cannot be run in\nNumPy 2.0.0 as it may crash.",
        "UserWarning: Failed to initialize NumPy: _ARRAY_API not found",
    ],
    "torch-missing-dtype": [
        "AttributeError: module 'torch' has no attribute 'int1'",
        "AttributeError: module 'torch' has no attribute 'float8_e4m3fn'",
    ],
    "no-gpu-visible": ["RuntimeError: No HIP GPUs are available"],
    "hip-memory-access-fault": [
        "Memory access fault by GPU node-2 (Agent handle: 0x56468ab3bb50) on address 0x7fe55fb03000. "
        "Reason: Page not present or supervisor privilege.",
    ],
    # rocminfo and amd-smi on device files closed to the user (test_rocm_access_denied.py has all, with sources)
    "gpu-device-access-denied": [
        "Unable to open /dev/kfd read-write: Permission denied",
        "PermissionError: [Errno 13] Permission denied: '/dev/kfd'",
    ],
    # the kernel's own texts (kfd_device.c, amdgpu_kms.c, firmware_loader: test_rocm_kernel_texts.py has all)
    "amdgpu-driver-init": [
        "kfd kfd: amdgpu: skipped device 1002:67e3, PCI rejects atomics 730<0",
        "amdgpu 0000:03:00.0: Fatal error during GPU init",
        "Direct firmware load for amdgpu/gc_11_0_0_mes_2.bin failed with error -2",
    ],
    "hsa-status-error": ["HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources"],
    "device-side-assert": ["RuntimeError: CUDA error: device-side assert triggered"],
    "illegal-memory-access": ["RuntimeError: CUDA error: an illegal memory access was encountered"],
    "gpu-out-of-memory": [
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB",
        "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB",
    ],
    "collective-timeout": [
        "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, "
        "NumelIn=466119168, NumelOut=466119168, Timeout(ms)=600000) ran for 600004 milliseconds before timing out.",
    ],
    "nccl-error": [
        "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled system error"
    ],
    "segmentation-fault": ["Fatal Python error: Segmentation fault"],
}


def test_every_class_has_cause_fix_and_link() -> None:
    ids = [d.id for d in diagnoses()]
    assert len(ids) == len(set(ids)) == len(TABLE)
    for d in diagnoses():
        assert d.cause and d.fix and d.link.startswith("https://"), d.id
        assert d.property_value().startswith(f"{d.id}: {d.cause}; fix: {d.fix}; see {d.link}")
        assert headline_of(d.property_value()) == d.headline()


@pytest.mark.parametrize(("expected", "text"), [(k, t) for k, texts in QUOTED.items() for t in texts])
def test_quoted_texts_get_their_class(expected: str, text: str) -> None:
    found = diagnose(f"Traceback (most recent call last):\n  ...\n{text}\n")
    assert found is not None and found.id == expected


def test_every_class_is_exercised() -> None:
    assert set(QUOTED) == {d.id for d in diagnoses()}


@pytest.mark.parametrize(
    "text",
    [
        "AssertionError: assert 1 == 2",
        "ValueError: invalid literal for int() with base 10: 'x'",
        "ImportError: No module named 'flash_attn'",
        "RuntimeError: expected scalar type Float but found Half",
    ],
)
def test_ordinary_failures_get_no_diagnosis(text: str) -> None:
    assert diagnose(text) is None


def test_patterns_have_no_nested_quantifiers() -> None:
    """Linear-time: no quantified group (``(...)+``, ``(...)*``, ``(...){n,}``), so no catastrophic backtracking."""
    for d in diagnoses():
        assert not re.search(r"\)[+*{]", d.pattern.pattern), d.id


def test_annotate_is_idempotent() -> None:
    once = annotate("RuntimeError: boom", "x: y")
    assert once == "[diagnosis: x: y] RuntimeError: boom"
    assert annotate(once, "x: y") == once


PROJECT = """
import pytest

def test_no_kernel():
    raise RuntimeError("CUDA error: no kernel image is available for execution on the device")

def test_plain():
    assert 1 == 2

def test_ok():
    pass
"""


def test_diagnosis_reaches_terminal_junit_and_reports(pytester: pytest.Pytester, tmp_path: Path) -> None:
    pytester.makepyfile(test_demo=PROJECT)
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-rf", "--junitxml", "junit.xml", "--rocm-report", "COMPAT.md"
    )
    result.assert_outcomes(failed=2, passed=1)
    result.stdout.re_match_lines([r"FAILED \[diagnosis: no-kernel-for-arch\] test_demo\.py::test_no_kernel"])
    result.stdout.re_match_lines([r"FAILED test_demo\.py::test_plain"])
    result.stdout.re_match_lines([r"diagnosis no-kernel-for-arch: likely cause: .*; usual fix: .*; see https://"])

    run = read_run(str(pytester.path / "junit.xml"))
    cases = {c.test.split("::")[-1]: c for c in run.cases}
    assert cases["test_no_kernel"].signature == "no-kernel-for-arch"
    assert cases["test_no_kernel"].message.startswith("[diagnosis: no-kernel-for-arch: the build carries no GPU")
    assert not cases["test_plain"].message.startswith("[diagnosis")
    junit = (pytester.path / "junit.xml").read_text(encoding="utf-8")
    assert junit.count('name="rocm_diagnosis"') == 1

    compat = (pytester.path / "COMPAT.md").read_text(encoding="utf-8")
    assert "[diagnosis: no-kernel-for-arch: " in compat

    merged = tmp_path / "MERGED.md"
    assert main(["report", str(pytester.path / "junit.xml"), "-o", str(merged)]) == 0
    # the merged report gives the likely cause a column of its own (the message without the tag)
    merged_text = merged.read_text(encoding="utf-8")
    assert "no-kernel-for-arch: the build carries no GPU" in merged_text, merged_text


def test_diagnosis_under_xdist(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_demo=PROJECT)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2", "-rf")
    result.assert_outcomes(failed=2, passed=1)
    result.stdout.re_match_lines([r"FAILED \[diagnosis: no-kernel-for-arch\] test_demo\.py::test_no_kernel"])
