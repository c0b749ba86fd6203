"""Per-GPU ``HSA_OVERRIDE_GFX_VERSION_<n>`` in the checks that judge the arch the runtime loads.

libhsakmt reads ``HSA_OVERRIDE_GFX_VERSION_<node>`` (GPU ``i`` is node ``i + 1``) before the global
variable: each GPU is judged as its own override names it, the others as the global one does, or as
themselves.
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from pytest_rocmcompat.knowledge.checks import (
    arch,
    bitsandbytes_rocm,
    hipblaslt_arch,
    hsa_override,
    rccl_arch,
    rocblas_arch,
    rocm_gpu_support,
    rocm_sdk_family,
    rocm_targets,
)
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.rocm_targets import EffectiveArch
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides

BASE = Environment(platform="cpu", python="3.11.9", os="Linux", source="replay")
VAR = "env.HSA_OVERRIDE_GFX_VERSION"
# an RX 7900 (gfx1100, in every table below) beside an RX 6600 (gfx1032, in none of them)
HOST = ("platform=rocm", "arch=gfx1100,gfx1032", "torch=2.5.1+rocm6.2")


def stack(*assignments: str) -> Environment:
    return apply_overrides(BASE, [*HOST, *assignments])


def reasons(check_id: str, env: Environment) -> list[str]:
    checks = {c.ID: c.check for c in (arch, rocblas_arch, rccl_arch)}
    found: list[Finding] = checks[check_id](env)
    return [f.reason for f in found]


# ---- the helper ------------------------------------------------------------------------------------
def test_each_gpu_gets_its_own_override() -> None:
    assert rocm_targets.effective_archs(stack(f"{VAR}_2=10.3.0")) == [
        EffectiveArch("gfx1100", "gfx1100", None),
        EffectiveArch("gfx1032", "gfx1030", "HSA_OVERRIDE_GFX_VERSION_2"),
    ]


def test_the_per_node_variable_beats_the_global_one() -> None:
    assert rocm_targets.effective_archs(stack(f"{VAR}=10.3.1", f"{VAR}_2=10.3.0")) == [
        EffectiveArch("gfx1100", "gfx1031", "HSA_OVERRIDE_GFX_VERSION"),
        EffectiveArch("gfx1032", "gfx1030", "HSA_OVERRIDE_GFX_VERSION_2"),
    ]


def test_a_set_empty_per_node_variable_hides_the_global_one() -> None:
    env = stack(f"{VAR}=10.3.0")
    env = replace(env, env={**env.env, "HSA_OVERRIDE_GFX_VERSION_2": ""})
    assert [g.effective for g in rocm_targets.effective_archs(env)] == ["gfx1030", "gfx1032"]
    assert ("gfx1032", "HSA_OVERRIDE_GFX_VERSION_2", "") in hsa_override.overrides(env)


def test_two_gpus_of_one_arch_are_told_apart() -> None:
    env = apply_overrides(BASE, ["platform=rocm", "arch=gfx1032,gfx1032", "torch=2.5.1+rocm6.2", f"{VAR}_1=10.3.0"])
    assert [(g.effective, g.variable) for g in rocm_targets.effective_archs(env)] == [
        ("gfx1030", "HSA_OVERRIDE_GFX_VERSION_1"),
        ("gfx1032", None),
    ]
    assert reasons(arch.ID, env) and "gfx1032 (build" in reasons(arch.ID, env)[0]  # GPU 1 still lacks kernels


def test_nvidia_gpus_keep_their_arch() -> None:
    env = apply_overrides(BASE, ["platform=rocm", "arch=sm_86,gfx1032", f"{VAR}=10.3.0", f"{VAR}_1=11.0.0"])
    assert [(g.arch, g.effective) for g in rocm_targets.effective_archs(env)] == [
        ("sm_86", "sm_86"),
        ("gfx1032", "gfx1100"),  # the first AMD GPU is KFD node 1: its own _1 beats the global variable
    ]


# ---- the verdicts: per GPU, the per-node variable first -----------------------------------------------
@pytest.mark.parametrize("check_id", [arch.ID, rocblas_arch.ID, rccl_arch.ID])
@pytest.mark.parametrize(
    ("sets", "listed"),
    [
        ((), "gfx1032"),  # the RX 6600 as itself: in no table
        ((f"{VAR}_2=10.3.0",), None),  # only the RX 6600 (node 2) loads gfx1030's code
        ((f"{VAR}_1=10.3.0",), "gfx1032"),  # node 1 is the RX 7900 (served as gfx1030): the 6600 unchanged
        ((f"{VAR}_1=10.3.1",), "gfx1100 (as gfx1031 by HSA_OVERRIDE_GFX_VERSION_1), gfx1032"),
        (
            (f"{VAR}=10.3.1",),
            "gfx1100 (as gfx1031 by HSA_OVERRIDE_GFX_VERSION), gfx1032 (as gfx1031 by HSA_OVERRIDE_GFX_VERSION)",
        ),
        ((f"{VAR}=10.3.1", f"{VAR}_2=10.3.0"), "gfx1100 (as gfx1031 by HSA_OVERRIDE_GFX_VERSION)"),
        ((f"{VAR}=10.3.0", f"{VAR}_1=10.3.1"), "gfx1100 (as gfx1031 by HSA_OVERRIDE_GFX_VERSION_1)"),
    ],
)
def test_a_per_node_override_changes_one_gpus_verdict(check_id: str, sets: tuple[str, ...], listed: str | None) -> None:
    found = reasons(check_id, stack(*sets))
    if listed is None:
        assert found == []
        return
    (reason,) = found
    match = re.search(r" for (.+?) \((?:build|its) targets", reason)
    assert match is not None and match.group(1) == listed, reason


def test_same_arch_override_shows_like_the_global_one() -> None:
    """An override to the GPU's own arch is named plainly, by arch-not-in-build and rccl-arch-not-in-release alike."""
    env = stack(f"{VAR}=10.3.1", f"{VAR}_2=10.3.2")
    assert "gfx1032 (build" in reasons(arch.ID, env)[0]
    assert (
        ", gfx1032 (its targets" in reasons(rccl_arch.ID, env)[0] and "(as gfx1032" not in reasons(rccl_arch.ID, env)[0]
    )


# ---- the other checks name the per-node variable too ----------------------------------------------------
def test_gpu_support_hipblaslt_and_bitsandbytes_read_the_per_node_variable() -> None:
    env = apply_overrides(BASE, ["platform=rocm", "arch=gfx1030,gfx1100", "rocm=6.1.2", f"{VAR}_1=9.0.0"])
    (found,) = rocm_gpu_support.check(env)
    assert found.reason.startswith("ROCm 6.1 marks gfx1030 (as gfx900 by HSA_OVERRIDE_GFX_VERSION_1) unsupported")
    (lt,) = hipblaslt_arch.check(apply_overrides(env, ["rocm=6.2"]))
    assert "gfx1030 (as gfx900 by HSA_OVERRIDE_GFX_VERSION_1)" in lt.reason
    rx6700 = ("platform=rocm", "arch=gfx1031", "rocm=6.2.4")
    (b,) = bitsandbytes_rocm.check(apply_overrides(BASE, [*rx6700, f"{VAR}_1=9.0.6"]))
    assert "for gfx906" in b.reason
    (b,) = bitsandbytes_rocm.check(apply_overrides(BASE, [*rx6700, f"{VAR}_2=9.0.6"]))  # no GPU 1 here
    assert "for gfx1031" in b.reason


def test_sdk_family_reads_the_per_node_variable() -> None:
    version = "7.9.0rc20251008"
    env = apply_overrides(
        BASE, ["platform=rocm", "arch=gfx1100,gfx1103", f"lib.rocm-sdk-libraries-gfx110X-dgpu={version}"]
    )
    assert [f.reason.split(" is not")[0] for f in rocm_sdk_family.check(env)] == ["gfx1103"]
    assert rocm_sdk_family.check(apply_overrides(env, [f"{VAR}_2=11.0.0"])) == []  # gfx1100's kernels
    assert rocm_sdk_family.check(apply_overrides(env, [f"{VAR}=11.5.1", f"{VAR}_2=11.0.0"]))  # gfx1100 as gfx1151


def test_nvidia_gpus_are_no_kfd_nodes() -> None:
    """An AMD GPU listed after an NVIDIA one is still KFD node 1 (behind one CPU node)."""
    env = apply_overrides(
        Environment(platform="rocm", python="3.12.3", os="Linux"),
        ["arch=sm_86,gfx1032", "torch=2.5.1+rocm6.2", "env.HSA_OVERRIDE_GFX_VERSION_1=10.3.0"],
    )
    amd = [e for e in rocm_targets.effective_archs(env) if e.arch.startswith("gfx")]
    assert [(e.arch, e.effective, e.variable) for e in amd] == [("gfx1032", "gfx1030", "HSA_OVERRIDE_GFX_VERSION_1")]
