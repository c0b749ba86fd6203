"""hipBLASLt and rocBLAS arch judgements past ROCm 6.3: the bounds read in each library's sources."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import hipblaslt_arch, rocblas_arch
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
ASK = "env.TORCH_BLAS_PREFER_HIPBLASLT=1"


def _found(check: str, *stack: str) -> list[Finding]:
    env = apply_overrides(BASE, ["platform=rocm", *stack])
    return [f for f in evaluate(env) if f.check == check]


def _lt(*stack: str) -> list[Finding]:
    return _found(hipblaslt_arch.ID, *stack, ASK)


# --- hipBLASLt: gfx950 only from ROCm 7.0 (torch's '#if ROCM_VERSION >= 60500 "gfx950"') ---


@pytest.mark.parametrize("stack", [("rocm=6.4.1", "torch=2.7.1"), ("torch=2.8.0+rocm6.4",)])
def test_gfx950_on_rocm_6_4_is_refused(stack: tuple[str, ...]) -> None:
    (finding,) = _lt("arch=gfx950", *stack)
    assert not finding.uncertain and "hipBLASLt does not serve gfx950 on ROCm 6.4" in finding.reason
    assert finding.link == hipblaslt_arch.SOURCE_LATE


@pytest.mark.parametrize("stack", [("rocm=7.0.2", "torch=2.8.0"), ("torch=2.9.1+rocm7.0",), ("rocm=7.2.0",)])
def test_gfx950_from_rocm_7_0_is_served(stack: tuple[str, ...]) -> None:
    assert _lt("arch=gfx950", *stack) == []


def test_an_mi300_on_rocm_6_4_stays_served() -> None:
    """The gfx950 bound is that processor's alone: gfx942 is in every list."""
    assert _lt("arch=gfx942", "rocm=6.4.0", "torch=2.7.1") == []


# --- hipBLASLt: gfx1150/gfx1151 only from ROCm 6.4.2 (torch's 60402 entry, hipBLASLt 0.12.1) ---


@pytest.mark.parametrize(("arch", "rocm"), [("gfx1151", "6.4.0"), ("gfx1150", "6.4.1")])
def test_strix_before_rocm_6_4_2_is_refused_even_by_torch_2_10(arch: str, rocm: str) -> None:
    (finding,) = _lt(f"arch={arch}", f"rocm={rocm}", "torch=2.10.0")
    assert not finding.uncertain
    assert f"hipBLASLt does not serve {arch} on ROCm {rocm}" in finding.reason


@pytest.mark.parametrize(
    "stack", [("rocm=6.4.2", "torch=2.10.0"), ("rocm=6.4.3", "torch=2.10.1"), ("rocm=7.1.1", "torch=2.10.0")]
)
def test_strix_from_rocm_6_4_2_with_torch_2_10_is_served(stack: tuple[str, ...]) -> None:
    assert _lt("arch=gfx1151", *stack) == []


@pytest.mark.parametrize("stack", [("torch=2.10.0+rocm6.4",), ("rocm=6.4.43482", "torch=2.10.0")])
def test_strix_on_6_4_without_its_patch_release_is_a_risk(stack: tuple[str, ...]) -> None:
    """A ``+rocm6.4`` wheel or a HIP build number does not say whether it is 6.4.2 or later."""
    (finding,) = _lt("arch=gfx1151", *stack)
    assert finding.uncertain and finding.markers == ("gpus",)


def test_an_older_torch_still_refuses_strix_on_any_rocm() -> None:
    (finding,) = _lt("arch=gfx1151", "rocm=6.4.2", "torch=2.9.1")
    assert not finding.uncertain and "gfx1151 on any ROCm release" in finding.reason


def test_rdna3_and_rdna4_on_rocm_6_4_stay_served() -> None:
    """Neither bound touches gfx1100/gfx1201: torch lists them for ROCm 6.3+ from 2.6."""
    assert _lt("arch=gfx1100", "rocm=6.4.0", "torch=2.7.1") == []
    assert _lt("arch=gfx1201", "rocm=6.4.0", "torch=2.7.1") == []


def test_nothing_asking_leaves_the_6_4_bounds_to_hipblaslt_users() -> None:
    (finding,) = _found(hipblaslt_arch.ID, "arch=gfx950", "rocm=6.4.1", "torch=2.7.1")
    assert finding.conditional and finding.uses == ("hipblaslt",) and finding.markers == ()


# --- rocBLAS: ROCm 7.2 builds TARGET_LIST_ROCM_7.1 ---


def test_rocm_7_2_s_rocblas_is_judged_with_the_7_1_list() -> None:
    assert rocblas_arch.TARGETS["7.2"][0] == rocblas_arch.TARGETS["7.1"][0]
    assert rocblas_arch.TARGETS["7.2"][1] == rocblas_arch.SOURCE_72
    (finding,) = _found(rocblas_arch.ID, "arch=gfx1032", "rocm=7.2.0")
    assert "rocBLAS of ROCm 7.2 has no Tensile kernels for gfx1032" in finding.reason
    assert finding.link == rocblas_arch.SOURCE_72 and not finding.uncertain


@pytest.mark.parametrize("arch", ["gfx1103", "gfx950", "gfx1150", "gfx906", "gfx1201"])
def test_rocm_7_2_s_rocblas_serves_what_7_1_s_does(arch: str) -> None:
    assert [f for f in _found(rocblas_arch.ID, f"arch={arch}", "rocm=7.2.1") if not f.uncertain] == []


def test_rocblas_after_7_2_is_still_not_judged() -> None:
    """No verdict past the table (TheRock's 7.11 builds name no release it reads: at most a risk)."""
    assert _found(rocblas_arch.ID, "arch=gfx1032", "rocm=7.3.0") == []
    therock = _found(rocblas_arch.ID, "arch=gfx1032", "torch=2.10.0a0+rocm7.11.0a20251211")
    assert [f for f in therock if not f.uncertain] == []


def test_an_unknown_release_names_the_tabled_span() -> None:
    (finding,) = _found(rocblas_arch.ID, "arch=gfx1032")
    assert finding.uncertain and "gfx1032: in none of ROCm 5.4-7.2" in finding.reason
    (finding,) = _found(rocblas_arch.ID, "arch=gfx1103")
    assert "gfx1103: in ROCm 7.1, 7.2 only" in finding.reason
