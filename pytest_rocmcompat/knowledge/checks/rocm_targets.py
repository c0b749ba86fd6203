"""Whether a ROCm build's gfx targets serve a GPU: feature suffixes, generic targets, overrides.

Sources: LLVM "User Guide for AMDGPU Backend", processor table and "Generic processor
code objects" (https://llvm.org/docs/AMDGPUUsage.html); ROCm's ``HSA_OVERRIDE_GFX_VERSION``
makes the runtime report (and load code for) the given ``major.minor.stepping``; for GPU ``i``,
``HSA_OVERRIDE_GFX_VERSION_<i + 1>`` (its KFD node on a host with one CPU node) comes first
(libhsakmt ``topology.c``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from packaging.version import Version

from pytest_rocmcompat.stack.environment import GPU, Environment
from pytest_rocmcompat.stack.versions import coerce_version
from pytest_rocmcompat.stack.visibility import narrowed

SOURCE = "https://llvm.org/docs/AMDGPUUsage.html#amdgpu-generic-processor-table"
GENERIC_MEMBERS: dict[str, frozenset[str]] = {
    "gfx9-generic": frozenset({"gfx900", "gfx902", "gfx904", "gfx906", "gfx909", "gfx90c"}),
    "gfx9-4-generic": frozenset({"gfx940", "gfx941", "gfx942", "gfx950"}),
    "gfx10-1-generic": frozenset({"gfx1010", "gfx1011", "gfx1012", "gfx1013"}),
    "gfx10-3-generic": frozenset({f"gfx103{i}" for i in range(7)}),
    "gfx11-generic": frozenset(
        {"gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153"}
    ),
    "gfx12-generic": frozenset({"gfx1200", "gfx1201"}),
}
OVERRIDE_VARIABLE = "HSA_OVERRIDE_GFX_VERSION"
_OVERRIDE = re.compile(r"^\s*(\d+)\.(\d+)\.(\d+)\s*$")

# Triton's HIP launcher quoting the error by number, 209 being hipErrorNoBinaryForGpu (hip_runtime_api.h;
# "Triton test failed: Triton Error [HIP]: Code: 209" under ZLUDA: https://github.com/patientx/ComfyUI-Zluda/issues/263)
TRITON_HIP_NO_BINARY = r"Triton Error \[HIP\]:\s+Code: 209\b"


def base(target: str) -> str:
    """``"gfx90a:sramecc+:xnack-"`` -> ``"gfx90a"``."""
    return target.strip().lower().split(":", 1)[0]


def overridden_arch(value: str | None) -> str | None:
    """``HSA_OVERRIDE_GFX_VERSION=10.3.0`` -> ``"gfx1030"``; ``9.0.10`` -> ``"gfx90a"``."""
    if not value:
        return None
    m = _OVERRIDE.match(value)
    if m is None:
        return None
    major, minor, stepping = (int(g) for g in m.groups())
    return f"gfx{major}{minor}{stepping:x}"


def override_setting(env: Environment, gpu: GPU) -> tuple[str, str] | None:
    """(variable, value) of the override the runtime reads for an AMD GPU: its own
    ``HSA_OVERRIDE_GFX_VERSION_<n>`` (n = 1 + its position among the stack's AMD GPUs: NVIDIA GPUs are no
    KFD nodes), else the global one; ``None`` when neither is set or the GPU is not a gfx one.
    """
    if not any(name.startswith(OVERRIDE_VARIABLE) for name in env.env):
        return None  # (the common case, linear over the GPUs: the list below is built once per GPU)
    amd = [g for g in env.gpus if _amd(env, g)]
    if gpu not in amd:
        return None
    # a list narrowed to the visible devices keeps each one's place in the stated list (stack.visibility)
    node = gpu.index + 1 if narrowed(env) else amd.index(gpu) + 1
    for name in (f"{OVERRIDE_VARIABLE}_{node}", OVERRIDE_VARIABLE):
        value = env.env.get(name)
        if value is not None:  # the runtime takes a set variable, even an empty one
            return name, value
    return None


def _amd(env: Environment, gpu: GPU) -> bool:
    """A gfx GPU, or an AMD one whose arch the stack does not state (a KFD node all the same)."""
    if gpu.arch:
        return gpu.arch.startswith("gfx")
    return gpu.vendor == "amd" or (gpu.vendor == "unknown" and env.platform == "rocm")


@dataclass(frozen=True)
class EffectiveArch:
    """One GPU's arch and the processor whose code the runtime loads for it."""

    arch: str  # the GPU's own ("": not stated, and an override names the processor its code is for)
    effective: str  # the override's processor, else ``arch``
    variable: str | None  # the variable that set ``effective``; None: none (or an unparsable one)

    @property
    def shown(self) -> str:
        """The GPU as a finding names it: ``gfx1030``, or ``gfx1032 (as gfx1030 by HSA_OVERRIDE_GFX_VERSION)``."""
        effective = base(self.effective)
        if not self.arch:
            return f"a GPU of unstated arch (as {effective} by {self.variable})"
        return effective if effective == base(self.arch) else f"{self.arch} (as {effective} by {self.variable})"


def effective_archs(env: Environment) -> list[EffectiveArch]:
    """Each distinct (arch, effective arch, variable) of the stack's GPUs, in device order: a gfx GPU
    as its per-node override names it, else as the global one does, else as itself. An AMD GPU whose
    arch is not stated (or a ROCm stack listing no GPU) is judged as the processor an override names
    (the runtime loads that one's code whatever the GPU is), and left out without one.
    """
    seen: dict[EffectiveArch, None] = {}
    for gpu in env.gpus:
        setting = override_setting(env, gpu)
        target = overridden_arch(setting[1]) if setting is not None else None
        if not gpu.arch:
            if setting is not None and target is not None:
                seen.setdefault(EffectiveArch("", target, setting[0]))
            continue
        if setting is None or target is None:
            seen.setdefault(EffectiveArch(gpu.arch, gpu.arch, None))
        else:
            seen.setdefault(EffectiveArch(gpu.arch, target, setting[0]))
    if not env.gpus and env.platform == "rocm":  # a stated ROCm stack listing no GPU: the global override's
        target = overridden_arch(env.env.get(OVERRIDE_VARIABLE))
        if target is not None:
            seen.setdefault(EffectiveArch("", target, OVERRIDE_VARIABLE))
    return list(seen)


def amd_gpus(env: Environment) -> list[EffectiveArch]:
    """:func:`effective_archs` of the stack's AMD (gfx) GPUs only."""
    return [gpu for gpu in effective_archs(env) if gpu.arch.startswith("gfx") or not gpu.arch]


def unserved(gpus: list[EffectiveArch], targets: tuple[str, ...]) -> list[str]:
    """The GPUs (as a finding names them) whose processor, the overridden one if set, ``targets`` lacks."""
    return [gpu.shown for gpu in gpus if base(gpu.effective) not in targets]


def served_by(targets: tuple[str, ...], arch: str) -> bool | None:
    """Whether any gfx target serves ``arch`` (``None``: not a gfx arch, or no gfx targets)."""
    gfx = [base(t) for t in targets if base(t).startswith("gfx")]
    if not arch.startswith("gfx") or not gfx:
        return None
    return any(t == arch or arch in GENERIC_MEMBERS.get(t, ()) for t in gfx)


def loaded_series(env: Environment) -> str | None:
    """``"6.2"``: the ROCm series whose libraries the stack loads (a ``+rocm`` torch's bundled ones
    first, else the system ``rocm``); ``None`` when the stack does not say.
    """
    version: Version | None = env.torch_rocm or coerce_version(env.rocm)
    return f"{version.major}.{version.minor}" if version is not None else None
