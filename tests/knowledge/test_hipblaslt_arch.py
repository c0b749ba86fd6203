"""``hipblaslt-arch-unsupported``: hipBLASLt asked for on a GPU its release has no kernels for."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import hipblaslt_arch
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
ASK = "env.TORCH_BLAS_PREFER_HIPBLASLT=1"


def _found(*stack: str, platform: str = "rocm") -> list[Finding]:
    env = apply_overrides(BASE, [f"platform={platform}", *stack])
    return [f for f in evaluate(env) if f.check == hipblaslt_arch.ID]


@pytest.mark.parametrize(
    ("stack", "problem"),
    [
        # RDNA2 and Vega: in no hipBLASLt build of any release
        (("arch=gfx1030", "torch=2.5.1+rocm6.2"), "hipBLASLt of ROCm 6.2 has no kernels for gfx1030"),
        (("arch=gfx906", "rocm=7.1.0"), "no hipBLASLt release has kernels for gfx906"),
        # RDNA3 from 6.2, RDNA4 and MI100 from 6.3, MI300 from 5.7
        (("arch=gfx1100", "torch=2.4.1+rocm6.1"), "hipBLASLt of ROCm 6.1 has no kernels for gfx1100"),
        (("arch=gfx1201", "rocm=6.2.4"), "hipBLASLt of ROCm 6.2 has no kernels for gfx1201"),
        (("arch=gfx908", "torch=2.5.1+rocm6.2"), "hipBLASLt of ROCm 6.2 has no kernels for gfx908"),
        # the override makes the runtime load the named processor's kernels
        (
            ("arch=gfx90a", "rocm=6.2", "env.HSA_OVERRIDE_GFX_VERSION=10.3.0"),
            "gfx90a (as gfx1030 by HSA_OVERRIDE_GFX_VERSION)",
        ),
    ],
)
def test_asking_for_hipblaslt_on_an_unserved_gpu_is_a_risk(stack: tuple[str, ...], problem: str) -> None:
    (finding,) = _found(*stack, ASK)
    assert problem in finding.reason
    assert finding.reason.startswith("TORCH_BLAS_PREFER_HIPBLASLT=1 asks torch for hipBLASLt")
    # torch builds with the arch gate fall back to hipBLAS with a warning: only a predicted failure confirms it
    assert finding.uncertain and finding.markers == ("gpus",) and "hipblaslt" in finding.uses


def test_the_addmm_switch_asks_for_it_too() -> None:
    (finding,) = _found("arch=gfx1030", "rocm=6.0.2", "env.DISABLE_ADDMM_HIP_LT=0")
    assert finding.reason.startswith("DISABLE_ADDMM_HIP_LT=0 asks torch for hipBLASLt")


@pytest.mark.parametrize(
    "stack",
    [
        ("arch=gfx942", "torch=2.5.1+rocm6.2", ASK),
        ("arch=gfx90a", "torch=2.4.1+rocm6.1", ASK),
        ("arch=gfx942", "rocm=5.7.1", ASK),
        ("arch=gfx1100", "rocm=6.2.0", ASK),
        ("arch=gfx908", "rocm=6.3.1", ASK),
        ("arch=gfx1030", "rocm=6.2", "env.HSA_OVERRIDE_GFX_VERSION=11.0.0", ASK),  # loads gfx1100's kernels
        ("arch=gfx1151", "rocm=7.0.0", ASK),  # a release after the table, a GPU later lists name: not judged
        ("arch=gfx90a", ASK),  # in every tabled release
        ("rocm=6.1", ASK),  # no arch: not judged
    ],
)
def test_a_served_or_unjudged_stack_is_not_found(stack: tuple[str, ...]) -> None:
    assert _found(*stack) == []


def test_nothing_asked_reaches_only_tests_that_use_hipblaslt() -> None:
    """torch falls back to hipBLAS by itself: the stack alone is no problem, code calling hipBLASLt is."""
    (finding,) = _found("arch=gfx1030", "torch=2.5.1+rocm6.2")
    assert finding.conditional and not finding.uncertain
    assert finding.uses == ("hipblaslt",) and finding.markers == () and finding.nodeids == ()
    assert finding.link == "https://github.com/ROCm/hipBLASLt/blob/rocm-6.2.0/CMakeLists.txt"


@pytest.mark.parametrize("value", ["0", "true"])  # asked not to; torch reads only 0 and 1
def test_a_variable_that_does_not_ask_leaves_only_code_that_uses_hipblaslt(value: str) -> None:
    (finding,) = _found("arch=gfx1030", "torch=2.5.1+rocm6.2", f"env.TORCH_BLAS_PREFER_HIPBLASLT={value}")
    assert finding.conditional and finding.markers == () and finding.uses == ("hipblaslt",)


def test_an_unknown_release_is_a_risk_only_for_a_gpu_some_releases_lack() -> None:
    (finding,) = _found("arch=gfx1100", ASK)
    assert finding.uncertain and "gfx1100: in ROCm 6.2, 6.3 only" in finding.reason
    (never,) = _found("arch=gfx1030")  # no release has it: no doubt, still only code that uses hipBLASLt
    assert never.conditional and not never.uncertain
    assert never.reason == "no hipBLASLt release has kernels for gfx1030"


def test_a_cuda_stack_is_not_judged() -> None:
    assert _found("arch=sm_90", "torch=2.5.1+cu124", ASK, platform="cuda") == []


@pytest.mark.parametrize(
    "message",
    [
        "UserWarning: Attempting to use hipBLASLt on an unsupported architecture! Overriding blas backend to hipblas",
        "RuntimeError: Attempting to use hipBLASLt on a unsupported architecture!",
        "[hipBLASLt] Tensile::FATAL: Architecture gfx1151 not supported",
        "rocblaslt error: Cannot read /opt/rocm/lib/hipblaslt/library/TensileLibrary_lazy_gfx1030.dat: "
        "No such file or directory",
    ],
)
def test_the_signature_claims_hipblaslt_s_own_messages(message: str) -> None:
    from pytest_rocmcompat.knowledge.rules.signature import compile_signature

    assert compile_signature(hipblaslt_arch.PREDICTS).search(message) is not None


@pytest.mark.parametrize(
    "message",
    [
        "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasLtMatmul( ltHandle, ...)`",
        "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory",
        "Attempting to use CK on an unsupported architecture! Cannot set backend to CK",
        "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
    ],
)
def test_the_signature_stays_narrow(message: str) -> None:
    from pytest_rocmcompat.knowledge.rules.signature import compile_signature

    assert compile_signature(hipblaslt_arch.PREDICTS).search(message) is None
