"""``rocm-sdk-family-lacks-arch``: TheRock's pip ROCm was installed for another GPU family.

AMD's TheRock distributes ROCm as Python packages: ``rocm-sdk-core`` (the runtime) and, per GPU
family, ``rocm-sdk-libraries-{family}`` / ``rocm-sdk-device-{family}`` (rocBLAS, hipBLASLt, MIOpen,
... with kernels for that family's targets only; torch's own per-target code in the multi-arch
packages ``amd-torch-device-{gfx}``, ``amd-torchvision-device-{gfx}``), served from one index per family
(``rocm.nightlies.amd.com/v2/gfx110X-dgpu/``, with torch built for the same targets). A stack whose
family packages name no family holding its GPU has no kernels for it: the first BLAS, convolution
or torch kernel fails as on any build without the arch. The families and their targets are
TheRock's ``cmake/therock_amdgpu_targets.cmake`` (``therock_add_amdgpu_target(... FAMILY ...)``;
every target is also a family of its own name); the package names are ``rocm_sdk/_dist_info.py``'s
``PackageEntry`` rows. A family this table does not know, or a GPU of unknown arch, is no finding;
``HSA_OVERRIDE_GFX_VERSION`` is honoured (the runtime then loads the override's kernels).
"""

from __future__ import annotations

import re

from pytest_rocmcompat.knowledge.checks import arch, rocm_targets
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import replay_names
from pytest_rocmcompat.stack.versions import optional_version

ID = "rocm-sdk-family-lacks-arch"
_COMMIT = "89553ce3746eda74ade42557470d25e37c91b6f0"
SOURCE = f"https://github.com/ROCm/TheRock/blob/{_COMMIT}/cmake/therock_amdgpu_targets.cmake"
SOURCE_PACKAGES = f"https://github.com/ROCm/TheRock/blob/{_COMMIT}/build_tools/packaging/python/templates/rocm/src/rocm_sdk/_dist_info.py"
# What a build without the GPU's kernels prints (arch-not-in-build's messages: no GPU crash such as a
# memory fault), and the multi-arch packages' missing device code object (hipErrorInvalidImage,
# "device kernel image is invalid" as torch names it: ROCm/TheRock#7839, #6869).
PREDICTS = arch.PREDICTS + r"|hipErrorInvalidImage|device kernel image is invalid"

_DGPU_103 = ("gfx1030", "gfx1031", "gfx1032", "gfx1034")
_IGPU_103 = ("gfx1033", "gfx1035", "gfx1036")
_GFX115 = ("gfx1150", "gfx1151", "gfx1152", "gfx1153")
# family (lower case, as pip normalises the package name) -> gfx targets, at commit _COMMIT
FAMILIES: dict[str, tuple[str, ...]] = {
    "dgpu-all": (
        "gfx900",
        "gfx906",
        "gfx1010",
        "gfx1011",
        "gfx1012",
        *_DGPU_103,
        "gfx1100",
        "gfx1101",
        "gfx1102",
        "gfx1200",
        "gfx1201",
    ),
    "igpu-all": ("gfx90c", *_IGPU_103, "gfx1103", *_GFX115),
    "dcgpu-all": ("gfx908", "gfx90a", "gfx942", "gfx950", "gfx1250"),
    "gfx900-dgpu": ("gfx900",),
    "gfx90c-igpu": ("gfx90c",),
    "gfx906-dgpu": ("gfx906",),
    "gfx908-dcgpu": ("gfx908",),
    "gfx90a-dcgpu": ("gfx90a",),
    "gfx94x-all": ("gfx942",),
    "gfx94x-dcgpu": ("gfx942",),
    "gfx950-all": ("gfx950",),
    "gfx950-dcgpu": ("gfx950",),
    "gfx101x-all": ("gfx1010", "gfx1011", "gfx1012"),
    "gfx101x-dgpu": ("gfx1010", "gfx1011", "gfx1012"),
    "gfx103x-all": (*_DGPU_103, *_IGPU_103),
    "gfx103x-dgpu": _DGPU_103,
    "gfx103x-igpu": _IGPU_103,
    "gfx110x-all": ("gfx1100", "gfx1101", "gfx1102", "gfx1103"),
    "gfx110x-dgpu": ("gfx1100", "gfx1101", "gfx1102"),
    "gfx110x-igpu": ("gfx1103",),
    "gfx115x-all": _GFX115,
    "gfx115x-igpu": _GFX115,
    "gfx120x-all": ("gfx1200", "gfx1201"),
    "gfx125x-all": ("gfx1250",),
    "gfx125x-dcgpu": ("gfx1250",),
}
_PACKAGE = re.compile(r"^(?:rocm-sdk-(?:libraries|device)|amd-torch(?:vision|audio)?-device)-(.+)$")


def families(env: Environment) -> tuple[str, ...]:
    """The GPU families the stack's TheRock packages were installed for (``gfx110x-dgpu``); in a
    ``--rocm-set`` replay, only the packages it named (the others are the machine's).
    """
    named = replay_names(env)
    found = (_PACKAGE.match(name) for name in env.libraries if not named or name in named)
    return tuple(sorted({m.group(1).lower() for m in found if m is not None}))


def _loads_them(env: Environment) -> bool:
    """Whether torch runs on these packages: no torch named, TheRock's multi-arch device packages, or a
    ROCm torch whose label names the release of a family package (``2.7.1+rocm7.9.0rc20251008`` beside
    ``rocm-sdk-libraries-…==7.9.0rc20251008``). A pytorch.org ``+rocm6.2`` wheel brings its own libraries.
    """
    if env.torch is None or any(n.startswith("amd-torch-device-") for n in env.libraries):
        return True
    label = env.torch_local or ""
    if not label.startswith("rocm"):
        return False
    release = optional_version(label[4:])
    if release is None:
        return False
    return any(
        optional_version(v) == release for n, v in env.libraries.items() if _PACKAGE.match(n) or n == "rocm-sdk-core"
    )


def _targets(family: str) -> tuple[str, ...] | None:
    if family in FAMILIES:
        return FAMILIES[family]
    if re.fullmatch(r"gfx[0-9a-f]+", family):  # every target is a family of its own name
        return (family,)
    return None


def check(env: Environment) -> list[Finding]:
    if env.platform not in ("rocm", "cpu"):
        return []
    installed = families(env)
    if not installed or not env.archs or not _loads_them(env):
        return []
    served: set[str] = set()
    for family in installed:
        targets = _targets(family)
        if targets is None:
            return []  # a family this table does not know may hold the GPU
        served.update(targets)
    missing = list(
        dict.fromkeys(
            gpu.arch for gpu in rocm_targets.effective_archs(env) if rocm_targets.base(gpu.effective) not in served
        )
    )
    if not missing or not all(a.startswith("gfx") for a in missing):
        return []
    names = ", ".join(f"…-{f}" for f in installed)
    return [
        Finding(
            check=ID,
            reason=f"{', '.join(missing)} is not among the GPU targets of the installed TheRock family "
            f"packages ({names}: {', '.join(sorted(served))})",
            fix="install ROCm and torch from the TheRock index of the GPU's family "
            "(e.g. rocm.nightlies.amd.com/v2/<family>/), or a multi-arch build that includes it",
            link=SOURCE,
            markers=("gpus",),
            nodeids=arch.GPU_SUITE,
        )
    ]
