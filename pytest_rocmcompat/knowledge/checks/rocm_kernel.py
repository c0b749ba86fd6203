"""``rocm-driver-unsupported`` for a distribution kernel: its in-kernel amdgpu has no compute for the GPU, or WSL.

AMD's user/kernel-space matrix (:mod:`rocm_driver`) lists AMD's DKMS drivers only. A distribution's
in-kernel amdgpu (``driver`` a kernel release such as ``5.15.0-91-generic``) drives a GPU for ROCm only
if its amdkfd (the Kernel Fusion Driver behind ``/dev/kfd``) knows the GPU; otherwise it logs
``kfd kfd: amdgpu: GC IP 0a0307 not supported in kfd`` and ROCm finds no device. NO_KFD_THROUGH
holds, per GPU arch, the newest kernel series known to lack it (only kernels up to it are judged):

- Linux 5.15's amdkfd (Ubuntu 22.04's GA series) picks devices from a table of ASICs
  (``kfd2kgd_funcs[]`` by ``CHIP_*``, up to Yellow Carp and Cyan Skillfish), with no entry for
  GC 10.3.6/10.3.7, GC 9.4.3, GFX11, GFX11.5 or GFX12 (GC 9.4.1/9.4.2, Arcturus and Aldebaran, are there) (KFD_SOURCE, read in a 5.15.99-based tree,
  DFAUS-git/ps4-linux-kernel-5.15.99-belize@c154afc).
- GFX11's KFD support came first in the pull for Linux 5.19: AMD's tag amd-drm-next-5.19-2022-05-11
  lists "amdkfd: - GC 11.0 support" (GFX11_TAG_SOURCE; read at its mirror
  https://gitlab.com/FireBurn/linux/-/tags?page=40), after "drm/amdkfd: Add KFD support for soc21
  v3" (2022-05-04, SOC21_SOURCE) and "drm/amdkfd: add GC 11.0.1 KFD support" (GC11_0_1_SOURCE): up to
  5.18 no GFX11 GPU (gfx1100-gfx1103) has compute.
- GC 10.3.6/10.3.7 (gfx1036, gfx1037) got their KFD entries in "drm/amdkfd: Add GC 10.3.6 and 10.3.7
  KFD definitions" (2022-06-03, a fix for 5.19 sent to 5.18.x stable, GC10_3_6_SOURCE): up to 5.17.
- GC 9.4.3 (MI300: gfx940-gfx942) KFD patches were first posted on 2023-03-27 (GC943_SOURCE), after
  Linux 6.3's merge window: up to 6.3.
- GFX11.5: "drm/amdkfd: add KFD support for GC 11.5.0" was first posted to amd-gfx on 2023-08-17
  (GC11_5_0_SOURCE), after Linux 6.5's merge window: gfx1150 up to 6.5. "... for GC 11.5.1" was written
  on 2024-01-05 and committed on 2024-02-22 (GC11_5_1_SOURCE), after Linux 6.7's merge window:
  gfx1151 up to 6.7. "... for GC IP v11.5.2" was written on 2024-05-14 (GC11_5_2_SOURCE), after Linux
  6.9's release: gfx1152 up to 6.9. (The next releases may have lacked them too; not verified.)
- GFX12: only the 5.15 table above is verified here (its first release is not).

Only a GPU the stack *states* (an ``arch=`` assignment of a replay or ``rocmcompat check``) is judged:
a GPU the probe enumerated (rocminfo, torch) was found through amdkfd, which therefore knows it. A
kernel named only by ``os`` (``Linux 5.15.0-91-generic``) is not judged (AMD's DKMS driver may be the
one loaded, and nothing says which); enterprise kernels (RHEL's ``.el9``, SUSE's ``-150500``) backport
newer amdgpu code: uncertain. Where only some of the stated GPUs lack KFD support, the others still
work: the finding reaches GPU tests only, not every test.

Under WSL (``microsoft-standard-WSL2`` kernels) ROCm has no KFD: AMD's ROCm-on-WSL install reaches
the GPU through the Windows driver, and its PyTorch steps remove the HSA runtime a torch wheel bundles
(``rm libhsa-runtime64.so*`` in ``torch/lib``) so that the WSL runtime of ``/opt/rocm`` is used
(WSL_SOURCE; the same steps quoted in https://github.com/ROCm/hip/issues/3710). A ``+rocm`` torch on
WSL therefore finds no GPU unless that was done, which the probe cannot see: uncertain; AMD's newer
ROCDXG route (``HSA_ENABLE_DXG_DETECTION`` set) is not judged.

The risk's predicted failures include the kernel driver's own texts for a GPU it does not bring up
(DRIVER_TEXTS: PCIe atomics, GPU init, amdgpu firmware, Secure Boot, DKMS, the SMI tools), never
``/dev/kfd`` closed to the user (``Permission denied``: access, not the driver).
A stated ROCm stack whose GPU every recent kernel serves gets no such risk: measured on the incident
corpus (docs/knowledge.md, sixteenth round), a risk for every stack naming no driver also marked a working
near-miss broken, since it cannot tell one ROCm release's stack from another's.

A stated GPU whose compute depends on a recent kernel (an arch of NO_KFD_THROUGH, or an APU of
LLVM's processor table, ``arch_table``'s ``apu``) on a Linux stack that names no kernel driver (no
``driver``, an ``os`` of ``Linux`` without a kernel release, not WSL; an unknown ``os`` may be Windows,
whose ROCm runs on AMD's Windows driver) is a risk (*uncertain*): ROCm needs an
amdgpu whose amdkfd knows the GPU, and nothing says which one runs. It claims only the
driver-level failures of UNSTATED_PREDICTS (no device, ``/dev/kfd``, the HSA runtime's status
errors other than faults and code-object errors), never a crash, a hang or "invalid device function".
An ``os`` naming a distribution release (``Ubuntu 20.04``) bounds its in-kernel amdgpu by the newest
kernel series the release ships (:mod:`rocm_kernel_distros`): where even that lacks KFD support for a
stated GPU, the finding is the in-kernel one's, uncertain (AMD's DKMS driver may be installed).
"""

from __future__ import annotations

import re
from dataclasses import replace

from pytest_rocmcompat.knowledge import arch_table
from pytest_rocmcompat.knowledge.checks import rocm_kernel_distros
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.driver_texts import DRIVER_TEXTS
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import stated_keys

KFD_SOURCE = "https://github.com/torvalds/linux/blob/v5.15/drivers/gpu/drm/amd/amdkfd/kfd_device.c"
GFX11_TAG_SOURCE = "https://gitlab.freedesktop.org/agd5f/linux/-/tags/amd-drm-next-5.19-2022-05-11"
GC943_SOURCE = "https://www.phoronix.com/news/AMD-More-GFX943-Code-Patches"
SOC21_SOURCE = "https://git.zx2c4.com/linux-dev/commit/?id=cc009e613de6560eb499f8bc92c80a737752cb30"
GC11_0_1_SOURCE = "https://git.zx2c4.com/linux-dev/commit/?id=26776a7031c4234eb1a36dbaf9843e0793ff3e90"
GC10_3_6_SOURCE = "https://git.zx2c4.com/linux-dev/commit/?id=7c4f4f197e0c5c93a70329627f17fcc5883f3593"
GC11_5_0_SOURCE = "https://lore.kernel.org/amd-gfx/20230817181122.1543473-5-alexander.deucher@amd.com/"
GC11_5_1_SOURCE = "https://git.zx2c4.com/wireguard-linux/commit/?id=f5f83441c4e792947a5b296d837a2fa3162d85aa"
GC11_5_2_SOURCE = "https://git.zx2c4.com/laptop-kernel/commit/?id=53c3a37436c400a00d05702334920354f2e3fdc2"
# AMD's Ryzen (APU) PyTorch install, ROCm 7.0.2: "For PyTorch on Ryzen, it is required to operate on the
# 6.14 OEM kernel" (Ubuntu 24.04's linux-oem-24.04c)
RYZEN_KERNEL_SOURCE = (
    "https://rocm.docs.amd.com/projects/radeon-ryzen/en/docs-7.0.2/docs/install/installryz/native_linux/"
    "install-pytorch.html"
)
WSL_SOURCE = (
    "https://rocm.docs.amd.com/projects/radeon-ryzen/en/docs-7.2/docs/install/installrad/wsl/install-pytorch.html"
)

# GPU arch -> (the newest kernel series whose in-kernel amdkfd lacks it, the source that says so)
NO_KFD_THROUGH: dict[str, tuple[tuple[int, int], str]] = {
    "gfx1036": ((5, 17), GC10_3_6_SOURCE),  # GC 10.3.6 (Raphael)
    "gfx1037": ((5, 17), GC10_3_6_SOURCE),  # GC 10.3.7 (Mendocino)
    "gfx940": ((6, 3), GC943_SOURCE),  # GC 9.4.3: MI300
    "gfx941": ((6, 3), GC943_SOURCE),
    "gfx942": ((6, 3), GC943_SOURCE),
    "gfx1100": ((5, 18), GFX11_TAG_SOURCE),  # GFX11: RDNA3 and Phoenix
    "gfx1101": ((5, 18), GFX11_TAG_SOURCE),
    "gfx1102": ((5, 18), GFX11_TAG_SOURCE),
    "gfx1103": ((5, 18), GFX11_TAG_SOURCE),
    "gfx1150": ((6, 5), GC11_5_0_SOURCE),  # GFX11.5: Strix Point
    "gfx1151": ((6, 7), GC11_5_1_SOURCE),  # Strix Halo
    "gfx1152": ((6, 9), GC11_5_2_SOURCE),  # Krackan
    "gfx1200": ((5, 15), KFD_SOURCE),  # GFX12: RDNA4
    "gfx1201": ((5, 15), KFD_SOURCE),
}
# What ROCm meets when its kernel driver cannot serve the GPU, driver-level only (verbatim in
# tests/knowledge/test_rocm_kernel_unstated.py): the HSA runtime's status errors (hsa.h's
# HSA_STATUS_ERROR_*, bare or named, as rocminfo's "hsa api call failure at" reports them:
# https://github.com/ROCm/TheRock/issues/7952,
# https://github.com/rocm-arch/rocm-arch/issues/901)
# except a fault in running code (memory aperture, memory fault, exception, illegal instruction) and a
# code object the GPU cannot load (another arch's: arch-not-in-build's); /dev/kfd failing to open
# (https://github.com/ROCm/rocminfo/issues/41);
# no ROCk module; no device for HIP (hipErrorNoDevice, "No HIP GPUs are available") or a driver too
# old (hipErrorInsufficientDriver), by name or hipGetErrorString's text (rocm_driver's hip_error.cpp);
# amdkfd's "not supported in kfd".
# The kernel driver's own texts for a GPU it did not bring up (driver_texts.DRIVER_TEXTS).
# /dev/kfd failing to open is driver-level except where it is closed to the user (EACCES: rocminfo's
# "Unable to open /dev/kfd read-write: Permission denied", beside its render-group check, ROCMINFO_SOURCE):
# access, not the driver, is never claimed. (The HSA failure rocminfo then reports still is: the check is
# per text, linear, with no look at the rest of the failure.)
DRIVER_LEVEL = (
    r"HSA_STATUS_ERROR(?:_(?!MEMORY_APERTURE_VIOLATION|MEMORY_FAULT|EXCEPTION|ILLEGAL_INSTRUCTION"
    r"|INVALID_CODE_OBJECT|INVALID_ISA|OUT_OF_REGISTERS)\w+)?\b|hsa api call failure at"
    r"|/dev/kfd(?! read-write: Permission denied)"
    r"|ROCk module (?:version \S+ )?is NOT loaded|hipErrorInsufficientDriver\b"
    r"|driver version is insufficient for runtime version|not supported in kfd|" + DRIVER_TEXTS
)
# No device for HIP: where the kernel may lack the GPU's KFD support, the likely driver-level symptom.
# (TensorFlow's ROCm executor spells the HIP error HIP_ERROR_NoDevice: "could not retrieve ROCM device count:
# HIP_ERROR_NoDevice", https://github.com/ROCm/tensorflow-upstream/issues/972)
NO_DEVICE = r"No HIP GPUs are available|no ROCm-capable device|hipErrorNoDevice\b|HIP_ERROR_NoDevice\b"
UNSTATED_PREDICTS = DRIVER_LEVEL + "|" + NO_DEVICE
ROCMINFO_SOURCE = "https://github.com/ROCm/rocminfo/blob/rocm-6.2.0/rocminfo.cc"
# Kernels whose vendor backports newer amdgpu code into an old base: RHEL (4.18.0-553.el8_10,
# 5.14.0-427.13.1.el9_4) and SUSE (5.14.21-150500.55.19-default)
_BACKPORTS = re.compile(r"\.el\d|-150\d{3}\.")
_WSL = re.compile(r"microsoft|wsl", re.IGNORECASE)
GPU_SUITE = ("suites/gpu", "*/suites/gpu/*")


def is_wsl(env: Environment) -> bool:
    """Whether the stack's kernel (``os`` or ``driver``) is WSL's (``5.15.153.1-microsoft-standard-WSL2``)."""
    return any(_WSL.search(text or "") for text in (env.os, env.driver))


def findings(env: Environment, check_id: str, release: str | None, head: str | None) -> list[Finding]:
    """WSL's, or those of the in-kernel driver recorded as the stack's ``driver`` (``release``, its dotted ``head``)."""
    if is_wsl(env):
        return _wsl(env, check_id)
    if release is None or head is None:
        return [] if env.driver else unstated(env, check_id)
    if not archs_stated(env):
        return []
    return _no_kfd(env, check_id, release, head, uncertain=bool(_BACKPORTS.search(release)))


def archs_stated(env: Environment) -> bool:
    """Whether the stack's GPUs were stated (``arch=``), not enumerated through amdkfd by a probe."""
    return "arch" in stated_keys(env)


def series(head: str) -> tuple[int, int]:
    """``"5.15.0"`` -> ``(5, 15)``."""
    major, minor = head.split(".")[:2]
    return int(major), int(minor)


def _no_kfd(env: Environment, check_id: str, release: str, head: str, uncertain: bool) -> list[Finding]:
    kernel = series(head)
    missing = [a for a in env.archs if a in NO_KFD_THROUGH and kernel <= NO_KFD_THROUGH[a][0]]
    if not missing:
        return []
    newest, link = max(NO_KFD_THROUGH[a] for a in missing)
    shown = release.removeprefix("Linux ").strip()
    gfx = [a for a in env.archs if a.startswith("gfx")]
    every = len(missing) == len(gfx)  # no GPU left for ROCm; else only these are invisible
    return [
        Finding(
            check=check_id,
            reason=f"the in-kernel amdgpu of Linux {shown} has no compute (KFD) support for {', '.join(missing)} "
            f"(none up to Linux {newest[0]}.{newest[1]}), so ROCm "
            + ("finds no GPU" if every else "does not see these GPUs"),
            fix="boot a newer kernel with KFD support for the GPU (the distribution's HWE/OEM kernel), or install "
            "AMD's amdgpu driver of the ROCm release in use (amdgpu-install --usecase=dkms)",
            link=link,
            everything=every,
            markers=() if every else ("gpus",),
            nodeids=() if every else GPU_SUITE,
            uncertain=uncertain,
        )
    ]


def _wsl(env: Environment, check_id: str) -> list[Finding]:
    if env.torch_rocm is None or not env.torch or env.env.get("HSA_ENABLE_DXG_DETECTION"):
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


def needs_recent_kernel(arch: str) -> bool:
    """Whether compute on ``arch`` depends on the kernel: an arch of NO_KFD_THROUGH, or an APU."""
    return arch in NO_KFD_THROUGH or _is_apu(arch)


def _is_apu(arch: str) -> bool:
    row = arch_table.info(arch)
    return row is not None and row.apu


def names_kernel(os_text: str | None) -> bool:
    """Whether ``os`` names a kernel release (``Linux 6.5.0-14-generic``), not only the system."""
    return re.match(r"^(?:\S+\s+)?\d+\.\d+", os_text or "") is not None  # not a distribution's version


def unstated(env: Environment, check_id: str) -> list[Finding]:
    """The risk of a stated GPU whose compute depends on the kernel, on a stack naming no kernel driver."""
    if env.driver or not archs_stated(env):
        return []
    release = rocm_kernel_distros.kernels(env.os)
    if release is not None:
        head = ".".join(map(str, release.newest))
        found = _no_kfd(env, check_id, f"{head} (the newest kernel series of {release.shown})", head, uncertain=True)
        if found:  # AMD's DKMS driver may serve it: like the risk below, only driver-level failures confirm it
            return [replace(f, predicts=UNSTATED_PREDICTS, signature_only=True) for f in found]
    distribution = rocm_kernel_distros.release_of(env.os) is not None
    if env.os and not distribution and (env.system != "Linux" or names_kernel(env.os)):
        return []  # another OS (Windows' HIP SDK runs on AMD's Windows driver), or a named kernel: judged above
    oldest = release.ga if release is not None else None  # a tabled release: no kernel of it is older
    gfx = [a for a in env.archs if a.startswith("gfx")]
    at_risk = [
        a
        for a in gfx
        if needs_recent_kernel(a) and not (oldest and a in NO_KFD_THROUGH and oldest > NO_KFD_THROUGH[a][0])
    ]
    if not at_risk:
        return []
    bounds = [(a, NO_KFD_THROUGH[a]) for a in at_risk if a in NO_KFD_THROUGH]
    known = "".join(f"; none up to Linux {k[0]}.{k[1]} for {a}" for a, (k, _) in bounds)
    every = len(at_risk) == len(gfx)
    ryzen = any(_is_apu(a) for a in at_risk)
    return [
        Finding(
            check=check_id,
            reason=f"ROCm compute on {', '.join(at_risk)} needs an amdgpu kernel driver whose KFD supports it "
            f"(AMD's DKMS driver, or a recent enough Linux{known}); the stack does not say which kernel driver "
            "it runs" + ("" if env.os else " (nor which OS)"),
            fix="state the kernel driver (driver=<uname -r>, or the amdgpu DKMS version); on a kernel without KFD "
            "support for the GPU, boot a newer one (the distribution's HWE/OEM kernel) or install AMD's amdgpu "
            "driver of the ROCm release in use (amdgpu-install --usecase=dkms)"
            + (
                "; AMD's Ryzen (APU) PyTorch install requires Ubuntu 24.04's 6.14 OEM kernel (linux-oem-24.04c)"
                if ryzen
                else ""
            ),
            link=max(bounds, key=lambda b: b[1][0])[1][1] if bounds else KFD_SOURCE,
            everything=every,
            markers=() if every else ("gpus",),
            nodeids=() if every else GPU_SUITE,
            uncertain=True,  # the kernel driver in use may well serve the GPU
            predicts=UNSTATED_PREDICTS,
            signature_only=True,  # driver-level failures only: not rocm_driver's faults and hangs
        )
    ]
