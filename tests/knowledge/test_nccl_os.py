"""``nccl-not-on-this-os``: torch on Windows or macOS has no NCCL backend (a conditional finding)."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import nccl_os
from pytest_rocmcompat.knowledge.checks.registry import PREDICTS, compile_rules, evaluate
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import run_source

BASE = Environment(platform="cpu", python="3.10.11", os="Linux")
SIGNATURE = compile_signature(PREDICTS[nccl_os.ID])


def _findings(*stack: str) -> list:
    return [f for f in evaluate(apply_overrides(BASE, list(stack))) if f.check == nccl_os.ID]


@pytest.mark.parametrize(
    ("stack", "system"),
    [
        (("os=Windows", "platform=cuda", "arch=sm_89", "torch=2.3.1+cu121"), "Windows"),  # a CUDA wheel too
        (("os=Windows", "torch=1.11.0+cu113"), "Windows"),
        (("os=macOS", "torch=2.2.2"), "macOS"),
    ],
)
def test_torch_on_windows_or_macos_has_no_nccl(stack: tuple[str, ...], system: str) -> None:
    (finding,) = _findings(*stack)
    assert finding.reason.startswith(f"torch {stack[-1].split('=', 1)[1]} on {system} has no NCCL backend")
    assert finding.conditional and finding.uncertain and finding.everything
    assert "gloo" in finding.fix and finding.link == nccl_os.SOURCE


@pytest.mark.parametrize(
    "stack",
    [
        ("os=Linux", "platform=cuda", "arch=sm_90", "torch=2.3.1+cu121"),
        ("os=Linux 5.15.153.1-microsoft-standard-WSL2", "platform=cuda", "torch=2.3.1+cu121"),  # WSL 2 is Linux
        ("os=Linux", "platform=cuda", "arch=sm_90"),  # no torch named: Linux all the same
    ],
)
def test_linux_and_wsl_are_no_finding(stack: tuple[str, ...]) -> None:
    assert _findings(*stack) == []


def test_a_windows_stack_naming_no_torch_release_is_judged_all_the_same() -> None:
    (finding,) = _findings("os=Windows", "platform=cuda", "arch=sm_89")
    assert finding.reason.startswith("torch (any build) on Windows has no NCCL backend")


# (message, source): torch's own texts as Windows users quote them
QUOTED = [
    (
        "RuntimeError: Distributed package doesn't have NCCL built in",
        "https://github.com/kennymckormick/pyskl/issues/79",  # Windows, torch 1.11.0+cu113, one GPU
    ),
    (
        "UserWarning: Attempted to get default timeout for nccl backend, but NCCL support is not compiled",
        "https://github.com/pytorch/pytorch/issues/159742",  # D:\\ paths (Windows), init_process_group('nccl')
    ),
]


@pytest.mark.parametrize(("message", "source"), QUOTED)
def test_quoted_texts_are_predicted(message: str, source: str) -> None:
    assert source.startswith("https://github.com/") and SIGNATURE.search(message)


@pytest.mark.parametrize(
    "message",
    [
        "NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled system error",
        "RuntimeError: [1] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store",
        "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp, invalid usage",
    ],
)
def test_nccls_own_failures_on_linux_are_not_claimed(message: str) -> None:
    assert not SIGNATURE.search(message)


def test_conditional_rule_and_not_counted_against_the_stack() -> None:
    env = apply_overrides(BASE, ["os=Windows", "platform=cuda", "torch=2.3.1+cu121"])
    (rule,) = [r for r in compile_rules(evaluate(env)) if r.id.startswith(nccl_os.ID)]
    assert rule.applies_to.everything and rule.at_risk and rule.signature_matches(QUOTED[0][0])
    assert not rule.signature_matches("ValueError: a genuinely different regression")


SOURCE = """
import pytest

def test_ddp():
    raise RuntimeError("Distributed package doesn't have NCCL built in")

def test_unrelated():
    raise ValueError("a genuinely different regression")

def test_passes():
    pass
"""


def test_through_pytest_the_missing_backend_is_known_bad_and_nothing_else_changes(pytester: pytest.Pytester) -> None:
    cases = run_source(pytester, SOURCE, ("os=Windows", "torch=2.3.1+cu121"))
    assert cases["test_ddp"]["rocm_outcome"] == "known-bad"
    assert cases["test_ddp"]["rocm_rule"].startswith(nccl_os.ID)
    # a risk: another failure is not blamed on it, a pass stays a pass (no stale rule)
    unrelated = cases["test_unrelated"]
    assert "rocm_rule" not in unrelated and not unrelated.get("rocm_diagnosis", "").startswith(nccl_os.ID)
    assert cases["test_passes"].get("rocm_outcome", "pass") == "pass"
