"""``hsa-override-invalid`` beyond the family test: ISA gaps within a family, per-node variables,
the builds judging the overridden target, and the signature, both ways through pytest.
"""

from __future__ import annotations

import re

import pytest

from pytest_rocmcompat.knowledge import arch_table
from pytest_rocmcompat.knowledge.checks import arch, hsa_override, rocblas_arch
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import UNRELATED, predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.11.9", source="replay")
VAR = "env.HSA_OVERRIDE_GFX_VERSION"


def stack(*assignments: str) -> Environment:
    return apply_overrides(BASE, ["platform=rocm", *assignments])


def kinds(env: Environment) -> set[str]:
    """``{"certain"}``, ``{"uncertain"}`` or ``{"none"}``: what the check says of ``env``."""
    return {"uncertain" if f.uncertain else "certain" for f in hsa_override.check(env)} or {"none"}


# ---- the table: instructions a family's members do not share (LLVM generic processors) ---------------
@pytest.mark.parametrize(
    ("gpu", "target", "what"),
    [("gfx900", "gfx906", "v_fmac_f32"), ("gfx90c", "gfx906", "v_dot"), ("gfx1100", "gfx1151", "SALU floating"),
     ("gfx1103", "gfx1150", "SALU floating"), ("gfx950", "gfx942", "FNUZ"), ("gfx942", "gfx950", "OCP"),
     ("gfx1010", "gfx1012", "v_dot")],
)  # fmt: skip
def test_code_for_a_richer_member_uses_instructions_the_gpu_lacks(gpu: str, target: str, what: str) -> None:
    (gap,) = arch_table.override_gaps(gpu, target)
    assert what in gap.what and gap.source == arch_table.S_LLVM_GENERIC


@pytest.mark.parametrize(
    ("gpu", "target"),
    [("gfx906", "gfx900"), ("gfx90c", "gfx900"), ("gfx902", "gfx900"), ("gfx1151", "gfx1100"), ("gfx1103", "gfx1100"),
     ("gfx1032", "gfx1030"), ("gfx1201", "gfx1200"), ("gfx1012", "gfx1010"), ("gfx1032", "gfx1100")],
)  # fmt: skip
def test_no_gap_where_the_gpu_has_everything_or_the_family_differs(gpu: str, target: str) -> None:
    assert arch_table.override_gaps(gpu, target) == ()


# ---- the check -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("gpu", "value", "expected"),
    [
        # another family: RDNA1 as RDNA2, RDNA4 as RDNA3, Polaris as Vega, CDNA3 as CDNA2, Strix Halo as
        # RDNA4 (https://github.com/ROCm/rocm-systems/issues/3531: "KFD node 0 ih_fifo overflow")
        ("gfx1010", "10.3.0", "certain"), ("gfx1012", "10.3.0", "certain"), ("gfx1200", "11.0.0", "certain"),
        ("gfx1201", "11.0.0", "certain"), ("gfx803", "9.0.0", "certain"), ("gfx942", "9.0.10", "certain"),
        ("gfx1151", "12.0.1", "certain"),
        # one family, instructions ordinary code uses that the GPU lacks (v_fmac_f32, SALU float)
        ("gfx900", "9.0.6", "certain"), ("gfx1100", "11.5.1", "certain"), ("gfx1103", "11.5.0", "certain"),
        # one family, instructions only specialised kernels use (fp8, dot): a risk
        ("gfx950", "9.4.2", "uncertain"), ("gfx1010", "10.1.2", "uncertain"),
        # the working shapes: RDNA2 as gfx1030, RDNA3/3.5 as gfx1100, Vega APUs as gfx900
        ("gfx1031", "10.3.0", "none"), ("gfx1032", "10.3.0", "none"), ("gfx1035", "10.3.0", "none"),
        ("gfx1101", "11.0.0", "none"), ("gfx1102", "11.0.0", "none"), ("gfx1103", "11.0.0", "none"),
        ("gfx1150", "11.0.0", "none"), ("gfx1151", "11.0.0", "none"), ("gfx90c", "9.0.0", "none"),
        ("gfx902", "9.0.0", "none"),
    ],
)  # fmt: skip
def test_override_shapes(gpu: str, value: str, expected: str) -> None:
    env = stack(f"arch={gpu}", f"{VAR}={value}")
    assert kinds(env) == {expected}, [f.describe() for f in hsa_override.check(env)]


def test_a_gap_finding_names_both_processors_and_its_source() -> None:
    (finding,) = hsa_override.check(stack("arch=gfx900", f"{VAR}=9.0.6"))
    assert "gfx900 run code for gfx906" in finding.reason and "v_fmac_f32" in finding.reason
    assert finding.link == arch_table.S_LLVM_GENERIC and finding.markers == ("gpus",)


# ---- per-node variables: HSA_OVERRIDE_GFX_VERSION_<n> for GPU n-1 ------------------------------------
@pytest.mark.parametrize(
    ("sets", "expected"),
    [
        ((f"{VAR}=10.3.0",), "certain"),  # the global variable reaches the RX 7900 too
        ((f"{VAR}_2=10.3.0",), "none"),  # only the RX 6600 (device 1, node 2)
        ((f"{VAR}_1=11.0.0", f"{VAR}_2=10.3.0"), "none"),  # ROCT-Thunk-Interface#104's own example
        ((f"{VAR}=10.3.0", f"{VAR}_1=11.0.0"), "none"),  # the per-node variable wins for device 0
        ((f"{VAR}_1=10.3.0",), "certain"),  # gfx1030 code on the RX 7900
        ((f"{VAR}_2=10.3",), "certain"),  # malformed: the runtime refuses the node
    ],
)
def test_per_node_overrides_reach_one_gpu(sets: tuple[str, ...], expected: str) -> None:
    env = stack("arch=gfx1100,gfx1032", *sets)
    assert kinds(env) == {expected}, [f.describe() for f in hsa_override.check(env)]


def test_per_node_finding_names_its_variable() -> None:
    (finding,) = hsa_override.check(stack("arch=gfx1100,gfx1032", f"{VAR}_1=10.3.0"))
    assert finding.reason.startswith("HSA_OVERRIDE_GFX_VERSION_1=10.3.0 makes gfx1100")
    (finding,) = hsa_override.check(stack("arch=gfx1100,gfx1032", f"{VAR}=10.3.0"))
    assert "gfx1032" not in finding.reason.split("run code")[0]  # only the RDNA3 GPU is foreign


def test_no_gpu_listed_judges_the_value_alone() -> None:
    assert kinds(stack(f"{VAR}=10.3")) == {"certain"}
    assert kinds(stack(f"{VAR}=10.3.0")) == {"none"}


# ---- the builds judge the overridden target (arch-not-in-build, rocBLAS) -----------------------------
def test_torch_build_is_judged_by_the_overridden_target() -> None:
    without = "torch_archs=gfx900,gfx906,gfx908,gfx90a,gfx1030"
    (finding,) = arch.check(stack("arch=gfx1103", "torch=2.5.1+rocm6.2", without, f"{VAR}=11.0.0"))
    assert "gfx1103 (as gfx1100 by HSA_OVERRIDE_GFX_VERSION)" in finding.reason
    assert arch.check(stack("arch=gfx1032", "torch=2.5.1+rocm6.2", without, f"{VAR}=10.3.0")) == []


def test_rocblas_is_judged_by_the_overridden_target() -> None:
    (finding,) = rocblas_arch.check(stack("arch=gfx1103", "rocm=5.4", f"{VAR}=11.0.1"))  # 5.4: no gfx1101
    assert "gfx1103 (as gfx1101 by HSA_OVERRIDE_GFX_VERSION)" in finding.reason
    assert rocblas_arch.check(stack("arch=gfx1103", "rocm=5.4", f"{VAR}=11.0.0")) == []


# ---- the signature -------------------------------------------------------------------------------------
ILLEGAL = (  # verbatim, https://github.com/ROCm/hip/issues/2344
    "Device::callbackQueue aborting with error : HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION:  The agent attempted to "
    "execute an illegal shader instruction. code: 0x2a"
)


@pytest.mark.parametrize(
    "message",
    [ILLEGAL, "The agent attempted to execute an illegal shader instruction."],  # ROCr's text without the status
)
def test_signature_matches_the_illegal_instruction_status(message: str) -> None:
    assert re.search(hsa_override.PREDICTS, message)


@pytest.mark.parametrize(
    "message",
    ["Segmentation fault (core dumped)", "Illegal instruction (core dumped)", "SIGILL: illegal instruction",
     "HW Exception by GPU node-1 (Agent handle: 0x55d4) reason :GPU Hang", UNRELATED],
)  # fmt: skip
def test_signature_claims_no_generic_crash(message: str) -> None:
    assert re.search(hsa_override.PREDICTS, message) is None


# ---- both ways through pytest ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "sets",
    [("arch=gfx900", f"{VAR}=9.0.6"), ("arch=gfx1100,gfx1032", f"{VAR}=10.3.0")],
)
def test_certain_override_both_ways(pytester: pytest.Pytester, sets: tuple[str, ...]) -> None:
    found, unrelated = predicted_and_unrelated(pytester, ILLEGAL, ("platform=rocm", *sets), env=BASE)
    assert found["rocm_rule"] == "hsa-override-invalid"
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated


def test_uncertain_override_both_ways(pytester: pytest.Pytester) -> None:
    sets = ("platform=rocm", "arch=gfx950", f"{VAR}=9.4.2")
    found, unrelated = predicted_and_unrelated(pytester, ILLEGAL, sets, env=BASE)
    assert found["rocm_rule"] == "hsa-override-invalid"
    # an unconfirmed risk is no likely cause: a plain failure whose note only says the risk reached it
    assert set(unrelated) == {"rocm_note"} and unrelated["rocm_note"].startswith("risk ")
    assert "likely cause" not in unrelated["rocm_note"]
