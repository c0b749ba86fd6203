"""The arch table (knowledge/arch_table.py) and the checks that read it, both ways."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge import arch_table
from pytest_rocmcompat.knowledge.checks import arch, hsa_override, library_arch, numeric_formats
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.stack.arch import is_valid_arch
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides

BASE = Environment(platform="cpu", python="3.11.9", source="replay")
CUDA_ARCHS = "sm_50 sm_52 sm_53 sm_60 sm_61 sm_62 sm_70 sm_72 sm_75 sm_80 sm_86 sm_87 sm_89 sm_90 sm_100 sm_103 sm_120"
AMD_ARCHS = (
    "gfx803 gfx900 gfx906 gfx908 gfx90a gfx90c gfx940 gfx941 gfx942 gfx950 gfx1010 gfx1012 gfx1030 gfx1031 "
    "gfx1032 gfx1035 gfx1036 gfx1100 gfx1101 gfx1102 gfx1103 gfx1150 gfx1151 gfx1152 gfx1200 gfx1201"
)


def stack(*assignments: str) -> Environment:
    return apply_overrides(BASE, list(assignments))


def ids(env: Environment) -> set[str]:
    return {f.check for f in evaluate(env)}


# ---- the table --------------------------------------------------------------------------------
@pytest.mark.parametrize("name", (CUDA_ARCHS + " " + AMD_ARCHS).split())
def test_every_arch_a_user_meets_has_a_sourced_row(name: str) -> None:
    row = arch_table.info(name)
    assert row is not None and is_valid_arch(row.name)
    assert row.source.startswith("https://") and row.family and row.group
    assert row.fp8 in ("", "ocp", "fnuz")


def test_formats_per_arch() -> None:
    info = arch_table.BY_NAME
    assert [info[a].bf16 for a in ("sm_61", "sm_70", "sm_75", "sm_80", "sm_86")] == [False, False, False, True, True]
    assert info["sm_86"].fp8 == "" and info["sm_89"].fp8 == "ocp" and info["sm_90"].fp8 == "ocp"
    assert {info[a].fp8 for a in ("gfx940", "gfx941", "gfx942")} == {"fnuz"}
    assert {info[a].fp8 for a in ("gfx950", "gfx1200", "gfx1201")} == {"ocp"}
    assert {info[a].fp8 for a in ("gfx90a", "gfx1100", "gfx1030")} == {""}
    assert not any(r.tf32 for r in arch_table.ARCHS if r.vendor == "amd")
    assert info["gfx90c"].apu and info["gfx1151"].apu and not info["gfx1100"].apu
    assert info["sm_61"].cuda_last == "12" and info["sm_75"].cuda_last is None and info["sm_120"].cuda_first == "12.8"


def test_feature_suffixes_and_case_are_normalised() -> None:
    row = arch_table.info("gfx90a:sramecc+:xnack-")
    assert row is not None and row.family == "CDNA2"
    assert arch_table.info("gfx9999") is None


@pytest.mark.parametrize(
    ("value", "target"),
    [("10.3.0", "gfx1030"), ("11.0.0", "gfx1100"), ("9.0.10", "gfx90a"), ("9.4.2", "gfx942"), (" 11.0.3 ", "gfx1103")],
)
def test_override_values_name_their_target(value: str, target: str) -> None:
    assert arch_table.override_target(value) == (target, "")


@pytest.mark.parametrize("value", ["10.3", "gfx1030", "10.3.0.1", "10.3.7", "12.5.0", "9.0.16", ""])
def test_override_values_that_name_no_target(value: str) -> None:
    target, why = arch_table.override_target(value)
    assert target is None and why


def test_override_groups() -> None:
    assert arch_table.same_group("gfx1032", "gfx1030") is True
    assert arch_table.same_group("gfx1103", "gfx1100") is True
    assert arch_table.same_group("gfx90c", "gfx900") is True
    assert arch_table.same_group("gfx1010", "gfx1030") is False  # RDNA1 is not RDNA2
    assert arch_table.same_group("gfx1032", "gfx1100") is False
    assert arch_table.same_group("gfx1032", "gfx9999") is None


# ---- bf16 -------------------------------------------------------------------------------------
@pytest.mark.parametrize("gpu", ["sm_61", "sm_70", "sm_75"])
def test_bf16_fires_below_ampere(gpu: str) -> None:
    (finding,) = numeric_formats.check_bf16(stack("platform=cuda", f"arch={gpu}"))
    assert gpu in finding.reason and "vllm" in finding.uses and "*bf16*" in finding.nodeids


@pytest.mark.parametrize("gpu", ["sm_80", "sm_86", "sm_90", "gfx906", "gfx1030"])
def test_bf16_silent_where_it_exists_or_on_amd(gpu: str) -> None:
    assert numeric_formats.check_bf16(stack(f"arch={gpu}")) == []


# ---- fp8 --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("gpu", "says"),
    [("sm_86", "has no fp8"), ("sm_80", "has no fp8"), ("gfx90a", "has no fp8"), ("gfx1100", "has no fp8"),
     ("gfx942", "only FNUZ"), ("gfx950", "only OCP"), ("gfx1201", "only OCP")],
)  # fmt: skip
def test_fp8_format_mismatch(gpu: str, says: str) -> None:
    (finding,) = numeric_formats.check_fp8(stack(f"arch={gpu}"))
    assert says in finding.reason and "*fp8*" in finding.nodeids and "fp8" in finding.uses


@pytest.mark.parametrize("gpu", ["sm_89", "sm_90", "sm_120"])
def test_fp8_silent_on_ocp_nvidia(gpu: str) -> None:
    assert numeric_formats.check_fp8(stack(f"arch={gpu}")) == []


# ---- HSA_OVERRIDE_GFX_VERSION -----------------------------------------------------------------
@pytest.mark.parametrize(
    ("gpu", "value", "says"),
    [("gfx1032", "11.0.0", "another ISA family"), ("gfx1010", "10.3.0", "another ISA family"),
     ("gfx1100", "9.4.2", "another ISA family"), ("gfx1032", "10.3", "no valid target"),
     ("gfx1103", "11.0.7", "no valid target")],
)  # fmt: skip
def test_override_wrong_family_or_invalid(gpu: str, value: str, says: str) -> None:
    (finding,) = hsa_override.check(stack("platform=rocm", f"arch={gpu}", f"env.HSA_OVERRIDE_GFX_VERSION={value}"))
    assert says in finding.reason and finding.markers == ("gpus",)


@pytest.mark.parametrize(
    ("gpu", "value"), [("gfx1032", "10.3.0"), ("gfx1031", "10.3.0"), ("gfx1103", "11.0.0"), ("gfx1151", "11.0.0")]
)
def test_override_within_the_family_is_fine(gpu: str, value: str) -> None:
    assert hsa_override.check(stack("platform=rocm", f"arch={gpu}", f"env.HSA_OVERRIDE_GFX_VERSION={value}")) == []


def test_override_unset_or_on_nvidia_says_nothing() -> None:
    assert hsa_override.check(stack("platform=rocm", "arch=gfx1032")) == []
    assert hsa_override.check(stack("platform=cuda", "arch=sm_86", "env.HSA_OVERRIDE_GFX_VERSION=10.3.0")) == []


# ---- libraries' own minimum arch ------------------------------------------------------------------
def test_library_min_arch_both_ways() -> None:
    found = {f.uses[0].replace("-", "_"): f for f in library_arch.check(stack("platform=cuda", "arch=sm_75"))}
    assert "flash_attn" in found and "compute capability 8.0" in found["flash_attn"].reason
    assert "vllm" not in found  # vLLM serves Volta and newer
    assert {f.uses[0] for f in library_arch.check(stack("platform=cuda", "arch=sm_60"))} >= {"vllm", "flash-attn"}
    assert {f.uses[0] for f in library_arch.check(stack("platform=cuda", "arch=sm_90"))} == set()
    # no version listed: judged by every release (flash-attn's CK build serves RDNA 3 in no tag yet)
    rocm = {f.uses[0] for f in library_arch.check(stack("platform=rocm", "arch=gfx1100"))}
    assert rocm == {"aiter", "flash-attn", "sglang", "xformers"}  # AITER's RDNA 3 is experimental from 0.1.19 only
    rocm = {f.uses[0] for f in library_arch.check(stack("platform=rocm", "arch=gfx1030"))}
    assert rocm == {"aiter", "flash-attn", "sglang", "vllm", "xformers"}
    assert library_arch.check(stack("platform=rocm", "arch=gfx942")) == []


# ---- arch not served by any official build, when the stack names no torch -------------------------
@pytest.mark.parametrize("gpu", ["gfx803", "gfx902", "gfx1010", "gfx1012"])
def test_arch_no_official_build_ever_carried(gpu: str) -> None:
    (finding,) = arch.check(stack("platform=rocm", f"arch={gpu}"))
    assert "no official torch build has kernels for " + gpu in finding.reason


@pytest.mark.parametrize(
    "assignments",
    [("platform=rocm", "arch=gfx1100"), ("platform=rocm", "arch=gfx1151"), ("platform=rocm", "arch=gfx942"),
     ("platform=rocm", "arch=gfx1012", "env.HSA_OVERRIDE_GFX_VERSION=10.3.0"), ("platform=cuda", "arch=sm_120"),
     ("platform=rocm", "arch=gfx1010", "torch=2.4.1")],
)  # fmt: skip
def test_arch_served_by_some_official_build_or_unknown_torch(assignments: tuple[str, ...]) -> None:
    """No verdict; a GPU only some release builds serve is at most a risk (tests/knowledge/test_uncertain_findings.py)."""
    assert [f for f in arch.check(stack(*assignments)) if not f.uncertain] == []


def test_registered_checks_fire_together_through_evaluate() -> None:
    env = stack("platform=cuda", "arch=sm_75")
    assert {"bf16-unsupported-arch", "fp8-format-arch", "library-min-arch"} <= ids(env)
    assert ids(stack("platform=cuda", "arch=sm_90")) & {"bf16-unsupported-arch", "fp8-format-arch"} == set()
