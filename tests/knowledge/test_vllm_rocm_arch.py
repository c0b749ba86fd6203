"""``library-min-arch`` for vLLM on ROCm: the archs its installation docs name, and its own refusal."""

from __future__ import annotations

import re

import pytest

from pytest_rocmcompat.knowledge import arch_table
from pytest_rocmcompat.knowledge.checks import library_arch
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides

BASE = Environment(platform="cpu", python="3.11.9", source="replay")
# vllm/platforms/rocm.py (_capability_from_gcn_arch), verbatim with gcn_arch="gfx803":
# https://github.com/vllm-project/vllm/blob/001eda31e3d032e9dc864e97f3630358b2ff8b5a/vllm/platforms/rocm.py
VLLM_GFX8 = (
    "ValueError: Parsed unknown ROCm architecture from GCN arch 'gfx803': major=8, minor=0. "
    "Major version < 9 is not expected for any supported AMD GPU. Please file a vLLM issue with your GPU model."
)


def vllm_findings(*assignments: str) -> list[Finding]:
    env = apply_overrides(BASE, ["platform=rocm", *assignments])
    return [f for f in library_arch.check(env) if f.uses == ("vllm",)]


def test_the_rows_are_sourced_and_name_known_archs() -> None:
    rows = arch_table.lib_rows("vllm", "amd")
    assert [r.versions for r in rows] == ["<0.7.3", ">=0.7.3,<0.11.1", ""]
    for row in rows:
        assert row.source.startswith("https://docs.vllm.ai/")
        assert all(arch_table.info(name) is not None for name in row.rule.split())


@pytest.mark.parametrize("gpu", ["gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1101", "gfx1151", "gfx1201"])
def test_supported_arch_is_silent(gpu: str) -> None:
    assert vllm_findings(f"arch={gpu}", "lib.vllm=0.14.0") == []


@pytest.mark.parametrize("gpu", ["gfx803", "gfx906", "gfx908", "gfx1030", "gfx1102"])
def test_unsupported_arch_is_found(gpu: str) -> None:
    (finding,) = vllm_findings(f"arch={gpu}", "lib.vllm=0.14.0")
    assert f"vllm 0.14.0 has no kernels for {gpu}" in finding.reason and "gfx942" in finding.reason
    assert finding.link.startswith("https://docs.vllm.ai/") and not finding.conditional
    assert finding.fix.startswith("run vllm tests")  # no release serves it


def test_conditional_when_the_stack_does_not_list_vllm() -> None:
    (finding,) = vllm_findings("arch=gfx1030")
    assert finding.conditional


def test_cuda_row_untouched_by_the_rocm_row() -> None:
    env = apply_overrides(BASE, ["platform=cuda", "arch=sm_80"])
    assert [f for f in library_arch.check(env) if f.uses == ("vllm",)] == []


def test_predicts_vllms_own_refusal() -> None:
    assert re.search(library_arch.PREDICTS, VLLM_GFX8)
