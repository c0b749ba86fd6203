"""``hipblaslt-arch-unsupported``: torch asks hipBLASLt for GEMMs on a GPU it has no kernels for."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import hipblaslt_arch
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
ASK = "env.TORCH_BLAS_PREFER_HIPBLASLT=1"


def _found(*stack: str, platform: str = "rocm") -> list[Finding]:
    env = apply_overrides(BASE, [f"platform={platform}", *stack])
    return [f for f in evaluate(env) if f.check == hipblaslt_arch.ID]


@pytest.mark.parametrize(
    ("stack", "gpu"),
    [
        # RDNA2 and Vega: in no hipBLASLt build nor torch list of any release
        (("arch=gfx1030", "torch=2.5.1+rocm6.2"), "gfx1030 on ROCm 6.2"),
        (("arch=gfx906", "rocm=7.1.0", "torch=2.9.0"), "gfx906 on any ROCm release"),
        # hipBLASLt: RDNA3 from 6.2, RDNA4 and MI100 from 6.3; torch's list: both only for ROCm 6.3+
        (("arch=gfx1100", "torch=2.4.1+rocm6.1"), "gfx1100 on ROCm 6.1"),
        (("arch=gfx1100", "torch=2.5.1+rocm6.2"), "gfx1100 on ROCm 6.2"),
        (("arch=gfx1201", "rocm=6.2.4"), "gfx1201 on ROCm 6.2"),
        (("arch=gfx908", "torch=2.3.1+rocm6.0"), "gfx908 on ROCm 6.0"),
        (("arch=gfx950", "rocm=6.3.2"), "gfx950 on ROCm 6.3"),
        # the override makes the runtime load the named processor's kernels
        (
            ("arch=gfx90a", "rocm=6.2", "env.HSA_OVERRIDE_GFX_VERSION=10.3.0"),
            "gfx90a (as gfx1030 by HSA_OVERRIDE_GFX_VERSION) on ROCm 6.2",
        ),
    ],
)
def test_asking_for_hipblaslt_on_an_unserved_gpu_is_found(stack: tuple[str, ...], gpu: str) -> None:
    (finding,) = _found(*stack, ASK)
    assert finding.reason.startswith("TORCH_BLAS_PREFER_HIPBLASLT=1 asks torch for hipBLASLt, and ")
    assert f"hipBLASLt does not serve {gpu}" in finding.reason
    assert not finding.uncertain and not finding.conditional
    assert finding.markers == ("gpus",) and finding.uses == ("hipblaslt",)


def test_the_addmm_switch_asks_for_it_too() -> None:
    (finding,) = _found("arch=gfx1030", "torch=2.3.1+rocm6.0", "env.DISABLE_ADDMM_HIP_LT=0")
    assert finding.reason.startswith("DISABLE_ADDMM_HIP_LT=0 asks torch for hipBLASLt")
    assert not finding.uncertain


@pytest.mark.parametrize(
    "stack",
    [
        ("arch=gfx942", "torch=2.5.1+rocm6.2", ASK),
        ("arch=gfx90a", "torch=2.4.1+rocm6.1", ASK),
        ("arch=gfx942", "rocm=5.7.1", ASK),
        ("arch=gfx1100", "torch=2.7.1+rocm6.3", ASK),  # torch's list has RDNA3 for ROCm 6.3+
        ("arch=gfx908", "torch=2.9.0+rocm6.3", ASK),
        ("arch=gfx1030", "rocm=6.3", "torch=2.7.1+rocm6.3", "env.HSA_OVERRIDE_GFX_VERSION=11.0.0", ASK),
        ("arch=gfx1151", "torch=2.10.0+rocm7.0", ASK),  # after the table: torch 2.10+ lists name it
        ("arch=gfx1030", "rocm=5.6", ASK),  # before 5.7 torch has no hipBLASLt
        ("arch=gfx90a", ASK),  # in every release's list
        ("arch=gfx1030", "torch=2.7.1+rocm6.3"),  # nothing asks: torch 2.7+ prefers it only on Instinct
        ("rocm=6.1", ASK),  # no arch: not judged
    ],
)
def test_a_served_or_unjudged_stack_reaches_no_gpu_test(stack: tuple[str, ...]) -> None:
    assert [f for f in _found(*stack) if f.markers] == []


@pytest.mark.parametrize(
    "stack",
    [
        ("arch=gfx1100", "torch=2.5.1+rocm6.3", ASK),  # ROCm 6.3's RDNA3 entries: torch's list from 2.6 on
        ("arch=gfx1100", ASK),  # no release named: served only in some builds
        ("arch=gfx1151", "rocm=7.1", ASK),  # no torch named: lists after 2.9 name it
    ],
)
def test_a_stack_that_may_or_may_not_route_it_is_a_risk(stack: tuple[str, ...]) -> None:
    (finding,) = _found(*stack)
    assert finding.uncertain and finding.markers == ("gpus",)
    assert "only in some builds the stack could be" in finding.reason


def test_torch_2_9_or_older_refuses_strix_on_any_rocm() -> None:
    """ROCm/ROCm#5643: torch 2.8.0+rocm7.1.0 on gfx1151 with TORCH_BLAS_PREFER_HIPBLASLT=1."""
    (finding,) = _found("arch=gfx1151", "rocm=7.1", "torch=2.8.0+rocm7.1.0.lw.git7a520360", ASK)
    assert not finding.uncertain and "does not serve gfx1151 on any ROCm release" in finding.reason
    assert finding.link == "https://github.com/ROCm/pytorch/pull/2742"
    assert _found("arch=gfx1151", "rocm=7.1", "torch=2.10.0+rocm7.1", ASK) == []


@pytest.mark.parametrize(
    "stack",
    [
        ("arch=gfx1030", "torch=2.5.1+rocm6.2"),  # torch 2.5 prefers hipBLASLt by itself, warns and falls back
        ("arch=gfx1030", "torch=2.3.1+rocm6.0"),
        ("arch=gfx1030", "torch=2.5.1+rocm6.2", "env.TORCH_BLAS_PREFER_HIPBLASLT=0"),
        ("arch=gfx1030", "torch=2.5.1+rocm6.2", "env.TORCH_BLAS_PREFER_HIPBLASLT=true"),  # torch reads 0/1 only
    ],
)
def test_nothing_asking_reaches_only_tests_that_use_hipblaslt(stack: tuple[str, ...]) -> None:
    (finding,) = _found(*stack)
    assert finding.conditional and not finding.uncertain
    assert finding.uses == ("hipblaslt",) and finding.markers == () and finding.nodeids == ()


def test_the_finding_names_the_release_s_targets() -> None:
    (finding,) = _found("arch=gfx1030", "torch=2.3.1+rocm6.0")
    assert finding.link == "https://github.com/ROCm/hipBLASLt/blob/rocm-6.0.0/CMakeLists.txt"


def test_a_cuda_stack_or_a_cuda_torch_is_not_judged() -> None:
    assert _found("arch=sm_90", "torch=2.5.1+cu124", ASK, platform="cuda") == []
    assert _found("arch=gfx1030", "torch=2.5.1+cu124", ASK) == []  # no hipBLASLt in it


@pytest.mark.parametrize(
    "message",
    [
        # torch's Context.cpp warning (its TORCH_WARN_ONCE: https://github.com/pytorch/pytorch/pull/128753,
        # seen in ROCm/ROCm#4440) and Blas.cpp check (quoted in https://github.com/ROCm/hipBLASLt/issues/1243)
        "UserWarning: Attempting to use hipBLASLt on an unsupported architecture! Overriding blas backend to hipblas",
        "RuntimeError: Attempting to use hipBLASLt on a unsupported architecture!",
        # hipBLASLt's TensileCreateLibrary printExit("Architecture %s not supported" % arch) and Common.py's
        # print("Tensile::FATAL: %s" % message):
        # https://github.com/ROCm/hipBLASLt/blob/rocm-6.2.0/tensilelite/Tensile/TensileCreateLibrary.py#L1341
        "Tensile::FATAL: Architecture gfx1030 not supported",
        # the form of rocblaslt tensile_host.cpp's 'Cannot read ' << tensileLibPath << ': ' << strerror
        "rocblaslt error: Cannot read /opt/rocm/lib/hipblaslt/library/TensileLibrary_lazy_gfx1030.dat: "
        "No such file or directory",
    ],
)
def test_the_signature_claims_hipblaslt_s_own_messages(message: str) -> None:
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
    assert compile_signature(hipblaslt_arch.PREDICTS).search(message) is None


@pytest.mark.parametrize(
    ("stack", "gpu", "link"),
    [
        # torch's list names gfx908 only from 2.9 (pytorch/pytorch#159092), on any ROCm
        (("arch=gfx908", "torch=2.7.1+rocm6.3"), "gfx908", hipblaslt_arch.SOURCE_GFX908),
        (("arch=gfx908", "rocm=7.0.2", "torch=2.8.0+rocm6.4"), "gfx908", hipblaslt_arch.SOURCE_GFX908),
        # gfx1103 only from 2.11 (pytorch/pytorch#172180); gfx1152/1153/1250 in no list of 2.10 or older
        (("arch=gfx1103", "torch=2.10.0+rocm7.0"), "gfx1103", hipblaslt_arch.SOURCE_GFX1103),
        (("arch=gfx1152", "rocm=7.1", "torch=2.10.0+rocm7.1"), "gfx1152", hipblaslt_arch.SOURCE_GFX1103),
        # the MI300 engineering parts left torch's list in release/2.6 (ROCm/pytorch#2053)
        (("arch=gfx940", "torch=2.7.1+rocm6.3"), "gfx940", hipblaslt_arch.SOURCE_GATE_63),
    ],
)
def test_torch_s_own_list_refuses_a_gpu_by_torch_release(stack: tuple[str, ...], gpu: str, link: str) -> None:
    (finding,) = _found(*stack, ASK)
    assert not finding.uncertain and f"does not serve {gpu} on any ROCm release" in finding.reason
    assert finding.link == link


@pytest.mark.parametrize(
    "stack",
    [
        ("arch=gfx908", "torch=2.9.0+rocm6.4", ASK),
        ("arch=gfx908", "rocm=7.0", "torch=2.10.0+rocm7.0", ASK),
        ("arch=gfx1103", "rocm=7.1", "torch=2.11.0+rocm7.1", ASK),
        ("arch=gfx940", "torch=2.5.1+rocm6.2", ASK),  # still in 2.5's list (pytorch/pytorch#128753)
    ],
)
def test_a_torch_whose_list_names_the_gpu_is_served(stack: tuple[str, ...]) -> None:
    assert _found(*stack) == []


@pytest.mark.parametrize(
    "stack",
    [
        ("arch=gfx908", "rocm=6.4", ASK),  # no torch named: 2.9+ lists it, older ones do not
        ("arch=gfx1103", "rocm=7.0", ASK),
        ("arch=gfx1250", "rocm=7.1", "torch=2.12.0+rocm7.1", ASK),  # no list read names it from 2.11 on
    ],
)
def test_an_unknown_torch_or_an_unread_list_is_a_risk(stack: tuple[str, ...]) -> None:
    (finding,) = _found(*stack)
    assert finding.uncertain and finding.markers == ("gpus",)
