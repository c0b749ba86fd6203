"""``requirement-not-met`` where the generated data cannot answer: torchvision nightlies and pre-2023 releases."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import requirements
from pytest_rocmcompat.knowledge.checks.registry import PREDICTS, evaluate
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")


def _reasons(*stack: str) -> list[str]:
    env = apply_overrides(BASE, ["platform=cuda", *stack])
    return [f.reason for f in evaluate(env) if f.check == requirements.ID]


@pytest.mark.parametrize(
    ("stack", "problem"),
    [
        (("torch=2.0.0+cu117", "lib.torchvision=0.14.1"), "torchvision 0.14.1 requires torch>=1.13,<1.14"),
        (("torch=1.10.0", "lib.torchvision=0.4.0"), "torchvision 0.4.0 requires torch>=1.2,<1.3"),
        (("torch=1.13.1", "lib.torchvision=0.13.1"), "torchvision 0.13.1 requires torch>=1.12,<1.13"),
        (
            # a torch nightly of a later series and day than the one the torchvision nightly was built on
            ("torch=2.7.0.dev20241101+cu124", "lib.torchvision=0.21.0.dev20241020+cu124"),
            "torchvision 0.21.0.dev20241020+cu124 requires torch>=2.6.0.dev0,<=2.7.0.dev20241020",
        ),
        # a stable torch beside a nightly torchvision
        (("torch=2.5.1+cu124", "lib.torchvision=0.21.0.dev20241101"), "requires torch>=2.6.0.dev0,<=2.7.0.dev20241101"),
    ],
)
def test_mismatched_pairs_are_found(stack: tuple[str, ...], problem: str) -> None:
    (reason,) = _reasons(*stack)
    assert problem in reason


@pytest.mark.parametrize(
    "stack",
    [
        ("torch=1.13.1", "lib.torchvision=0.14.1"),
        ("torch=1.2.0", "lib.torchvision=0.4.0"),
        ("torch=1.3.1", "lib.torchvision=0.4.2"),
        ("torch=2.6.0.dev20241101+cu124", "lib.torchvision=0.21.0.dev20241101+cu124"),
        ("torch=2.5.1+cu124", "lib.torchvision=0.20.1+cu124"),  # from the generated data
        ("torch=1.13.1", "lib.torchvision=0.1.9"),  # older than any table: unknown
    ],
)
def test_matching_or_unknown_pairs_say_nothing(stack: tuple[str, ...]) -> None:
    assert _reasons(*stack) == []


@pytest.mark.parametrize(
    "message",
    [
        # torchvision's own CUDA check (torchvision/extension.py) and a missing torch submodule
        "RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA major versions. "
        "PyTorch has CUDA Version=11.7 and torchvision has CUDA Version=12.1.",
        "ModuleNotFoundError: No module named 'torch.utils._pytree'",
        "RuntimeError: operator torchvision::nms does not exist",
    ],
)
def test_signature_covers_mismatch_failures(message: str) -> None:
    assert compile_signature(PREDICTS[requirements.ID]).search(message) is not None


@pytest.mark.parametrize(
    ("stack", "found"),
    [
        (("torch=2.0.1", "lib.deepspeed=0.8.0"), True),  # imports torch._six, gone in torch 2.0
        (("torch=1.13.1", "lib.deepspeed=0.8.0"), False),
        (("torch=2.0.1", "lib.deepspeed=0.8.2"), False),  # the fixed release
    ],
)
def test_deepspeed_before_the_torch_six_fix(stack: tuple[str, ...], found: bool) -> None:
    reasons = _reasons(*stack)
    assert bool(reasons) is found
    if found:
        assert "deepspeed 0.8.0 requires torch<2.0" in reasons[0]
    assert compile_signature(PREDICTS[requirements.ID]).search("ModuleNotFoundError: No module named 'torch._six'")


@pytest.mark.parametrize(
    ("stack", "found"),
    [
        (("lib.transformers=4.31.0", "lib.deepspeed=0.8.3"), True),  # the first release of the 0.9.3 floor
        (("lib.transformers=4.36.2", "lib.deepspeed=0.9.2"), True),
        (("lib.transformers=4.30.2", "lib.deepspeed=0.8.3"), False),  # before huggingface/transformers#24541
        (("lib.transformers=4.36.2", "lib.deepspeed=0.9.3"), False),
        (("lib.transformers=4.36.2",), False),  # no DeepSpeed in the stack: nothing to check
    ],
)
def test_transformers_runtime_deepspeed_floor(stack: tuple[str, ...], found: bool) -> None:
    """transformers checks DeepSpeed at run time (dep_version_check), though it declares it only as an extra."""
    env = apply_overrides(BASE, ["platform=cuda", *stack])
    findings = [f for f in evaluate(env) if f.check == requirements.ID]
    assert bool(findings) is found
    if found:
        (finding,) = findings
        assert "requires deepspeed>=0.9.3" in finding.reason
        assert finding.link == "https://github.com/huggingface/transformers/pull/24541"
        assert set(finding.uses) == {"transformers", "deepspeed"}


@pytest.mark.parametrize(
    ("stack", "flagged"),
    [
        # an undated companion snapshot (NGC's 0.19.0a0) pairs with a torch snapshot of its series (a risk:
        # test_builds_of_unknown_pairing_are_risks), not with one of another series
        (("torch=1.8.0a0", "lib.torchvision=0.9.0a0"), False),
        (("torch=2.4.0a0+3bcc3cddb5.nv24.7", "lib.torchvision=0.19.0a0"), False),
        (("torch=2.5.0a0+3bcc3cddb5.nv24.7", "lib.torchvision=0.19.0a0"), True),
        # the old table's nightlies are compared as PEP 440 compares them (pkg-helpers' rows name the day)
        (("torch=1.9.0.dev20210301", "lib.torchvision=0.9.0.dev20201117"), True),
        (("torch=1.8.0a0+git1234abc", "lib.torchvision=0.9.0.dev20201117"), True),
        # a released wheel is built against the released torch: a snapshot torch (NGC's 1.7.0a0) is another ABI
        (("torch=1.7.0a0+a9603c7", "lib.torchvision=0.8.0"), True),
        (("torch=1.6.0", "lib.torchvision=0.8.0"), True),
        (("torch=1.7.1", "lib.torchvision=0.8.0"), False),
        # ROCm's torch 1.7.0a0 source build with its torchvision built from a commit beside it
        (("torch=1.7.0a0+a9603c7", "lib.torchvision=0.8.0a0+a4736ea"), False),
        # a companion built from a commit (AMD's images) is not the release whose pins a table or PyPI states
        (("torch=2.10.0+git8514f05", "lib.torchvision=0.24.1+d801a34"), False),
        (("torch=2.10.0", "lib.torchvision=0.24.1"), True),
        (("torch=2.10.0", "lib.torchvision=0.24.1+cu128"), True),  # a wheel's build label is no commit
    ],
)
def test_snapshots_and_source_builds_are_compared_as_what_they_are(stack: tuple[str, ...], flagged: bool) -> None:
    env = apply_overrides(BASE, ["platform=cuda", *stack])
    assert bool([f for f in evaluate(env) if f.check == requirements.ID and not f.uncertain]) is flagged


def _risks(*stack: str) -> list[str]:
    env = apply_overrides(BASE, ["platform=cuda", *stack])
    return [f.reason for f in evaluate(env) if f.check == requirements.ID and f.uncertain]


@pytest.mark.parametrize(
    ("stack", "risk"),
    [
        # a companion built from a commit, or two snapshots of one series: what decides is the torch it was built
        # against, which the stack cannot name: a risk that only an ABI failure confirms, never nothing at all
        (("torch=2.10.0+git8514f05", "lib.torchvision=0.24.1+d801a34"), True),
        (("torch=2.9.0", "lib.torchvision=0.24.1+d801a34"), False),  # the pins of its release hold
        (("torch=1.6.0.dev20200525", "lib.torchvision=0.7.0a0+78ed10c"), True),
        (("torch=1.8.0a0", "lib.torchvision=0.9.0a0"), True),
        (("torch=1.8.0", "lib.torchvision=0.9.0"), False),
    ],
)
def test_builds_of_unknown_pairing_are_risks(stack: tuple[str, ...], risk: bool) -> None:
    assert bool(_risks(*stack)) is risk
