"""``rocm-visible-devices``: ROCR_VISIBLE_DEVICES filters first, HIP's list counts within it."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import rocm_visibility
from pytest_rocmcompat.knowledge.checks.registry import PREDICTS, evaluate
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")


def _found(*stack: str, platform: str = "rocm") -> list[str]:
    env = apply_overrides(BASE, [f"platform={platform}", "arch=gfx90a", *stack])
    return [f.reason for f in evaluate(env) if f.check == rocm_visibility.ID]


@pytest.mark.parametrize(
    ("stack", "problem"),
    [
        (
            ("env.ROCR_VISIBLE_DEVICES=0", "env.HIP_VISIBLE_DEVICES=0,1"),
            "HIP_VISIBLE_DEVICES lists 2 devices but ROCR_VISIBLE_DEVICES exposes only 1",
        ),
        (
            ("env.ROCR_VISIBLE_DEVICES=2", "env.HIP_VISIBLE_DEVICES=2"),
            "HIP_VISIBLE_DEVICES=2 names index 2, but HIP counts within the 1 device(s)",
        ),
        (
            ("env.ROCR_VISIBLE_DEVICES=4,5", "env.CUDA_VISIBLE_DEVICES=5"),
            "CUDA_VISIBLE_DEVICES=5 names index 5",
        ),
        (
            ("env.ROCR_VISIBLE_DEVICES=GPU-4b2c1a9f8d3e6f7a", "env.HIP_VISIBLE_DEVICES=1"),
            "names index 1",
        ),
    ],
)
def test_a_hip_list_past_what_rocr_exposes_is_found(stack: tuple[str, ...], problem: str) -> None:
    (found,) = _found(*stack)
    assert problem in found


@pytest.mark.parametrize(
    "stack",
    [
        ("env.ROCR_VISIBLE_DEVICES=2,3", "env.HIP_VISIBLE_DEVICES=0,1"),  # counted within ROCR's: fine
        ("env.ROCR_VISIBLE_DEVICES=2", "env.HIP_VISIBLE_DEVICES=0"),
        ("env.ROCR_VISIBLE_DEVICES=0,1",),  # one filter only
        ("env.HIP_VISIBLE_DEVICES=3",),
        ("env.CUDA_VISIBLE_DEVICES=3",),
        # HIP's list wins over CUDA's where both are set (torch's parse)
        ("env.ROCR_VISIBLE_DEVICES=1", "env.HIP_VISIBLE_DEVICES=0", "env.CUDA_VISIBLE_DEVICES=1"),
        ("env.ROCR_VISIBLE_DEVICES=0", "env.HIP_VISIBLE_DEVICES=GPU-4b2c1a9f8d3e6f7a"),  # a UUID: count only
        ("env.ROCR_VISIBLE_DEVICES=", "env.HIP_VISIBLE_DEVICES=3"),  # empty: not a filter here
        (),
    ],
)
def test_consistent_or_single_filters_are_silent(stack: tuple[str, ...]) -> None:
    assert _found(*stack) == []


def test_a_cuda_stack_is_not_judged() -> None:
    assert _found("env.ROCR_VISIBLE_DEVICES=0", "env.CUDA_VISIBLE_DEVICES=3", platform="cuda") == []


def test_the_finding_reaches_gpu_tests_and_names_its_source() -> None:
    env = apply_overrides(BASE, ["platform=rocm", "env.ROCR_VISIBLE_DEVICES=0", "env.HIP_VISIBLE_DEVICES=0,1"])
    (finding,) = [f for f in evaluate(env) if f.check == rocm_visibility.ID]
    assert finding.markers == ("gpus",) and not finding.everything and finding.link == rocm_visibility.SOURCE_TORCH
    env = apply_overrides(BASE, ["platform=rocm", "env.ROCR_VISIBLE_DEVICES=1", "env.HIP_VISIBLE_DEVICES=1"])
    (finding,) = [f for f in evaluate(env) if f.check == rocm_visibility.ID]
    assert finding.link == rocm_visibility.SOURCE


# (message as the library prints it, source)
LIBRARY_MESSAGES = [
    ("RuntimeError: HIP_VISIBLE_DEVICES contains more devices than ROCR_VISIBLE_DEVICES", "torch/cuda/__init__.py"),
    ("RuntimeError: No HIP GPUs are available", "c10/cuda/CUDAFunctions.cpp, hipified"),
    ("no ROCm-capable device is detected", "ROCm/clr rocm-6.2.0 hipamd/src/hip_error.cpp"),
    ("HIP error: invalid device ordinal", "ROCm/clr rocm-6.2.0 hipamd/src/hip_error.cpp (hipErrorInvalidDevice)"),
]


@pytest.mark.parametrize(("message", "source"), LIBRARY_MESSAGES)
def test_the_signature_matches_the_library_message(message: str, source: str) -> None:
    assert compile_signature(PREDICTS[rocm_visibility.ID]).search(message) is not None, source


@pytest.mark.parametrize(
    "message",
    [
        "ValueError: a genuinely different regression",
        "HIP error: invalid device function",
        "hipErrorInvalidDeviceFunction",
    ],
)
def test_the_signature_does_not_claim_a_foreign_failure(message: str) -> None:
    assert compile_signature(PREDICTS[rocm_visibility.ID]).search(message) is None


def test_predicted_failure_is_known_bad_and_an_unrelated_one_stays_fail(pytester: pytest.Pytester) -> None:
    stack = (
        "platform=rocm", "arch=gfx90a", "torch=2.5.1+rocm6.2", "torch_archs=gfx90a",
        "env.ROCR_VISIBLE_DEVICES=0", "env.HIP_VISIBLE_DEVICES=0,1",
    )  # fmt: skip
    predicted, unrelated = predicted_and_unrelated(
        pytester, "HIP_VISIBLE_DEVICES contains more devices than ROCR_VISIBLE_DEVICES", stack
    )
    assert predicted["rocm_outcome"] == "known-bad" and predicted["rocm_rule"] == rocm_visibility.ID
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated
    assert unrelated["rocm_diagnosis"].startswith(f"{rocm_visibility.ID}: HIP_VISIBLE_DEVICES lists 2 devices")
