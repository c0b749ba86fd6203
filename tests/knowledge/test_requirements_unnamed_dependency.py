"""``requirement-not-met`` for a named package whose dependency the stack leaves out (``unnamed_dependency_findings``).

The mirror of test_requirements_unnamed.py: a report that states ``peft==0.14.0`` but not its transformers. PEFT
declares a bare ``transformers`` requirement while importing names only later transformers releases have (its
:data:`RUNTIME_MINIMUMS` rows), so pip keeps whatever transformers was there. The risk claims only those rows'
own messages, each quoted here verbatim beside its source.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import requirements
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.registry import evaluate_risks
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
RISK = f"{requirements.ID}:peft:unnamed-dependency"

# PEFT 0.14's peft_model.py: "from transformers import Cache, DynamicCache, EncoderDecoderCache, PreTrainedModel"
MESSAGES = [
    (
        "ImportError: cannot import name 'EncoderDecoderCache' from 'transformers' "
        "(/usr/local/lib/python3.12/dist-packages/transformers/__init__.py)",
        "https://github.com/HandsOnLLM/Hands-On-Large-Language-Models/issues/117",  # transformers 4.41.2
    ),
    (
        "ImportError: cannot import name 'Cache' from 'transformers' "
        "(F:\\ComfyUI-aki-v1.5\\ComfyUI-aki-v1.5\\python\\lib\\site-packages\\transformers\\__init__.py)",
        "https://github.com/smthemex/ComfyUI_Sonic/issues/8",
    ),
]


def _risks(*stack: str) -> list[Finding]:
    env = apply_overrides(BASE, list(stack))
    return [f for f in evaluate_risks(env) if f.check.endswith(":unnamed-dependency")]


def test_a_named_peft_beside_no_transformers_is_a_risk_for_its_tests() -> None:
    (finding,) = _risks("lib.peft=0.14.0")
    assert finding.check == RISK
    assert finding.reason.startswith("peft 0.14.0 is named but transformers is not: ")
    assert "need transformers>=4.43.0" in finding.reason  # EncoderDecoderCache's first release
    assert finding.uncertain and finding.conditional and finding.signature_only
    assert finding.uses == ("peft", "transformers")


@pytest.mark.parametrize(("message", "source"), MESSAGES)
def test_the_risk_claims_the_import_errors_users_met(message: str, source: str) -> None:
    (finding,) = _risks("lib.peft=0.14.0")
    assert compile_signature(finding.predicts).search(message) is not None, source


@pytest.mark.parametrize(
    "message",
    [
        "ValueError: a genuinely different regression",
        "cannot import name 'LoraConfig' from 'peft'",  # another package's name: not this row's
        "No module named 'transformers'",  # nothing installed at all: no row predicts it
    ],
)
def test_the_risk_claims_nothing_else(message: str) -> None:
    (finding,) = _risks("lib.peft=0.14.0")
    assert compile_signature(finding.predicts).search(message) is None


@pytest.mark.parametrize(
    "stack",
    [
        ("lib.peft=0.14.0", "lib.transformers=4.46.3"),  # named: the pair is judged by check() itself
        ("lib.peft=0.14.0", "lib.transformers=4.39.3"),  # named and too old: check()'s finding, not a risk
        ("lib.transformers=4.46.3",),  # nothing named that needs an unnamed package's release
    ],
)
def test_no_unnamed_dependency_risk(stack: tuple[str, ...]) -> None:
    assert [f.check for f in _risks(*stack) if f.check == RISK] == []


def test_an_older_peft_claims_only_its_own_rows() -> None:
    # peft 0.12 imports no cache class: EncoderDecoderCache's message is not its risk's (older rows still are)
    (finding,) = _risks("lib.peft=0.12.0")
    assert "transformers>=4.43.0" not in finding.reason
    assert compile_signature(finding.predicts).search(MESSAGES[0][0]) is None


def test_the_replaying_machines_transformers_is_not_the_stacks() -> None:
    # --rocm-set lib.peft=0.14.0 on a machine with transformers 4.46.3: that transformers is the machine's, not the
    # replayed stack's, so the stack's transformers is still unnamed
    machine = Environment(platform="cpu", python="3.11.7", os="Linux", libraries={"transformers": "4.46.3"})
    env = apply_overrides(machine, ["lib.peft=0.14.0"])
    assert [f.check for f in evaluate_risks(env) if f.check == RISK] == [RISK]


def test_a_probed_machine_gets_no_such_risk() -> None:
    # a package a live or recorded machine does not list is not installed: its import fails, no row predicts that
    env = Environment(platform="cpu", python="3.11.7", os="Linux", libraries={"peft": "0.14.0"})
    assert [f for f in evaluate_risks(env) if f.check == RISK] == []


def test_the_risk_both_ways_through_pytest(pytester: pytest.Pytester) -> None:
    message = MESSAGES[0][0].removeprefix("ImportError: ")
    predicted, unrelated = predicted_and_unrelated(
        pytester, message, ("lib.peft=0.14.0",), uses="peft", error="ImportError"
    )
    assert predicted["rocm_rule"] == RISK
    assert unrelated.get("rocm_outcome", "fail") == "fail" and "rocm_rule" not in unrelated
