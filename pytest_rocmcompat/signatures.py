"""Built-in signatures of fatal GPU-stack failures, matched against failure text.

A known-bad rule's own signature is tried first (see :mod:`classify`); these name
the failure when no rule explains it, so a report says *what kind* of crash it was.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Signature:
    id: str
    pattern: re.Pattern[str]
    explanation: str


def _sig(id: str, pattern: str, explanation: str) -> Signature:
    return Signature(id, re.compile(pattern), explanation)


# Most specific first: the first match names the failure.
BUILTIN: tuple[Signature, ...] = (
    _sig("hip-memory-access-fault", r"Memory access fault by GPU node-\d+",
         "the GPU touched an unmapped page (ROCm); the process aborts"),
    _sig("hsa-status-error", r"HSA_STATUS_ERROR_[A-Z_]+",
         "the HSA runtime reported a fatal error (ROCm)"),
    _sig("no-kernel-for-arch", r"hipErrorNoBinaryForGpu|invalid device function"
         r"|no kernel image is available for execution on the device",
         "the build has no kernels for this GPU architecture"),
    _sig("illegal-memory-access", r"(?:CUDA|HIP) error: an illegal memory access was encountered",
         "a kernel read or wrote out of bounds"),
    _sig("gpu-out-of-memory", r"(?:CUDA|HIP) out of memory|(?:CUDA|HIP) error: out of memory|OutOfMemoryError",
         "the GPU ran out of memory"),
    _sig("collective-timeout", r"Watchdog caught collective operation timeout",
         "a collective did not finish in time (NCCL/RCCL watchdog)"),
    _sig("nccl-error", r"NCCL error|RCCL error|nccl(?:Internal|UnhandledCuda|System|Remote|InvalidUsage)Error",
         "NCCL/RCCL reported an error"),
    _sig("segmentation-fault", r"Segmentation fault|SIGSEGV", "the process crashed (SIGSEGV)"),
    _sig("torchao-torch-int1", r"module 'torch' has no attribute 'int1'",
         "torchao needs torch.int1, absent from this torch build"),
    _sig("numpy2-abi", r"A module that was compiled using NumPy 1\.x cannot be run in\s+NumPy 2",
         "an extension built against NumPy 1 was imported under NumPy 2"),
)


def match_builtin(text: str) -> Signature | None:
    """The first built-in signature found in ``text``, or ``None``."""
    return next((s for s in BUILTIN if s.pattern.search(text)), None)
