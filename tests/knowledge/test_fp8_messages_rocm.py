"""``fp8-format-arch``: what torchao, transformers, vLLM, Triton and IREE print for fp8 on a GPU without it.

Quoted verbatim from the reports beside them (an issue title where the title is the message). The
library gates that ask for fp8 hardware at all (torchao, transformers, vLLM's torchao check) name no
arch and also refuse GPUs that have fp8, so the finding predicts them only where the GPU has no fp8
(``numeric_formats.LACKS_PREDICTS["all"]``).
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import numeric_formats
from pytest_rocmcompat.knowledge.checks.registry import PREDICTS
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated

FP8 = compile_signature(PREDICTS[numeric_formats.FP8_ID])
BASE = Environment(platform="rocm", python="3.11.9", source="replay")

TORCHAO = "AssertionError: Float8 dynamic activation quantization is only supported on CUDA>=8.9 and MI300+"
# (platform, arch, message, source, predicted)
BY_GPU: list[tuple[str, str, str, str, bool]] = [
    # torchao's gate, quoted by vLLM's fix for it, on MI250 (no fp8)
    ("rocm", "gfx90a", TORCHAO, "https://github.com/vllm-project/vllm/pull/36854", True),
    # ... on RDNA4, which has OCP fp8 but which torchao's guard left out: not a format gap
    ("rocm", "gfx1201", TORCHAO, "https://github.com/pytorch/ao/pull/4108", False),
    # torchao's first form of the gate (tested on A100)
    (
        "cuda",
        "sm_80",
        "Float8 dynamic activation quantization is only supported on CUDA 8.9 and above",
        "https://github.com/pytorch/ao/pull/1314",
        True,
    ),
    # vLLM's own check before torchao's (its example: compute capability 7.5)
    (
        "cuda",
        "sm_75",
        "torchao FP8 activation quantization config 'Float8DynamicActivationFloat8WeightConfig' requires GPU compute "
        "capability >= 8.9 (e.g., NVIDIA Ada Lovelace / Hopper or AMD MI300+) (current GPU compute capability: 7.5).",
        "https://github.com/vllm-project/vllm/pull/36854",
        True,
    ),
    # transformers' finegrained FP8 quantizer on an RTX 3090 (issue title)
    (
        "cuda",
        "sm_86",
        "ValueError: FP8 quantized models is only supported on GPUs with compute capability >= 8.9 (e.g 4090/H100), "
        "actual = `8.6`",
        "https://github.com/black-forest-labs/flux2/issues/54",
        True,
    ),
    # transformers' fbgemm FP8 quantizer on A100; the maintainer: "This is a hardware limitation"
    (
        "cuda",
        "sm_80",
        "ValueError: FP8 quantized models is only supported on GPUs with compute capability >= 9.0 (e.g H100).",
        "https://github.com/huggingface/huggingface-llama-recipes/issues/21",
        True,
    ),
    # ... on an Ada GPU, which has fp8: fbgemm's kernels, not the format
    (
        "cuda",
        "sm_89",
        "ValueError: FP8 quantized models is only supported on GPUs with compute capability >= 9.0 (e.g H100).",
        "https://github.com/huggingface/huggingface-llama-recipes/issues/21",
        False,
    ),
]

# Reports of the check-wide forms (numeric_formats.FP8_PREDICTS) beside test_fp8_messages.py's: (message, source)
REPORTED: list[tuple[str, str]] = [
    (  # DeepSeek-V4-Flash on sm_80 (issue title)
        '[Bug] deepseek-v4-flash with sm80 ValueError("type fp8e4nv not supported in this architecture. The '
        "supported fp8 dtypes are ('fp8e4b15', 'fp8e5')\")",
        "https://github.com/kvcache-ai/ktransformers/issues/1978",
    ),
    (  # vLLM, Llama 4 Maverick FP8 on A100 (issue title)
        "[Bug]: Llama4 Maverick FP8 on 4xA100: type fp8e4nv not supported in this architecture. The supported fp8 "
        "dtypes are ('fp8e4b15', 'fp8e5')\")",
        "https://github.com/vllm-project/vllm/issues/18182",
    ),
    (  # vLLM, Qwen3 30B FP8 (issue title)
        '[Bug]: vllm deploys qwen3 30B fp8 and reports an error: ValueError("type fp8e4nv not supported in this '
        "architecture. The supported fp8 dtypes are ('fp8e4b15', 'fp8e5')\"),",
        "https://github.com/vllm-project/vllm/issues/17764",
    ),
    (  # IREE compiling FNUZ fp8 for gfx950 (validateDataTypes; MLIR's emitOpError form)
        "<unknown>:0: error: 'arith.extf' op F8E5M2FNUZ and F8E4M3FNUZ types are not supported "
        "on non-gfx942 (MI-300) chipsets; try F8E5M2 or F8E4M3FN instead.",
        "https://github.com/iree-org/iree/blob/main/compiler/src/iree/compiler/Codegen/LLVMGPU/ConvertToROCDL.cpp",
    ),
]

# fp8 failures that name no missing format: an op with no fp8 kernel, a torch build without fp8 at all
NOT_CLAIMED = (
    "ValueError: Loading an FP8 quantized model requires accelerate (`pip install --upgrade accelerate`)",
    "RuntimeError: float8_e4m3fn is only supported in torch versions >= 2.1.0, please upgrade your torch",
)


def _predicted(platform: str, arch: str, message: str) -> bool:
    env = apply_overrides(BASE, [f"platform={platform}", f"arch={arch}"])
    pattern = PREDICTS[numeric_formats.FP8_ID]
    pattern += "".join(f"|{f.predicts}" for f in numeric_formats.check_fp8(env) if f.predicts)
    return compile_signature(pattern).search(message) is not None


@pytest.mark.parametrize(("platform", "arch", "message", "source", "predicted"), BY_GPU)
def test_a_gate_is_predicted_where_the_gpu_lacks_what_it_asks(
    platform: str, arch: str, message: str, source: str, predicted: bool
) -> None:
    assert source.startswith("https://github.com/")
    assert _predicted(platform, arch, message) is predicted


@pytest.mark.parametrize(("message", "source"), REPORTED, ids=[s for _, s in REPORTED])
def test_the_check_wide_forms_match_more_reports(message: str, source: str) -> None:
    assert source.startswith("https://github.com/")
    assert FP8.search(message) is not None


@pytest.mark.parametrize("message", NOT_CLAIMED)
@pytest.mark.parametrize("arch", ["gfx90a", "gfx942", "gfx1201"])
def test_a_failure_naming_no_format_gap_is_not_claimed(arch: str, message: str) -> None:
    assert not _predicted("rocm", arch, message)


@pytest.mark.parametrize(
    ("message", "stack"),
    [
        (TORCHAO, ("platform=rocm", "arch=gfx90a", "torch=2.7.1+rocm6.3")),
        (BY_GPU[3][2], ("platform=cuda", "arch=sm_75", "torch=2.7.1+cu126")),  # vLLM's torchao check
        (BY_GPU[4][2], ("platform=cuda", "arch=sm_86", "torch=2.7.1+cu126")),  # transformers' gate
    ],
)
def test_through_pytest_the_gate_is_known_bad(pytester: pytest.Pytester, message: str, stack: tuple[str, ...]) -> None:
    predicted, unrelated = predicted_and_unrelated(pytester, message, stack, uses="fp8", env=BASE)
    assert predicted["rocm_rule"] == numeric_formats.FP8_ID
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated
