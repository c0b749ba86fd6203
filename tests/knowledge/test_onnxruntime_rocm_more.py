"""``onnxruntime-build-mismatch`` on AMD GPUs: the gfx targets of onnxruntime-rocm's PyPI wheels."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import onnxruntime_builds as ort
from pytest_rocmcompat.knowledge.checks import onnxruntime_builds_data as data
from pytest_rocmcompat.knowledge.checks import registry
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.registry import compile_rules
from pytest_rocmcompat.knowledge.derived_facts import derive
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.test_check_signatures import FOREIGN
from tests.knowledge.two_ways import UNRELATED, predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
ROCM_7 = ("platform=rocm", "rocm=7.2.0")

# verbatim: onnxruntime built for ROCm 5.2 on a gfx900
NO_BINARY = (
    'onnxruntime_test_all failed with "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!" '
    "with v1.12.1 (70481649e3c2dba) and rocm-5.2.0"
)
ARCH_MESSAGES = [(NO_BINARY, "https://github.com/microsoft/onnxruntime/issues/12662")]
# verbatim: the ROCm provider library not finding a ROCm library it links (already matched by ROCM_PREDICTS)
ROCM_LIB = (
    "[ONNXRuntimeError] : 1 : FAIL : Failed to load library libonnxruntime_providers_rocm.so with error: "
    "libMIOpen.so.1: cannot open shared object file: No such file or directory"
)  # https://github.com/k2-fsa/sherpa-onnx/pull/1110


def _findings(*stack: str) -> list[Finding]:
    """The check's findings on ``stack`` (``--rocm-set`` values), with the facts it implies derived."""
    return ort.check(derive(apply_overrides(BASE, list(stack))))


def _arch(*stack: str) -> list[Finding]:
    """Only the findings predicting the missing-arch failures."""
    return [f for f in _findings(*stack) if f.predicts == ort.ARCH_PREDICTS]


# ---- the data: what the wheels were read to hold ------------------------------------------------
def test_the_wheel_rows_hold_their_gfx_targets() -> None:
    post1, post2, post3 = (data.ROCM_WHEELS[f"1.22.2.post{n}"] for n in (1, 2, 3))
    assert set(post1.targets) - set(post2.targets) == {"gfx940", "gfx941"}
    assert post2.targets == post3.targets and len(post2.targets) == 8
    for wheel in (post1, post2, post3):
        assert {"gfx90a", "gfx942", "gfx1100", "gfx1201"} <= set(wheel.targets)
        assert not {"gfx906", "gfx950", "gfx1102", "gfx1151"} & set(wheel.targets)


# ---- a GPU outside the wheel's targets: both sides of each list --------------------------------
@pytest.mark.parametrize(
    ("version", "arch"),
    [
        ("1.22.2.post3", "gfx1151"),  # Strix Halo: in no list
        ("1.22.2.post3", "gfx950"),  # MI355X
        ("1.22.2.post2", "gfx940"),  # dropped after post1
        ("1.22.2.post1", "gfx1102"),
        ("1.22.2.post1", "gfx906"),
    ],
)
def test_a_gpu_outside_the_wheels_targets_is_found(version: str, arch: str) -> None:
    rocm = "rocm=6.4.2" if version.endswith("post1") else "rocm=7.2.0"
    (finding,) = _findings("platform=rocm", rocm, f"arch={arch}", f"lib.onnxruntime-rocm={version}")
    assert finding.reason.startswith(
        f"onnxruntime-rocm {version} (its PyPI wheel) has no ROCm execution provider kernels for {arch} (built for gfx908"
    )
    assert finding.predicts == ort.ARCH_PREDICTS and finding.signature_only and not finding.uncertain
    assert finding.uses == ("onnxruntime", "onnxruntime-rocm") and not finding.everything
    assert finding.link == f"https://pypi.org/project/onnxruntime-rocm/{version}/#files"


@pytest.mark.parametrize(
    ("version", "arch"),
    [
        ("1.22.2.post3", "gfx1100"),
        ("1.22.2.post3", "gfx942"),
        ("1.22.2.post2", "gfx1201"),
        ("1.22.2.post1", "gfx940"),  # in post1's list only
        ("1.22.2.post1", "gfx908"),
    ],
)
def test_a_gpu_in_the_wheels_targets_is_not(version: str, arch: str) -> None:
    rocm = "rocm=6.4.2" if version.endswith("post1") else "rocm=7.2.0"
    assert _findings("platform=rocm", rocm, f"arch={arch}", f"lib.onnxruntime-rocm={version}") == []


def test_the_override_decides_the_arch_the_runtime_loads() -> None:
    stack = (*ROCM_7, "arch=gfx1031", "lib.onnxruntime-rocm=1.22.2.post3")
    (finding,) = _arch(*stack)
    assert "kernels for gfx1031 (built for" in finding.reason
    assert _arch(*stack, "env.HSA_OVERRIDE_GFX_VERSION=10.3.0") == []  # runs gfx1030 code
    (other,) = _arch(*stack[:-2], "arch=gfx1100", stack[-1], "env.HSA_OVERRIDE_GFX_VERSION=11.0.2")
    assert "kernels for gfx1100 (as gfx1102 by HSA_OVERRIDE_GFX_VERSION)" in other.reason


def test_a_release_without_its_post_part_is_a_risk_when_some_wheel_lacks_the_gpu() -> None:
    (finding,) = _arch(*ROCM_7, "arch=gfx940", "lib.onnxruntime-rocm=1.22.2")
    assert finding.uncertain and finding.signature_only
    assert finding.reason.startswith(
        "onnxruntime-rocm 1.22.2 (if it is one of the PyPI wheels 1.22.2.post1, 1.22.2.post2, 1.22.2.post3) has no "
        "ROCm execution provider kernels for gfx940 (built for gfx908 gfx90a gfx942 "
    )
    (none_has_it,) = _arch(*ROCM_7, "arch=gfx1151", "lib.onnxruntime-rocm=1.22.2")
    assert none_has_it.uncertain  # another build of 1.22.2 (AMD's, a source build) may have it
    assert _arch(*ROCM_7, "arch=gfx1100", "lib.onnxruntime-rocm=1.22.2") == []  # every wheel has it


@pytest.mark.parametrize(
    "stack",
    [
        (*ROCM_7, "arch=gfx1151", "lib.onnxruntime-rocm=1.22.1"),  # PyPI's 1.22.1: MIGraphX provider only
        (*ROCM_7, "arch=gfx1151", "lib.onnxruntime-rocm=1.21.0"),  # not a PyPI release: not tabled
        (*ROCM_7, "arch=gfx1151", "lib.onnxruntime-rocm=1.22.2+rocm7.0.2"),  # another index's label
        (*ROCM_7, "arch=gfx1151", "lib.onnxruntime-migraphx=1.27.1"),  # no ROCm provider kernels at all
        (*ROCM_7, "lib.onnxruntime-rocm=1.22.2.post3"),  # no GPU named
        ("platform=cuda", "arch=sm_90", "lib.onnxruntime-rocm=1.22.2.post3"),
    ],
)
def test_no_arch_finding_without_a_tabled_wheel_and_an_amd_gpu(stack: tuple[str, ...]) -> None:
    assert _arch(*stack) == []


def test_the_arch_and_major_findings_stand_side_by_side() -> None:
    # post1 (ROCm 6.4.2) on ROCm 7 and a gfx1151: it cannot load, and has no kernels for it either
    found = _findings(*ROCM_7, "arch=gfx1151", "lib.onnxruntime-rocm=1.22.2.post1")
    assert sorted(f.predicts for f in found) == sorted([ort.ROCM_PREDICTS, ort.ARCH_PREDICTS])
    (rule,) = compile_rules(found)  # both certain and own-messages: one rule, either failure
    assert rule.id == ort.ID and not rule.at_risk
    assert rule.signature_matches(NO_BINARY) and rule.signature_matches(ROCM_LIB)
    # a risk keeps the check's id (no certain finding beside it), and claims only its own messages
    (risk,) = compile_rules(_arch(*ROCM_7, "arch=gfx940", "lib.onnxruntime-rocm=1.22.2"))
    assert risk.id == ort.ID and risk.at_risk and risk.signature_matches(NO_BINARY)
    assert not risk.signature_matches(ROCM_LIB)


# ---- the signatures against the messages users see ----------------------------------------------
@pytest.mark.parametrize(("message", "source"), ARCH_MESSAGES)
def test_the_arch_signature_matches_the_message_users_see(message: str, source: str) -> None:
    assert source.startswith("https://github.com/microsoft/onnxruntime/issues/")
    assert compile_signature(ort.ARCH_PREDICTS).search(message) is not None
    assert compile_signature(ort.PREDICTS).search(message) is not None
    assert compile_signature(ort.ROCM_PREDICTS).search(message) is None


@pytest.mark.parametrize(
    "message",
    [
        *FOREIGN,
        # torch's own kernels without code for the GPU (torch's build, not onnxruntime's), and other HIP errors
        "RuntimeError: HIP error: invalid device function",
        "RuntimeError: HIP error: out of memory",
        "HIP failure 1: invalid argument ; GPU=0 ; hostname=node ; expr=hipMalloc(&p, bytes);",
        "Segmentation fault (core dumped)",
        # onnxruntime's own bridge missing, and a ROCm library missing outside onnxruntime
        "Failed to load library libonnxruntime_providers_rocm.so with error: libonnxruntime_providers_shared.so: "
        "cannot open shared object file: No such file or directory",
        "OSError: librocm_smi64.so.1: cannot open shared object file: No such file or directory",
    ],
)
def test_the_new_alternatives_do_not_claim_a_foreign_failure(message: str) -> None:
    assert compile_signature(ort.ARCH_PREDICTS).search(message) is None
    assert compile_signature(ort.ROCM_PREDICTS).search(message) is None


# ---- through pytest: the predicted failure known-bad, an unrelated one a failure ----------------
@pytest.mark.skipif(ort.ID not in registry.CHECKS, reason=f"{ort.ID} is not registered yet")
def test_a_gpu_outside_the_wheel_through_pytest(pytester: pytest.Pytester) -> None:
    stack = ("platform=rocm", "arch=gfx1151", "rocm=7.2.0", "torch=2.10.0+rocm7.0", "lib.onnxruntime-rocm=1.22.2.post3")
    found, unrelated = predicted_and_unrelated(pytester, NO_BINARY, stack, uses="onnxruntime")
    assert found["rocm_outcome"] == "known-bad" and found["rocm_rule"] == ort.ID
    assert unrelated.get("rocm_outcome", "fail") == "fail" and "rocm_rule" not in unrelated
    assert unrelated["rocm_diagnosis"].startswith(
        f"{ort.ID}: onnxruntime-rocm 1.22.2.post3 (its PyPI wheel) has no ROCm execution provider kernels for gfx1151"
    )
    assert UNRELATED not in unrelated["rocm_diagnosis"]
