"""The Linux kernel series a distribution release ships (GA and HWE), for ``os`` naming no kernel.

Ubuntu's LTS releases and the kernel series Canonical supports on them (64-bit x86), from its
Livepatch table of covered kernels (UBUNTU_SOURCE): 18.04: 4.15 (GA), 5.4 (HWE); 20.04: 5.4 (GA),
5.15 (HWE); 22.04: 5.15 (GA), 6.8 (HWE); 24.04: 6.8 (GA), 6.11, 6.14, 6.17 and 7.0 (HWE). The newest
series bounds the in-kernel amdgpu from above (none of the release is newer), the GA series from below. Other distributions are not
tabled (their kernel series not verified here).
"""

from __future__ import annotations

import re
from typing import NamedTuple

UBUNTU_SOURCE = "https://ubuntu.com/security/livepatch/docs/client/reference/platform/supported-kernels/"

# (distribution, release) -> (its GA kernel series, its newest kernel series, the source that says so)
KERNELS: dict[tuple[str, str], tuple[tuple[int, int], tuple[int, int], str]] = {
    ("ubuntu", "18.04"): ((4, 15), (5, 4), UBUNTU_SOURCE),
    ("ubuntu", "20.04"): ((5, 4), (5, 15), UBUNTU_SOURCE),
    ("ubuntu", "22.04"): ((5, 15), (6, 8), UBUNTU_SOURCE),
    ("ubuntu", "24.04"): ((6, 8), (7, 0), UBUNTU_SOURCE),
}
# "Ubuntu 20.04", "Ubuntu 22.04.3 LTS", "Ubuntu 22.04.5 LTS (Jammy Jellyfish)", and ``--rocm-set os=``'s
# record of them, "Linux ubuntu-22.04.3"
_RELEASE = re.compile(r"^\s*(?:Linux\s+)?(Ubuntu)[\s-]+(\d{2}\.\d{2})(?:\.\d+)?\b", re.IGNORECASE)


def release_of(os_text: str | None) -> tuple[str, str] | None:
    """``("ubuntu", "22.04")`` for ``Ubuntu 22.04.3 LTS``; ``None`` for anything else."""
    match = _RELEASE.match(os_text or "")
    return (match.group(1).lower(), match.group(2)) if match else None


class Kernels(NamedTuple):
    """The kernel series a tabled distribution release ships."""

    shown: str  # "Ubuntu 22.04"
    ga: tuple[int, int]  # no kernel of the release is older
    newest: tuple[int, int]  # nor newer
    source: str


def kernels(os_text: str | None) -> Kernels | None:
    """The kernels of the tabled distribution release ``os`` names, else ``None``."""
    release = release_of(os_text)
    if release is None or release not in KERNELS:
        return None
    return Kernels(f"Ubuntu {release[1]}", *KERNELS[release])
