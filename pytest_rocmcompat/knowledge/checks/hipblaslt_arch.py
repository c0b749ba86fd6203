"""``hipblaslt-arch-unsupported``: hipBLASLt is asked for on a GPU it has no kernels for.

On ROCm torch runs GEMMs through hipBLASLt only on the processors hipBLASLt is built for; on any
other it falls back to hipBLAS/rocBLAS (ROCm 5.7+, pytorch/pytorch#122106). What asks for it:

- ``TORCH_BLAS_PREFER_HIPBLASLT=1`` (torch reads only ``0``/``1``: ``c10::utils::check_env``), the
  preferred-BLAS switch of pytorch/pytorch#122106; ROCm builds made hipBLASLt the default in
  pytorch/pytorch#127944. Since pytorch/pytorch#128753 torch checks the GPU against its list and
  prints ``Attempting to use hipBLASLt on an unsupported architecture! Overriding blas backend to
  hipblas`` (a warning: the GEMM then runs on hipBLAS);
- ``DISABLE_ADDMM_HIP_LT=0``, the fused addmm path (pytorch/pytorch#114329): its arch check raised
  ``RuntimeError: Attempting to use hipBLASLt on a unsupported architecture!`` until
  pytorch/pytorch#138267 made it fall back (nightlies of 2024-10-14/15 raised it for every addmm:
  pytorch/pytorch#138067, ROCm's release/2.5 until ROCm/pytorch#1855);
- code that calls hipBLASLt itself (a test that ``uses("hipblaslt")``): no fallback, hipBLASLt's
  own ``rocblaslt error: Cannot read .../TensileLibrary...`` when it has no kernels for the GPU.

Whether the request fails depends on the torch build, so a stack whose environment asks for it
gets an *uncertain* finding (a failure this check predicts confirms it; a pass stands). A test
that uses hipBLASLt gets a conditional one. Which processors hipBLASLt is built for is its
``CMakeLists.txt``'s default ``AMDGPU_TARGETS`` per ROCm release (:data:`TARGETS`); releases after
the table are judged only for a GPU no hipBLASLt or torch list ever named (:data:`EVER`).
``HSA_OVERRIDE_GFX_VERSION`` makes the runtime load the named processor's kernels: it is judged.
"""

from __future__ import annotations

from pytest_rocmcompat.knowledge.checks import rocm_targets
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.stack.environment import Environment

ID = "hipblaslt-arch-unsupported"
GPU_SUITE = ("suites/gpu", "*/suites/gpu/*")
_TAG = "https://github.com/ROCm/hipBLASLt/blob/rocm-{}/CMakeLists.txt"
SOURCE_63 = "https://github.com/ROCm/hipBLASLt/blob/902dbb92838001c7a51af923a16f438e1d49c310/CMakeLists.txt"  # release-staging/rocm-rel-6.3
SOURCE_TORCH = "https://github.com/pytorch/pytorch/pull/128753"

_57 = ("gfx90a", "gfx940", "gfx941", "gfx942")
_62 = (*_57, "gfx1100", "gfx1101")
_63 = ("gfx908", *_62, "gfx1200", "gfx1201")
# ROCm release series -> (processors its hipBLASLt is built for, source). torch uses hipBLASLt from
# ROCm 5.7 (the 5.5/5.6 libraries served gfx90a alone).
TARGETS: dict[str, tuple[tuple[str, ...], str]] = {
    "5.7": (_57, _TAG.format("5.7.0")),
    "6.0": (_57, _TAG.format("6.0.0")),
    "6.1": (_57, _TAG.format("6.1.0")),
    "6.2": (_62, _TAG.format("6.2.0")),
    "6.3": (_63, SOURCE_63),
}
# Every processor a hipBLASLt build or a torch hipBLASLt list has named, later releases included
# (torch: ROCm/pytorch#2742 adds gfx1102, gfx1150, gfx1151; gfx950 from ROCm 6.5/7.0): a GPU
# outside it (Vega gfx900/906, RDNA1/2 gfx101x/103x, GCN) has hipBLASLt kernels in no release.
EVER = frozenset(
    {
        *(t for targets, _ in TARGETS.values() for t in targets),
        *("gfx950", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153", "gfx1250"),
    }
)

# torch's messages (Context.cpp's warning, Blas.cpp's TORCH_CHECK: 'an' and 'a'), hipBLASLt's
# Tensile library build refusing the processor (TensileCreateLibrary.py printExit), and its
# runtime loader finding no library for it (rocblaslt tensile_host.cpp).
PREDICTS = (
    r"Attempting to use hipBLASLt on an? unsupported architecture!"
    r"|Tensile::FATAL: Architecture gfx\w+ not supported"
    r"|rocblaslt error: (?:Cannot read|Could not load) [^\n]{0,400}?TensileLibrary"
    r"|rocblaslt error: Could not initialize Tensile library"
    r"|No paths matched [^\n]{0,400}?HIPBLASLT_TENSILE_LIBPATH"
)


def check(env: Environment) -> list[Finding]:
    if env.platform != "rocm":
        return []
    override = rocm_targets.overridden_arch(env.env.get("HSA_OVERRIDE_GFX_VERSION"))
    release = rocm_targets.loaded_series(env)
    missing, risky = _unserved(env.archs, override, release)
    if not missing and not risky:
        return []
    asked = _asked(env.env)
    if missing:
        where = f"hipBLASLt of ROCm {release} has no" if release in TARGETS else "no hipBLASLt release has"
        problem = f"{where} kernels for {', '.join(missing)}"
    else:
        problem = "the stack names no ROCm release, and hipBLASLt has kernels for " + "; ".join(risky)
    link = TARGETS[release][1] if release in TARGETS else SOURCE_TORCH
    fix = (
        "do not ask for hipBLASLt on this GPU (unset TORCH_BLAS_PREFER_HIPBLASLT / DISABLE_ADDMM_HIP_LT=0: "
        "torch uses hipBLAS), or use a ROCm release whose hipBLASLt is built for it"
    )
    if asked:
        return [
            Finding(
                check=ID,
                reason=f"{asked} asks torch for hipBLASLt, and {problem}",
                fix=fix,
                link=link,
                markers=("gpus",),
                uses=("hipblaslt",),
                nodeids=GPU_SUITE,
                uncertain=True,  # torch builds with the arch gate fall back to hipBLAS with a warning
            )
        ]
    return [
        Finding(
            check=ID,
            reason=problem,
            fix=fix,
            link=link,
            uses=("hipblaslt",),
            conditional=True,
            uncertain=not missing,
        )
    ]


def _unserved(archs: tuple[str, ...], override: str | None, release: str | None) -> tuple[list[str], list[str]]:
    """(GPUs the judged release's hipBLASLt surely lacks, GPUs only some tabled releases carry)."""
    missing: list[str] = []
    risky: list[str] = []
    for arch in archs:
        if not arch.startswith("gfx"):
            continue
        effective = rocm_targets.base(override or arch)
        named = effective if effective == arch else f"{arch} (as {effective} by HSA_OVERRIDE_GFX_VERSION)"
        if effective not in EVER:
            missing.append(named)
        elif release in TARGETS:
            if effective not in TARGETS[release][0]:
                missing.append(named)
        elif release is None:
            carrying = [series for series, (targets, _) in TARGETS.items() if effective in targets]
            if len(carrying) < len(TARGETS):
                risky.append(
                    f"{effective}: in ROCm {', '.join(carrying)} only" if carrying else f"{effective}: after 6.3 only"
                )
    return missing, risky


def _asked(variables: dict[str, str]) -> str | None:
    """The stack's variable that asks torch for hipBLASLt, as ``NAME=value``; ``None`` when none does."""
    if variables.get("TORCH_BLAS_PREFER_HIPBLASLT", "").strip() == "1":
        return "TORCH_BLAS_PREFER_HIPBLASLT=1"
    if variables.get("DISABLE_ADDMM_HIP_LT", "").strip() == "0":
        return "DISABLE_ADDMM_HIP_LT=0"
    return None
