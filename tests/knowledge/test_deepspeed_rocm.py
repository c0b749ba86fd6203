"""``deepspeed-rocm-ops``: DeepSpeed releases whose op builder cannot build its ops on a ROCm stack."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import deepspeed_rocm
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
ROCM = ("platform=rocm", "arch=gfx90a")


def _found(*stack: str) -> list[Finding]:
    env = apply_overrides(BASE, list(stack))
    return [f for f in evaluate(env) if f.check == deepspeed_rocm.ID]


def _links(*stack: str) -> list[str]:
    return [f.link for f in _found(*stack)]


# (message as its source quotes it, source): each op-builder failure this check predicts
MESSAGES = [
    # DeepSpeed 0.6.5 on a Gentoo ROCm outside /opt/rocm
    (
        "FileNotFoundError: [Errno 2] No such file or directory: '/opt/rocm/.info/version-dev'",
        "https://github.com/deepspeedai/DeepSpeed/issues/2080",
    ),
    # DeepSpeed 0.9.3, torch 2.0.1 built in a ROCm 5.5 container (its version names no ROCm)
    ("AssertionError: Could not detect ROCm version", "https://github.com/deepspeedai/DeepSpeed/issues/3715"),
    # 0.17.5's CPUAdam JIT build on ROCm (the traceback in the fix's description)
    (
        "TypeError: object of type 'NoneType' has no len()",
        "https://github.com/deepspeedai/DeepSpeed/commit/78a74874b234ad5e9bb7d2f8f6a774eb36368cf1",
    ),
    # torch.utils.cpp_extension's failure naming the op (DeepSpeed's transformer_inference JIT build)
    (
        "RuntimeError: Error building extension 'transformer_inference'",
        "https://github.com/deepspeedai/DeepSpeed/issues/4219",
    ),
]


@pytest.mark.parametrize(("message", "source"), MESSAGES)
def test_the_op_builders_own_texts_are_predicted(message: str, source: str) -> None:
    assert compile_signature(deepspeed_rocm.PREDICTS).search(message) is not None, source


@pytest.mark.parametrize(
    "message",
    [
        "RuntimeError: Error building extension 'fused_adam'",  # not one of the three ops #5401 fixed
        "TypeError: object of type 'int' has no len()",
        "AssertionError: Could not detect CUDA version",
    ],
)
def test_other_texts_are_not(message: str) -> None:
    assert compile_signature(deepspeed_rocm.PREDICTS).search(message) is None


def test_each_release_range_gets_its_own_finding() -> None:
    assert _links(*ROCM, "torch=2.7.1+rocm6.3", "lib.deepspeed=0.17.5") == [deepspeed_rocm.SOURCE_CPU_FLAG]
    assert _links(*ROCM, "torch=2.3.0+rocm6.0", "lib.deepspeed=0.14.2") == [deepspeed_rocm.SOURCE_HIPBLAS]
    # a torch whose version names no ROCm: 0.7-0.14.4 assert; on ROCm 6 also the hipBLAS v2 ops
    assert _links(*ROCM, "rocm=5.5", "torch=2.0.1", "lib.deepspeed=0.9.3") == [deepspeed_rocm.SOURCE_DETECT]
    assert _links(*ROCM, "rocm=6.1", "torch=2.1.2", "lib.deepspeed=0.12.6") == [
        deepspeed_rocm.SOURCE_DETECT,
        deepspeed_rocm.SOURCE_HIPBLAS,
    ]
    assert _links(*ROCM, "rocm=5.2", "lib.deepspeed=0.6.5") == [deepspeed_rocm.SOURCE_VERSION_DEV]
    # a probed container torch: its HIP version is known, but DeepSpeed reads only "rocm" in torch.__version__
    assert _links(*ROCM, "rocm=5.7", "hip=5.7.31921", "torch=2.1.0a0+git1234", "lib.deepspeed=0.12.6") == [
        deepspeed_rocm.SOURCE_DETECT
    ]
    (finding,) = _found(*ROCM, "torch=2.7.1+rocm6.3", "lib.deepspeed=0.17.5")
    assert finding.uncertain and finding.signature_only and finding.uses == ("deepspeed",)


@pytest.mark.parametrize(
    "stack",
    [
        (*ROCM, "torch=2.7.1+rocm6.3", "lib.deepspeed=0.17.4"),  # 0.16.3-0.17.4 return the flag after the except
        (*ROCM, "torch=2.7.1+rocm6.3", "lib.deepspeed=0.17.6"),  # fixed by #7521
        (*ROCM, "torch=2.3.0+rocm6.0", "lib.deepspeed=0.14.3"),  # #5401 and #5402
        (*ROCM, "torch=2.1.2+rocm5.6", "lib.deepspeed=0.12.6"),  # ROCm 5: no hipBLAS v2; torch names its ROCm
        (*ROCM, "rocm=6.2", "torch=2.4.0a0+git1234", "lib.deepspeed=0.14.5"),  # 0.14.5 reads .info/version too
        (*ROCM, "torch=2.7.1+rocm6.3"),  # no DeepSpeed stated
        ("platform=cuda", "arch=sm_90", "torch=2.7.1+cu126", "lib.deepspeed=0.17.5"),  # a CUDA stack
    ],
)
def test_a_release_without_the_fault_or_another_platform_is_not_judged(stack: tuple[str, ...]) -> None:
    assert _found(*stack) == []


def test_the_cpu_flag_failure_is_known_bad_and_an_unrelated_failure_stays_fail(pytester: pytest.Pytester) -> None:
    stack = (*ROCM, "torch=2.7.1+rocm6.3", "torch_archs=gfx90a", "lib.deepspeed=0.17.5")
    predicted, unrelated = predicted_and_unrelated(pytester, MESSAGES[2][0].split(": ", 1)[1], stack, uses="deepspeed")
    assert predicted["rocm_rule"] == deepspeed_rocm.ID
    assert unrelated.get("rocm_outcome", "fail") == "fail" and "rocm_rule" not in unrelated
