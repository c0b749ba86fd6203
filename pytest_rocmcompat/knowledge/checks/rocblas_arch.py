"""``rocblas-arch-not-in-release``: the ROCm release's rocBLAS has no Tensile kernels for the GPU.

rocBLAS (and every GEMM torch runs through it on ROCm) loads ``TensileLibrary_<gfx>.dat`` for the
GPU's processor; a release built without that processor prints ``rocBLAS error: Cannot read
.../TensileLibrary.dat: No such file or directory for GPU arch : gfxNNNN`` and aborts
(``library/src/tensile_host.cpp``). Which processors a release is built for is its
``CMakeLists.txt``'s default target list, per ROCm release (``TARGET_LIST_ROCM_X.Y``, chosen by
``ROCM_PLATFORM_VERSION``; before 5.4 one list, ``gpus``/``target_list``): :data:`TARGETS`, generated from
the rocBLAS tags of each release 3.3-6.2 (:mod:`knowledge.library_targets`), then by hand from the
rocBLAS development branch that introduced the 6.3 list, and ``projects/rocblas`` of
ROCm/rocm-libraries (the 7.0 and 7.1 lists; 6.3 also covers 6.4 there, and 7.1 covers 7.2: a
``ROCM_PLATFORM_VERSION`` from 7.1 below 7.13 selects ``TARGET_LIST_ROCM_7.1``, and rocBLAS 5.2.0
"for ROCm 7.2" names no new processor in its CHANGELOG). Where the two sources
differ for a release (gfx940/941 in 6.3), the union is taken: the check claims a GPU only when
no source lists it.

The release judged is the one whose rocBLAS the stack loads: a ``+rocmX.Y`` torch wheel's bundled
libraries, else the system ``rocm``. ``HSA_OVERRIDE_GFX_VERSION`` makes the runtime load the named
processor's kernels, so the overridden arch is judged. Releases outside the table (before 3.3,
after 7.2, or an unknown series) are not judged. The lists are Linux's default build; a stack that
names no arch is not judged, nor a GPU the release's HIP runtime has no entry for (it is never
enumerated, so rocBLAS never runs: ``rocm-gpu-unsupported`` names it). A stack whose ROCm release is unknown (no ``rocm``, no ``+rocm`` torch,
no HIP version) gets an *uncertain* finding for a GPU that only some of the releases since 5.4 (those of
torch 2's ROCm wheels, :data:`.library_targets.UNSTATED_FROM`) carry: a failure this check predicts confirms it
(known-bad), a pass stands.
"""

from __future__ import annotations

from pytest_rocmcompat.knowledge import library_targets
from pytest_rocmcompat.knowledge.checks import rocm_targets
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.rocm_gpu_support_data import runtime_drops
from pytest_rocmcompat.stack.environment import Environment

ID = "rocblas-arch-not-in-release"
GPU_SUITE = ("suites/gpu", "*/suites/gpu/*")
SOURCE_63 = "https://github.com/ROCm/rocBLAS/blob/b520bc83fa67045bed4544f33ba83ce3a7c39c44/CMakeLists.txt"
SOURCE_7 = "https://github.com/ROCm/rocm-libraries/blob/05ecf2875ac3720a9f32fa7f741809efdd644019/projects/rocblas/CMakeLists.txt"
# rocBLAS 5.5.0 (after ROCm 7.2): 7.1 <= ROCM_PLATFORM_VERSION < 7.13 selects TARGET_LIST_ROCM_7.1
SOURCE_72 = "https://github.com/ROCm/rocm-libraries/blob/fc9c779cc2293978d7fa814b92e29050d057c0d7/projects/rocblas/CMakeLists.txt"
SOURCE_CHANGELOG = (
    "https://github.com/ROCm/rocm-libraries/blob/03692816db582a01bc5c54e14d52c6a9f56d4e6f/projects/rocblas/CHANGELOG.md"
)
SOURCE_MESSAGE = (
    "https://github.com/ROCm/rocBLAS/blob/b520bc83fa67045bed4544f33ba83ce3a7c39c44/library/src/tensile_host.cpp"
)

_GENERATED = library_targets.series_rows("rocblas")  # 3.3-6.2, from the tags
_63 = (*_GENERATED["6.2"][0], "gfx1151", "gfx1200", "gfx1201")
_70 = (*(t for t in _63 if t not in ("gfx940", "gfx941")), "gfx950", "gfx1150")
_71 = (*_70, "gfx1103")
# ROCm release series -> (processors its rocBLAS Tensile library is built for, source)
TARGETS: dict[str, tuple[tuple[str, ...], str]] = {
    **_GENERATED,
    "6.3": (_63, SOURCE_63),
    "6.4": (_63, SOURCE_7),  # rocm-libraries: TARGET_LIST_ROCM_6.3 for every release before 7.0
    "7.0": (_70, SOURCE_7),
    "7.1": (_71, SOURCE_7),
    "7.2": (_71, SOURCE_72),  # TARGET_LIST_ROCM_7.1; no 7.2 list exists (nor a new processor in 5.2.0)
}
_UNSTATED = library_targets.unstated_rows(TARGETS)  # a stack naming no release: torch 2's ROCm releases

# rocBLAS' own messages (tensile_host.cpp: the Tensile library file missing for the processor, or
# failing to load, quoted with or without its 'rocBLAS error: ' prefix; the library then failing to initialise), and HIP's missing-code-object errors for
# its non-Tensile kernels. Not "Could not initialize Tensile host: No devices found": no GPU visible.
# Seventh round: hipBLASLt's copy of the same loader ("rocblaslt error: ..."), both libraries' warning
# that no code object file matches the processor ("No paths matched <dir>/*<gfx>*co. Make sure that
# ROCBLAS_TENSILE_LIBPATH is set correctly."), and HIP's own text for hipErrorNoBinaryForGpu
# (ROCm/clr hipamd/src/hip_error.cpp: what torch prints after "HIP error: ").
PREDICTS = (
    r"(?:Cannot read|Could not load) [^\n]{0,400}?TensileLibrary"
    r"|(?:rocBLAS|rocblaslt) error: Could not initialize Tensile library"
    r"|No paths matched [^\n]{0,400}?(?:ROCBLAS|HIPBLASLT)_TENSILE_LIBPATH"
    r"|hipErrorNoBinaryForGpu|Unable to find code object for all current devices"
    r"|no kernel image is available for execution on the device"
    r"|(?i:invalid device function)|hipErrorInvalidDeviceFunction"
)


_SPAN = f"{next(iter(_UNSTATED))}-{next(reversed(_UNSTATED))}"


def check(env: Environment) -> list[Finding]:
    if env.platform != "rocm":
        return []
    release = rocm_targets.loaded_series(env)
    gpus = rocm_targets.amd_gpus(env)
    if release is None:
        return _at_risk(gpus)
    if release not in TARGETS:
        return []
    targets, link = TARGETS[release]
    # a GPU the release's HIP runtime has no entry for is never enumerated: rocm-gpu-unsupported names it
    missing = rocm_targets.unserved(
        [gpu for gpu in gpus if not runtime_drops(release, rocm_targets.base(gpu.effective))], targets
    )
    if not missing:
        return []
    return [
        Finding(
            check=ID,
            reason=f"rocBLAS of ROCm {release} has no Tensile kernels for {', '.join(missing)} "
            f"(its targets: {' '.join(targets)})",
            fix="use a ROCm release whose rocBLAS is built for this GPU, or build rocBLAS (Tensile) for it "
            "(GPU_TARGETS); HSA_OVERRIDE_GFX_VERSION only for a GPU of the same ISA family",
            link=link,
            markers=("gpus",),
            nodeids=GPU_SUITE,
        )
    ]


def _at_risk(gpus: list[rocm_targets.EffectiveArch]) -> list[Finding]:
    """The stack's ROCm release is unknown: the GPUs that only some tabled releases' rocBLAS is
    built for, as an uncertain finding (a failure it predicts confirms it).
    """
    risky = []
    for gpu in gpus:
        effective = rocm_targets.base(gpu.effective)
        carrying = [series for series, (targets, _) in _UNSTATED.items() if effective in targets]
        if len(carrying) == len(_UNSTATED):
            continue
        risky.append(
            f"{effective}: in ROCm {', '.join(carrying)} only" if carrying else f"{effective}: in none of ROCm {_SPAN}"
        )
    if not risky:
        return []
    return [
        Finding(
            check=ID,
            reason="the stack names no ROCm release, and rocBLAS has Tensile kernels for " + "; ".join(risky),
            fix="name the ROCm release (rocm=X.Y, or the torch build torch=VERSION+rocmX.Y) to settle it, "
            "and use one whose rocBLAS is built for this GPU",
            link=SOURCE_7,
            markers=("gpus",),
            nodeids=GPU_SUITE,
            uncertain=True,
        )
    ]
