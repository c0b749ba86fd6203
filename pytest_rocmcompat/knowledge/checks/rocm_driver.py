"""``rocm-driver-unsupported``: the ROCm user space is outside what the amdgpu kernel driver supports.

AMD's *User and AMD GPU Driver (amdgpu) support matrix* lists, per kernel-mode driver (KMD)
release, the ROCm user-space releases it supports: +/- 2 releases up to ROCm 6.3, up to a year
apart from 6.4, and the AMD GPU Driver 30.x series (distributed apart from ROCm from 30.10) with
its own list. The user space is what the tests run: a ROCm torch wheel's bundled runtime
(``+rocmX.Y``) and the system ROCm (``rocm``); the KMD is the probed ``driver`` (rocminfo's
"ROCk module version", ``/sys/module/amdgpu/version``, amd-smi), which for AMD's DKMS package
is the kernel base it was built from (``6.8.5`` for ROCm 6.2) or the full package version
(``6.8.5.60200``), and for the AMD GPU Driver its own ``30.10.1`` (its package version
``6.14.14.30100000`` carries it in an 8-digit field). A version this table does not know is no finding.

The distribution's in-kernel amdgpu names a Linux kernel release (:func:`kernel_release`): a release
with a distribution suffix (``6.5.0-14-generic``, ``6.11.0-arch1-1``, ``6.8.5-301.fc40.x86_64``),
or a bare version that is no tabled DKMS base (``6.8.0``). A bare tabled base (``6.8.5``) is both a
DKMS base and a kernel release and stays the DKMS driver; ``6.12.12-2133686.22.04`` (``dkms status``:
a tabled base, a build number) is the DKMS driver too. AMD's matrix has no row for in-kernel drivers:
:mod:`rocm_kernel` judges them (an amdkfd without the GPU; WSL; a stated GPU that needs a recent
kernel on a stack naming no kernel driver: a risk), under this check's id, and so does
:mod:`rocm_pcie_atomics` (a stated GFX8 GPU, which amdkfd drives only on a host with PCIe atomics: a risk).
"""

from __future__ import annotations

import re

from packaging.version import Version

from pytest_rocmcompat.knowledge.checks import rocm_kernel, rocm_pcie_atomics
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.stack.amd_driver import driver_version
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.versions import coerce_version

ID = "rocm-driver-unsupported"
SOURCE = "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/reference/user-kernel-space-compat-matrix.html"
# The AMD GPU Driver 30.30 statement (amdgpu-docs compatibility matrix).
SOURCE_30 = "https://github.com/ROCm/amdgpu-docs/pull/97"
# AMD's DKMS packages, ``amdgpu-dkms 1:<kernel base>.<ROCm build>`` in repo.radeon.com/amdgpu/<ROCm>/
SOURCE_DKMS = "https://repo.radeon.com/amdgpu/"
# ROCm 7.0's DKMS driver is the AMD GPU Driver 30.10: kernel base 6.14.14, 8-digit field 30100000.
SOURCE_DKMS_30 = "https://repo.radeon.com/amdgpu/7.0/ubuntu/pool/main/a/amdgpu-dkms/amdgpu-dkms_6.14.14.30100000-2204008.24.04_all.deb"
SOURCE_DKMS_71 = "https://github.com/ROCm/legacy-rocm-build/issues/5624"
# What a runtime meets on a driver it does not support: no usable device, the HSA runtime's
# errors at initialisation or queue creation, faults and hangs the driver reports, and the HIP
# error codes of a missing or too old driver (hipGetErrorName, hipamd/src/hip_error.cpp:
# https://github.com/ROCm/clr/blob/0bf2a9834c56f4f1bb3641f5558045225b2c95bf/hipamd/src/hip_error.cpp).
# A bare crash ("Segmentation fault (core dumped)") or any HIP error ("HIP error: out of memory")
# names no driver: those stay failures, and so do "invalid device function" (code built for
# another arch: library-min-arch's) and any "rocBLAS error" (a missing Tensile library for the
# arch: rocblas-arch-not-in-release's). rocminfo's HSA failure ("hsa api call failure at ...
# Call returned 4104") as users quote it: https://github.com/ROCm/legacy-rocm-build/issues/415
# An amdkfd without the GPU (kgd2kfd_probe's "%s %s not supported in kfd", rocm_kernel.KFD_SOURCE).
PREDICTS = (
    r"No HIP GPUs are available|no ROCm-capable device|HSA_STATUS_ERROR\w*|hsa_init|hsa api call failure at"
    r"|/dev/kfd|ROCk module (?:version \S+ )?is NOT loaded|KFD|not supported in kfd|(?<!/opt/)amdgpu(?!\.ids)"
    r"|Memory access fault by GPU node-\d+|HW Exception by GPU node-\d+|GPU Hang|hipError(?:NoDevice|InsufficientDriver)\b|HIP_ERROR_NoDevice\b"
)

# KMD release -> (oldest, newest) ROCm user-space series it supports, and whether the newest is
# final (``True``: the +/- 2 window is complete; ``False``: later user spaces were not yet listed).
SUPPORTED: dict[str, tuple[str, str, bool]] = {
    "5.3": ("5.1", "5.5", True),
    "5.4": ("5.2", "5.6", True),
    "5.5": ("5.3", "5.7", True),
    "5.6": ("5.4", "6.0", True),
    "5.7": ("5.5", "6.1", True),
    "6.0": ("5.6", "6.2", True),
    "6.1": ("5.7", "6.4", True),
    "6.2": ("6.0", "7.0", False),
    "6.3": ("6.1", "7.0", False),
    "6.4": ("6.1", "7.0", False),
    "30.10": ("6.2", "7.0", False),
    "30.30": ("6.3", "7.2", False),
}
# The DKMS driver's kernel base -> the ROCm release it shipped with.
DKMS_BASE: dict[str, str] = {
    "5.16.9": "5.2",
    "5.18.2": "5.3",
    "5.18.13": "5.4",
    "6.0.5": "5.5",
    "6.1.5": "5.6",
    "6.2.4": "5.7",
    "6.3.6": "6.0",
    "6.7.0": "6.1",
    "6.8.5": "6.2",
    "6.10.5": "6.3",
    "6.12.12": "6.4",  # amdgpu-dkms_6.12.12.60400 ... 60404 (repo.radeon.com/amdgpu/6.4 ... 6.4.4)
    "6.14.14": "30.10",  # SOURCE_DKMS_30 (ROCm 7.0)
    # ROCm 7.1.1's: "amdgpu/6.16.6-2255209.24.04" in dkms status, "[drm] amdgpu version: 6.16.6" (SOURCE_DKMS_71);
    # the AMD GPU Driver 30.20, whose supported user spaces are not read here (SUPPORTED has no row: not judged,
    # but no longer taken for a Linux 6.16 kernel)
    "6.16.6": "30.20",
}
# ``dkms status``'s ``amdgpu/6.12.12-2133686.22.04``: the base, then AMD's build number (and distribution)
_DKMS_BUILD = re.compile(r"-\d{6,}(?:\.\d+)*$")
# A kernel release as ``uname -r`` (or amd-smi's banner) gives it: a dotted head, then anything
_KERNEL = re.compile(r"^(?:Linux\s*(?:version\s*)?)?(\d+\.\d+(?:\.\d+)?)(?:([-+_~]\S*))?$")


def kernel_release(driver: str | None) -> str | None:
    """The Linux release an in-kernel amdgpu's ``driver`` names (``"6.5.0"`` for ``6.5.0-14-generic``), or ``None``.

    ``None`` for AMD's drivers (a tabled DKMS base, bare or with ``dkms status``'s build number; a
    package version of four or more fields; the AMD GPU Driver's ``30.x``) and for anything else.
    """
    match = _KERNEL.match(driver_version(driver))
    if match is None:
        return None
    head, rest = match.group(1), match.group(2)
    major = int(head.split(".")[0])
    if not 3 <= major < 10:  # Linux 3.x-9.x (7.0 came in 2026); 22.40, 23.20: Radeon Software for Linux's numbering
        return None
    if head in DKMS_BASE and (rest is None or _DKMS_BUILD.fullmatch(rest)):
        return None  # AMD's DKMS driver (a bare tabled base stays it: it is both)
    return head


def kmd_release(driver: str | None) -> str | None:
    """The KMD release of the probed amdgpu version (``"6.2"`` for ``6.8.5``), or ``None``."""
    stated = driver_version(driver)
    if kernel_release(stated) is not None:
        return None  # the distribution's in-kernel driver: not in AMD's matrix
    v = coerce_version(stated)
    if v is None:
        return None
    parts = v.release
    if v.major >= 30:  # the AMD GPU Driver's own numbering
        return _listed(f"{parts[0]}.{parts[1] if len(parts) > 1 else 0}")
    if len(parts) >= 4 and 30_000_000 <= parts[-1] <= 99_999_999:  # 6.14.14.30100000: AMD GPU Driver 30.10.0
        return _listed(f"{parts[-1] // 1_000_000}.{parts[-1] // 10_000 % 100}")
    if len(parts) >= 4 and 10000 <= parts[-1] <= 99999:  # 6.8.5.60200: the ROCm build it came with
        build = parts[-1]
        return f"{build // 10000}.{build // 100 % 100}"
    release = DKMS_BASE.get(".".join(str(p) for p in parts[:3]))
    return _listed(release) if release is not None and release.startswith("30.") else release


def _listed(series: str) -> str | None:
    """An AMD GPU Driver series (``30.10``) where AMD's statement of its user spaces is tabled, else ``None``."""
    return series if series in SUPPORTED else None


def user_spaces(env: Environment) -> list[tuple[str, Version]]:
    """(what, series) of each ROCm user space the tests run on: torch's bundled one and the system's."""
    found: list[tuple[str, Version]] = []
    tagged = env.torch_rocm
    if tagged is not None and env.torch:
        found.append((f"torch {env.torch}", Version(f"{tagged.major}.{tagged.minor}")))
    system = coerce_version(env.rocm)
    if system is not None and all(s != Version(f"{system.major}.{system.minor}") for _, s in found):
        found.append((f"ROCm {env.rocm}", Version(f"{system.major}.{system.minor}")))
    return found


def check(env: Environment) -> list[Finding]:
    if env.platform != "rocm":
        return []
    return [*(in_kernel(env) or _matrix(env)), *rocm_pcie_atomics.findings(env, ID)]


def in_kernel(env: Environment) -> list[Finding]:
    """:mod:`rocm_kernel`'s findings: WSL, the recorded ``driver`` when it is a kernel release (AMD's DKMS
    driver: nothing; a kernel named only by ``os`` may run the DKMS driver), or, with no driver and no
    kernel named, the risk of a stated GPU whose compute depends on the kernel (``rocm_kernel.unstated``).
    """
    head = kernel_release(env.driver)
    return rocm_kernel.findings(env, ID, env.driver if head is not None else None, head)


def _matrix(env: Environment) -> list[Finding]:
    """AMD's user/kernel-space matrix for a DKMS driver."""
    if not env.driver:
        return []
    stated = driver_version(env.driver)  # the version as the reason shows it
    kmd = kmd_release(stated)
    if kmd is None or kmd not in SUPPORTED:
        return []
    low, high, final = SUPPORTED[kmd]
    oldest, newest = Version(low), Version(high)
    bad = [(what, s) for what, s in user_spaces(env) if s < oldest or (final and s > newest)]
    if not bad:
        return []
    shown = ", ".join(what if what.startswith("ROCm") else f"{what} (ROCm {s})" for what, s in bad)
    if not kmd.startswith("30."):
        driver = f"amdgpu {stated} (the ROCm {kmd} kernel driver)"
    elif stated.startswith("3"):
        driver = f"AMD GPU Driver {stated}"
    else:  # its DKMS package's kernel base (6.14.14) or package version
        driver = f"amdgpu {stated} (the AMD GPU Driver {kmd})"
    return [
        Finding(
            check=ID,
            reason=f"{shown} on {driver}, which supports ROCm {low}-{high}{'' if final else ' (and later, once listed)'} user space",
            fix="install the amdgpu driver of the ROCm release in use (amdgpu-install), or a torch/ROCm build "
            f"within ROCm {low}-{high}",
            link=SOURCE_30 if kmd.startswith("30.") else SOURCE,
            everything=True,  # every GPU test; its signature keeps an unrelated failure a failure
        )
    ]
