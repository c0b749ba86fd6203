"""``rocm-gpu-unsupported``: AMD's GPU table and the HIP runtime's ISA table of each ROCm release."""

from __future__ import annotations

import itertools

import pytest

from pytest_rocmcompat.knowledge.checks import rocblas_arch, rocm_gpu_support
from pytest_rocmcompat.knowledge.checks.registry import PREDICTS, evaluate
from pytest_rocmcompat.knowledge.checks.rocm_gpu_support_data import LISTED, RUNTIME
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")


def _found(*stack: str) -> list[str]:
    env = apply_overrides(BASE, ["platform=rocm", *stack])
    return [f.reason for f in evaluate(env) if f.check == rocm_gpu_support.ID]


# ---- the tables -------------------------------------------------------------------------------
def test_every_row_names_its_source_at_the_release() -> None:
    for release, listed in LISTED.items():
        assert listed.source.startswith("https://github.com/ROCm/"), release
        assert release in listed.source or (release == "6.3" and "rocm-6.3.0" in listed.source)
        statuses = (listed.supported, listed.deprecated, listed.unsupported)
        assert all(t.startswith("gfx") for s in statuses for t in s)
        assert not (listed.supported & listed.unsupported) and not (listed.deprecated & listed.unsupported)
    for release, (known, source) in RUNTIME.items():
        assert source.startswith("https://github.com/ROCm/") and f"rocm-{release}.0/" in source, release
        assert all(t.startswith("gfx") for t in known)


def test_the_runtime_only_gains_processors_release_by_release() -> None:
    releases = list(RUNTIME)
    for older, newer in itertools.pairwise(releases):
        assert RUNTIME[older][0] <= RUNTIME[newer][0], (older, newer)
    assert RUNTIME["5.3"][0] - RUNTIME["5.2"][0] == {"gfx1100", "gfx1102"}
    assert RUNTIME["5.7"][0] - RUNTIME["5.6"][0] == {"gfx940", "gfx941", "gfx942"}
    assert RUNTIME["6.2"][0] - RUNTIME["6.1"][0] == {"gfx1200", "gfx1201"}


# ---- both ways ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("stack", "problem"),
    [
        # the HIP runtime of a release before the GPU: no device (releases rocBLAS' table does not judge)
        (("arch=gfx1100", "rocm=5.2.3"), "the HIP runtime of ROCm 5.2 has no entry for gfx1100"),
        (("arch=gfx942", "torch=1.13.1+rocm5.2"), "the HIP runtime of ROCm 5.2 has no entry for gfx942"),
        (("arch=gfx1101", "rocm=5.3.3"), "ROCm 5.3 has no entry for gfx1101"),
        (("arch=gfx1151", "rocm=5.0.2"), "ROCm 5.0 has no entry for gfx1151"),
        # AMD's table marks MI25/Vega 10 unsupported
        (("arch=gfx900", "rocm=6.2.0"), "ROCm 6.2 marks gfx900 unsupported"),
        (("arch=gfx900", "torch=2.3.0+rocm5.7"), "ROCm 5.7 marks gfx900 unsupported"),
        (("arch=gfx900", "rocm=6.3.1"), "ROCm 6.3 marks gfx900 unsupported"),
        (("arch=gfx1030", "rocm=6.1.2", "env.HSA_OVERRIDE_GFX_VERSION=9.0.0"), "gfx1030 (as gfx900 by HSA_OVERR"),
        (
            ("arch=gfx1100", "rocm=5.2.0", "env.HSA_OVERRIDE_GFX_VERSION=11.0.0"),
            "has no entry for gfx1100:",
        ),  # same arch
    ],
)
def test_an_unsupported_pair_is_found(stack: tuple[str, ...], problem: str) -> None:
    (found,) = _found(*stack)
    assert problem in found


@pytest.mark.parametrize(
    "stack",
    [
        ("arch=gfx1030", "rocm=6.2.0"),  # listed
        ("arch=gfx906", "rocm=6.2.4"),  # deprecated still works
        ("arch=gfx1101", "rocm=6.1.2"),  # RX 7800: unlisted, but the release knows and builds for it
        ("arch=gfx1031", "rocm=5.2.3"),  # RX 6700: unlisted, known to the runtime: commonly run
        ("arch=gfx1010", "rocm=6.0.0"),  # RDNA1: unlisted, rocBLAS builds it
        ("arch=gfx1100", "rocm=5.3.0"),  # the runtime knows gfx1100 from 5.3
        ("arch=gfx942", "rocm=5.7.1"),
        # judged as gfx1030, which 5.2 knows (hsa-override-invalid names the foreign family)
        ("arch=gfx1100", "rocm=5.2.0", "env.HSA_OVERRIDE_GFX_VERSION=10.3.0"),
        ("arch=gfx900", "rocm=5.5.1"),  # no table recorded for 5.5
        ("arch=gfx900", "rocm=7.0.2"),  # nor after 6.3
        ("arch=gfx1103", "torch=2.10.0a0+rocm7.11.0a20251211"),  # TheRock's own builds: not judged
        ("rocm=6.1",),  # no arch
        ("arch=gfx900",),  # no ROCm release
    ],
)
def test_a_supported_or_unknown_pair_is_silent(stack: tuple[str, ...]) -> None:
    assert _found(*stack) == []


def test_what_rocblas_already_reports_is_left_to_it() -> None:
    """gfx1103 on 6.1: the runtime knows it, rocBLAS has no kernels for it; one finding, rocBLAS'."""
    env = apply_overrides(BASE, ["platform=rocm", "arch=gfx1103", "rocm=6.1.0"])
    checks = {f.check for f in evaluate(env)}
    assert rocblas_arch.ID in checks and rocm_gpu_support.ID not in checks


def test_a_gpu_the_runtime_drops_is_the_runtime_s_finding_alone() -> None:
    """gfx1201 on 6.1 (and gfx942 on 5.6): unknown to the runtime, so never enumerated and rocBLAS never
    runs; one finding, this check's (whose texts include rocBLAS'), not two."""
    for stack in (["arch=gfx1201", "rocm=6.1.0"], ["arch=gfx942", "rocm=5.6.1"]):
        env = apply_overrides(BASE, ["platform=rocm", *stack])
        checks = {f.check for f in evaluate(env)}
        assert rocm_gpu_support.ID in checks and rocblas_arch.ID not in checks, stack


def test_torch_s_bundled_runtime_is_judged_before_the_system_rocm() -> None:
    assert _found("arch=gfx1100", "torch=1.13.1+rocm5.2", "rocm=6.2.0")
    assert _found("arch=gfx1100", "torch=2.5.1+rocm6.2", "rocm=5.2.0") == []


def test_a_cuda_stack_is_not_judged() -> None:
    env = apply_overrides(BASE, ["platform=cuda", "arch=sm_90", "rocm=5.2"])
    assert [f for f in evaluate(env) if f.check == rocm_gpu_support.ID] == []


def test_the_finding_reaches_gpu_tests_and_names_its_source() -> None:
    env = apply_overrides(BASE, ["platform=rocm", "arch=gfx900", "rocm=6.1.0"])
    (finding,) = [f for f in evaluate(env) if f.check == rocm_gpu_support.ID]
    assert finding.markers == ("gpus",) and not finding.conditional and not finding.everything
    assert finding.link == LISTED["6.1"].source


# ---- the predicted messages are the libraries' own -----------------------------------------------
# (message as the source prints it, with its printf arguments filled in, source file at its tag)
LIBRARY_MESSAGES = [
    ("no ROCm-capable device is detected", "ROCm/clr rocm-6.2.0 hipamd/src/hip_error.cpp"),
    ("hipErrorNoDevice", "ROCm/clr rocm-6.2.0 hipamd/src/hip_error.cpp"),
    ("no kernel image is available for execution on the device", "ROCm/clr rocm-6.2.0 hipamd/src/hip_error.cpp"),
    ("invalid device function", "ROCm/clr rocm-6.2.0 hipamd/src/hip_error.cpp"),
    ("hipErrorInvalidDeviceFunction", "ROCm/clr rocm-6.2.0 hipamd/src/hip_error.cpp"),
    (
        "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
        "ROCm/clr rocm-6.2.0 hipamd/src/hip_code_object.cpp",
    ),
    (
        "Unsupported HSA device gfx1100 (PCI ID 744c) for ISA amdgcn-amd-amdhsa--gfx1100",
        "ROCm/ROCclr rocm-5.2.0 device/rocm/rocdevice.cpp",
    ),
    (
        "Memory access fault by GPU node-1 (Agent handle: 0x55d3c8c0) on address 0x7f00000000. "
        "Reason: Page not present or supervisor privilege.",
        "ROCm/ROCR-Runtime rocm-6.2.0 src/core/runtime/runtime.cpp",
    ),
    ("RuntimeError: No HIP GPUs are available", "pytorch c10/cuda/CUDAFunctions.cpp (hipified)"),
    (
        "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory "
        "for GPU arch : gfx900",
        "ROCm/rocBLAS library/src/tensile_host.cpp",
    ),
]


@pytest.mark.parametrize(("message", "source"), LIBRARY_MESSAGES)
def test_the_signature_matches_the_library_message(message: str, source: str) -> None:
    assert compile_signature(PREDICTS[rocm_gpu_support.ID]).search(message) is not None, source


@pytest.mark.parametrize(
    "message",
    [
        "ValueError: a genuinely different regression",
        "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 20.00 MiB",
        "rocBLAS error: Could not initialize Tensile host: No devices found",  # no GPU visible at all
        "AssertionError: assert 3 == 4",
    ],
)
def test_the_signature_does_not_claim_a_foreign_failure(message: str) -> None:
    assert compile_signature(PREDICTS[rocm_gpu_support.ID]).search(message) is None


# ---- through pytest: predicted -> known-bad, unrelated -> fail with the likely cause ------------
def test_predicted_failure_is_known_bad_and_an_unrelated_one_stays_fail(pytester: pytest.Pytester) -> None:
    stack = ("platform=rocm", "arch=gfx900", "torch=2.3.0+rocm6.0", "torch_archs=gfx900,gfx906")  # fmt: skip
    predicted, unrelated = predicted_and_unrelated(pytester, "HIP error: invalid device function", stack)
    assert predicted["rocm_outcome"] == "known-bad" and predicted["rocm_rule"] == rocm_gpu_support.ID
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated
    assert unrelated["rocm_diagnosis"].startswith(f"{rocm_gpu_support.ID}: ROCm 6.0 marks gfx900 unsupported")
