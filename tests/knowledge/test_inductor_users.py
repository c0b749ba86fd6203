"""Which tests meet Inductor: torch.compile's, and, as a risk, vLLM's from 0.8.0 (its V1 engine compiles by default)."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import dynamo_gate, requirements
from pytest_rocmcompat.knowledge.checks.registry import compile_rules, evaluate
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
# Inductor beside another Triton (torch/_inductor/runtime/hints.py importing a name Triton 3.x moved)
INDUCTOR_TEXT = "ImportError: cannot import name 'AttrsDescriptor' from 'triton.compiler.compiler'"
# vLLM's own build against another torch, and a torch API it lacks: never the Triton pair's
VLLM_BUILD = "ImportError: /usr/lib/python3/site-packages/vllm/_C.abi3.so: undefined symbol: _ZN3c104cuda9SetDeviceEi"
TORCH_API = "ImportError: cannot import name 'is_compiling' from 'torch.compiler'"


@pytest.mark.parametrize(
    ("stack", "vllm"),
    [
        ((), False),  # a stack naming no vLLM release: not judged
        (("lib.vllm=0.8.0",), True),
        (("lib.vllm=0.8.0rc1",), True),
        (("lib.vllm=0.10.1.1",), True),
        (("lib.vllm=0.9.2+rocm700",), True),
        (("lib.vllm=0.8.5", "env.VLLM_USE_V1=0"), False),  # the V0 engine runs eagerly
        (("lib.vllm=0.7.3",), False),  # VLLM_USE_V1 defaulted to "0"
        (("lib.vllm=0.6.3.post1",), False),
    ],
)
def test_inductor_frameworks_follow_vllm_release(stack: tuple[str, ...], vllm: bool) -> None:
    assert ("vllm" in dynamo_gate.inductor_frameworks(apply_overrides(BASE, list(stack)))) is vllm


@pytest.mark.parametrize(
    ("vllm", "torch", "triton", "reaches"),
    [
        # vLLM 0.8.5 pins torch 2.6.0, which pins triton 3.2.0 (their Requires-Dist); 3.1.0 beside it breaks Inductor
        ("0.8.5", "2.6.0+cu124", "3.1.0", True),
        # vLLM 0.7.3 pins torch 2.5.1 (triton 3.1.0): its default V0 engine runs eagerly
        ("0.7.3", "2.5.1+cu124", "3.0.0", False),
    ],
)
def test_torch_triton_pair_reaches_vllm_tests_as_a_risk(vllm: str, torch: str, triton: str, reaches: bool) -> None:
    env = apply_overrides(BASE, ["platform=cuda", f"torch={torch}", f"lib.triton={triton}", f"lib.vllm={vllm}"])
    found = [f for f in evaluate(env) if f.check == requirements.ID and "triton" in f.reason]
    (certain,) = [f for f in found if not f.uncertain]
    assert certain.uses == dynamo_gate.COMPILE_USES  # eager torch never imports Triton
    risks = [f for f in found if f.uncertain and f.uses == ("vllm",)]
    assert bool(risks) is reaches
    if reaches:
        (risk,) = risks
        assert risk.signature_only and "enforce_eager" in risk.reason
        (rule,) = compile_rules([risk])
        assert rule.at_risk and rule.signature.search(INDUCTOR_TEXT)
        assert not rule.signature.search(VLLM_BUILD) and not rule.signature.search(TORCH_API)


@pytest.mark.parametrize(
    ("stack", "vllm"),
    [
        # no vLLM named: the releases that pin the stack's torch exactly (their Requires-Dist) decide
        (("torch=2.6.0",), True),  # vLLM 0.8.0-0.8.5.post1 pin torch==2.6.0
        (("torch=2.7.0+cu128",), True),  # 0.9.x
        (("torch=2.5.1",), False),  # 0.6.4-0.7.3: V0 by default
        (("torch=2.4.0",), False),
        (("torch=2.6.0", "env.VLLM_USE_V1=0"), False),
        (("platform=rocm", "torch=2.6.0+rocm6.2"), False),  # vLLM on ROCm is built from source: nothing derived
        (("torch=2.6.0.dev20241201",), False),  # a nightly: no release pins it
    ],
)
def test_an_unnamed_vllm_is_the_one_that_pins_the_stacks_torch(stack: tuple[str, ...], vllm: bool) -> None:
    env = apply_overrides(BASE, list(stack))
    assert ("vllm" in dynamo_gate.inductor_frameworks(env)) is vllm
    if vllm:
        assert all(v >= dynamo_gate.Version("0.8.0") for v in dynamo_gate._releases_pinning("vllm", env))
