"""``pypi-namesake``: PyPI's ``apex`` (a Pyramid toolkit) where a test needs NVIDIA's or ROCm's apex."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import pypi_namesake
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")

# (message as the source quotes it, source): importing NVIDIA's modules from the Pyramid apex on Python 3
MESSAGES = [
    (
        "TypeError: Class advice impossible in Python3.  Use the @implementer class decorator instead.",
        "https://github.com/hukkelas/DeepPrivacy/issues/7",  # from apex.amp._amp_state import _amp_state
    ),
    (
        "TypeError: Class advice impossible in Python3.  Use the @implementer class decorator instead.",
        "https://github.com/zopefoundation/zope.interface/issues/116",  # from apex.reparameterization import ...
    ),
    ("ModuleNotFoundError: No module named 'apex.amp'", "the same package where its zope import did not run"),
]


def _found(*stack: str) -> list[Finding]:
    return [f for f in evaluate(apply_overrides(BASE, list(stack))) if f.check == pypi_namesake.ID]


@pytest.mark.parametrize(("message", "source"), MESSAGES)
def test_the_pyramid_apex_s_failures_are_predicted(message: str, source: str) -> None:
    assert compile_signature(pypi_namesake.PREDICTS).search(message) is not None, source


@pytest.mark.parametrize("version", ["0.9.10.dev0", "0.9.10dev", "0.9.8adev", "0.9.11.dev0"])
def test_pypi_s_apex_is_found(version: str) -> None:
    (finding,) = _found("platform=cuda", "arch=sm_90", "torch=2.5.1+cu124", f"lib.apex={version}")
    assert "Pyramid" in finding.reason and finding.uses == ("apex",)
    assert not finding.uncertain and not finding.conditional


@pytest.mark.parametrize(
    "stack",
    [
        ("platform=cuda", "arch=sm_90", "lib.apex=0.1"),  # NVIDIA's apex built from its repository
        ("platform=rocm", "arch=gfx942", "lib.apex=1.9.0"),  # ROCm/apex for torch 2.9
        ("platform=rocm", "arch=gfx942", "lib.apex=1.14.0a0"),
        ("platform=cuda", "arch=sm_90"),  # no apex stated
    ],
)
def test_nvidia_s_and_rocm_s_apex_are_not(stack: tuple[str, ...]) -> None:
    assert _found(*stack) == []


def test_other_texts_are_not_predicted() -> None:
    sig = compile_signature(pypi_namesake.PREDICTS)
    assert sig.search("ImportError: cannot import name 'amp' from 'torch.cuda'") is None
    assert sig.search("RuntimeError: a genuinely different regression") is None


def test_known_bad_and_an_unrelated_failure_stays_fail(pytester: pytest.Pytester) -> None:
    stack = ("platform=cuda", "arch=sm_90", "torch=2.5.1+cu124", "lib.apex=0.9.10.dev0")
    predicted, unrelated = predicted_and_unrelated(
        pytester, MESSAGES[0][0].split(": ", 1)[1], stack, uses="apex", error="TypeError"
    )
    assert predicted["rocm_rule"] == pypi_namesake.ID
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated
