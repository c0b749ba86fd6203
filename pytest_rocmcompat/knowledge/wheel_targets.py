"""GPU code targets of the official torch wheels, per release and build tag, and per day for nightlies.

Used when the build's own ``torch.cuda.get_arch_list()`` is not known (a replay, or
``--rocm-set torch=2.7.0+cu124``). Every row names its source; docs/checks.md lists
them with how sure each one is. Where sources disagree a row keeps the *larger* set
(a missing target would claim "no kernels" falsely; an extra one only misses a problem).
A nightly (``2.10.0.dev20250929+rocm7.0``) gets the targets the build scripts had on its
build day when a :data:`NIGHTLY` row covers that day, else its release's row.
A release or tag not in the tables is unknown: no check is made from it.
"""

from __future__ import annotations

import re

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.versions import coerce_version, parse_version

_CU_OLD = "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90"
# Linux manywheels of torch 1.5-2.0 (pytorch/builder manywheel/build.sh, then build_cuda.sh).
_CU_PTX37 = "sm_37 sm_50 sm_60 sm_61 sm_70 compute_37"  # "3.7+PTX;5.0" + 6.0;6.1;7.0 (to 2020-07-09)
_CU_PTX37_75 = "sm_37 sm_50 sm_60 sm_61 sm_70 sm_75 compute_37"  # CUDA 10.x: + 7.5
_CU_KEPLER = "sm_37 sm_50 sm_60 sm_70"  # "3.7;5.0;6.0;7.0"
_CU110 = _CU_KEPLER + " sm_75 sm_80"
_CU11 = _CU_KEPLER + " sm_75 sm_80 sm_86"
_CU128_27 = "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 compute_120"
_CU128_28 = "sm_70 sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 compute_120"
_CU128_211 = "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120"
_CU128_EARLY = "sm_50 sm_60 " + _CU128_28
_CU130 = "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 compute_120"
_ROCM4 = "gfx900 gfx906 gfx908"
_ROCM3 = "gfx803 " + _ROCM4
_ROCM5_OLD = _ROCM4 + " gfx90a gfx1030"
_ROCM5 = _ROCM5_OLD + " gfx1100"
_ROCM60 = _ROCM5 + " gfx942"
_ROCM_1101 = _ROCM60 + " gfx1101"
_ROCM_1102 = _ROCM_1101 + " gfx1102"
_ROCM63 = _ROCM_1102 + " gfx1200 gfx1201"
_ROCM64 = _ROCM63 + " gfx950"
_ROCM7 = _ROCM64 + " gfx1150 gfx1151"
_ROCM_1103 = _ROCM7 + " gfx1103"

_PR = "https://github.com/pytorch/pytorch/pull/"
_S_MOI90 = "https://github.com/moi90/pytorch_compute_capabilities"
_S_SM120 = "https://github.com/pytorch/pytorch/issues/150733"
_S_158700, _S_145792 = _PR + "158700", _PR + "145792"
_S_CU130 = "https://github.com/pytorch/pytorch/issues/172352"
_S_BUILDER_20 = "https://github.com/pytorch/builder/blob/release/2.0/manywheel/build_docker.sh"
_S_1407 = "https://github.com/pytorch/builder/pull/1407"
_S_1647 = "https://github.com/pytorch/builder/pull/1647"
_S_UV = "https://github.com/astral-sh/uv/issues/14086"
_S_UV_72 = "https://github.com/astral-sh/uv/pull/18730"
_S_141667, _S_147761, _S_148562 = _PR + "141667", _PR + "147761", _PR + "148562"
_S_167299, _S_179653 = _PR + "167299", _PR + "179653"
_S_CI_ROCM = "https://github.com/pytorch/pytorch/blob/main/.ci/docker/manywheel/build.sh"
_S_182250 = "https://github.com/pytorch/pytorch/issues/182250"
_B = "https://github.com/pytorch/builder/blob/"
_S_B15 = _B + "30850f425c45cb3050570a77e9bfdd321b237083/manywheel/build.sh"  # 2020-04-21 (1.5.0)
_S_B465 = "https://github.com/pytorch/builder/pull/465"  # 2020-07-09, before 1.6.0: the larger set kept
_S_B17 = _B + "c286aade3d1d8f9448d8d6a30d0da1eb1281f4fa/manywheel/build.sh"  # 2020-10-27 (1.7.0)
_S_B18 = _B + "lts/release/1.8/manywheel/build.sh"
_S_B110 = _B + "release/1.10/manywheel/build.sh"
_S_B112 = _B + "release/1.12/manywheel/build_cuda.sh"
_S_B113 = _B + "release/1.13/manywheel/build_cuda.sh"
_S_B20_CUDA = _B + "release/2.0/manywheel/build_cuda.sh"
_S_B17_ROCM = _B + "24274a90b59258ec16c264615b30ae2f4597f49c/manywheel/build_rocm.sh"  # 2020-12-10 (1.7.1)
_S_53738 = "https://github.com/pytorch/pytorch/issues/53738"
_S_B111_ROCM = _B + "release/1.11/manywheel/build_docker.sh"
_S_B112_ROCM = _B + "release/1.12/manywheel/build_docker.sh"

# (build tag prefix, torch releases, targets, source)
TABLE: tuple[tuple[str, str, str, str], ...] = (
    ("cu92", ">=1.5,<1.6", _CU_PTX37, _S_B15),
    ("cu101", ">=1.5,<1.6", _CU_PTX37_75, _S_B15),
    # CUDA 10.2 (PyPI's default wheel of 1.5-1.7) takes build.sh's same "10.*" branch as 10.1
    ("cu102", ">=1.5,<1.6", _CU_PTX37_75, _S_B15),
    ("cu92", ">=1.6,<1.7", _CU_PTX37, _S_B465),
    ("cu101", ">=1.6,<1.7", _CU_PTX37_75, _S_B465),
    ("cu102", ">=1.6,<1.7", _CU_PTX37_75, _S_B465),
    ("cu92", ">=1.7,<1.8", _CU_KEPLER, _S_B17),
    ("cu101", ">=1.7,<1.8", _CU_KEPLER + " sm_75", _S_B17),
    ("cu102", ">=1.7,<1.8", _CU_KEPLER + " sm_75", _S_B17),
    ("cu110", ">=1.7,<1.8", _CU110, _S_B17),
    ("cu101", ">=1.8,<1.9", _CU_KEPLER, _S_B18),
    ("cu102", ">=1.8,<1.9", _CU_KEPLER, _S_B18),
    ("cu111", ">=1.8,<1.9", _CU11, _S_B18),
    ("cu102", ">=1.9,<1.11", _CU_KEPLER, _S_B110),
    ("cu111", ">=1.9,<1.11", _CU11, _S_B110),
    ("cu113", ">=1.10,<1.11", _CU11, _S_B110),
    ("cu102", ">=1.11,<1.13", _CU_KEPLER, _S_B112),
    ("cu113", ">=1.11,<1.13", _CU11, _S_B112),
    ("cu115", ">=1.11,<1.12", _CU11, _S_B112),
    ("cu116", ">=1.12,<1.13", _CU11, _S_B112),
    ("cu116", ">=1.13,<1.14", _CU11, _S_B113),
    ("cu117", ">=1.13,<1.14", _CU11, _S_B113),
    ("cu117", ">=2.0,<2.1", _CU11, _S_B20_CUDA),
    ("cu118", ">=2.0,<2.8", "sm_37 " + _CU_OLD, _S_MOI90),
    ("cu121", ">=2.1,<2.6", _CU_OLD, _S_SM120),
    ("cu124", ">=2.4,<2.7", _CU_OLD, _S_SM120),
    ("cu126", ">=2.6,<2.11", _CU_OLD, _S_MOI90),
    ("cu126", ">=2.11,<2.12", _CU_OLD, _S_182250),
    ("cu128", ">=2.7,<2.8", _CU128_27, _S_MOI90),
    ("cu128", ">=2.8,<2.11", _CU128_28, _S_158700),
    ("cu128", ">=2.11,<2.12", _CU128_211, _S_182250),
    ("cu129", ">=2.8,<2.9", _CU128_28, _S_158700),  # 2.9 shipped cu126/cu128/cu130 (test-infra release/2.10)
    ("cu130", ">=2.9,<2.12", _CU130, _S_CU130),
    ("rocm3.7", ">=1.7,<1.8", _ROCM3, _S_B17_ROCM),
    ("rocm3.8", ">=1.7,<1.8", _ROCM3, _S_B17_ROCM),
    ("rocm3.10", ">=1.8,<1.9", _ROCM4, _S_53738),
    ("rocm4.0", ">=1.8,<1.11", _ROCM4, _S_53738),
    ("rocm4.1", ">=1.9,<1.11", _ROCM4, _S_53738),
    ("rocm4.2", ">=1.9,<1.11", _ROCM4, _S_53738),
    ("rocm4.3", ">=1.11,<1.12", _ROCM5_OLD, _S_B111_ROCM),
    ("rocm4.5", ">=1.11,<1.12", _ROCM5_OLD, _S_B111_ROCM),
    ("rocm5", ">=1.12,<1.13", _ROCM5_OLD, _S_B112_ROCM),
    ("rocm5", ">=1.13,<2.1", _ROCM5_OLD, _S_BUILDER_20),
    ("rocm5", ">=2.1,<2.4", _ROCM5, _S_1407),
    ("rocm6.0", ">=2.2,<2.5", _ROCM60, _S_1647),
    ("rocm6.1", ">=2.3,<2.6", _ROCM60, _S_1647),
    ("rocm6.1", ">=2.6,<2.7", _ROCM_1101, _S_141667),
    ("rocm6.2", ">=2.5,<2.6", _ROCM60, _S_UV),
    ("rocm6.2", ">=2.6,<2.7", _ROCM_1101, _S_141667),
    ("rocm6.2", ">=2.7,<2.8", _ROCM63, _S_UV),
    ("rocm6.3", ">=2.7,<2.10", _ROCM63, _S_148562),
    ("rocm6.4", ">=2.8,<2.11", _ROCM64, _S_CI_ROCM),
    ("rocm7.0", ">=2.9,<2.10", _ROCM64, _S_CI_ROCM),
    ("rocm7", ">=2.10,<2.12", _ROCM7, _S_UV_72),
)

# (build tag prefix, first build day, day of the next change (excluded) or None, targets, source).
# The day is the nightly's .devYYYYMMDD; a change counts from its PR's merge day (the larger set).
NIGHTLY: tuple[tuple[str, int, int | None, str, str], ...] = (
    ("cu128", 20250127, 20250306, _CU128_EARLY, _S_145792),
    ("rocm5", 20000101, 20230523, _ROCM5_OLD, _S_1407),
    ("rocm5", 20230523, None, _ROCM5, _S_1407),
    ("rocm6", 20000101, 20241204, _ROCM60, _S_1647),
    ("rocm", 20241204, 20250224, _ROCM_1101, _S_141667),
    ("rocm", 20250224, 20250305, _ROCM_1102, _S_147761),
    ("rocm6.4", 20250305, 20251107, _ROCM64, _S_CI_ROCM),
    ("rocm6", 20250305, 20251107, _ROCM63, _S_148562),
    ("rocm7", 20250305, 20251107, _ROCM7, _S_167299),
    ("rocm", 20251107, 20260408, _ROCM7, _S_167299),
    ("rocm", 20260408, 20260911, _ROCM_1103, _S_179653),
)
_THEROCK = re.compile(r"rocm\d+(?:\.\d+)*a\d+")  # AMD's per-family builds, e.g. rocm7.13.0a20260318
_PARSED: list[tuple[str, SpecifierSet, tuple[str, ...], str]] = []  # filled on first use


def official_targets(torch: str | None) -> tuple[tuple[str, ...], str] | None:
    """``("2.7.0+cu124")`` -> (targets, "table: SOURCE"), or ``None`` when not known."""
    version = coerce_version(torch)
    if version is None or not version.local:
        return None
    local = version.local.replace("_", ".")
    if _THEROCK.fullmatch(local):
        return None
    day = build_day(version)
    if day is not None:
        for tag, first, until, targets, source in NIGHTLY:
            if _tag_matches(local, tag) and first <= day and (until is None or day < until):
                return tuple(targets.split()), f"table: {source}"
    if not _PARSED:
        _PARSED.extend(
            (tag, SpecifierSet(spec), tuple(targets.split()), source) for tag, spec, targets, source in TABLE
        )
    release = coerce_version(version.base_version)
    for tag, spec, parsed, source in _PARSED:
        if _tag_matches(local, tag) and release is not None and spec.contains(release, prereleases=True):
            return parsed, f"table: {source}"
    return None


def build_day(version: Version) -> int | None:
    """``2.10.0.dev20250929`` -> 20250929; ``None`` for a release or an undated dev number."""
    dev = version.dev
    return dev if dev is not None and 20000101 <= dev <= 29991231 else None


def _tag_matches(local: str, tag: str) -> bool:
    """``rocm6.2.4`` matches ``rocm6.2``, ``rocm6`` and ``rocm``; ``cu124`` matches ``cu124`` only."""
    if tag.startswith("cu"):
        return local == tag
    if tag == "rocm":
        return local[4:5].isdigit() and local.startswith(tag)
    return local == tag or local.startswith(tag + ".")


# Newest SM each CUDA toolkit can compile for (CUDA Toolkit release notes; nvcc --list-gpu-arch).
TOOLKIT_CEILING: tuple[tuple[str, int], ...] = (
    ("11.0", 80),
    ("11.1", 86),
    ("11.8", 90),
    ("12.8", 120),
    ("12.9", 121),
)
TOOLKIT_SOURCE = "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html"


def toolkit_ceiling(cuda: str | None) -> int | None:
    """``"12.4"`` -> 90: no build made with that toolkit has code for a newer SM (``None``: unknown)."""
    version = coerce_version(cuda)
    if version is None:
        return None
    found = None
    for first, sm in TOOLKIT_CEILING:
        if version >= parse_version(first):
            found = sm
    return found if version < parse_version("13.1") else None


def build_targets(env: Environment) -> tuple[tuple[str, ...] | None, str]:
    """GPU code targets of ``env``'s torch build and where they come from.

    The probed ``torch_archs`` when known, else the official wheels' targets for this release and
    build tag (:func:`official_targets`), else ``(None, "unknown")``.
    """
    if env.torch_archs:
        return env.torch_archs, "probed" if env.source == "live" else "recorded"
    found = official_targets(env.torch)
    return (None, "unknown") if found is None else found


def ever_official(vendor: str) -> tuple[str, ...]:
    """Every target any official torch wheel of ``vendor`` (``"nvidia"``/``"amd"``) carried, release or nightly,
    from torch :data:`OLDEST_CANDIDATE` on (the builds :func:`release_rows` offers a stack that states no release).

    For a stack that names no torch: an arch outside this set has no official build at all.
    """
    rows = [targets for _, _, targets, _ in release_rows(vendor)]
    prefix = "cu" if vendor == "nvidia" else "rocm"
    rows += [targets for tag, _, _, targets, _ in NIGHTLY if tag.startswith(prefix)]
    return tuple(dict.fromkeys(t for targets in rows for t in targets.split()))


def stated_build_series(env: Environment, vendor: str) -> str | None:
    """The build tag series of the stack's stated ROCm/CUDA release (``"rocm6.1"``, ``"cu121"``), if any."""
    version = coerce_version(env.rocm if vendor == "amd" else env.cuda)
    if version is None:
        return None
    return f"rocm{version.major}.{version.minor}" if vendor == "amd" else f"cu{version.major}{version.minor}"


# The oldest torch release whose builds are candidates for a stack that names neither torch nor its
# ROCm/CUDA release (the first that python_range tables); older builds only for their own release.
OLDEST_CANDIDATE = Version("1.13")


def release_rows(vendor: str, series: str | None = None) -> list[tuple[str, str, str, str]]:
    """:data:`TABLE`'s release builds of ``vendor``; with ``series``, those made for that release
    (``"rocm6.1"`` takes the ``rocm6.1`` rows and the ``rocm6`` ones, were there any), else those
    of torch :data:`OLDEST_CANDIDATE` and later.
    """
    prefix = "cu" if vendor == "nvidia" else "rocm"
    rows = [row for row in TABLE if row[0].startswith(prefix)]
    if series is None:
        return [row for row in rows if not _ends_before(row[1], OLDEST_CANDIDATE)]
    return [row for row in rows if series.startswith(row[0])]


def _ends_before(spec: str, release: Version) -> bool:
    """Whether ``spec`` (``">=1.8,<1.11"``) admits no torch of ``release`` or later."""
    return any(s.operator == "<" and Version(s.version) <= release for s in SpecifierSet(spec))


EVER_OFFICIAL_SOURCE = "docs/checks.md, 'Official wheel targets' (every row of knowledge/wheel_targets.py)"
