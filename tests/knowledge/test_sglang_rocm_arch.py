"""``library-min-arch`` for SGLang on ROCm: sgl-kernel's build accepts gfx942 and gfx950 (a risk: source builds)."""

from __future__ import annotations

import re

import pytest

from pytest_rocmcompat.knowledge import arch_table
from pytest_rocmcompat.knowledge.checks import library_arch
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides

BASE = Environment(platform="cpu", python="3.11.9", source="replay")
# sgl-kernel/setup_rocm.py, its print with amdgpu_target="gfx1100" (arch_table.S_SGL_KERNEL_ROCM)
SGL_KERNEL_BUILD = "Warning: Unsupported GPU architecture detected 'gfx1100'. Expected 'gfx942' or 'gfx950'."
# ... as a gfx1100 user quoted it: https://github.com/sgl-project/sglang/issues/9417
SGL_KERNEL_QUOTED = (
    "The previous version could be compiled and run successfully on gfx1100, but the new version failed to compile "
    "with the error \"Unsupported GPU architecture detected gfx1100. Expected 'gfx942' or 'gfx950'.\""
)


def sglang_findings(*assignments: str) -> list[Finding]:
    env = apply_overrides(BASE, ["platform=rocm", *assignments])
    return [f for f in library_arch.check(env) if "sglang" in f.uses]


def test_rows_are_sourced_and_name_known_archs() -> None:
    rows = arch_table.lib_rows("sglang", "amd")
    assert [r.versions for r in rows] == ["<0.4.3", ""]
    assert rows[-1].rule == "gfx942 gfx950" and "setup_rocm.py" in rows[-1].source
    assert not rows[0].unlisted and rows[-1].source_builds
    for row in rows:
        assert all(arch_table.info(name) is not None for name in row.rule.split())


@pytest.mark.parametrize("gpu", ["gfx942", "gfx950"])
def test_mi300_and_mi350_are_silent(gpu: str) -> None:
    assert sglang_findings(f"arch={gpu}", "lib.sglang=0.5.3") == []


@pytest.mark.parametrize("gpu", ["gfx90a", "gfx908", "gfx1030", "gfx1100", "gfx1151", "gfx1201"])
def test_other_amd_gpus_are_a_risk_for_a_listed_release(gpu: str) -> None:
    """sgl-kernel is built from source, and some builds took the GPU they detected: a risk the failure confirms."""
    (finding,) = sglang_findings(f"arch={gpu}", "lib.sglang=0.5.3")
    assert f"sglang 0.5.3 has no kernels for {gpu}" in finding.reason and "gfx942, gfx950" in finding.reason
    assert not finding.conditional and finding.uncertain
    assert set(finding.uses) == {"sglang", "sgl-kernel", "sglang-kernel"}
    assert "MI300/MI350" in finding.fix


def test_before_sgl_kernel_on_hip_nothing_is_known() -> None:
    assert sglang_findings("arch=gfx1100", "lib.sglang=0.4.2") == []
    assert sglang_findings("arch=gfx1100", "lib.sglang=0.4.3") != []


@pytest.mark.parametrize("version", [None, "0.5.3+rocm700", "0.5.4.dev12"])
def test_an_unnamed_or_local_build_is_a_risk_too(version: str | None) -> None:
    listed = [] if version is None else [f"lib.sglang={version}"]
    (finding,) = sglang_findings("arch=gfx1100", *listed)
    assert finding.uncertain
    assert finding.conditional == (version is None)


def test_cuda_gpus_are_not_judged_by_the_rocm_row() -> None:
    env = apply_overrides(BASE, ["platform=cuda", "arch=sm_80", "lib.sglang=0.5.3"])
    assert [f for f in library_arch.check(env) if "sglang" in f.uses] == []


def test_predicts_the_build_refusal_and_not_its_accepted_arch_lines() -> None:
    assert re.search(library_arch.PREDICTS, SGL_KERNEL_BUILD)
    assert re.search(library_arch.PREDICTS, SGL_KERNEL_QUOTED)
    assert not re.search(library_arch.PREDICTS, "Warning: torch.cuda not available. Using default target: gfx942")
