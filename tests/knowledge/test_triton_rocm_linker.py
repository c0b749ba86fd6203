"""``triton-rocm-linker-missing``: PyPI's Triton 3.0-3.4 on a ROCm stack without a system ROCm.

Bounds read in PyPI's triton wheels: 3.0.0, 3.3.1 and 3.4.0 ``triton/backends/amd/compiler.py`` run an external
``ld.lld`` (``HIPBackend.path_to_rocm_lld``) and carry none; 3.5.0 links in process (``amd.link_hsaco``).
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import triton_rocm_linker
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
WHEEL_ROCM = ("platform=rocm", "arch=gfx1151", "torch=2.7.0a0+rocm6.5")  # a TheRock torch, no system ROCm

# (message as the source quotes it, source)
MESSAGES = [
    (  # PyPI-named Triton 3.3 in a Fedora toolbox on TheRock's wheels, through flash-attn's Triton AMD backend
        "Exception: ROCm linker /opt/rocm/llvm/bin/ld.lld not found. Set 'TRITON_HIP_LLD_PATH' to its path.",
        "https://github.com/kyuz0/amd-strix-halo-voice-toolbox/issues/1",
    ),
    (  # TheRock torch 2.7.0a0 (ROCm 6.5 SDK in wheels, no /opt/rocm) with Triton 3.3, flex_attention
        "torch._inductor.exc.InductorError: LoweringException: Exception: ROCm linker /opt/rocm/llvm/bin/ld.lld "
        "not found. Set 'TRITON_HIP_LLD_PATH' to its path.",
        "https://github.com/ROCm/legacy-rocm-build/issues/4499",
    ),
    (  # 3.0's text, without the hint (triton 3.0.0 wheel, HIPBackend.path_to_rocm_lld)
        "Exception: ROCm linker /opt/rocm/llvm/bin/ld.lld not found",
        "https://pypi.org/project/triton/3.0.0/#files",
    ),
]


def _found(*stack: str) -> list[Finding]:
    env = apply_overrides(BASE, list(stack))
    return [f for f in evaluate(env) if f.check == triton_rocm_linker.ID]


@pytest.mark.parametrize("triton", ["3.0.0", "3.3.1", "3.4.0", "3.4.0+rocm7.0.0"])
def test_pypis_triton_before_3_5_without_a_system_rocm_is_a_risk(triton: str) -> None:
    (finding,) = _found(*WHEEL_ROCM, f"lib.triton={triton}")
    assert f"triton {triton} (PyPI's distribution) links each kernel with an external ld.lld" in finding.reason
    assert finding.uncertain and finding.signature_only
    assert set(finding.uses) >= {"torch.compile", "triton"}
    assert finding.predicts == triton_rocm_linker.PREDICTS


@pytest.mark.parametrize(
    "stack",
    [
        (*WHEEL_ROCM, "lib.triton=3.5.0"),  # links in process
        (*WHEEL_ROCM, "lib.triton=2.3.1"),  # no AMD backend of its own at all: not this check's
        (*WHEEL_ROCM, "lib.triton=3.3.1", "rocm=6.4.1"),  # a system ROCm: /opt/rocm/llvm/bin/ld.lld
        (*WHEEL_ROCM, "lib.triton=3.3.1", "env.TRITON_HIP_LLD_PATH=/opt/sdk/llvm/bin/ld.lld"),
        (*WHEEL_ROCM, "lib.pytorch-triton-rocm=3.3.1"),  # PyTorch's ROCm Triton carries its ld.lld
        ("platform=cuda", "arch=sm_90", "torch=2.7.0+cu128", "lib.triton=3.3.1"),  # NVIDIA: no ld.lld involved
    ],
)
def test_no_risk(stack: tuple[str, ...]) -> None:
    assert _found(*stack) == []


def test_a_rocm_torch_alone_makes_the_stack_rocm() -> None:
    assert len(_found("torch=2.7.1+rocm6.3", "lib.triton=3.3.1")) == 1


@pytest.mark.parametrize(("message", "source"), MESSAGES)
def test_the_signature_matches_the_linkers_text(message: str, source: str) -> None:
    assert compile_signature(triton_rocm_linker.PREDICTS).search(message) is not None, source


@pytest.mark.parametrize(
    "message",
    [
        "ValueError: a genuinely different regression",
        "ld.lld: error: undefined symbol: main",  # the linker ran and failed: another problem
        "/usr/bin/ld: cannot find -lcuda",  # PyPI's CUDA Triton: requirement-not-met's
    ],
)
def test_the_signature_claims_nothing_else(message: str) -> None:
    assert compile_signature(triton_rocm_linker.PREDICTS).search(message) is None


def test_both_ways_through_pytest(pytester: pytest.Pytester) -> None:
    stack = (*WHEEL_ROCM, "lib.triton=3.3.1")
    message = MESSAGES[0][0].removeprefix("Exception: ")
    predicted, unrelated = predicted_and_unrelated(pytester, message, stack, uses="triton", error="Exception")
    assert predicted["rocm_rule"] == triton_rocm_linker.ID
    assert unrelated.get("rocm_outcome", "fail") == "fail" and "rocm_rule" not in unrelated
