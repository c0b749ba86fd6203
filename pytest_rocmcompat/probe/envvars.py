"""Capture the GPU-stack environment variables worth reporting, secrets redacted."""

from __future__ import annotations

import fnmatch
import re

from pytest_rocmcompat.safe_io.redact import redact_variable

# Variables that change how the GPU stack behaves (visibility, allocator,
# collectives, arch overrides, Ray device handling, build targets); every one a bundled rule or a
# built-in check reads must be here (tests/probe/test_envvars_read.py), or a live host never has it.
ALLOWED: tuple[str, ...] = (
    "HIP_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES",
    "CUDA_VISIBLE_DEVICES",
    "GPU_DEVICE_ORDINAL",
    "HSA_*",
    "HIP_*",
    "ROCM_PATH",
    "ROCM_HOME",
    "HIPCC_*",
    "AMD_*",
    "AMDGPU_TARGETS",
    "GPU_TARGETS",
    "PYTORCH_*_ALLOC_CONF",
    "PYTORCH_ALLOC_CONF",
    "PYTORCH_ROCM_ARCH",
    "PYTORCH_NVML_BASED_CUDA_CHECK",
    "PYTORCH_TUNABLEOP_*",
    "TORCH_CUDA_ARCH_LIST",
    "TORCH_NCCL_*",
    "TORCH_DISTRIBUTED_DEBUG",
    "TORCH_BLAS_PREFER_HIPBLASLT",
    "DISABLE_ADDMM_HIP_LT",  # torch's hipBLASLt addmm switch (hipblaslt-arch-unsupported reads it)
    "TRITON_*",  # TRITON_PTXAS_PATH (a bundled rule's condition), cache and backend settings
    "BNB_CUDA_VERSION",  # bitsandbytes' library choice (both bitsandbytes checks read them)
    "BNB_ROCM_VERSION",
    "DS_SKIP_CUDA_CHECK",  # DeepSpeed's op-builder CUDA check (extension-build-toolkit-mismatch)
    "NCCL_*",
    "RCCL_*",
    "MIOPEN_*",
    "ROCBLAS_*",
    "HIPBLASLT_*",
    "CUDA_HOME",
    "CUDA_PATH",
    "CUDA_LAUNCH_BLOCKING",
    "CUDA_DEVICE_ORDER",
    "CUDA_MODULE_LOADING",
    "RAY_EXPERIMENTAL_*",
    "VLLM_*",
    "SGLANG_USE_AITER",  # SGLang's AITER switch (checks/library_arch.py)
    "FLASHINFER_DISABLE_VERSION_CHECK",  # FlashInfer's parts check (checks/flashinfer_parts.py)
    "OMP_NUM_THREADS",
    "LD_LIBRARY_PATH",
)
_ALLOWED = re.compile("|".join(fnmatch.translate(p) for p in ALLOWED))


def is_allowed(name: str) -> bool:
    """Whether a variable belongs to the GPU stack's allow-list."""
    return bool(_ALLOWED.match(name))


def capture_env(environ: dict[str, str]) -> dict[str, str]:
    """Allow-listed variables; secret-looking names' values and secret shapes (URL credentials,
    tokens) in any value replaced by ``[redacted]``.
    """
    return {name: redact_variable(name, value) for name, value in sorted(environ.items()) if is_allowed(name)}
