"""``library-min-arch`` predicts what vLLM (and SGLang) really print on an AMD GPU their ROCm build lacks.

Each message is quoted verbatim from the public report beside it (an issue or PR title where the title
is the message; a message wrapped over lines is one line here). They span AITER's arch lists (vLLM's
and SGLang's ROCm kernels), flash-attn's build check, Triton (its AMD backend, shared memory)
and the HIP runtime, on gfx906/gfx908, RDNA 2/3/3.5/4 and Turing-class shared memory.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import library_arch
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from tests.knowledge.two_ways import predicted_and_unrelated

SIGNATURE = compile_signature(library_arch.PREDICTS)

# (message, source)
MESSAGES: list[tuple[str, str]] = [
    (  # SGLang on an RX 7800 XT (gfx1101): AITER's chip map
        "KeyError: \"Unknown GPU architecture: gfx1101. Supported architectures: ['native', 'gfx90a', 'gfx908', "
        "'gfx940', 'gfx941', 'gfx942', 'gfx945', 'gfx1100', 'gfx950']\"",
        "https://github.com/gpustack/gpustack/issues/3345",
    ),
    (  # Radeon 8060S (gfx1151)
        "Unknown GPU architecture: gfx1151. Supported architectures: ['native', 'gfx90a', 'gfx908', 'gfx940', "
        "'gfx941', 'gfx942', 'gfx945', 'gfx1100', 'gfx950']",
        "https://github.com/gpustack/gpustack/issues/3880",
    ),
    (  # vLLM 0.11.1rc7 on a Radeon 8060S (gfx1151): AITER's chip map before it named the problem
        "vllm-server  | (APIServer pid=1) KeyError: 'gfx1151'",
        "https://github.com/ROCm/aiter/issues/1415",
    ),
    (  # vLLM with VLLM_ROCM_USE_AITER=1 on Strix Halo: AITER's JIT arch list
        "One of GPU archs of ['gfx1151'] is invalid or not supported with VLLM_ROCM_USE_AITER: 1",
        "https://github.com/kyuz0/amd-strix-halo-vllm-toolboxes/issues/73",
    ),
    (  # flash-attn's ROCm build (vLLM's attention dependency) for MI100
        "AssertionError: One of GPU archs of ['gfx908'] is invalid or not supported by Flash-Attention",
        "https://github.com/ROCm/flash-attention/issues/37",
    ),
    (  # vLLM's Triton flash attention compiled for MI60
        "error: triton_flash_attention.py:211:0: stack frame size (164332) exceeds limit (131056) in function "
        "'attn_fwd_0d1d2d3de45de6d7de8de9de10c11de12de13de14c15de16d",
        "https://github.com/vllm-project/vllm/issues/9319",
    ),
    (  # the same kernel on gfx906 with a Triton that has no gfx906 target
        'loc("/home/x670e/vllm/ogvllm/vllm/attention/ops/triton_flash_attention.py":309:0): error: '
        "unsupported target: 'gfx906'",
        "https://github.com/Said-Akbar/triton-gcn5/issues/4",
    ),
    (  # vLLM 0.3/0.4 on an RX 7900 XTX (flash-attn's ROCm build)
        "RuntimeError: FlashAttention only supports AMD MI200 GPUs or newer.",
        "https://github.com/vllm-project/vllm/issues/3040",
    ),
    (  # vLLM's docker image on an RX 7900 XT (issue title)
        '"RuntimeError: HIP error: invalid device function" with Arch + 7900 XT running vllm through docker',
        "https://github.com/ROCm/legacy-rocm-build/issues/4386",
    ),
    (  # a vLLM gfx906 fork (issue title)
        "[Bug]: HIP error: invalid device function",
        "https://github.com/nlzy/vllm-gfx906/issues/6",
    ),
    (  # an RTX 2080 Ti (64 KiB); the maintainer: "rtx20 series not supported"
        "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 98304, Hardware limit: "
        "65536. Reducing block sizes or `num_stages` may help.",
        "https://github.com/FlashML-org/FreeToken/issues/246",
    ),
    (  # vLLM on a Tesla T4 (issue title)
        "[Bug]: Tesla T4 GPU - triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: "
        "81920, Hardware limit: 65536. Reducing block sizes or `num_stages`",
        "https://github.com/vllm-project/vllm/issues/36802",
    ),
]

# Failures of vLLM tests on AMD GPUs that name no missing arch support: an AITER map read before the
# arch was known (an empty name, https://github.com/ROCm/aiter/pull/1316), a shape AITER's kernel lacks,
# a bare HIP argument error, registers rather than shared memory, a crash.
NOT_CLAIMED = (
    "KeyError: 'Unknown GPU architecture: . Supported architectures: [0, 1, 2, 3, 4, 5, 6, 7, 8]'",
    "RuntimeError: invalid argument for fmha_v3_varlen_fwd",
    "RuntimeError: HIP error: invalid argument",
    "triton.runtime.errors.OutOfResources: out of resource: registers",
    "Segmentation fault (core dumped)",
    "AssertionError: One of GPU archs of is invalid",
    "KeyError: 'cuda'",  # a lookup failing on something other than the GPU's arch
)


@pytest.mark.parametrize(("message", "source"), MESSAGES, ids=[s for _, s in MESSAGES])
def test_the_signature_matches_the_reported_message(message: str, source: str) -> None:
    assert source.startswith("https://github.com/")
    assert SIGNATURE.search(message) is not None


def test_the_messages_come_from_distinct_reports() -> None:
    assert len({s for _, s in MESSAGES}) == len(MESSAGES) >= 11


@pytest.mark.parametrize("message", NOT_CLAIMED)
def test_a_failure_naming_no_arch_gap_is_not_claimed(message: str) -> None:
    assert SIGNATURE.search(message) is None


ROCM = Environment(platform="rocm", python="3.11.9", source="replay")


@pytest.mark.parametrize(
    ("message", "gpu"),
    [
        (MESSAGES[0][0], "gfx1030"),  # AITER's chip map
        (MESSAGES[3][0], "gfx1030"),  # AITER's JIT arch list
        (MESSAGES[10][0], "gfx906"),  # Triton's shared memory
    ],
)
def test_through_pytest_vllm_on_an_unserved_gpu(pytester: pytest.Pytester, message: str, gpu: str) -> None:
    stack = ("platform=rocm", f"arch={gpu}", "torch=2.7.1+rocm6.3", "lib.vllm=0.14.0")
    predicted, unrelated = predicted_and_unrelated(pytester, message, stack, uses="vllm", env=ROCM)
    assert predicted["rocm_rule"] == library_arch.ID
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated
