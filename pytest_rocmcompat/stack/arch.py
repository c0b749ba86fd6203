"""GPU architecture names: normalisation and wildcard matching.

AMD targets carry feature flags (``gfx906:sramecc+:xnack-``) that are dropped;
NVIDIA devices are named ``sm_<major><minor>`` from their compute capability.
"""

from __future__ import annotations

import fnmatch
import re

_AMD = re.compile(r"^gfx[0-9a-f]{3,4}$")
_NVIDIA = re.compile(r"^sm_\d{2,3}[a-z]?$")
_PATTERN = re.compile(r"^(gfx|sm_)[0-9a-z*?\[\]-]*$")


def normalize_arch(name: str) -> str:
    """``"gfx906:sramecc+:xnack-"`` -> ``"gfx906"``; ``"SM_90"`` -> ``"sm_90"``."""
    base = str(name).strip().split(":", 1)[0].strip().lower()
    if base.startswith("sm") and not base.startswith("sm_"):
        base = "sm_" + base[2:]
    return base


def nvidia_arch(major: int, minor: int) -> str:
    """Compute capability ``(9, 0)`` -> ``"sm_90"``."""
    return f"sm_{int(major)}{int(minor)}"


def is_valid_arch(name: str) -> bool:
    """Whether ``name`` is a concrete arch name such as ``gfx942`` or ``sm_90``."""
    return bool(_AMD.match(name) or _NVIDIA.match(name))


def is_valid_arch_pattern(pattern: str) -> bool:
    """Whether ``pattern`` is an arch name or a glob over arch names (``gfx94*``)."""
    p = normalize_arch(pattern)
    if not any(c in p for c in "*?["):
        return is_valid_arch(p)
    return bool(_PATTERN.match(p))


def arch_matches(arch: str, pattern: str) -> bool:
    """Whether ``arch`` matches ``pattern`` (exact name or ``fnmatch`` glob)."""
    return fnmatch.fnmatchcase(normalize_arch(arch), normalize_arch(pattern))


def arch_vendor(arch: str) -> str:
    """``"amd"`` for gfx targets, ``"nvidia"`` for sm targets, else ``"unknown"``."""
    a = normalize_arch(arch)
    if a.startswith("gfx"):
        return "amd"
    if a.startswith("sm_"):
        return "nvidia"
    return "unknown"
