"""torch.compile on a Windows stack: refused before torch 2.5, and Inductor's GPU kernels without Triton after."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import dynamo_gate
from pytest_rocmcompat.knowledge.checks.registry import compile_rules, evaluate
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
# the texts as torch raises them (read in the torch wheels of those releases; the links are the files at their tags)
DYNAMO_20 = "RuntimeError: Windows not yet supported for torch.compile"  # v2.1.2 torch/_dynamo/eval_frame.py
INDUCTOR_22 = "RuntimeError: Windows not yet supported for inductor"  # v2.4.1 torch/_dynamo/backends/inductor.py
NO_TRITON = (  # v2.5.1 torch/_inductor/scheduler.py
    "RuntimeError: Cannot find a working triton installation. Either the package is not installed or it is too "
    "old. More information on installing Triton can be found at https://github.com/openai/triton"
)
UNRELATED = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"


def _gate(*stack: str) -> list:
    return [f for f in evaluate(apply_overrides(BASE, list(stack))) if f.check == dynamo_gate.ID]


@pytest.mark.parametrize(
    ("torch", "message"),
    [
        ("2.0.1+cu118", DYNAMO_20),
        ("2.1.2+cu121", DYNAMO_20),
        ("2.2.2+cu121", INDUCTOR_22),
        ("2.4.1+cu124", INDUCTOR_22),
        ("2.3.1+cpu", INDUCTOR_22),  # the refusal holds on CPU too
    ],
)
def test_windows_is_refused_before_25(torch: str, message: str) -> None:
    (finding,) = [f for f in _gate("os=Windows 11", f"torch={torch}") if "Windows" in f.reason]
    # 2.2-2.4 refuse the inductor backend only (backend="eager" runs): a risk there
    assert finding.uncertain is (message == INDUCTOR_22) and finding.uses == dynamo_gate.COMPILE_USES
    (rule,) = compile_rules([finding])
    assert rule.signature.search(message)
    assert not rule.signature.search(UNRELATED)


def test_a_windows_gpu_stack_without_triton_is_a_risk_claiming_only_tritons_absence() -> None:
    (finding,) = _gate("os=Windows", "platform=cuda", "arch=sm_89", "torch=2.6.0+cu124")
    assert finding.uncertain and finding.signature_only
    assert "triton-windows" in finding.reason and finding.link == dynamo_gate.WINDOWS_SOURCES["2.5"]
    signature = compile_signature(finding.predicts)
    assert signature.search(NO_TRITON)
    assert not signature.search(INDUCTOR_22) and not signature.search(UNRELATED)


@pytest.mark.parametrize(
    "stack",
    [
        ("os=Windows", "platform=cuda", "arch=sm_89", "torch=2.6.0+cu124", "lib.triton-windows=3.2.0.post18"),
        ("os=Windows", "torch=2.6.0+cpu"),  # CPU Inductor needs no Triton
        ("os=Linux", "platform=cuda", "arch=sm_89", "torch=2.6.0+cu124"),  # torch's Linux wheels install Triton
        ("os=Linux", "platform=cuda", "torch=2.1.2+cu121"),  # Linux is not refused
        ("os=macOS", "torch=2.1.2"),  # neither refused by this gate
    ],
)
def test_no_windows_finding_where_it_does_not_hold(stack: tuple[str, ...]) -> None:
    assert not [f for f in _gate(*stack) if "Windows" in f.reason or "Triton" in f.reason]


def test_pythons_gate_still_applies_beside_it() -> None:
    reasons = [f.reason for f in _gate("os=Windows", "torch=2.3.1+cu121", "python=3.12.4")]
    assert any("refuses Python 3.12" in r for r in reasons) and any("refuses Windows" in r for r in reasons)
