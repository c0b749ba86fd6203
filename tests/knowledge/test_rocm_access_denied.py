"""A GPU closed to the user explains a "no GPU" failure: no ROCm device check claims it, a diagnosis names it."""

from __future__ import annotations

import re

import pytest

from pytest_rocmcompat.knowledge.checks import rocm_driver
from pytest_rocmcompat.knowledge.checks.registry import EXPLAINED_BY, compile_rules, evaluate
from pytest_rocmcompat.knowledge.diagnoses import diagnose
from pytest_rocmcompat.knowledge.driver_texts import ACCESS_DENIED, AMDSMI_ACCESS_SOURCE, ROCMINFO_ACCESS_SOURCE
from pytest_rocmcompat.knowledge.rules.model import Rule
from pytest_rocmcompat.knowledge.rules.signature import Signature
from pytest_rocmcompat.matrix.plain import _rule_from_plain, _rule_to_plain
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import run_source

NEUTRAL = Environment(platform="cpu", python="3.11.7", os="Linux")
# ROCm/ROCm-docker#116 (2023-10-26): rocminfo in a container whose user cannot open /dev/kfd
DOCKER_116 = (
    "ROCk module is loaded\nUnable to open /dev/kfd read-write: Permission denied\n"
    "Failed to get user name to check for video group membership"
)
# rocminfo.cc CheckInitialState's group check (ROCMINFO_ACCESS_SOURCE), formatted for user "ci" and group "render"
ROCMINFO_GROUP = (
    'ci is not member of "render" group, the default DRM access group. Users must be a member of the "render" '
    "group or another DRM access group in order for ROCm applications to run successfully."
)
# ROCm/amdsmi#184 (2026-03-18): amd-smi of ROCm 7.0, then of 7.1.1
AMDSMI_70 = (
    "RuntimeError: WARNING: User is missing the following required groups: render, video. "
    "Please add user to these groups."
)
AMDSMI_711 = (
    "Permission needed to access required GPU device node(s):\n"
    "  - /dev/dri/card0: Permission denied; owner=root(0):video(39);"
)
PYTHON_OPEN = "PermissionError: [Errno 13] Permission denied: '/dev/kfd'"
# what ROCm prints next, which alone the driver checks do claim (rocminfo's HSA failure, torch's no device)
HSA_AFTER = (
    "hsa api call failure at: /src/rocminfo/rocminfo.cc:1306\n"
    "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources."
)
ACCESS = [DOCKER_116, ROCMINFO_GROUP, AMDSMI_70, AMDSMI_711, PYTHON_OPEN]


def test_sources_are_pinned() -> None:
    assert "/blob/026828a8" in ROCMINFO_ACCESS_SOURCE and AMDSMI_ACCESS_SOURCE.endswith("amdsmi/issues/184")


@pytest.mark.parametrize("text", ACCESS)
def test_each_access_text_is_recognised_and_diagnosed(text: str) -> None:
    assert re.search(ACCESS_DENIED, text)
    for shown in (text, f"{text}\n{HSA_AFTER}", f"{text}\nRuntimeError: No HIP GPUs are available"):
        found = diagnose(shown)
        assert found is not None and found.id == "gpu-device-access-denied", shown


@pytest.mark.parametrize(
    "text",
    [
        "Unable to open /dev/kfd read-write: Cannot allocate memory",  # ENOMEM: the driver (rocminfo#41)
        "Unable to open /dev/kfd read-write: No such file or directory",  # no KFD at all
        "ci is member of render group",
        HSA_AFTER,
        "PermissionError: [Errno 13] Permission denied: '/home/ci/.cache/torch'",
    ],
)
def test_other_failures_are_not_access(text: str) -> None:
    assert re.search(ACCESS_DENIED, text) is None
    found = diagnose(text)
    assert found is None or found.id != "gpu-device-access-denied"


def _rules(*stack: str) -> dict[str, Rule]:
    env = apply_overrides(NEUTRAL, ["platform=rocm", *stack])
    return {r.id: r for r in compile_rules(evaluate(env))}


def test_the_gfx8_atomics_risk_does_not_claim_a_gpu_closed_to_the_user() -> None:
    rule = _rules("arch=gfx803", "rocm=6.2.4")[rocm_driver.ID]
    assert rule.at_risk and rule.explained_by is not None and rule.explained_by.pattern == ACCESS_DENIED
    assert rule.signature_matches(HSA_AFTER)  # the HSA failure alone: the GPU may not have been brought up
    assert rule.signature_matches("RuntimeError: No HIP GPUs are available")
    for text in ACCESS:
        assert not rule.signature_matches(f"{text}\n{HSA_AFTER}\nRuntimeError: No HIP GPUs are available"), text


def test_a_certain_driver_finding_does_not_claim_it_either() -> None:
    """The matrix's certain finding (ROCm 5.7 user space on the ROCm 6.2 kernel driver, whose window starts at 6.0)."""
    rule = _rules("arch=gfx90a", "rocm=5.7.1", "driver=6.8.5")[rocm_driver.ID]
    assert not rule.at_risk and rule.signature_matches(HSA_AFTER)
    assert not rule.signature_matches(f"{DOCKER_116}\n{HSA_AFTER}")


def test_only_the_rocm_device_checks_are_explained_so() -> None:
    assert rocm_driver.ID in EXPLAINED_BY
    assert "requirement-not-met" not in EXPLAINED_BY  # a package pair's failure is not about device access
    rules = _rules("arch=gfx803", "rocm=6.2.4", "lib.torchvision=0.20.0", "torch=2.2.0+rocm5.7")
    assert rules["requirement-not-met"].explained_by is None


def test_explained_by_survives_the_plain_cache_round_trip() -> None:
    rule = Rule(id="r", reason="x", signature=Signature("No HIP GPUs"), explained_by=Signature(ACCESS_DENIED))
    back = _rule_from_plain(_rule_to_plain(rule))
    assert back.explained_by == rule.explained_by and back.signature == rule.signature
    assert _rule_from_plain(_rule_to_plain(Rule(id="s", reason="y"))).explained_by is None


_SOURCE = """
import pytest

@pytest.mark.gpus(1)
def test_closed():
    raise RuntimeError({closed!r})

@pytest.mark.gpus(1)
def test_not_brought_up():
    raise RuntimeError({hsa!r})
"""


def test_through_pytest_access_stays_a_failure_with_its_diagnosis(pytester: pytest.Pytester) -> None:
    source = _SOURCE.format(closed=f"{DOCKER_116}\n{HSA_AFTER}", hsa=HSA_AFTER)
    cases = run_source(pytester, source, ("platform=rocm", "arch=gfx803", "rocm=6.2.4"), env=NEUTRAL)
    closed, other = cases["test_closed"], cases["test_not_brought_up"]
    assert "rocm_rule" not in closed and closed.get("rocm_outcome", "fail") == "fail", closed
    assert closed["rocm_diagnosis"].startswith("gpu-device-access-denied: ")
    assert other["rocm_outcome"] == "known-bad" and other["rocm_rule"].startswith(rocm_driver.ID), other
