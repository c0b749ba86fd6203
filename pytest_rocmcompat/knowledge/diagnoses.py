"""Named failure classes: the likely cause of a failure no rule or check explains.

Each diagnosis has an id, a pattern matched against the failure text, the likely
cause, the usual fix and a public link where the class is explained or reported.
The outcome of such a failure stays ``fail``; the diagnosis rides along on the
terminal line, in JUnit (``rocm_diagnosis``) and in every report.

Only failures pay for this table: :func:`diagnose` compiles it on first use. Every
pattern is a plain alternation of literals with single, unnested quantifiers, so a
match is linear in the length of the failure text (no catastrophic backtracking).
The texts were checked against real reports (the links; docs/known-bad-sources.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from pytest_rocmcompat.knowledge.driver_texts import ACCESS_DENIED, DRIVER_TEXTS
from pytest_rocmcompat.outcomes import (
    PROP_DIAGNOSIS,  # "<id>: <cause>; fix: <fix>; see <link>" on the report and in JUnit
)

__all__ = ["PROP_DIAGNOSIS", "TABLE", "Diagnosis", "annotate", "diagnose", "diagnoses", "headline_of"]
_FIX_SEP = "; fix: "


@dataclass(frozen=True)
class Diagnosis:
    """One failure class."""

    id: str
    pattern: re.Pattern[str]
    cause: str
    fix: str
    link: str

    @property
    def explanation(self) -> str:
        """The likely cause (the name the crash-labelling callers use)."""
        return self.cause

    def property_value(self) -> str:
        """The ``rocm_diagnosis`` value: id, cause, fix and link in one line."""
        return f"{self.id}: {self.cause}{_FIX_SEP}{self.fix}; see {self.link}"

    def headline(self) -> str:
        """``<id>: <cause>``: what a one-line summary shows."""
        return f"{self.id}: {self.cause}"


# (id, pattern, likely cause, usual fix, link). Most specific first: the first match names it.
TABLE: tuple[tuple[str, str, str, str, str], ...] = (
    (
        "nvls-multicast-bind",
        r"Failed to bind NVLink SHARP \(NVLS\) Multicast memory|transport/nvls\.cc:\d+ NCCL WARN Cuda failure",
        "NCCL could not set up NVLink SHARP (NVLS) multicast memory: Fabric Manager/NVSwitch state "
        "or an NCCL release with NVLS problems on this host",
        "set NCCL_NVLS_ENABLE=0 (or NCCL_ALGO=^NVLS), check Fabric Manager, or change the NCCL version",
        "https://github.com/pytorch/pytorch/pull/177472",
    ),
    (
        "dynamo-python-gate",
        r"Dynamo is not supported on Python 3\.\d+|Python 3\.\d+\+? not yet supported for torch\.compile"
        r"|torch\.compile is not supported on Python 3\.\d+",
        "this torch release's torch.compile (Dynamo) refuses the running Python version",
        "use a Python the torch release supports for torch.compile, or a newer torch",
        "https://github.com/pytorch/pytorch/issues/120233",
    ),
    (
        "driver-too-old",
        r"The NVIDIA driver on your system is too old|CUDA driver version is insufficient for CUDA runtime version"
        r"|cudaErrorInsufficientDriver|forward compatibility was attempted on non supported HW",
        "the torch build's CUDA is newer than the installed NVIDIA driver supports",
        "upgrade the driver, or install a torch wheel built for an older CUDA (e.g. +cu118/+cu121)",
        "https://docs.nvidia.com/deploy/cuda-compatibility/",
    ),
    (
        "fp8-unsupported-arch",
        r"type fp8e4nv not supported in this architecture|fp8e4nv data type is not supported on CUDA arch"
        r"|_scaled_mm is only supported on (?:CUDA )?devices with compute capability",
        "fp8 (e4m3) kernels need compute capability 8.9+ (Ada/Hopper) or MI300-class GPUs",
        "run fp8 paths only on sm_89+/gfx942+, or fall back to bf16/fp16 on this GPU",
        "https://github.com/triton-lang/triton/issues/4319",
    ),
    (
        "no-kernel-for-arch",
        r"hipErrorNoBinaryForGpu|Unable to find code object for all current devices|invalid device function"
        r"|no kernel image is available for execution on the device"
        r"|is not compatible with the current PyTorch installation|CUBLAS_STATUS_ARCH_MISMATCH"
        r"|rocBLAS error: Cannot read \S*TensileLibrary|TensileLibrary\.dat: Illegal seek",
        "the build carries no GPU code for this architecture (dropped or not yet added arch, wrong wheel)",
        "install a build whose targets include this GPU (torch.cuda.get_arch_list()); on ROCm check "
        "HSA_OVERRIDE_GFX_VERSION",
        "https://github.com/ROCm/legacy-rocm-build/issues/1623",
    ),
    (
        "flash-attn-arch-unsupported",
        r"FlashAttention only supports Ampere GPUs or newer|FlashAttention only support fp16 and bf16 data type",
        "flash-attn's kernels are built only for some GPU generations (Ampere+ on CUDA, CDNA on ROCm)",
        "use PyTorch SDPA or another attention backend on this GPU",
        "https://github.com/Dao-AILab/flash-attention/issues/762",
    ),
    (
        "bf16-unsupported-arch",
        r"Bfloat16 is only supported on GPUs with compute capability of at least 8\.0"
        r"|Current CUDA Device does not support bfloat16",
        "bfloat16 needs compute capability 8.0+ (Ampere) on CUDA",
        "use fp16/fp32 on this GPU",
        "https://github.com/vllm-project/vllm/issues/946",
    ),
    (
        "extension-abi-mismatch",
        r"\.so: undefined symbol: ",
        "a compiled extension (flash-attn, xformers, vLLM, apex, torchao ...) was built against "
        "another torch/CUDA/C++ ABI than the one installed",
        "reinstall the extension built for this exact torch (or rebuild it from source against it)",
        "https://github.com/Dao-AILab/flash-attention/issues/931",
    ),
    (
        "numpy2-abi",
        r"A module that was compiled using NumPy 1\.x cannot be run in\s+NumPy 2|_ARRAY_API not found",
        "an extension built against NumPy 1 was imported under NumPy 2",
        "pin numpy<2, or upgrade the extension (torch >= 2.3 supports NumPy 2)",
        "https://github.com/pyg-team/pytorch-frame/pull/525",
    ),
    (
        "torch-missing-dtype",
        r"module 'torch' has no attribute '(?:u?int[1-7]|float8_e\w+)'",
        "a library needs torch dtypes this torch release does not have (it is older than the library expects)",
        "upgrade torch, or install the library release made for this torch",
        "https://github.com/pytorch/ao/issues/2919",
    ),
    (
        "gpu-device-access-denied",
        ACCESS_DENIED,  # rocminfo's and Python's texts (verbatim in tests/knowledge/test_rocm_access_denied.py)
        "the GPU's device files (/dev/kfd, /dev/dri/renderD*) are closed to this user or container, so ROCm finds "
        "no GPU; the driver and the stack may be fine",
        "add the user to the group that owns them (sudo usermod -aG render,video $USER, then log in again); "
        "start containers with --device=/dev/kfd --device=/dev/dri --group-add video --group-add render",
        "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/prerequisites.html#configuring-permissions-for-gpu-access",
    ),
    (
        "no-gpu-visible",
        r"No HIP GPUs are available|No CUDA GPUs are available|Found no NVIDIA driver on your system"
        r"|Torch not compiled with CUDA enabled",
        "torch sees no usable GPU: a CPU-only build, no driver, or visibility variables hiding every device",
        "install the GPU build of torch and check CUDA/HIP/ROCR_VISIBLE_DEVICES",
        "https://github.com/ROCm/hip/issues/3799",
    ),
    (
        "hip-memory-access-fault",
        r"Memory access fault by GPU node-\d+",
        "the GPU touched an unmapped page (ROCm): a kernel bug, or a build/driver mismatch for this arch",
        "run the test isolated; try another ROCm/torch build; HSA_OVERRIDE_GFX_VERSION must match the arch",
        "https://github.com/pytorch/pytorch/issues/109929",
    ),
    (
        "amdgpu-driver-init",
        DRIVER_TEXTS,  # the kernel driver's own texts (verbatim in tests/knowledge/test_rocm_kernel_texts.py)
        "the amdgpu kernel driver did not bring the GPU up for compute (no PCIe atomics, GPU init or its firmware "
        "failed, the module was refused, not built or not loaded)",
        "read dmesg's amdgpu/kfd lines; install the GPU's firmware (linux-firmware) and a kernel or AMD's "
        "amdgpu-dkms driver that supports the GPU; sign the DKMS module for Secure Boot; seat the GPU where "
        "PCIe atomics reach it",
        "https://rocm.docs.amd.com/en/latest/conceptual/pcie-atomics.html",
    ),
    (
        "hsa-status-error",
        r"HSA_STATUS_ERROR_[A-Z_]+",
        "the HSA runtime reported a fatal error (ROCm): driver/runtime mismatch or an unsupported GPU",
        "check that the amdgpu driver and the ROCm runtime versions match and the GPU is supported",
        "https://github.com/ROCm/legacy-rocm-build/issues/1623",
    ),
    (
        "device-side-assert",
        r"device-side assert triggered",
        "a kernel assertion fired (most often an index out of range, e.g. labels >= num_classes)",
        "rerun with CUDA_LAUNCH_BLOCKING=1 (AMD_SERIALIZE_KERNEL=3 on ROCm) to find the failing op",
        "https://github.com/pytorch/pytorch/issues/74079",
    ),
    (
        "illegal-memory-access",
        r"(?:CUDA|HIP) error: an illegal memory access was encountered|cudaErrorIllegalAddress",
        "a kernel read or wrote out of bounds",
        "rerun with CUDA_LAUNCH_BLOCKING=1 / compute-sanitizer to find the kernel; try another build",
        "https://github.com/pytorch/pytorch/issues/21819",
    ),
    (
        "gpu-out-of-memory",
        r"(?:CUDA|HIP) out of memory|(?:CUDA|HIP) error: out of memory|OutOfMemoryError",
        "the GPU ran out of memory",
        "reduce batch/sequence size or memory fraction; see PYTORCH_CUDA_ALLOC_CONF",
        "https://pytorch.org/docs/stable/notes/cuda.html#memory-management",
    ),
    (
        "collective-timeout",
        r"Watchdog caught collective operation timeout|ProcessGroupNCCL's watchdog got stuck",
        "a collective did not finish in time (NCCL/RCCL watchdog): a rank hung, died or diverged",
        "check every rank's log for the first error; NCCL_DEBUG=INFO; raise the timeout only if ranks are slow",
        "https://github.com/pytorch/pytorch/issues/118369",
    ),
    (
        "nccl-error",
        r"NCCL error|RCCL error|nccl(?:Internal|UnhandledCuda|System|Remote|InvalidUsage)Error",
        "NCCL/RCCL reported an error",
        "rerun with NCCL_DEBUG=INFO and read the first WARN line",
        "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html",
    ),
    (
        "segmentation-fault",
        r"Segmentation fault|SIGSEGV",
        "the process crashed (SIGSEGV), usually in native code (driver, math library or extension)",
        "run the test isolated; get a native backtrace (python -X faulthandler, gdb)",
        "https://docs.python.org/3/library/faulthandler.html",
    ),
)


@cache
def diagnoses() -> tuple[Diagnosis, ...]:
    """The compiled table (compiled once, on the first failure)."""
    return tuple(Diagnosis(i, re.compile(p), cause, fix, link) for i, p, cause, fix, link in TABLE)


def diagnose(text: str) -> Diagnosis | None:
    """The first diagnosis whose pattern occurs in ``text``, or ``None``."""
    return next((d for d in diagnoses() if d.pattern.search(text)), None)


def headline_of(value: str) -> str:
    """``<id>: <cause>`` from a ``rocm_diagnosis`` property value (as read back from JUnit)."""
    return value.split(_FIX_SEP, 1)[0]


def annotate(message: str, headline: str) -> str:
    """A failure message with its diagnosis in front, as the reports show it."""
    tag = f"[diagnosis: {headline}]"
    return message if message.startswith(tag) else f"{tag} {message}".rstrip()
