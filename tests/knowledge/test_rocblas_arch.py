"""``rocblas-arch-not-in-release``: the Tensile processors of each ROCm release's rocBLAS."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import rocblas_arch
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")


def _found(*stack: str, certain: bool = False) -> list[str]:
    env = apply_overrides(BASE, ["platform=rocm", *stack])
    return [f.reason for f in evaluate(env) if f.check == rocblas_arch.ID and not (certain and f.uncertain)]


@pytest.mark.parametrize(
    ("stack", "problem"),
    [
        # gfx1103 (Radeon 780M) first in the 7.1 list; gfx1150 and gfx950 in 7.0; RDNA4 and gfx1151 in 6.3
        (("arch=gfx1103", "rocm=6.1"), "rocBLAS of ROCm 6.1 has no Tensile kernels for gfx1103"),
        (("arch=gfx1103", "rocm=7.0.2"), "ROCm 7.0 has no Tensile kernels for gfx1103"),
        (("arch=gfx1201", "rocm=6.2"), "ROCm 6.2 has no Tensile kernels for gfx1201"),
        (("arch=gfx1151", "torch=2.5.1+rocm6.2"), "ROCm 6.2 has no Tensile kernels for gfx1151"),
        (("arch=gfx950", "rocm=6.4.1"), "ROCm 6.4 has no Tensile kernels for gfx950"),
        # MI300 first in 5.7; gfx803 last in 5.7; gfx1101 first in 5.5
        # (gfx942 before 5.7 is not this check's: that runtime does not enumerate it, rocm-gpu-unsupported says so)
        (("arch=gfx1036", "rocm=5.4.3"), "ROCm 5.4 has no Tensile kernels for gfx1036"),
        (("arch=gfx803", "torch=2.3.0+rocm6.0"), "ROCm 6.0 has no Tensile kernels for gfx803"),
        (("arch=gfx1101", "rocm=5.4.3"), "ROCm 5.4 has no Tensile kernels for gfx1101"),
        # the releases before 5.4, generated from the tags: RDNA2's gfx1030 and MI200 first in 4.3,
        # RDNA3 first in 5.4, gfx1011 only in 4.3-5.1; RDNA2 variants in no list
        (("arch=gfx1030", "torch=1.9.0+rocm4.2"), "ROCm 4.2 has no Tensile kernels for gfx1030"),
        (("arch=gfx90a", "rocm=4.2.0"), "ROCm 4.2 has no Tensile kernels for gfx90a"),
        (("arch=gfx1100", "rocm=5.3.3"), "ROCm 5.3 has no Tensile kernels for gfx1100"),
        (("arch=gfx1011", "rocm=5.2.0"), "ROCm 5.2 has no Tensile kernels for gfx1011"),
        (("arch=gfx1031", "torch=1.13.1+rocm5.2"), "ROCm 5.2 has no Tensile kernels for gfx1031"),
        (("arch=gfx1032", "rocm=3.10.0"), "ROCm 3.10 has no Tensile kernels for gfx1032"),
        # RDNA2 variants are in no list; an override to a target of no list is no help either
        (("arch=gfx1032", "rocm=6.2.4"), "no Tensile kernels for gfx1032"),
        (("arch=gfx1150", "rocm=7.0.2", "env.HSA_OVERRIDE_GFX_VERSION=11.0.3"), "gfx1150 (as gfx1103 by"),
    ],
)
def test_a_gpu_the_release_does_not_build_for_is_found(stack: tuple[str, ...], problem: str) -> None:
    (found,) = _found(*stack)
    assert problem in found


@pytest.mark.parametrize(
    "stack",
    [
        ("arch=gfx1103", "rocm=7.1.1"),  # in the 7.1 list
        ("arch=gfx1100", "rocm=5.4.0"),
        ("arch=gfx906", "rocm=6.4.0"),  # still built (the 7.1 list keeps gfx906)
        ("arch=gfx90a", "torch=2.4.1+rocm6.1"),
        ("arch=gfx942", "rocm=5.7.1"),
        ("arch=gfx1032", "rocm=6.2.4", "env.HSA_OVERRIDE_GFX_VERSION=10.3.0"),  # loads gfx1030's kernels
        ("arch=gfx1103", "rocm=6.1", "env.HSA_OVERRIDE_GFX_VERSION=11.0.0"),
        ("arch=gfx1103", "rocm=7.2.0"),  # a release after the table: not judged
        ("arch=gfx1103", "torch=2.10.0a0+rocm7.11.0a20251211"),  # TheRock's own builds: not judged
        ("arch=gfx1030", "rocm=5.2.3"),  # built since 4.3
        ("arch=gfx1011", "rocm=4.5.2"),
        ("arch=gfx803", "torch=1.8.1+rocm3.10"),
        ("arch=gfx1031", "torch=1.13.1+rocm5.2", "env.HSA_OVERRIDE_GFX_VERSION=10.3.0"),
        ("arch=gfx1030", "rocm=3.0.0"),  # before the table (3.3): not judged
        ("rocm=6.1",),  # no arch: not judged
        ("arch=gfx1103",),  # no ROCm release: not judged
    ],
)
def test_a_served_or_unknown_stack_is_not_found(stack: tuple[str, ...]) -> None:
    """No verdict; an unknown release is at most a risk (tests/knowledge/test_uncertain_findings.py)."""
    assert _found(*stack, certain=True) == []


def test_torch_s_bundled_rocblas_is_judged_before_the_system_rocm() -> None:
    """A +rocm wheel loads the rocBLAS it bundles; the system ROCm is used only without one."""
    assert _found("arch=gfx1201", "torch=2.5.1+rocm6.2", "rocm=6.4.0")  # the wheel's 6.2 rocBLAS
    assert _found("arch=gfx1201", "torch=2.7.1+rocm6.3", "rocm=6.2.0") == []


def test_a_cuda_stack_is_not_judged() -> None:
    env = apply_overrides(BASE, ["platform=cuda", "arch=sm_90", "rocm=6.1"])
    assert [f for f in evaluate(env) if f.check == rocblas_arch.ID] == []


def test_the_finding_reaches_gpu_tests_and_names_its_source() -> None:
    env = apply_overrides(BASE, ["platform=rocm", "arch=gfx1103", "rocm=6.1"])
    (finding,) = [f for f in evaluate(env) if f.check == rocblas_arch.ID]
    assert finding.markers == ("gpus",) and not finding.conditional
    assert finding.link == "https://github.com/ROCm/rocBLAS/blob/rocm-6.1.0/CMakeLists.txt"


def test_every_release_s_list_is_sourced_and_grows_only_by_named_steps() -> None:
    for release, (targets, source) in rocblas_arch.TARGETS.items():
        assert source.startswith("https://github.com/ROCm/"), release
        assert len(set(targets)) == len(targets) and all(t.startswith("gfx") for t in targets)
    assert set(rocblas_arch.TARGETS["7.1"][0]) - set(rocblas_arch.TARGETS["7.0"][0]) == {"gfx1103"}
    assert set(rocblas_arch.TARGETS["6.0"][0]) ^ set(rocblas_arch.TARGETS["5.7"][0]) == {"gfx803"}


def test_no_gpu_visible_to_rocblas_is_not_a_missing_arch() -> None:
    """ollama/ollama#6423: a container without the render group, not a GPU rocBLAS lacks kernels for."""
    from pytest_rocmcompat.knowledge.rules.signature import compile_signature

    pattern = compile_signature(rocblas_arch.PREDICTS)
    assert pattern.search("rocBLAS error: Could not initialize Tensile host: No devices found") is None
    assert pattern.search("rocBLAS error: Could not initialize Tensile library") is not None
