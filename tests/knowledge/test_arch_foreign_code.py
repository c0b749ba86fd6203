"""``arch-not-in-build`` on a stated stack: the faults of foreign code an unseen override loads are predicted.

A GPU the build has no code for runs a kernel only when ``HSA_OVERRIDE_GFX_VERSION`` made the runtime
load another processor's code; launchers export it by themselves, so a stated stack does not show it.
Its faults (``arch.FOREIGN_CODE_PREDICTS``) are predicted where a stated stack names a torch build without
the GPU and sets no override, and nowhere else: not on a live host, not where the stack states the override,
not where it names no torch (its torch may be a build made for the GPU), not by an uncertain finding (the GPU
may be served, and then a fault tells nothing). The loader's own refusal
of a code object (``HSA_STATUS_ERROR_INVALID_CODE_OBJECT``) is predicted by every finding.
"""

from __future__ import annotations

import dataclasses

import pytest

from pytest_rocmcompat.knowledge.checks import arch, hsa_override, rocm_kernel
from pytest_rocmcompat.knowledge.checks.registry import compile_rules
from pytest_rocmcompat.knowledge.rules.signature import Signature, compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.11.9", os="Linux", source="replay")
# torch 2.3.1+rocm6.0: gfx900 gfx906 gfx908 gfx90a gfx1030 gfx1100 gfx942, no RDNA1
STACK = ("platform=rocm", "arch=gfx1012", "torch=2.3.1+rocm6.0")

# (message, what ran, source): verbatim
FOREIGN = (
    (
        ":0:rocdevice.cpp            :2673: 1263352162 us: 21870: [tid:0x7f64e3eff640] Device::callbackQueue "
        "aborting with error : HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access memory "
        "beyond the largest legal address. code: 0x29",
        "an RX 5500 XT (gfx1012) overridden to gfx1030, torch 2.0.0",
        "https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/9283",
    ),
    (
        ":0:rocdevice.cpp            :2893: 90021033577 us: [pid:192145 tid:0x76fa7d3ff640] Callback: Queue "
        "0x76f676200000 aborting with error : HSA_STATUS_ERROR_EXCEPTION: An HSAIL operation resulted in a "
        "hardware exception. code: 0x1016",
        "code built for another gfx target on an MI210",
        "https://github.com/iree-org/iree/issues/17872",
    ),
    (
        "[Issue]: Memory access fault by GPU node-2 on address (nil). Reason: unknown",
        "an MI210 with HSA_OVERRIDE_GFX_VERSION left at gfx1030 (AMD's diagnosis)",
        "https://github.com/ROCm/legacy-rocm-build/issues/5238",
    ),
)
# AMD's description of the loader refusing a code object the GPU has no entry for
CODE_OBJECT = (
    "This caused GetMachInfo() to fail for these generic targets, which made LoadCodeObject() return "
    "HSA_STATUS_ERROR_INVALID_CODE_OBJECT, surfacing as hipErrorNoBinaryForGpu (error 209)",
    "https://github.com/ROCm/rocm-systems/pull/6309",
)


def stated(*assignments: str) -> Environment:
    return apply_overrides(BASE, list(assignments))


def signature(env: Environment) -> Signature:
    (rule,) = [r for r in compile_rules(arch.check(env)) if r.id.startswith(arch.ID)]
    assert rule.signature is not None
    return rule.signature


@pytest.mark.parametrize(("message", "ran", "source"), FOREIGN, ids=[s for _, _, s in FOREIGN])
def test_a_stated_stack_without_an_override_predicts_foreign_codes_faults(message: str, ran: str, source: str) -> None:
    assert ran and source.startswith("https://github.com/")
    assert signature(stated(*STACK)).search(message)
    assert compile_signature(arch.FOREIGN_CODE_PREDICTS).search(message)
    assert not compile_signature(arch.PREDICTS).search(message)  # the check's own signature stays narrow


def test_the_loaders_code_object_refusal_is_predicted_by_every_finding() -> None:
    message, source = CODE_OBJECT
    assert source.startswith("https://github.com/ROCm/")
    assert compile_signature(arch.PREDICTS).search(message)
    # rocm_kernel's driver-level texts leave it to this check
    assert not compile_signature(rocm_kernel.DRIVER_LEVEL).search("HSA_STATUS_ERROR_INVALID_CODE_OBJECT")


def test_foreign_code_texts_include_what_hsa_override_predicts() -> None:
    for text in ("HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION", "Memory access fault by GPU node-1 (Agent handle: 0x1)"):
        assert compile_signature(hsa_override.PREDICTS).search(text)
        assert compile_signature(arch.FOREIGN_CODE_PREDICTS).search(text)


def test_a_stated_override_leaves_the_faults_to_hsa_override() -> None:
    # gfx1010's code is in no official build either: still a finding, but the override is known
    for variable in ("env.HSA_OVERRIDE_GFX_VERSION", "env.HSA_OVERRIDE_GFX_VERSION_1"):
        (finding,) = arch.check(stated(*STACK, f"{variable}=10.1.0"))
        assert finding.predicts == ""
        assert not signature(stated(*STACK, f"{variable}=10.1.0")).search(FOREIGN[0][0])


def test_a_live_host_knows_its_environment() -> None:
    env = dataclasses.replace(stated(*STACK), source="live")
    (finding,) = arch.check(env)
    assert finding.predicts == ""
    assert not signature(env).search(FOREIGN[0][0])


def test_a_stack_naming_no_torch_does_not_claim_faults() -> None:
    # no official wheel carries gfx1031, but the stack's torch may be a build made for it
    (finding,) = arch.check(stated("platform=rocm", "arch=gfx1031", "rocm=6.2"))
    assert not finding.uncertain and finding.predicts == ""


def test_an_uncertain_finding_does_not_claim_faults() -> None:
    # no torch named: gfx1100 is only in some official builds, a risk that only a discriminating text confirms
    findings = arch.check(stated("platform=rocm", "arch=gfx1100", "rocm=5.6"))
    assert findings and all(f.uncertain and f.predicts == "" for f in findings)


def test_a_cuda_gpu_gets_no_amd_fault_texts() -> None:
    (finding,) = arch.check(stated("platform=cuda", "arch=sm_120", "torch=2.6.0+cu124"))
    assert finding.predicts == ""


def test_predicted_fault_is_known_bad_and_an_unrelated_failure_stays_fail(pytester: pytest.Pytester) -> None:
    predicted, unrelated = predicted_and_unrelated(pytester, FOREIGN[0][0], STACK)
    assert predicted["rocm_outcome"] == "known-bad" and predicted["rocm_rule"] == arch.ID
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated
