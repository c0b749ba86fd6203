"""Which tests meet Inductor: torch.compile's, and vLLM's from 0.8.0 (its V1 engine compiles by default)."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import dynamo_gate, requirements
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")


@pytest.mark.parametrize(
    ("stack", "vllm"),
    [
        ((), True),  # a test using vLLM on a stack that names none most likely runs a recent release
        (("lib.vllm=0.8.0",), True),
        (("lib.vllm=0.8.0rc1",), True),
        (("lib.vllm=0.10.1.1",), True),
        (("lib.vllm=0.9.2+rocm700",), True),
        (("lib.vllm=0.7.3",), False),  # VLLM_USE_V1 defaulted to "0": the V0 engine runs eagerly
        (("lib.vllm=0.6.3.post1",), False),
    ],
)
def test_inductor_uses_follow_vllm_release(stack: tuple[str, ...], vllm: bool) -> None:
    env = apply_overrides(BASE, list(stack))
    uses = dynamo_gate.inductor_uses(env)
    assert uses[:2] == dynamo_gate.COMPILE_USES
    assert ("vllm" in uses) is vllm


@pytest.mark.parametrize(
    ("vllm", "torch", "triton", "reaches"),
    [
        # vLLM 0.8.5 pins torch 2.6.0, which pins triton 3.2.0 (their Requires-Dist); 3.1.0 beside it breaks Inductor
        ("0.8.5", "2.6.0+cu124", "3.1.0", True),
        # vLLM 0.7.3 pins torch 2.5.1 (triton 3.1.0): its default V0 engine runs eagerly
        ("0.7.3", "2.5.1+cu124", "3.0.0", False),
    ],
)
def test_torch_triton_pair_reaches_vllm_tests_from_080(vllm: str, torch: str, triton: str, reaches: bool) -> None:
    env = apply_overrides(BASE, ["platform=cuda", f"torch={torch}", f"lib.triton={triton}", f"lib.vllm={vllm}"])
    (finding,) = [f for f in evaluate(env) if f.check == requirements.ID and "triton" in f.reason]
    assert "torch.compile" in finding.uses and "torch" not in finding.uses  # eager torch never imports Triton
    assert ("vllm" in finding.uses) is reaches
