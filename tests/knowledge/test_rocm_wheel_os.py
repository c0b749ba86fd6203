"""``rocm-wheel-not-for-os``: a ``+rocmX.Y`` torch build pinned on Windows or macOS, where none is published."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import rocm_wheel_os
from pytest_rocmcompat.knowledge.checks.registry import PREDICTS, evaluate
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import run_source

BASE = Environment(platform="cpu", python="3.12.7", os="Linux")
SIGNATURE = compile_signature(PREDICTS[rocm_wheel_os.ID])


def _findings(*stack: str) -> list:
    return [f for f in evaluate(apply_overrides(BASE, list(stack))) if f.check == rocm_wheel_os.ID]


@pytest.mark.parametrize(
    ("stack", "named"),
    [
        (("os=Windows", "platform=rocm", "arch=gfx1200", "torch=2.9.1+rocm6.3"), "torch 2.9.1+rocm6.3 on Windows"),
        (("os=Windows 11", "torch=2.0.0+rocm5.4.2"), "torch 2.0.0+rocm5.4.2 on Windows"),
        (("os=macOS", "torch=2.5.1+rocm6.2"), "torch 2.5.1+rocm6.2 on macOS"),
        (("os=Windows", "torch=2.6.0+rocm6.4.1.git1ded221d"), "torch 2.6.0+rocm6.4.1.git1ded221d on Windows"),
        (("os=Windows", "torch=2.4.1", "lib.torchvision=0.19.1+rocm6.1"), "torchvision 0.19.1+rocm6.1 on Windows"),
    ],
)
def test_a_linux_only_rocm_build_on_windows_or_macos_is_found(stack: tuple[str, ...], named: str) -> None:
    (finding,) = _findings(*stack)
    assert finding.reason.startswith(named) and "Linux x86-64 only" in finding.reason
    assert finding.everything and not finding.uncertain and not finding.conditional
    assert finding.link == rocm_wheel_os.UV_SOURCE and "WSL 2" in finding.fix


@pytest.mark.parametrize(
    "stack",
    [
        ("os=Linux", "platform=rocm", "torch=2.9.1+rocm6.3"),
        ("os=Linux 5.15.153.1-microsoft-standard-WSL2", "torch=2.5.1+rocm6.2"),  # WSL 2 is Linux
        ("os=Windows", "torch=2.9.0+rocm7.10.0a20251120"),  # TheRock's Windows builds: another label
        ("os=Windows", "torch=2.9.0+rocmsdk20251116"),  # AMD's Windows builds
        ("os=Windows", "torch=2.3.1+cu121"),  # a CUDA wheel, published for Windows
        ("os=Windows", "platform=rocm", "rocm=6.2"),  # no build named
        ("torch=2.9.1+rocm6.3",),  # no OS stated
    ],
)
def test_other_systems_and_labels_are_no_finding(stack: tuple[str, ...]) -> None:
    assert _findings(*stack) == []


def test_a_live_host_is_not_judged() -> None:
    live = Environment(platform="rocm", python="3.12.7", os="Windows", torch="2.9.1+rocm6.3", source="live")
    assert rocm_wheel_os.check(live) == []


# (message, source): the installers' refusals as users on Windows quote them
QUOTED = [
    (
        "× No solution found when resolving dependencies:\n"
        "╰─▶ Because torch==2.9.1+rocm6.3 has no wheels with a matching platform\n"
        "tag (e.g., `win_amd64`) and you require torch==2.9.1+rocm6.3, we can\n"
        "conclude that your requirements are unsatisfiable.",
        rocm_wheel_os.UV_SOURCE,  # uv on Windows 11, RX 9070 (gfx1200)
    ),
    (
        "ERROR: Could not find a version that satisfies the requirement torch (from versions: none)\n"
        "ERROR: No matching distribution found for torch",
        "https://github.com/RVC-Project/Retrieval-based-Voice-Conversion-WebUI/issues/1658",  # PS C:\\, rocm5.4.2 index
    ),
]


@pytest.mark.parametrize(("message", "source"), QUOTED)
def test_quoted_texts_are_predicted(message: str, source: str) -> None:
    assert source.startswith("https://github.com/") and SIGNATURE.search(message)


@pytest.mark.parametrize(
    "message",
    [
        "ERROR: No matching distribution found for pytorch-triton-rocm==2.2.0 (from torch==2.2.0+rocm5.7)",
        "RuntimeError: No HIP GPUs are available",
        "ValueError: a genuinely different regression",
    ],
)
def test_other_failures_are_not_claimed(message: str) -> None:
    assert not SIGNATURE.search(message)


SOURCE = """
def test_install():
    raise RuntimeError("ERROR: No matching distribution found for torch==2.5.1+rocm6.2")

def test_unrelated():
    raise ValueError("a genuinely different regression")
"""


def test_through_pytest_the_refusal_is_known_bad_and_another_failure_keeps_its_outcome(
    pytester: pytest.Pytester,
) -> None:
    cases = run_source(pytester, SOURCE, ("os=Windows", "platform=rocm", "torch=2.5.1+rocm6.2"))
    assert cases["test_install"]["rocm_outcome"] == "known-bad"
    assert cases["test_install"]["rocm_rule"] == rocm_wheel_os.ID
    unrelated = cases["test_unrelated"]
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated
    assert unrelated["rocm_diagnosis"].startswith(f"{rocm_wheel_os.ID}: torch 2.5.1+rocm6.2 on Windows")


def test_the_windows_triton_risk_leaves_a_build_windows_has_no_wheel_of_to_this_check() -> None:
    """dynamo-python-gate's Windows risk speaks of a torch's Windows wheels: none exists for a +rocm build."""
    env = apply_overrides(BASE, ["os=Windows", "platform=rocm", "torch=2.5.1+rocm6.2"])
    assert [f.check for f in evaluate(env) if f.check == "dynamo-python-gate"] == []
    cuda = apply_overrides(BASE, ["os=Windows", "platform=cuda", "torch=2.5.1+cu124"])
    assert [f.check for f in evaluate(cuda) if f.check == "dynamo-python-gate"] == ["dynamo-python-gate"]
    assert rocm_wheel_os.linux_only("2.5.1+rocm6.2") and not rocm_wheel_os.linux_only(None)
