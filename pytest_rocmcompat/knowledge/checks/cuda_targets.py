"""Whether a CUDA build's code targets serve a GPU (binary and PTX compatibility).

NVIDIA, CUDA C++ Programming Guide, "Binary Compatibility" and "PTX Compatibility":
a cubin for ``sm_XY`` runs on any GPU of the same major with minor >= Y; PTX for
``compute_XY`` is JIT-compiled for any GPU of capability >= X.Y. Arch-specific targets
(``sm_90a``, ``compute_100a``) run only on exactly that arch; family targets (``sm_100f``)
on the same major with minor >= Y.
"""

from __future__ import annotations

import re

SOURCE = "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#binary-compatibility"
_TARGET = re.compile(r"^(sm|compute)_(\d+)(\d)([af]?)$")


def capability(arch: str) -> tuple[int, int] | None:
    """``"sm_86"`` -> (8, 6); ``"sm_120"`` -> (12, 0); anything else -> ``None``."""
    m = _TARGET.match(arch.lower())
    if m is None or m.group(1) != "sm" or m.group(4):
        return None
    return int(m.group(2)), int(m.group(3))


def serves(target: str, gpu: tuple[int, int]) -> bool:
    """Whether code built for ``target`` runs on a GPU of capability ``gpu``."""
    m = _TARGET.match(target.strip().lower())
    if m is None:
        return False
    kind, major, minor, suffix = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
    if suffix == "a":
        return (major, minor) == gpu
    if kind == "sm" or suffix == "f":
        return major == gpu[0] and minor <= gpu[1]
    return (major, minor) <= gpu  # PTX: JIT for any newer GPU


def served_by(targets: tuple[str, ...], arch: str) -> bool | None:
    """Whether any target serves ``arch`` (``None``: not a CUDA arch, or no CUDA targets)."""
    gpu = capability(arch)
    cuda_targets = [t for t in targets if _TARGET.match(t.strip().lower())]
    if gpu is None or not cuda_targets:
        return None
    return any(serves(t, gpu) for t in cuda_targets)
