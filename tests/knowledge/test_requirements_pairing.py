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
        # a snapshot before a release meets a pairing's lower bound as that release (derived_facts.contains):
        # ROCm's torch 1.7.0a0 source build with its torchvision 0.8.0a0, pytorch.org's 1.8 nightlies
        (("torch=1.7.0a0+a9603c7", "lib.torchvision=0.8.0"), False),
        (("torch=1.8.0.dev20201117", "lib.torchvision=0.9.0.dev20201117"), False),
        (("torch=1.6.0", "lib.torchvision=0.8.0"), True),  # a release of another series still is not
        (("torch=1.8.0a0", "lib.torchvision=0.8.0"), True),  # nor a snapshot of the next one (<1.8)
        # a companion built from a commit (AMD's images) is not the release whose pins a table or PyPI states
        (("torch=2.10.0+git8514f05", "lib.torchvision=0.24.1+d801a34"), False),
        (("torch=2.10.0", "lib.torchvision=0.24.1"), True),
        (("torch=2.10.0", "lib.torchvision=0.24.1+cu128"), True),  # a wheel's build label is no commit
    ],
)
def test_snapshots_and_source_builds_are_compared_as_what_they_are(stack: tuple[str, ...], flagged: bool) -> None:
    assert bool(_reasons(*stack)) is flagged
