"""``library-min-arch`` for AITER: its asm kernels' archs per release, RDNA as a risk from 0.1.19, its own
failure when a code object is missing, and the vLLM/SGLang tests it reaches when their variable enables it."""

from __future__ import annotations

import re

import pytest
from packaging.version import Version

from pytest_rocmcompat.knowledge import arch_table
from pytest_rocmcompat.knowledge.checks import library_arch, registry
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides

BASE = Environment(platform="cpu", python="3.11.9", source="replay")
AITER = ("aiter", "amd-aiter")

# AITER's HIP_CALL (up to v0.1.12) as printf prints it, with the call it stringifies verbatim (AiterAsmKernel's
# hipModuleLoad of a code object under hsa/<gfx>/) and hipGetErrorString(hipErrorFileNotFound):
# https://github.com/ROCm/aiter/blob/2d714384fa281924274dc88b51107ca7d48523ea/csrc/include/aiter_hip_common.h#L14-L27
# https://github.com/ROCm/aiter/blob/2d714384fa281924274dc88b51107ca7d48523ea/csrc/include/aiter_hip_common.h#L70
HIP_CALL_V0_1_9 = (
    "[AITER] /opt/venv/lib/python3.12/site-packages/aiter_meta/csrc/include/aiter_hip_common.h:70 fail to call "
    "hipModuleLoad(&module, (std::string(AITER_ASM_DIR) + hsaco).c_str()) ---> [HIP error](file not found)"
)
# v0.1.11-v0.1.12: load_asm_kernel's call, the same "fail to call %s ---> [HIP error](%s)" text (v0.1.12 through
# aiter_check_fatal: "[AITER] " << file << ":" << line << " " << "fail to call " #call " ---> [HIP error](" ...):
# https://github.com/ROCm/aiter/blob/05f2869299caf111126821caf757270d02072cca/csrc/include/aiter_hip_common.h#L96
HIP_CALL_V0_1_12 = (
    "[AITER] /opt/venv/lib/python3.12/site-packages/aiter_meta/csrc/include/aiter_hip_common.h:96 fail to call "
    "hipModuleLoad(&module, hsa_path.c_str()) ---> [HIP error](file not found)"
)
# v0.1.13 on: AITER_CHECK(file.is_open(), "failed to open ", full_path.c_str()), full_path = AITER_ASM_DIR ("<meta>/hsa/")
# + "/" + arch + "/" + the kernel's file; check_fail prints "[AITER] " << file << ":" << line << " " << args:
# https://github.com/ROCm/aiter/blob/31350226161346314b3d8882c8085bd31dce6a34/csrc/include/aiter_hip_common.h#L394
FAILED_TO_OPEN_V0_1_19 = (
    "[AITER] /opt/venv/lib/python3.12/site-packages/aiter_meta/csrc/include/aiter_hip_common.h:394 failed to open "
    "/opt/venv/lib/python3.12/site-packages/aiter_meta/hsa//gfx90a/fmha_v3_fwd/fwd_hd128_bf16_causal_rtna.co"
)
# Not a missing code object: AITER's other HIP_CALL failures, and files it opens that are no kernel's.
UNRELATED = (
    "[AITER] /opt/aiter/csrc/include/aiter_hip_common.h:81 fail to call hipMalloc(&ptr, size) ---> "
    "[HIP error](out of memory)",
    "[AITER] /opt/aiter/csrc/kernels/tune.cu:12 failed to open /root/.aiter/tuned_gemm.csv",
    "RuntimeError: HIP error: out of memory",
    "[aiter] hipModuleLoad: /opt/aiter/hsa/gfx942/fmoe/fmoe_bf16.co GetFunction: fmoe_kernel Success",
)


def aiter_findings(*assignments: str) -> list[Finding]:
    return [f for f in findings(*assignments) if f.uses == AITER]


def findings(*assignments: str) -> list[Finding]:
    return library_arch.check(apply_overrides(BASE, ["platform=rocm", *assignments]))


def used_by(framework: str, *assignments: str) -> list[Finding]:
    return [f for f in findings(*assignments) if f.uses == (framework,)]


# ---- the rows -------------------------------------------------------------------------------------
def test_the_rows_are_sourced_at_aiter_tags() -> None:
    rows = arch_table.lib_rows("aiter", "amd")
    assert [r.versions for r in rows] == ["<0.1.2", ">=0.1.2,<0.1.19", ""]
    assert all(r.source.startswith("https://github.com/ROCm/aiter/") for r in rows)


@pytest.mark.parametrize(
    ("version", "rule"),
    [
        ("0.1.1", "gfx90a gfx942"),
        ("0.1.2", "gfx90a gfx942 gfx950"),
        ("0.1.9", "gfx90a gfx942 gfx950"),
        ("0.1.18", "gfx90a gfx942 gfx950"),
        ("0.1.19", "gfx90a gfx942 gfx950 gfx1100 gfx1151 gfx1201"),
        ("0.1.20.post1", "gfx90a gfx942 gfx950 gfx1100 gfx1151 gfx1201"),
    ],
)
def test_a_listed_release_gets_its_row(version: str, rule: str) -> None:
    assert arch_table.lib_rule("aiter", "amd", Version(version))[0] == rule


# ---- aiter's own tests ----------------------------------------------------------------------------
def test_gfx908_with_aiter_listed_is_found() -> None:
    (finding,) = aiter_findings("arch=gfx908", "lib.amd-aiter=0.1.16")
    assert finding.reason == "aiter 0.1.16 has no kernels for gfx908 (it needs one of gfx90a, gfx942, gfx950)"
    assert not finding.conditional and not finding.uncertain
    assert "v0.1.13/README.md" in finding.link


@pytest.mark.parametrize("assignments", [("lib.amd-aiter=0.1.16",), ("lib.amd-aiter=0.1.20",), ()])
def test_gfx90a_is_served_only_in_part_a_risk(assignments: tuple[str, ...]) -> None:
    """AITER's docs name gfx90a (v0.1.12 docs/installation.rst) and its CK/HIP kernels build for it, but its asm
    kernels are gfx942/gfx950 code objects only: a risk, for a named release or none."""
    (finding,) = aiter_findings("arch=gfx90a", *assignments)
    assert finding.uncertain and "serves gfx90a only in part" in finding.reason
    assert finding.conditional is (not assignments)


def test_the_source_build_name_is_aiter_too() -> None:
    (finding,) = aiter_findings("arch=gfx908", "lib.aiter=0.1.5")
    assert finding.reason.startswith("aiter 0.1.5 has no kernels for gfx908") and not finding.conditional


def test_pypis_other_aiter_is_not_amds() -> None:
    """PyPI's "aiter" 0.13.20191203 (asynchronous iterators): the stack has no AITER, so only a conditional finding."""
    (finding,) = aiter_findings("arch=gfx90a", "lib.aiter=0.13.20191203")
    assert finding.conditional and "0.13" not in finding.reason


@pytest.mark.parametrize("assignments", [("lib.amd-aiter=0.1.16",), ("lib.amd-aiter=0.1.1",), ()])
def test_gfx942_is_served(assignments: tuple[str, ...]) -> None:
    assert aiter_findings("arch=gfx942", *assignments) == []


def test_gfx950_needs_a_release_after_0_1_1() -> None:
    assert aiter_findings("arch=gfx950", "lib.amd-aiter=0.1.9") == []
    (finding,) = aiter_findings("arch=gfx950", "lib.amd-aiter=0.1.1")
    assert "has no kernels for gfx950" in finding.reason and finding.fix.startswith("use a aiter release")


def test_unlisted_aiter_is_conditional() -> None:
    (finding,) = aiter_findings("arch=gfx908")
    assert finding.conditional and not finding.uncertain and "aiter has no kernels for gfx908" in finding.reason


# ---- RDNA: before and after ROCm/aiter#4303 ---------------------------------------------------------
def test_gfx1100_before_the_rdna_readme_is_certain() -> None:
    (finding,) = aiter_findings("arch=gfx1100", "lib.amd-aiter=0.1.18")
    assert "aiter 0.1.18 has no kernels for gfx1100" in finding.reason
    assert not finding.uncertain and not finding.conditional


@pytest.mark.parametrize("gpu", ["gfx1100", "gfx1151", "gfx1201"])
def test_experimental_rdna_after_it_is_a_risk(gpu: str) -> None:
    (finding,) = aiter_findings(f"arch={gpu}", "lib.amd-aiter=0.1.19")
    assert finding.uncertain and not finding.conditional
    assert f"serves {gpu} only in part" in finding.reason and "v0.1.19/README.md" in finding.link


def test_a_dev_build_of_0_1_19_is_judged_as_0_1_19() -> None:
    (finding,) = aiter_findings("arch=gfx1100", "lib.amd-aiter=0.1.19.dev5+g0241979")
    assert finding.uncertain and "only in part" in finding.reason


def test_an_rdna_arch_the_readme_does_not_name_stays_certain() -> None:
    (finding,) = aiter_findings("arch=gfx1101", "lib.amd-aiter=0.1.20")
    assert "has no kernels for gfx1101" in finding.reason and not finding.uncertain


def test_gfx1100_with_an_unnamed_release_is_a_risk() -> None:
    (finding,) = aiter_findings("arch=gfx1100")
    assert finding.uncertain and finding.conditional
    assert "aiter <0.1.2 and aiter >=0.1.2,<0.1.19 has no kernels for gfx1100" in finding.reason
    assert "lib.amd-aiter=VERSION" in finding.fix


# ---- vLLM and SGLang reach AITER when their variable enables it ---------------------------------------
def test_vllm_with_its_variable_meets_aiters_gap() -> None:
    stack = ("arch=gfx1100", "lib.amd-aiter=0.1.18", "lib.vllm=0.10.2", "env.VLLM_ROCM_USE_AITER=1")
    (finding,) = used_by("vllm", *stack)
    assert (
        finding.reason
        == "vllm 0.10.2 runs AITER's kernels (VLLM_ROCM_USE_AITER=1), and aiter has no kernels for gfx1100"
    )
    assert not finding.conditional and not finding.uncertain
    assert finding.fix.startswith("unset VLLM_ROCM_USE_AITER")


@pytest.mark.parametrize("value", ["0", "false", ""])
def test_vllm_without_the_variable_is_not_reached(value: str) -> None:
    assert (
        used_by("vllm", "arch=gfx90a", "lib.amd-aiter=0.1.18", "lib.vllm=0.10.2", f"env.VLLM_ROCM_USE_AITER={value}")
        == []
    )


@pytest.mark.parametrize(
    ("gpu", "vllm", "reached"),
    [
        ("gfx1100", "0.7.3", False),  # no VLLM_ROCM_USE_AITER yet
        ("gfx1100", "0.11.0", True),  # the variable alone decides
        ("gfx1100", "0.11.1", False),  # AITER only on gfx9 (on_gfx9)
        ("gfx90a", "0.11.1", True),
        ("gfx90a", "0.18.1", True),
        ("gfx90a", "0.19.0", False),  # AITER only on MI300/MI350 (on_mi3xx)
        ("gfx90a", "0.33.0", False),
    ],
)
def test_vllms_own_gate_per_release(gpu: str, vllm: str, reached: bool) -> None:
    found = used_by("vllm", f"arch={gpu}", "lib.amd-aiter=0.1.18", f"lib.vllm={vllm}", "env.VLLM_ROCM_USE_AITER=1")
    assert bool(found) is reached


def test_an_unnamed_vllm_is_a_risk() -> None:
    (finding,) = used_by("vllm", "arch=gfx90a", "lib.amd-aiter=0.1.18", "env.VLLM_ROCM_USE_AITER=true")
    assert finding.uncertain and finding.conditional


def test_without_aiter_listed_the_vllm_finding_is_conditional() -> None:
    # (gfx908 is no vLLM GPU either: its own library-min-arch finding stands beside AITER's)
    (finding,) = [
        f for f in used_by("vllm", "arch=gfx908", "lib.vllm=0.10.2", "env.VLLM_ROCM_USE_AITER=1") if "AITER" in f.reason
    ]
    assert finding.conditional and not finding.uncertain


def test_experimental_rdna_reaches_vllm_as_a_risk() -> None:
    (finding,) = used_by("vllm", "arch=gfx1201", "lib.amd-aiter=0.1.19", "lib.vllm=0.10.2", "env.VLLM_ROCM_USE_AITER=1")
    assert finding.uncertain and "may lack kernels for gfx1201" in finding.reason


def test_sglang_with_its_variable_meets_aiters_gap() -> None:
    (finding,) = used_by("sglang", "arch=gfx908", "lib.amd-aiter=0.1.18", "lib.sglang=0.5.23", "env.SGLANG_USE_AITER=1")
    assert "sglang 0.5.23 runs AITER's kernels (SGLANG_USE_AITER=1)" in finding.reason and not finding.uncertain
    assert used_by("sglang", "arch=gfx908", "lib.amd-aiter=0.1.18", "lib.sglang=0.4.6", "env.SGLANG_USE_AITER=1") == []
    # on gfx90a AITER is served in part: SGLang's reach is a risk there
    (risk,) = used_by("sglang", "arch=gfx90a", "lib.amd-aiter=0.1.18", "lib.sglang=0.5.23", "env.SGLANG_USE_AITER=1")
    assert risk.uncertain and "may lack kernels for gfx90a" in risk.reason
    assert used_by("sglang", "arch=gfx942", "lib.amd-aiter=0.1.18", "lib.sglang=0.5.23", "env.SGLANG_USE_AITER=1") == []


def test_the_compiled_rule_reaches_vllm_and_aiter_tests() -> None:
    env = apply_overrides(
        BASE, ["platform=rocm", "arch=gfx90a", "lib.amd-aiter=0.1.18", "lib.vllm=0.11.1", "env.VLLM_ROCM_USE_AITER=1"]
    )
    (rule,) = [r for r in registry.compile_rules(registry.evaluate(env)) if r.id == library_arch.ID]
    assert {"aiter", "amd-aiter", "vllm"} <= set(rule.applies_to.uses)


# ---- AITER's own failure text --------------------------------------------------------------------
@pytest.mark.parametrize("message", [HIP_CALL_V0_1_9, HIP_CALL_V0_1_12, FAILED_TO_OPEN_V0_1_19])
def test_predicts_aiters_missing_code_object(message: str) -> None:
    assert re.search(library_arch.PREDICTS, message)


@pytest.mark.parametrize("message", UNRELATED)
def test_does_not_claim_other_failures(message: str) -> None:
    assert re.search(library_arch.PREDICTS, message) is None
