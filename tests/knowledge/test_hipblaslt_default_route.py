"""``hipblaslt-arch-unsupported:default-route``: where torch routes GEMMs to hipBLASLt by itself (2.4-2.6).

The check's finding with nothing asking reaches only tests that use hipBLASLt (torch warns and falls
back). A GPU test that fails with hipBLASLt's own arch refusal met it all the same: an uncertain risk for
GPU tests, confirmed only by those texts, on a stated stack whose torch routes by default or is unnamed.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import hipblaslt_arch
from pytest_rocmcompat.knowledge.checks.registry import compile_rules, evaluate_risks
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
RULE = f"{hipblaslt_arch.ID}:default-route"
# (message, stack, source): verbatim from the reports, with the stack each states
REPORTED = (
    (
        "[hipBLASLt] Tensile::FATAL: Architecture gfx1151 not supported",
        ("platform=rocm", "arch=gfx1151"),
        "https://github.com/ROCm/TheRock/issues/154",
    ),
    (  # Blas.cpp's check, quoted in https://github.com/ROCm/hipBLASLt/issues/1243
        "RuntimeError: Attempting to use hipBLASLt on a unsupported architecture!",
        ("platform=rocm", "arch=gfx1030", "torch=2.5.1+rocm6.2"),
        "https://github.com/ROCm/hipBLASLt/issues/1243",
    ),
)
# torch's fallback warning (ROCm/ROCm#4440): torch then runs hipBLAS, so it confirms nothing
WARNING = "UserWarning: Attempting to use hipBLASLt on an unsupported architecture! Overriding blas backend to hipblas"


def risks(*stack: str) -> list:
    return [f for f in evaluate_risks(apply_overrides(BASE, list(stack))) if f.check == RULE]


@pytest.mark.parametrize(("message", "stack", "source"), REPORTED, ids=[s for *_, s in REPORTED])
def test_a_gpu_test_failing_with_hipblaslts_refusal_is_claimed(
    message: str, stack: tuple[str, ...], source: str
) -> None:
    assert source.startswith("https://github.com/ROCm/")
    (finding,) = risks(*stack)
    assert finding.uncertain and not finding.conditional and finding.markers == ("gpus",)
    (rule,) = compile_rules([finding])
    assert rule.signature_matches(message)
    assert not rule.signature_matches("hipErrorNoBinaryForGpu: Unable to find code object for all current devices!")


def test_the_fallback_warning_confirms_nothing() -> None:
    (finding,) = risks("platform=rocm", "arch=gfx1103", "env.HSA_OVERRIDE_GFX_VERSION=11.0.0", "os=Linux")
    (rule,) = compile_rules([finding])
    assert not rule.signature_matches(WARNING)


def test_a_torch_that_routes_by_default_gets_it() -> None:
    (finding,) = risks("platform=rocm", "arch=gfx1030", "torch=2.5.1+rocm6.2")
    assert finding.reason.startswith("torch 2.5.1+rocm6.2 routes every GPU's GEMMs to hipBLASLt by default")


@pytest.mark.parametrize(
    "stack",
    [
        ("platform=rocm", "arch=gfx1030", "torch=2.7.1+rocm6.3"),  # from 2.7 only listed GPUs are routed
        ("platform=rocm", "arch=gfx1030", "torch=2.3.1+rocm6.0"),  # before 2.4 only on request
        ("platform=rocm", "arch=gfx942"),  # served
        ("platform=rocm", "arch=gfx1030", "torch=2.5.1+rocm6.2", "env.TORCH_BLAS_PREFER_HIPBLASLT=1"),  # asked: check's
    ],
)
def test_no_risk_where_torch_does_not_route_by_itself_or_the_gpu_is_served(stack: tuple[str, ...]) -> None:
    assert risks(*stack) == []


def test_a_refusal_is_known_bad_and_an_unrelated_failure_stays_fail(pytester: pytest.Pytester) -> None:
    message, stack, _ = REPORTED[0]
    predicted, unrelated = predicted_and_unrelated(pytester, message, stack, env=BASE)
    assert predicted["rocm_rule"] == RULE
    assert unrelated.get("rocm_outcome", "fail") == "fail" and "rocm_rule" not in unrelated
