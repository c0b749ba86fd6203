"""``fp8-format-arch``: libraries' fp8 gates, GEMM libraries and compilers on a GPU without the fp8 they ask for.

Each message is quoted verbatim from the public report or source beside it (a source's format string
formatted with a value a user would get). They name no arch, so each is predicted only where the GPU lacks
fp8 altogether (``numeric_formats.LACKS_PREDICTS["all"]``) or, for HIP's FNUZ types, lacks FNUZ
(``["fnuz"]``); on a GPU that has the format the same text stays ``fail``.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import numeric_formats
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from tests.knowledge.fp8_predicted import BASE, predicted
from tests.knowledge.two_ways import predicted_and_unrelated

# torchao's float8 inference check: https://github.com/pytorch/ao/blob/v0.18.0/torchao/float8/inference.py
TORCHAO = "Float8 dynamic quantization requires CUDA compute capability ≥8.9 or MI300+ or XPU."
# TensorRT's builder, on an A100 (NVIDIA/TensorRT-LLM#1428) and an RTX A6000 (NVIDIA/Model-Optimizer#70)
TENSORRT = (
    "[04/09/2024-16:26:41] [TRT] [E] 9: [standardEngineBuilder.cpp::buildEngine::2266] Error Code 9: Internal Error "
    "(Networks with FP8 precision require hardware with FP8 support.)"
)
TENSORRT_QDQ = (
    "[09/11/2024-21:49:27] [E] Error[9]: IBuilder::buildSerializedNetwork: Error Code 9: API Usage Error "
    "(Networks with FP8 Q/DQ layers require hardware with FP8 support.)"
)
# FBGEMM's Triton fp8 GEMM (fbgemm_gpu/experimental/gemm/triton_gemm/fp8_gemm.py, f"Unsupported GPU arch:
# {gpu_arch} for FP8"), formatted with an MI250's gcnArchName
FBGEMM = "RuntimeError: Unsupported GPU arch: gfx90a:sramecc+:xnack- for FP8"
# TensorRT-LLM's FP8 FMHA gate: https://github.com/NVIDIA/TensorRT-LLM/issues/2855 (there on sm_120, which has
# fp8: a TensorRT-LLM bug, so not predicted on it)
TRTLLM_FMHA = (
    "what():  [TensorRT-LLM][ERROR] Assertion failed: FP8 FMHA cannot be enabled except on Ada or Hopper or "
    "Blackwell Arch. (/code/tensorrt_llm/cpp/tensorrt_llm/common/attentionOp.cpp:2357)"
)
# FlashInfer's FA2 backend: https://github.com/flashinfer-ai/flashinfer/issues/1992
FLASHINFER = 'assert not fp8_enabled, "fp8 tensor core is not supported in fa2 backend"'
# torch._scaled_mm on an A100 before torch checked the capability: https://github.com/pytorch/pytorch/issues/108411
CUBLAS = (
    "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasLtMatmulAlgoGetHeuristic( ltHandle, "
    "computeDesc.descriptor(), Adesc.descriptor(), Bdesc.descriptor(), Cdesc.descriptor(), Ddesc.descriptor(), "
    "preference.descriptor(), 1, &heuristicResult, &returnedResult)`"
)
# LLVM's own test for gfx908/gfx90a, SelectionDAG and GlobalISel (FileCheck's {{[0-9]+}} filled in):
# https://github.com/llvm/llvm-project/blob/64bc6af29e2cc8ba31ac5af02044f871a8f11a22/llvm/test/CodeGen/AMDGPU/llvm.amdgcn.cvt.f32.fp8.err.ll
LLVM_DAG = "LLVM ERROR: Cannot select: intrinsic %llvm.amdgcn.cvt.f32.fp8"
LLVM_GISEL = (
    "LLVM ERROR: cannot select: %5:vgpr_32(s32) = G_INTRINSIC intrinsic(@llvm.amdgcn.cvt.f32.fp8), %2:vgpr(s32), 0"
)
# HIP's FNUZ types in device code for gfx950 (ROCm 7.2.4): https://github.com/ROCm/rocm-systems/issues/7509
HIP_FNUZ = "main.cu:89:92: error: no matching constructor for initialization of '__hip_fp8x4_e4m3_fnuz'"

BY_GPU: list[tuple[str, str, str, bool]] = [
    ("cuda", "sm_80", TORCHAO, True),
    ("rocm", "gfx90a", TORCHAO, True),
    ("cuda", "sm_89", TORCHAO, False),  # has fp8
    ("cuda", "sm_80", TENSORRT, True),
    ("cuda", "sm_86", TENSORRT_QDQ, True),
    ("cuda", "sm_90", TENSORRT, False),
    ("rocm", "gfx90a", FBGEMM, True),
    ("rocm", "gfx942", FBGEMM, False),
    ("cuda", "sm_86", TRTLLM_FMHA, True),
    ("cuda", "sm_120", TRTLLM_FMHA, False),
    ("cuda", "sm_80", FLASHINFER, True),
    ("cuda", "sm_90", FLASHINFER, False),
    ("cuda", "sm_80", CUBLAS, True),
    ("cuda", "sm_90", CUBLAS, False),  # on an fp8 GPU it is any heuristic miss
    ("rocm", "gfx942", CUBLAS.replace("CUBLAS", "HIPBLAS"), False),
    ("rocm", "gfx90a", LLVM_DAG, True),
    ("rocm", "gfx908", LLVM_GISEL, True),
    ("rocm", "gfx942", LLVM_DAG, False),
    ("rocm", "gfx950", HIP_FNUZ, True),  # OCP only
    ("rocm", "gfx942", HIP_FNUZ, False),
]


@pytest.mark.parametrize(("platform", "arch", "message", "expected"), BY_GPU)
def test_predicted_only_where_the_gpu_lacks_what_it_names(
    platform: str, arch: str, message: str, expected: bool
) -> None:
    assert predicted(platform, arch, message) is expected


def test_none_is_check_wide() -> None:
    check_wide = compile_signature(numeric_formats.FP8_PREDICTS)
    for message in (TORCHAO, TENSORRT, FBGEMM, TRTLLM_FMHA, FLASHINFER, CUBLAS, LLVM_DAG, HIP_FNUZ):
        assert check_wide.search(message) is None, message


def test_through_pytest_the_message_is_known_bad(pytester: pytest.Pytester) -> None:
    stack = ("platform=cuda", "arch=sm_80", "torch=2.4.1+cu121")
    claimed, unrelated = predicted_and_unrelated(pytester, TENSORRT, stack, uses="fp8", env=BASE)
    assert claimed["rocm_rule"] == numeric_formats.FP8_ID
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated
