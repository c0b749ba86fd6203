"""torch.compile's Python gate on a stack that names no torch: a risk where the torch releases it could hold refuse.

The candidates are the official torch releases built for the stack's ROCm/CUDA release
(``python_range.candidate_series``, from the wheel-target table); only the gate's own message confirms
the risk, so an unrelated failure stays a failure.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import dynamo_gate
from pytest_rocmcompat.knowledge.checks.python_range import candidate_series
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import run_cases

BASE = Environment(platform="cpu", python="3.11.9", os="Linux", source="replay")
# torch 2.3's torch/_dynamo/eval_frame.py check_if_dynamo_supported, verbatim
GATE_23 = "RuntimeError: torch.compile is not supported on Python 3.12+"


def gate(*stack: str) -> list:
    return dynamo_gate.check(apply_overrides(BASE, list(stack)))


def test_every_build_for_the_rocm_release_refuses_its_python() -> None:
    # ROCm 5.x builds: torch 2.3 and older; Dynamo accepts 3.12 from 2.4
    assert all(s < "2.4" for s in candidate_series("amd", "rocm5.7") if s.startswith("2."))
    (finding,) = gate("platform=rocm", "rocm=5.7", "python=3.12.3")
    assert finding.uncertain and "every one refuses Python 3.12" in finding.reason
    assert "torch.compile" in finding.uses and finding.nodeids == dynamo_gate.COMPILE_TESTS


def test_some_builds_refuse_a_risk_naming_them() -> None:
    (finding,) = gate("platform=cuda", "cuda=11.8", "python=3.12.4")
    assert finding.uncertain and "torch 2.0-2.3 refuses Python 3.12" in finding.reason


@pytest.mark.parametrize(
    "stack",
    [
        ("platform=rocm", "rocm=6.2", "python=3.12.3"),  # every ROCm 6.2 build has Dynamo on 3.12
        ("platform=rocm", "rocm=6.4", "python=3.13.1"),
        ("platform=rocm", "python=3.12.3"),  # no release stated: some candidates accept it
        ("platform=cuda", "python=3.11.4"),
        ("platform=cpu", "python=3.12.3"),  # no GPU platform: no candidates
        ("platform=rocm", "rocm=5.7", "python=3.10.12"),  # a Python every torch.compile accepts
    ],
)
def test_no_risk_where_the_candidates_accept_the_python(stack: tuple[str, ...]) -> None:
    assert gate(*stack) == []


def test_a_named_torch_is_judged_as_before() -> None:
    (finding,) = gate("platform=rocm", "rocm=5.7", "torch=2.3.1+rocm5.7", "python=3.12.3")
    assert not finding.uncertain and "torch 2.3.1+rocm5.7 refuses Python 3.12" in finding.reason


def test_only_the_gate_message_confirms_it() -> None:
    signature = compile_signature(dynamo_gate.PREDICTS)
    assert signature.search(GATE_23)
    assert not signature.search("torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised: LoweringException")


def test_the_gate_message_is_known_bad_and_an_unrelated_failure_stays_fail(pytester: pytest.Pytester) -> None:
    # ROCm 6.0 builds: torch 2.2-2.4, each with Python 3.12 wheels (no python-range risk), 2.2/2.3 refusing compile
    stack = ("platform=rocm", "rocm=6.0", "python=3.12.3", "torch=")
    (finding,) = gate(*stack)
    assert "torch 2.2-2.3 refuses Python 3.12" in finding.reason
    cases = run_cases(pytester, GATE_23, stack, uses="torch.compile")
    assert cases["test_predicted"]["rocm_outcome"] == "known-bad"
    assert cases["test_predicted"]["rocm_rule"].startswith(dynamo_gate.ID)
    assert cases["test_unrelated"].get("rocm_outcome", "fail") == "fail" and "rocm_rule" not in cases["test_unrelated"]
    assert "rocm_rule" not in cases["test_elsewhere"]
