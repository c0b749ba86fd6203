"""``extension-build-toolkit-mismatch:unstated``: a stated CUDA stack that names no toolkit apart from torch's.

Which ``nvcc`` builds a test's extension is then unknown: a risk for the builders' tests, confirmed only by
the refusals that state the mismatch themselves (the verbatim texts of ``test_build_toolkit``); their
warnings and other build failures stay failures. Only for a stated stack, never on ROCm or a CPU torch, and
never where the stack states a toolkit (the check's own finding judges it).
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import build_toolkit
from pytest_rocmcompat.knowledge.checks.registry import compile_rules, evaluate_risks
from pytest_rocmcompat.knowledge.rules.model import Rule
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.test_build_toolkit import NOT_CLAIMED, VERBATIM
from tests.knowledge.two_ways import predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
RULE = f"{build_toolkit.ID}:unstated"


def risks(*stack: str, settings: dict[str, str] | None = None) -> list:
    return [f for f in evaluate_risks(apply_overrides(BASE, list(stack)), settings) if f.check == RULE]


def signature(*stack: str) -> Rule:
    (rule,) = [r for r in compile_rules(risks(*stack)) if r.id == RULE]
    return rule


@pytest.mark.parametrize(("message", "source"), VERBATIM, ids=[s for _, s in VERBATIM])
def test_every_refusal_confirms_the_risk(message: str, source: str) -> None:
    assert source.startswith("https://github.com/")
    assert signature("platform=cuda", "cuda=11.7").signature_matches(message)


@pytest.mark.parametrize(("message", "source"), NOT_CLAIMED, ids=[m[:40] for m, _ in NOT_CLAIMED])
def test_warnings_and_other_build_failures_do_not(message: str, source: str) -> None:
    assert source.startswith("https://github.com/")
    assert not signature("platform=cuda", "torch=2.4.1+cu121").signature_matches(message)


def test_the_risk_is_conditional_uncertain_and_for_the_builders() -> None:
    (finding,) = risks("platform=cuda", "torch=2.4.1+cu121")
    assert finding.uncertain and finding.conditional and finding.signature_only
    assert finding.uses == build_toolkit.BUILDERS and "torch 2.4.1+cu121" in finding.reason


@pytest.mark.parametrize(
    "stack",
    [
        ("platform=rocm", "torch=2.5.1+rocm6.2"),  # none of the checks compares a ROCm toolkit
        ("platform=cpu", "torch=2.5.1+cpu"),
        ("torch=2.5.1+cpu",),
        ("platform=cuda", "torch=2.4.1+cu121", "cuda=12.4"),  # a stated toolkit: the check's own finding
        ("platform=cuda", "torch=2.4.1+cu121", "cuda=12.1"),  # stated equal to torch's: they match
    ],
)
def test_no_risk_off_cuda_or_where_a_toolkit_is_stated(stack: tuple[str, ...]) -> None:
    assert risks(*stack) == []


def test_switching_the_check_off_drops_the_risk() -> None:
    assert risks("platform=cuda", "cuda=11.7", settings={build_toolkit.ID: "off"}) == []


def test_a_refusal_is_known_bad_and_an_unrelated_failure_stays_fail(pytester: pytest.Pytester) -> None:
    message = VERBATIM[4][0]  # DeepSpeed's op builder
    predicted, unrelated = predicted_and_unrelated(
        pytester, message, ("platform=cuda", "cuda=11.7"), uses="deepspeed", env=BASE
    )
    assert predicted["rocm_rule"] == RULE
    assert unrelated.get("rocm_outcome", "fail") == "fail" and "rocm_rule" not in unrelated
