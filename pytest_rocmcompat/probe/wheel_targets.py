"""GPU code targets of the official torch wheels, per release and build tag.

Used when the build's own ``torch.cuda.get_arch_list()`` is not known (a replay, or
``--rocm-set torch=2.7.0+cu124``). Every row names its source; docs/checks.md lists
them with how sure each one is. Where sources disagree a row keeps the *larger* set
(a missing target would claim "no kernels" falsely; an extra one only misses a problem).
A release or tag not in the table is unknown: no check is made from it.
"""

from __future__ import annotations

from packaging.specifiers import SpecifierSet

from ..versions import coerce_version

_CU_OLD = "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90"
_CU128_27 = "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 compute_120"
_CU128_28 = "sm_70 sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 compute_120"
_CU130 = "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120"
_ROCM5 = "gfx900 gfx906 gfx908 gfx90a gfx1030 gfx1100"
_ROCM60 = _ROCM5 + " gfx942"
_ROCM62 = _ROCM60 + " gfx1101 gfx1102"
_ROCM63 = _ROCM62 + " gfx1200 gfx1201"
_ROCM64 = _ROCM63 + " gfx950"
_ROCM7_LATER = _ROCM64 + " gfx1103 gfx1150 gfx1151"

_S_MOI90 = "https://github.com/moi90/pytorch_compute_capabilities"
_S_SM120 = "https://github.com/pytorch/pytorch/issues/150733"
_S_158700 = "https://github.com/pytorch/pytorch/pull/158700"
_S_H100 = "recorded: tests/data/env_h100_archs.json (torch 2.11.0+cu130 on an H100)"
_S_BUILDER = "https://github.com/pytorch/builder/blob/main/manywheel/build_docker.sh"
_S_CI_ROCM = "https://github.com/pytorch/pytorch/blob/main/.ci/docker/manywheel/build.sh"

# (build tag prefix, torch releases, targets, source)
TABLE: tuple[tuple[str, str, str, str], ...] = (
    ("cu118", ">=2.0,<2.8", "sm_37 " + _CU_OLD, _S_MOI90),
    ("cu121", ">=2.1,<2.6", _CU_OLD, _S_SM120),
    ("cu124", ">=2.4,<2.7", _CU_OLD, _S_SM120),
    ("cu126", ">=2.6,<2.11", _CU_OLD, _S_MOI90),
    ("cu128", ">=2.7,<2.8", _CU128_27, _S_MOI90),
    ("cu128", ">=2.8,<2.11", _CU128_28, _S_158700),
    ("cu129", ">=2.8,<2.10", _CU128_28, _S_158700),
    ("cu130", ">=2.9,<2.12", _CU130, _S_H100),
    ("rocm5", ">=1.13,<2.4", _ROCM5, _S_BUILDER),
    ("rocm6.0", ">=2.2,<2.5", _ROCM60, _S_BUILDER),
    ("rocm6.1", ">=2.3,<2.6", _ROCM60, _S_BUILDER),
    ("rocm6.2", ">=2.5,<2.8", _ROCM62, _S_CI_ROCM),
    ("rocm6.3", ">=2.7,<2.9", _ROCM63, _S_CI_ROCM),
    ("rocm6.4", ">=2.8,<2.11", _ROCM64, _S_CI_ROCM),
    ("rocm7.0", ">=2.9,<2.10", _ROCM64, _S_CI_ROCM),
    ("rocm7", ">=2.10,<2.12", _ROCM7_LATER, _S_CI_ROCM),
)
_PARSED: list[tuple[str, SpecifierSet, tuple[str, ...], str]] = []  # filled on first use


def official_targets(torch: str | None) -> tuple[tuple[str, ...], str] | None:
    """``("2.7.0+cu124")`` -> (targets, "table: SOURCE"), or ``None`` when not known."""
    version = coerce_version(torch)
    if version is None or not version.local:
        return None
    if not _PARSED:
        _PARSED.extend((tag, SpecifierSet(spec), tuple(targets.split()), source)
                       for tag, spec, targets, source in TABLE)
    local = version.local.replace("_", ".")
    release = coerce_version(version.base_version)
    for tag, spec, targets, source in _PARSED:
        if _tag_matches(local, tag) and release is not None and spec.contains(release, prereleases=True):
            return targets, f"table: {source}"
    return None


def _tag_matches(local: str, tag: str) -> bool:
    """``rocm6.2.4`` matches ``rocm6.2`` and ``rocm6``; ``cu124`` matches ``cu124`` only."""
    if tag.startswith("cu"):
        return local == tag
    return local == tag or local.startswith(tag + ".")


# Newest SM each CUDA toolkit can compile for (CUDA Toolkit release notes; nvcc --list-gpu-arch).
TOOLKIT_CEILING: tuple[tuple[str, int], ...] = (
    ("11.0", 80), ("11.1", 86), ("11.8", 90), ("12.8", 120), ("12.9", 121),
)
TOOLKIT_SOURCE = "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html"


def toolkit_ceiling(cuda: str | None) -> int | None:
    """``"12.4"`` -> 90: no build made with that toolkit has code for a newer SM (``None``: unknown)."""
    version = coerce_version(cuda)
    if version is None:
        return None
    found = None
    for first, sm in TOOLKIT_CEILING:
        if version >= coerce_version(first):
            found = sm
    return found if version < coerce_version("13.1") else None
