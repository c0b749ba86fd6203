"""``arch-not-in-build`` and ``library-min-arch`` predict what AMD GPUs without code objects report.

Each message is quoted verbatim from a public report of a build without code for the user's AMD
GPU (RDNA1 gfx1010, RDNA2 gfx1031, RDNA3 gfx1102/gfx1103, APUs gfx902/gfx90c/gfx1103, gfx1151 on
early builds, dropped gfx803/gfx906), or from the library source beside it. Messages with other
documented causes stay unclaimed (``NOT_CLAIMED``).
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import arch, library_arch
from pytest_rocmcompat.knowledge.rules.signature import compile_signature

ARCH = compile_signature(arch.PREDICTS)
LIBRARY = compile_signature(library_arch.PREDICTS)

# (message, GPU, source)
ARCH_MESSAGES: list[tuple[str, str, str]] = [
    (
        "hipErrorNoBinaryForGpu: Coudn't find binary for current devices!",
        "gfx803",
        "https://github.com/pytorch/pytorch/issues/53738",
    ),
    (
        '/src/external/hip-on-vdi/rocclr/hip_code_object.cpp:120: guarantee(false && "hipErrorNoBinaryForGpu: '
        "Coudn't find binary for current devices!\")",
        "gfx90c",
        "https://github.com/ROCm/pytorch/issues/786",
    ),
    (  # RX 580 with torch 1.8.1+rocm4.0.1; ROCmSupport: gfx8 no longer officially supported
        "/data/jenkins_workspace/centos_pipeline_job_4.0/rocm-rel-4.0/rocm-4.0-26-20210119/7.7/external/hip-on-vdi/"
        "rocclr/hip_code_object.cpp:120: guarantee(false && \"hipErrorNoBinaryForGpu: Coudn't find binar",
        "gfx803",
        "https://github.com/ROCm/legacy-rocm-build/issues/1471",
    ),
    (
        "Running pyTorch yields the error: hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
        "gfx1010",
        "https://github.com/ROCm/pytorch/issues/882",
    ),
    (
        "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
        "gfx902",
        "https://github.com/pytorch/pytorch/issues/73534",
    ),
    (
        '/src/external/hip-on-vdi/rocclr/hip_code_object.cpp:92: guarantee(false && "hipErrorNoBinaryForGpu: '
        "Coudn't find binary for current devices!\")",
        "gfx1010",
        "https://github.com/ROCm/tensorflow-upstream/issues/1106",
    ),
    (
        "RuntimeError: HIP error: invalid device function",
        "gfx1102",
        "https://github.com/pytorch/pytorch/issues/147626",
    ),
    (
        "RuntimeError: HIP error: invalid device function - if there is a solution already existed against this issue.",
        "gfx1031",
        "https://github.com/ROCm/legacy-rocm-build/issues/2536",
    ),
    (
        "RuntimeError: HIP error: invalid device function HIP kernel errors might be asynchronously reported at "
        "some other API call, so the stacktrace below might be incorrect.",
        "gfx1151",
        "https://github.com/docling-project/docling-serve/issues/342",
    ),
    (
        "[Bug]: HIP error: invalid device function",
        "gfx906",
        "https://github.com/nlzy/vllm-gfx906/issues/6",
    ),
    (  # MIOpen dispatching a kernel not valid for the ISA (AMD's fix: ROCm/rocm-libraries#5763)
        ":0:rocdevice.cpp            :3596: 998574369737 us:  Callback: Queue 0x7daa52e00000 aborting with error : "
        "HSA_STATUS_ERROR_INVALID_ISA: The instruction set architecture is invalid. code: 0x100f",
        "gfx1103",
        "https://github.com/ROCm/TheRock/issues/2579",
    ),
    (
        "[Issue]: [gfx1103] HSA_ERROR_INVALID_ISA error occurred during calculation in FP16",
        "gfx1103",
        "https://github.com/ROCm/TheRock/issues/3044",
    ),
    (
        "rocBLAS error: Could not load C:\\Program Files\\AMD\\ROCm\\6.1\\bin\\/rocblas/library/"
        "TensileLibrary_lazy_gfx1103.dat",
        "gfx1103",
        "https://github.com/likelovewant/ROCmLibs-for-gfx1103-AMD780M-APU/issues/12",
    ),
    (
        "hipLaunchKernel: Returned hipErrorInvalidDeviceFunction : ",
        "gfx1010",
        "https://github.com/ROCm/legacy-rocm-build/issues/2527",
    ),
    (
        "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
        "gfx1010",
        "https://github.com/l1na-forever/stable-diffusion-rocm-docker/issues/1",
    ),
    (
        "RuntimeError: HIP error: invalid device function\nHIP kernel errors might be asynchronously reported at "
        "some other API call, so the stacktrace below might be incorrect.",
        "gfx1151",
        "https://github.com/ROCm/legacy-rocm-build/issues/5668",
    ),
    (
        "rocBLAS error: Cannot read C:\\Program Files\\AMD\\ROCm\\6.1\\bin\\/rocblas/library/TensileLibrary.dat: "
        "No such file or directory for GPU arch : gfx1103",
        "gfx1103",
        "https://github.com/brknsoul/ROCmLibs/issues/4",
    ),
    (
        "rocBLAS warning: No paths matched /usr/lib64/library/*gfx906*co. Make sure that ROCBLAS_TENSILE_LIBPATH "
        "is set correctly.",
        "gfx906",
        "https://github.com/justxi/rocm/issues/182",
    ),
]

# A library without the arch: Triton's AMD backend (mod.emitError("unsupported target: '") in
# third_party/amd/lib/TritonAMDGPUToLLVM/TritonGPUToLLVM.cpp at
# triton-lang/triton@010fe452ad03fa28c779d8d113e93b34cb9b95a0) compiling vLLM's attention on gfx906.
TRITON_GFX906 = (
    'loc("/home/x670e/vllm/ogvllm/vllm/attention/ops/triton_flash_attention.py":309:0): error: unsupported '
    "target: 'gfx906'"
)
TRITON_GFX906_SOURCE = "https://github.com/Said-Akbar/triton-gcn5/issues/4"

# Reported on AMD GPUs without code objects, but with other documented causes too, and no
# maintainer tying them to the missing arch: left unclaimed.
NOT_CLAIMED = (
    # pytorch/pytorch#111601, #119637, ROCm/legacy-rocm-build#2216, #5555 (an iGPU or RDNA3 GPU the
    # wheel lacks); also AMD's known hipModuleLoad leak (ROCm/legacy-rocm-build#2290)
    "RuntimeError: HIP error: shared object initialization failed",
    # HSA_OVERRIDE_GFX_VERSION on gfx1103 (ROCm/MIOpen#3954, a user's account, not a maintainer's)
    "Memory access fault by GPU node-1 on address (nil). Reason: Page not present or supervisor privilege.",
    "Segmentation fault (core dumped)",
    "RuntimeError: HIP error: out of memory",
)


@pytest.mark.parametrize(("message", "gpu", "source"), ARCH_MESSAGES, ids=[s for _, _, s in ARCH_MESSAGES])
def test_arch_not_in_build_matches_the_reported_message(message: str, gpu: str, source: str) -> None:
    assert gpu.startswith("gfx") and source.startswith("https://github.com/")
    assert ARCH.search(message) is not None


def test_library_min_arch_matches_tritons_unsupported_target() -> None:
    assert TRITON_GFX906_SOURCE.startswith("https://github.com/")
    assert LIBRARY.search(TRITON_GFX906) is not None


def test_the_reports_are_distinct_and_span_the_amd_families() -> None:
    assert len({s for _, _, s in ARCH_MESSAGES}) >= 15
    assert {"gfx803", "gfx902", "gfx90c", "gfx906", "gfx1010", "gfx1031", "gfx1102", "gfx1103", "gfx1151"} <= {
        g for _, g, _ in ARCH_MESSAGES
    }


@pytest.mark.parametrize("message", NOT_CLAIMED)
def test_messages_with_other_causes_stay_unclaimed(message: str) -> None:
    assert ARCH.search(message) is None and LIBRARY.search(message) is None


def test_tritons_target_refusal_is_not_claimed_for_a_non_gfx_target() -> None:
    assert LIBRARY.search("error: unsupported target: 'x86_64'") is None
