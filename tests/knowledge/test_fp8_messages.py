"""``fp8-format-arch`` and ``bf16-unsupported-arch`` predict the messages users really get.

Each message is quoted verbatim from the public report or library source beside it (a message a
source wraps over lines is one line here; nothing else is changed). The reports span torch
(``_scaled_mm``, its ROCm dtype mapping and hipBLASLt path), Triton (both backends), vLLM,
torchtitan, ComfyUI nodes and ptxas, on GPUs without fp8 (sm_80/86, gfx90a) or with the other
fp8 variant (FNUZ-only gfx942 given OCP e4m3fn).
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import numeric_formats
from pytest_rocmcompat.knowledge.checks.registry import PREDICTS
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.conftest import DATA

FP8 = compile_signature(PREDICTS[numeric_formats.FP8_ID])
BF16 = compile_signature(PREDICTS[numeric_formats.BF16_ID])
H100 = Environment.load(str(DATA / "env_h100_archs.json"))

# (message, source): fp8 on a GPU without it, or with the other variant
FP8_MESSAGES: list[tuple[str, str]] = [
    (  # Triton's NVIDIA backend on sm_80 (A800)
        'ValueError("type fp8e4nv not supported in this architecture. The supported fp8 dtypes are '
        "('fp8e4b15', 'fp8e5')\")",
        "https://github.com/vllm-project/vllm/issues/15336",
    ),
    (  # sglang on A10 (sm_86)
        "type fp8e4nv not supported in this architecture. The supported fp8 dtypes are ('fp8e4b15', 'fp8e5')\"",
        "https://github.com/sgl-project/sglang/issues/5871",
    ),
    (  # torch.compile's Inductor kernel casting to fp8 (ComfyUI)
        'ValueError("type fp8e4nv not supported in this architecture. The supported fp8 dtypes are '
        "('fp8e4b15', 'fp8e5')\")",
        "https://github.com/WeChatCV/Stand-In_Preprocessor_ComfyUI/issues/10",
    ),
    (
        "[Bug] Pre-build FP8 Tensor Failed with Error: type fp8e4nv not supported in this architecture. "
        "The supported fp8 dtypes are ('fp8e4b15', 'fp8e5')",
        "https://github.com/kvcache-ai/ktransformers/issues/851",
    ),
    (  # Triton's AMD backend on gfx942: the software-only fp8e4b15 is not among MI300's variants
        "type fp8e4b15 not supported in this architecture",
        "https://github.com/vllm-project/vllm/pull/43804",
    ),
    (  # Triton's NVIDIA backend lowering an e4m3 conversion below sm_90 (older Triton, L40S)
        "Conversion from/to f8e4m3nv is only supported on compute capability >= 90",
        "https://github.com/triton-lang/triton/issues/4232",
    ),
    (
        "f8e4m3nv is only supported on compute capability >= 90",
        "https://github.com/kvcache-ai/ktransformers/issues/836",
    ),
    (
        "ValueError: The quantization method fp8 is not supported for the current GPU. Minimum capability: 90. "
        "Current capability: 86",
        "https://github.com/vllm-project/vllm/issues/4327",
    ),
    (
        "ERROR: FP8 models require a GPU with Compute Capability 8.9 or higher (e.g., RTX 4090). Your GPU's "
        "capability is 8.6. Please select a non-FP8 model.",
        "https://github.com/1038lab/ComfyUI-QwenVL/issues/28",
    ),
    (
        "ValueError: Failed to swap to Float8Linear because float8 is only supported on SM89 or later.",
        "https://github.com/pytorch/torchtitan/pull/3760",
    ),
    (  # RTX 3090 Ti (sm_86); the maintainer: fp8 fast mode won't work on a 3090
        "torch._scaled_mm is only supported on CUDA devices with compute capability >= 9.0 or 8.9, or ROCm MI300+",
        "https://github.com/kijai/ComfyUI-HunyuanVideoWrapper/issues/98",
    ),
    (
        "RuntimeError: torch._scaled_mm is only supported on devices with compute capability >= 9.0)",
        "https://github.com/meta-pytorch/float8_experimental/issues/197",
    ),
]

# (message, source): bf16 below compute capability 8.0
BF16_MESSAGES: list[tuple[str, str]] = [
    (
        "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla "
        "V100-SXM2-32GB GPU has compute capability 7.0.",
        "https://github.com/vllm-project/vllm/issues/946",
    ),
    (
        "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla P40 "
        "GPU has compute capability 6.1. You can use float16 instead by explicitly setting the `dtype` flag in "
        "CLI, for example: --dtype=half.",
        "https://github.com/canopyai/Orpheus-TTS/issues/44",
    ),
    (
        "ValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using Ampere GPU with cuda>=11.0",
        "https://github.com/tatsu-lab/stanford_alpaca/issues/133",
    ),
    (  # xformers' Triton kernels on V100; the maintainer: bf16 support is required
        "ptxas /tmp/compile-ptx-src-ac38de, line 521; error   : Feature 'cvt.bf16.f32' requires .target sm_80 "
        "or higher",
        "https://github.com/facebookresearch/chameleon/issues/39",
    ),
    (
        "ERROR 08-30 07:32:02 [model_rpc.py:95] ptxas /tmp/tmpjbxlnipm.ptx, line 472; error   : Feature '.bf16' "
        "requires .target sm_80 or higher",
        "https://github.com/ModelTC/LightLLM/issues/1029",
    ),
    (
        "ERROR 08-30 07:32:02 [model_rpc.py:95] ptxas /tmp/tmpjbxlnipm.ptx, line 468; error   : Feature 'cvt with "
        ".f32.bf16' requires .target sm_80 or higher",
        "https://github.com/ModelTC/LightLLM/issues/1029",
    ),
]

# Failures near these formats that name no arch: an op with no fp8 kernel on any GPU, a ptxas
# feature other than bf16, a dtype pairing rule, a generic crash.
NOT_CLAIMED = (
    "NotImplementedError: \"addmm_cuda\" not implemented for 'Float8_e4m3fn'",  # ROCm/pytorch#2932
    "ptxas error   : Feature 'f16 arithemetic and compare instructions' requires .target sm_53 or higher",
    "RuntimeError: Multiplication of two Float8_e5m2 matrices is not supported",
    "RuntimeError: CUDA error: HIPBLAS_STATUS_INTERNAL_ERROR when calling `hipblasLtMatmul(`",
    # hipBLASLt finding no algorithm names no dtype: any heuristic miss (e4m3fn weights x e4m3fnuz
    # activations on gfx942 in sgl-project/sglang#29590 and PR #28889, but shapes and scaling modes too)
    "RuntimeError: CUDA error: HIPBLAS_STATUS_NOT_SUPPORTED when calling `HIPBLAS_STATUS_NOT_SUPPORTED`",
    "Segmentation fault (core dumped)",
)


@pytest.mark.parametrize(("message", "source"), FP8_MESSAGES, ids=[s for _, s in FP8_MESSAGES])
def test_fp8_signature_matches_the_reported_message(message: str, source: str) -> None:
    assert source.startswith("https://github.com/")
    assert FP8.search(message) is not None


@pytest.mark.parametrize(("message", "source"), BF16_MESSAGES, ids=[s for _, s in BF16_MESSAGES])
def test_bf16_signature_matches_the_reported_message(message: str, source: str) -> None:
    assert source.startswith("https://github.com/")
    assert BF16.search(message) is not None


def test_the_messages_come_from_distinct_reports() -> None:
    by_variant = {s for _, _, s, predicted in BY_VARIANT if predicted}
    assert len({s for _, s in FP8_MESSAGES + BF16_MESSAGES} | by_variant) >= 20


@pytest.mark.parametrize("message", NOT_CLAIMED)
def test_neither_signature_claims_a_failure_that_names_no_format_gap(message: str) -> None:
    assert FP8.search(message) is None and BF16.search(message) is None


@pytest.mark.parametrize("gpu", ["gfx942", "gfx950", "gfx1201"])
def test_an_amd_fp8_finding_links_amds_statement_of_both_variants(gpu: str) -> None:
    env = apply_overrides(H100, ["platform=rocm", f"arch={gpu}", "torch=2.7.1+rocm6.3"])
    (finding,) = numeric_formats.check_fp8(env)
    assert finding.link == numeric_formats.S_HIPBLASLT_FP8
    assert finding.link.startswith("https://rocm.docs.amd.com/projects/hipBLASLt/")


def test_an_nvidia_fp8_finding_keeps_transformer_engines_matrix() -> None:
    (finding,) = numeric_formats.check_fp8(apply_overrides(H100, ["arch=sm_86"]))
    assert finding.link.startswith("https://nvidia.github.io/TransformerEngine/")


# Messages that name no arch, predicted only where they name the fp8 variant the GPU lacks
# (numeric_formats.LACKS_PREDICTS, joined into the finding's signature): (arch, message, source, predicted)
BY_VARIANT = [
    # tl.dot on OCP fp8e4nv on MI300 (no MFMA for it)
    (
        "gfx942",
        "LLVM ERROR: No match found in MFMA database",
        "https://github.com/triton-lang/triton/issues/6542",
        True,
    ),
    # MI300X: OCP e4m3fn in a Triton dot
    (
        "gfx942",
        "error: Unsupported conversion from 'f8E4M3FN' to 'f16'",
        "https://github.com/ROCm/aiter/issues/544",
        True,
    ),
    # torch._scaled_mm's dispatch on an MI300X build without the OCP variants (TunableOp's GEMM)
    (
        "gfx942",
        "RuntimeError: \"_tunable_scaled_gemm\" not implemented for 'Float8_e4m3fn'",
        "https://github.com/stas00/ml-engineering/issues/91",
        True,
    ),
    # ... which on an OCP GPU (RDNA4) is no variant mismatch
    (
        "gfx1201",
        "RuntimeError: \"_tunable_scaled_gemm\" not implemented for 'Float8_e4m3fn'",
        "https://github.com/stas00/ml-engineering/issues/91",
        False,
    ),
    # the same lowering error for gfx942's own FNUZ variant is no variant mismatch
    (
        "gfx942",
        "error: Unsupported conversion from 'f8E4M3FNUZ' to 'f16'",
        "https://github.com/ROCm/aiter/issues/544",
        False,
    ),
    # the FNUZ variant (reported on an H100) on an OCP-only AMD GPU
    (
        "gfx1201",
        "Unsupported conversion from f8E5M2FNUZ to f16",
        "https://github.com/pytorch/pytorch/issues/126734",
        True,
    ),
    (
        "gfx1201",
        "error: Unsupported conversion from 'f8E4M3FN' to 'f16'",
        "https://github.com/ROCm/aiter/issues/544",
        False,
    ),
    # a GPU without fp8: any fp8 conversion
    (
        "gfx90a",
        "error: Unsupported conversion from 'f8E4M3FN' to 'f16'",
        "https://github.com/ROCm/aiter/issues/544",
        True,
    ),
    (
        "gfx90a",
        "LLVM ERROR: No match found in MFMA database",
        "https://github.com/triton-lang/triton/issues/6542",
        False,
    ),
]


@pytest.mark.parametrize(("arch", "message", "source", "predicted"), BY_VARIANT)
def test_variant_messages_are_predicted_where_the_gpu_lacks_that_variant(
    arch: str, message: str, source: str, predicted: bool
) -> None:
    assert source.startswith("https://github.com/")
    (finding,) = numeric_formats.check_fp8(
        apply_overrides(Environment(platform="rocm", python="3.11.7"), [f"arch={arch}"])
    )
    pattern = f"{PREDICTS[numeric_formats.FP8_ID]}|{finding.predicts}"
    assert (compile_signature(pattern).search(message) is not None) is predicted


def test_a_plain_fp8_matmul_refused_on_every_gpu_is_not_a_variant_mismatch() -> None:
    (finding,) = numeric_formats.check_fp8(
        apply_overrides(Environment(platform="rocm", python="3.11.7"), ["arch=gfx942"])
    )
    pattern = f"{PREDICTS[numeric_formats.FP8_ID]}|{finding.predicts}"
    assert compile_signature(pattern).search("RuntimeError: \"addmm_cuda\" not implemented for 'Float8_e4m3fn'") is None
