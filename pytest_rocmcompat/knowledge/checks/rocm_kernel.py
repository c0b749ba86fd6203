"""``rocm-driver-unsupported`` for a distribution kernel: its in-kernel amdgpu has no compute for the GPU, or WSL.

AMD's user/kernel-space matrix (:mod:`rocm_driver`) lists AMD's DKMS drivers only. A distribution's
in-kernel amdgpu (``driver`` a kernel release such as ``5.15.0-91-generic``) drives a GPU for ROCm only
if its amdkfd (the Kernel Fusion Driver behind ``/dev/kfd``) knows the GPU. Linux 5.15's amdkfd
(Ubuntu 22.04's GA kernel series) picks its devices from a table of ASICs (``kfd2kgd_funcs[]`` by
``CHIP_*``, up to Yellow Carp and Cyan Skillfish): it has no entry for GC 10.3.6/10.3.7, GC 9.4.x
(MI300), GFX11, GFX11.5 or GFX12, so on those GPUs ROCm finds no device. KFD_SOURCE is that file
at v5.15, read here in a 5.15.99-based tree (DFAUS-git/ps4-linux-kernel-5.15.99-belize@c154afc).
The GFX11 and GC 10.3.6/10.3.7 entries came later, by IP version: "drm/amdkfd: Add KFD support for
soc21 v3" (2022-05-04, SOC21_SOURCE), "drm/amdkfd: add GC 11.0.1 KFD support" (GC11_0_1_SOURCE),
"drm/amdkfd: Add GC 10.3.6 and 10.3.7 KFD definitions" (2022-06-03, GC10_3_6_SOURCE). The first
mainline release of each is not verified here, so only kernels up to 5.15 are judged.

A kernel named only by ``os`` (``Linux 5.15.0-91-generic``) may run AMD's DKMS driver instead, and
enterprise kernels (RHEL's ``.el9``, SUSE's ``-150500``) backport newer amdgpu code: both findings
are uncertain.

Under WSL (``microsoft-standard-WSL2`` kernels) ROCm has no KFD: AMD's ROCm-on-WSL install reaches
the GPU through the Windows driver, and its PyTorch steps remove the HSA runtime a torch wheel bundles
(``rm libhsa-runtime64.so*`` in ``torch/lib``) so that the WSL runtime of ``/opt/rocm`` is used
(WSL_SOURCE; the same steps quoted in https://github.com/ROCm/hip/issues/3710). A ``+rocm`` torch on
WSL therefore finds no GPU unless that was done, which the probe cannot see: uncertain.
"""

from __future__ import annotations

import re

from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.stack.environment import Environment

KFD_SOURCE = "https://github.com/torvalds/linux/blob/v5.15/drivers/gpu/drm/amd/amdkfd/kfd_device.c"
SOC21_SOURCE = "https://git.zx2c4.com/linux-dev/commit/?id=cc009e613de6560eb499f8bc92c80a737752cb30"
GC11_0_1_SOURCE = "https://git.zx2c4.com/linux-dev/commit/?id=26776a7031c4234eb1a36dbaf9843e0793ff3e90"
GC10_3_6_SOURCE = "https://git.zx2c4.com/linux-dev/log/drivers/gpu/drm/amd/amdkfd?h=linus%2Fmaster&showmsg=1"
WSL_SOURCE = (
    "https://rocm.docs.amd.com/projects/radeon-ryzen/en/docs-7.2/docs/install/installrad/wsl/install-pytorch.html"
)

# GPU arch -> the newest kernel series whose in-kernel amdkfd is verified to have no entry for it
_NEWER_THAN_5_15 = (
    "gfx1036",  # GC 10.3.6 (Raphael); 10.3.7 is gfx1037
    "gfx1037",
    "gfx940",  # GC 9.4.x: MI300
    "gfx941",
    "gfx942",
    "gfx1100",  # GFX11: RDNA3 and Phoenix
    "gfx1101",
    "gfx1102",
    "gfx1103",
    "gfx1150",  # GFX11.5: Strix, Strix Halo, Krackan
    "gfx1151",
    "gfx1152",
    "gfx1200",  # GFX12: RDNA4
    "gfx1201",
)
NO_KFD_THROUGH: dict[str, tuple[int, int]] = dict.fromkeys(_NEWER_THAN_5_15, (5, 15))
# Kernels whose vendor backports newer amdgpu code into an old base: RHEL (4.18.0-553.el8_10,
# 5.14.0-427.13.1.el9_4) and SUSE (5.14.21-150500.55.19-default)
_BACKPORTS = re.compile(r"\.el\d|-150\d{3}\.")
_WSL = re.compile(r"microsoft|wsl", re.IGNORECASE)


def is_wsl(env: Environment) -> bool:
    """Whether the stack's kernel (``os`` or ``driver``) is WSL's (``5.15.153.1-microsoft-standard-WSL2``)."""
    return any(_WSL.search(text or "") for text in (env.os, env.driver))


def findings(env: Environment, check_id: str, release: str | None, head: str | None, probed: bool) -> list[Finding]:
    """WSL's, or the in-kernel driver's of ``release`` (its dotted ``head``; ``probed``: recorded as the driver)."""
    if is_wsl(env):
        return _wsl(env, check_id)
    if release is None or head is None:
        return []
    return _no_kfd(env, check_id, release, head, uncertain=not probed or bool(_BACKPORTS.search(release)))


def series(head: str) -> tuple[int, int]:
    """``"5.15.0"`` -> ``(5, 15)``."""
    major, minor = head.split(".")[:2]
    return int(major), int(minor)


def _no_kfd(env: Environment, check_id: str, release: str, head: str, uncertain: bool) -> list[Finding]:
    kernel = series(head)
    missing = [a for a in env.archs if a in NO_KFD_THROUGH and kernel <= NO_KFD_THROUGH[a]]
    if not missing:
        return []
    newest = max(NO_KFD_THROUGH[a] for a in missing)
    shown = release.removeprefix("Linux ").strip()
    return [
        Finding(
            check=check_id,
            reason=f"the in-kernel amdgpu of Linux {shown} has no compute (KFD) support for {', '.join(missing)}: "
            f"Linux {newest[0]}.{newest[1]}'s amdkfd has no entry for it, so ROCm finds no GPU",
            fix="boot a newer kernel with KFD support for the GPU (the distribution's HWE/OEM kernel), or install "
            "AMD's amdgpu driver of the ROCm release in use (amdgpu-install --usecase=dkms)",
            link=KFD_SOURCE,
            everything=True,
            uncertain=uncertain,
        )
    ]


def _wsl(env: Environment, check_id: str) -> list[Finding]:
    if env.torch_rocm is None or not env.torch:
        return []
    return [
        Finding(
            check=check_id,
            reason=f"torch {env.torch} under WSL: ROCm on WSL has no KFD and reaches the GPU through the Windows "
            "driver; the HSA runtime the torch wheel bundles (torch/lib/libhsa-runtime64.so) is not WSL's",
            fix="follow AMD's ROCm-on-WSL PyTorch steps: remove torch/lib/libhsa-runtime64.so* so that the WSL "
            "runtime of /opt/rocm is used",
            link=WSL_SOURCE,
            everything=True,
            uncertain=True,  # the probe cannot see whether torch's runtime was replaced
        )
    ]
