"""A failure refusing the stack's own GPU by name confirms the checks that say the GPU is not served."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import registry
from pytest_rocmcompat.knowledge.gpu_refusals import refusing, spellings
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides

BASE = Environment(platform="cpu", python="3.11.9", source="replay")
# (arch, text): libraries' refusals quoted from public reports
REFUSALS = (
    # AITER's chip map: https://github.com/gpustack/gpustack/issues/3880 (its title)
    ("gfx1151", "Unknown GPU architecture: gfx1151. Supported architectures: ['native', 'gfx90a', 'gfx908', 'gfx940'"),
    # sgl-kernel's ROCm build, as a user quoted it: https://github.com/sgl-project/sglang/issues/9417
    ("gfx1100", "failed to compile with the error \"Unsupported GPU architecture detected gfx1100. Expected 'gfx942'"),
    # clang given an offload arch it does not know: https://github.com/leejet/stable-diffusion.cpp/issues/464
    ("gfx1100", "clang++: error: unsupported CUDA gpu architecture: gfx1100"),
    # torch's capability warning (torch/cuda/__init__.py), as tests/knowledge/test_diagnoses.py quotes it
    (
        "sm_120",
        "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.",
    ),
)
NOT_REFUSALS = (
    ("gfx1151", "Unknown GPU architecture: gfx1100. Supported architectures: ['native', 'gfx90a']"),  # another GPU
    ("gfx1100", "gfx11000 is not supported"),  # another name
    ("gfx1100", "rocminfo: Name: gfx1100, Marketing Name: Radeon RX 7900 XTX"),  # named, not refused
    ("gfx1030", "RuntimeError: HIP error: invalid device function"),  # no name at all
    ("sm_61", "Found GPU0 NVIDIA TITAN Xp which is of cuda capability 6.1 (min 3.7)"),  # no refusal word
    ("sm_61", "capability 6.10 is not supported"),
)


@pytest.mark.parametrize(("arch", "text"), REFUSALS)
def test_a_refusal_naming_the_gpu_is_claimed(arch: str, text: str) -> None:
    assert compile_signature(refusing([arch])).search(text)


@pytest.mark.parametrize(("arch", "text"), NOT_REFUSALS)
def test_other_gpus_and_plain_mentions_are_not(arch: str, text: str) -> None:
    assert not compile_signature(refusing([arch])).search(text)


def test_spellings() -> None:
    assert spellings("gfx90a") == ["gfx90a"]
    assert spellings("sm_86") == [r"sm_?86", r"compute_86", r"capability (?:of )?\(?8\.6\)?"]
    assert spellings("cpu") == [] and refusing(["cpu"]) == ""


def test_only_the_gpu_service_checks_take_it() -> None:
    """library-min-arch's finding on an RDNA GPU predicts the refusal; a finding of another check does not."""
    env = apply_overrides(BASE, ["platform=rocm", "arch=gfx1030", "lib.vllm=0.14.0", "lib.numpy=2.1.0", "torch=2.2.2"])
    findings = registry.evaluate(env)
    named = refusing(["gfx1030"])
    by_check = {f.check: f for f in findings}
    assert named in by_check["library-min-arch"].predicts
    assert all(named not in f.predicts for f in findings if f.check not in registry.GPU_SERVICE)
    (rule,) = [r for r in registry.compile_rules(findings) if r.id == "library-min-arch"]
    assert rule.signature.search("ValueError: gfx1030 is not supported by this vLLM build")
