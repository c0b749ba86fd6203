"""``registry.compile_rules``: a check's findings are joined per kind (uncertain, signature_only), not across kinds."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.registry import PREDICTS, compile_rules
from pytest_rocmcompat.stack.environment import Environment
from tests.knowledge.two_ways import run_cases, run_source

# a neutral ROCm machine the stacks are stated over
ROCM = Environment(platform="rocm", python="3.12.3", os="Linux")


def _finding(lib: str, *, uncertain: bool = False, signature_only: bool = False, predicts: str = "") -> Finding:
    return Finding(
        check="library-min-arch",
        reason=f"{lib} has no kernels for gfx906",
        fix="another GPU",
        link="https://example.org/source",
        uses=(lib,),
        uncertain=uncertain,
        signature_only=signature_only,
        predicts=predicts,
    )


def test_one_kind_is_one_rule_under_the_check_id() -> None:
    (rule,) = compile_rules([_finding("flash_attn"), _finding("xformers")])
    assert rule.id == "library-min-arch" and not rule.at_risk
    assert set(rule.applies_to.uses) == {"flash-attn", "xformers"}


def test_a_certain_finding_does_not_make_another_librarys_risk_certain() -> None:
    certain, risk = compile_rules([_finding("flash_attn"), _finding("vllm", uncertain=True)])
    assert (certain.id, certain.at_risk, certain.applies_to.uses) == ("library-min-arch", False, ("flash-attn",))
    assert (risk.id, risk.at_risk, risk.applies_to.uses) == ("library-min-arch:at-risk", True, ("vllm",))
    # each part keeps the check's signature: a risk without findings' own texts claims only what the check predicts
    assert risk.signature is not None and risk.signature.pattern == PREDICTS["library-min-arch"]
    assert not risk.signature_matches("AssertionError: assert 1 == 2")


def test_all_uncertain_keeps_the_check_id() -> None:
    (rule,) = compile_rules([_finding("vllm", uncertain=True), _finding("xformers", uncertain=True)])
    assert rule.id == "library-min-arch" and rule.at_risk


def test_a_finding_claiming_only_its_own_messages_is_not_widened_by_the_check_signature() -> None:
    rules = compile_rules(
        [_finding("flash_attn"), _finding("vllm", uncertain=True, signature_only=True, predicts="only this text")]
    )
    own = next(r for r in rules if r.id == "library-min-arch:at-risk-own-messages")
    assert own.at_risk and own.signature is not None and own.signature.pattern == "only this text"
    main = next(r for r in rules if r.id == "library-min-arch")
    assert main.signature is not None and "only this text" not in main.signature.pattern


@pytest.mark.parametrize("settings", [{"library-min-arch": "skip"}])
def test_every_part_takes_the_checks_action(settings: dict[str, str]) -> None:
    rules = compile_rules([_finding("flash_attn"), _finding("vllm", uncertain=True)], settings)
    assert [r.action for r in rules] == ["skip", "skip"]


def test_through_pytest_a_pass_under_the_risk_stands_and_under_the_certain_rule_is_stale(
    pytester: pytest.Pytester,
) -> None:
    """gfx906 with a named flash-attn (no release serves it: certain) and no xformers named (only its official
    wheels are known not to serve it: a risk): a passing xformers test is a plain pass, a passing flash-attn
    test a stale rule (both are library-min-arch findings)."""
    source = """
import pytest

@pytest.mark.uses("xformers")
def test_xformers():
    pass

@pytest.mark.uses("flash_attn")
def test_flash_attn():
    pass
"""
    stack = ("platform=rocm", "arch=gfx906", "torch=2.5.1+rocm6.2", "lib.flash_attn=2.6.3")
    cases = run_source(pytester, source, stack, env=ROCM)
    assert "rocm_outcome" not in cases["test_xformers"], cases["test_xformers"]
    assert cases["test_flash_attn"].get("rocm_outcome") == "stale-rule", cases["test_flash_attn"]


def test_through_pytest_an_unrelated_failure_under_the_split_risk_stays_fail(pytester: pytest.Pytester) -> None:
    """gfx1100 with flash-attn's certain finding beside xformers' risk: the risk part keeps the check's
    signature, so an unrelated failure of an xformers test is a plain fail, not known-bad."""
    stack = ("platform=rocm", "arch=gfx1100", "torch=2.5.1+rocm6.2", "lib.flash_attn=2.6.3")
    cases = run_cases(pytester, "invalid device function", stack, uses="xformers", env=ROCM)
    assert cases["test_unrelated"].get("rocm_outcome", "fail") == "fail", cases["test_unrelated"]
    assert cases["test_predicted"].get("rocm_outcome") == "known-bad", cases["test_predicted"]
    assert cases["test_predicted"]["rocm_rule"] == "library-min-arch:at-risk"


def test_through_pytest_a_stale_rule_is_named_by_a_certain_rule_not_a_risk(pytester: pytest.Pytester) -> None:
    """A passing GPU test on gfx1103 with ROCm 6.2 and no torch named: arch-not-in-build's risk (which torch?)
    comes first, rocBLAS' certain finding (no Tensile kernels for gfx1103 before 7.1) after it: the test is
    stale under the certain rule, never under the risk."""
    source = """
import pytest

@pytest.mark.gpus(1)
def test_gpu():
    pass
"""
    case = run_source(pytester, source, ("platform=rocm", "arch=gfx1103", "rocm=6.2.4"), env=ROCM)["test_gpu"]
    assert case.get("rocm_outcome") == "stale-rule" and case.get("rocm_rule") == "rocblas-arch-not-in-release", case
