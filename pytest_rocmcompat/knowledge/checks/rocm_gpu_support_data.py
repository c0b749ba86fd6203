"""Per ROCm release: AMD's Linux GPU table and the GPUs its HIP runtime knows. Pure data.

``LISTED``: AMD's *Supported GPUs* table of each release (Instinct, Radeon PRO, Radeon tabs),
as LLVM targets by status. ``supported`` (✅), ``deprecated`` (⚠️: "Support will be removed in a
future release"; 6.1+ "limited support ... no new features"), ``unsupported`` (❌: 5.6-6.0 "This
configuration is not enabled in our software distributions"; 6.1+ "The HIP runtime might continue
to run applications for an unsupported GPU, but prebuilt ROCm libraries are not officially
supported and will cause runtime errors"). A target in several rows with different statuses
(6.0.0: MI50 ⚠️, Radeon VII ✅) takes the best. A GPU the table does not name is "not officially
supported" and nothing more: RX 7800/7600, RDNA1, RX 6700 run on many of these releases.
5.0-5.5 published their table outside the ROCm repository (docs.amd.com, gone): not recorded.

``RUNTIME``: the processors in the HIP runtime's ISA table (``amd::Isa::supportedIsas()``,
``device/device.cpp`` of ROCclr for 5.0-5.5, ``rocclr/device/device.cpp`` of ROCm/clr from
5.6) at each release tag. A GPU whose ISA is not there is dropped when the runtime enumerates
devices (``device/rocm/rocdevice.cpp``: ``Unsupported HSA device %s (PCI ID %x) for ISA %s``,
then ``continue``): HIP sees no device. Releases after 6.2 moved the runtime to other
repositories and are not recorded.
"""

from __future__ import annotations

from typing import NamedTuple


class Listed(NamedTuple):
    """One release's AMD GPU table (LLVM targets by status) and where it is."""

    supported: frozenset[str]
    deprecated: frozenset[str]
    unsupported: frozenset[str]
    source: str


_ROCM_DOC = "https://github.com/ROCm/ROCm/blob/rocm-{}/docs/release/gpu_os_support.md"
_INSTALL_DOC = "https://github.com/ROCm/rocm-install-on-linux/blob/docs/{}/docs/reference/system-requirements.rst"
# ROCm 6.3.0: the compatibility matrix lists gfx1100 gfx1030 gfx942 gfx90a gfx908, and RELEASE.md
# says "Hardware support remains unchanged in this release" (so 6.2's ⚠️ gfx906 and ❌ gfx900 stand).
SOURCE_63 = "https://github.com/ROCm/ROCm/blob/rocm-6.3.0/RELEASE.md"


def _listed(supported: str, deprecated: str, unsupported: str, source: str) -> Listed:
    return Listed(frozenset(supported.split()), frozenset(deprecated.split()), frozenset(unsupported.split()), source)


# 5.6/5.7: MI250X/MI250/MI210 gfx90a, MI100 gfx908, MI50 + Radeon (Pro) VII gfx906, W6800/V620
# gfx1030 ✅; MI25 gfx900 ❌ (5.7.1 reads the same).
_5X = "gfx90a gfx908 gfx906 gfx1030"
# 6.0.0: MI300X/A gfx942, W7900/RX 7900 XT(X) gfx1100 ✅ added; Radeon VII gfx906 still ✅ (MI50 ⚠️).
# 6.0.2-6.2.4: gfx906 ⚠️ on every row (each point release's branch reads the same).
_6X = "gfx942 gfx90a gfx908 gfx1100 gfx1030"
LISTED: dict[str, Listed] = {
    "5.6": _listed(_5X, "", "gfx900", _ROCM_DOC.format("5.6.0")),
    "5.7": _listed(_5X, "", "gfx900", _ROCM_DOC.format("5.7.0")),
    "6.0": _listed(_6X + " gfx906", "", "gfx900", _INSTALL_DOC.format("6.0.0")),
    "6.1": _listed(_6X, "gfx906", "gfx900", _INSTALL_DOC.format("6.1.0")),
    "6.2": _listed(_6X, "gfx906", "gfx900", _INSTALL_DOC.format("6.2.0")),
    "6.3": _listed(_6X, "gfx906", "gfx900", SOURCE_63),
}

_ROCCLR = "https://github.com/ROCm/ROCclr/blob/rocm-{}/device/device.cpp"
_CLR = "https://github.com/ROCm/clr/blob/rocm-{}/rocclr/device/device.cpp"
_GFX7_8 = "gfx700 gfx701 gfx702 gfx703 gfx704 gfx705 gfx801 gfx802 gfx803 gfx805 gfx810"
_GFX9 = "gfx900 gfx902 gfx904 gfx906 gfx908 gfx90a gfx90c"
_GFX10 = "gfx1010 gfx1011 gfx1012 gfx1013 gfx1030 gfx1031 gfx1032 gfx1033 gfx1034 gfx1035"
_R50 = f"{_GFX7_8} {_GFX9} {_GFX10}"  # 5.0.0 has no gfx909 row
_R51 = f"{_R50} gfx909"
_R53 = f"{_R51} gfx1100 gfx1102"
_R54 = f"{_R53} gfx1036 gfx1101 gfx1103"
_R57 = f"{_R54} gfx940 gfx941 gfx942"
_R60 = f"{_R57} gfx1150 gfx1151"
_R62 = f"{_R60} gfx1200 gfx1201"
# ROCm release series -> (processors its HIP runtime enumerates, source at the release tag)
RUNTIME: dict[str, tuple[frozenset[str], str]] = {
    "5.0": (frozenset(_R50.split()), _ROCCLR.format("5.0.0")),
    "5.1": (frozenset(_R51.split()), _ROCCLR.format("5.1.0")),
    "5.2": (frozenset(_R51.split()), _ROCCLR.format("5.2.0")),
    "5.3": (frozenset(_R53.split()), _ROCCLR.format("5.3.0")),
    "5.4": (frozenset(_R54.split()), _ROCCLR.format("5.4.0")),
    "5.5": (frozenset(_R54.split()), _ROCCLR.format("5.5.0")),
    "5.6": (frozenset(_R54.split()), _CLR.format("5.6.0")),
    "5.7": (frozenset(_R57.split()), _CLR.format("5.7.0")),
    "6.0": (frozenset(_R60.split()), _CLR.format("6.0.0")),
    "6.1": (frozenset(_R60.split()), _CLR.format("6.1.0")),
    "6.2": (frozenset(_R62.split()), _CLR.format("6.2.0")),
}


def runtime_drops(release: str, arch: str) -> bool:
    """Whether the HIP runtime of ``release`` has no entry for the processor ``arch`` (it enumerates no such
    device); ``False`` for a release not recorded.
    """
    return release in RUNTIME and arch not in RUNTIME[release][0]
