"""``rccl-arch-not-in-release``: the ROCm release's RCCL has no device code for the GPU.

RCCL (the ``nccl`` backend of torch.distributed on ROCm) is one HIP fat binary whose collective
kernels are built for the processors of its default target list (``DEFAULT_GPUS`` of
``CMakeLists.txt``, 4.3-5.6 ``DEFAULT_AMDGPU_TARGETS``, before that ``AMDGPU_TARGETS``): :data:`TARGETS`.
Generated from the RCCL tags of 3.3-6.2 (:mod:`knowledge.library_targets`); by hand: 6.3 at branch release/rocm-rel-6.3.0.1; 7.0-7.2 at an RCCL development
commit whose list adds gfx950 (RCCL 2.26.6 "for ROCm 7.0.0": "Added new GPU target gfx950", and no
later target until gfx1151 in RCCL 2.28.3 "for ROCm 7.12", a TheRock release); Gentoo's
rccl-7.1.0/7.2.0 ebuilds, built from the rocm-7.1.0/7.2.0 tags, name the same eleven processors.
6.4's list was not read at its tag: RCCL's development branch dropped gfx940/gfx941 in Nov 2024
("removing unused gfx targets (#1411)") and gfx950 came only with 7.0, so 6.4 is the 6.3 list, the
two unused MI300 steppings kept (a GPU is claimed only where no source lists it). ROCm's public
build recipe (ROCm/ROCm ``tools/rocm-build/build_rccl.sh``, tags rocm-6.2.0-6.3.3) passes a narrower
``AMDGPU_TARGETS`` (no gfx906; gfx1102/gfx1200/gfx1201 only from 6.3.3); whether the release packages
follow it is not established, so the CMake default, the superset, is what is judged.

No list names an RDNA2 part other than gfx1030 (gfx1031/gfx1032/...), an APU (gfx90c, gfx1035,
gfx1103, gfx1150/1151) or RDNA1 (gfx1010): on such a GPU communicator set-up succeeds and the first
collective's launch fails. The list changed at 3.5 (gfx803 added), 4.3 (gfx90a and gfx1030 added),
5.4 (gfx1100-1102), 5.7 (gfx940-942), 6.3 (gfx803/gfx900 dropped, gfx1200/1201 added) and 7.0
(gfx950 added, gfx940/941 gone).

The release judged is the one whose RCCL the stack loads: a ``+rocmX.Y`` torch wheel bundles the
``librccl.so`` of the ROCm it was built against, whole (pytorch's ``.ci/manywheel/build_rocm.sh``
copies it from ``/opt/rocm``; ``PYTORCH_ROCM_ARCH`` narrows only rocBLAS/hipBLASLt/MIOpen data),
else the system ``rocm``. ``HSA_OVERRIDE_GFX_VERSION`` makes the runtime load the named processor's
code: the overridden arch is judged. Only collective tests meet it (``uses("nccl")``,
``uses("torch.distributed")``, the bundled collective suite): a conditional finding. Releases
outside the table (before 3.3; TheRock's own builds, 7.9 and later, which ship per-GPU-family RCCL
packages) are not judged. A stack naming only its RCCL (``nccl=2.22.3``, as torch reports it on ROCm)
is judged by the release that RCCL first shipped with (:data:`RCCL_RELEASES`), as a risk
(*uncertain*: a distribution's or a source build of that RCCL may target more GPUs); one naming no
release at all gets a risk where some or all of the releases since 5.4 (torch 2's ROCm wheels,
:data:`.library_targets.UNSTATED_FROM`) have an RCCL lacking the GPU.
"""

from __future__ import annotations

from packaging.version import Version

from pytest_rocmcompat.knowledge import library_targets
from pytest_rocmcompat.knowledge.checks import rocm_targets
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.versions import coerce_version

ID = "rccl-arch-not-in-release"
COLLECTIVE_USES = ("nccl", "torch.distributed")  # as the NCCL/RCCL rules of known_bad.yaml select tests
COLLECTIVE_SUITE = ("suites/collectives", "*/suites/collectives/*")
SOURCE_63 = "https://github.com/ROCm/rccl/blob/4e1360452592e37772ed381a75a7dfd60d303261/CMakeLists.txt"  # release/rocm-rel-6.3.0.1
# RCCL development branch at the 7.0 release line: DEFAULT_GPUS with gfx950, without gfx940/941
SOURCE_7 = "https://github.com/ROCm/rccl/blob/5ae60006a01ca46f5c8b28cb77386e25d1851bbb/CMakeLists.txt"
SOURCE_WHEEL = (
    "https://github.com/pytorch/pytorch/blob/0155a3fe32cfca4e1099d66a35bb98df0e2b7bf9/.ci/manywheel/build_rocm.sh"
)

_GENERATED = library_targets.series_rows("rccl")  # 3.3-6.2, from the tags
_63 = (*(t for t in _GENERATED["6.2"][0] if t not in ("gfx803", "gfx900")), "gfx1200", "gfx1201")
_70 = (*(t for t in _63 if t not in ("gfx940", "gfx941")), "gfx950")  # SOURCE_7's eleven, reordered
# ROCm release series -> (processors its RCCL is built for, source); the same list at every patch tag
TARGETS: dict[str, tuple[tuple[str, ...], str]] = {
    **_GENERATED,
    "6.3": (_63, SOURCE_63),
    # derived, not read at the tag (module docstring): linked to the CHANGELOG it was derived from
    "6.4": (
        _63,
        "https://github.com/ROCm/rocm-systems/blob/0005e8e83d9e0fdc68a43b127152c74604fc52f5/projects/rccl/CHANGELOG.md",
    ),
    "7.0": (_70, SOURCE_7),
    "7.1": (_70, SOURCE_7),
    "7.2": (_70, SOURCE_7),
}
_UNSTATED = library_targets.unstated_rows(TARGETS)  # a stack naming no release: torch 2's ROCm releases

# RCCL's warning for a failed HIP call naming a missing kernel: "Cuda failure '%s'" (src/include/checks.h,
# as NCCL prints it, and as torch quotes it after "Last error:"), "HIP failure: '%s'" (rcclCudaErrorHandler
# of src/include/debug.h in later RCCL), with HIP's hipGetErrorString text for
# hipErrorInvalidDeviceFunction or hipErrorNoBinaryForGpu (clr hipamd/src/hip_error.cpp); the HIP runtime
# finding no code object for the GPU in a fat binary it loads (ROCm/rccl#289); RCCL's warning when HIP
# cannot read its kernels' attributes at communicator set-up, as on a GPU the library has no code for
# (src/enqueue.cc of RCCL 2.20.5-2.21.5, ROCm 6.2-6.3; later RCCL ignores that failure silently); RCCL's
# own refusal of a collective it has no kernel for on the GPU (src/rccl_wrap.cc, ROCm/rocm-systems#7184).
# Not "unhandled cuda error" alone, nor any other "Cuda failure" (invalid argument, unknown error): those
# are other RCCL faults.
PREDICTS = (
    r"(?:Cuda|HIP) failure:? '(?:invalid device function|hipErrorInvalidDeviceFunction"
    r"|no kernel image is available for execution on the device)'"
    r"|hipErrorNoBinaryForGpu: (?:Unable to find code object for all current devices|Coul?dn't find binary)"
    r"|NCCL WARN Failed to get kernel attributes"
    r"|unsupported architecture \(gfx\w+\) for collective"
)


# RCCL release -> the ROCm release series it first shipped with: a stack that names only RCCL (``nccl``,
# the version torch reports on ROCm, or a ``rccl`` package) is judged by that release's list. Generated
# from the tags' ``makefiles/version.mk`` (what the library reports) for 3.3-6.2; the CHANGELOG.md's
# "RCCL X for ROCm Y" headings (RCCL_RELEASES_SOURCE) name a few releases otherwise (2.16.2 for 5.6, whose
# tag says 2.16.5; 2.12.10 for 5.2.3 and 5.3.0, whose tags say 2.12.12) and every later one: 2.22.3 shipped with 6.4.0-6.4.2, 2.27.7 with
# 7.1.0, 7.1.1 and 7.2.0 (7.1 and 7.2 share one list); 2.28.3 and later ship with TheRock's releases
# (7.11 on), not judged.
RCCL_RELEASES_SOURCE = (
    "https://github.com/ROCm/rocm-systems/blob/0005e8e83d9e0fdc68a43b127152c74604fc52f5/projects/rccl/CHANGELOG.md"
)
_FROM_CHANGELOG = {
    "2.12.10": "5.2",
    "2.16.2": "5.6",
    "2.21.5": "6.3",
    "2.22.3": "6.4",
    "2.26.6": "7.0",
    "2.27.7": "7.1",
}
RCCL_RELEASES: dict[str, str] = dict(
    sorted({**library_targets.rccl_first_series(), **_FROM_CHANGELOG}.items(), key=lambda item: Version(item[0]))
)


def check(env: Environment) -> list[Finding]:
    if env.platform != "rocm" or (env.torch_local or "").startswith(("cu", "cpu")):
        return []
    loaded = rocm_targets.loaded_series(env)
    release = loaded or _from_rccl(env.nccl)
    if release is None:
        return _unstated(env) if _names_no_release(env) else []  # a release outside the table: unknown
    if release not in TARGETS:
        return []
    targets, link = TARGETS[release]
    missing = rocm_targets.unserved(rocm_targets.amd_gpus(env), targets)
    if not missing:
        return []
    return [
        Finding(
            check=ID,
            reason=f"RCCL of ROCm {release} has no device code for {', '.join(missing)} "
            f"(its targets: {' '.join(targets)}): the first collective fails",
            fix="use a ROCm release whose RCCL is built for this GPU, or build RCCL for it (GPU_TARGETS) and "
            "load it first; HSA_OVERRIDE_GFX_VERSION only for a GPU of the same ISA family",
            link=link,
            uses=COLLECTIVE_USES,
            nodeids=COLLECTIVE_SUITE,
            conditional=True,
            # known only by the RCCL's version: a distribution's or a source build may target more (a risk)
            uncertain=loaded is None,
        )
    ]


def _from_rccl(version: str | None) -> str | None:
    """The ROCm series an RCCL release shipped with (``"2.20.5"`` -> ``"6.2"``); ``None`` when not tabled."""
    parsed = coerce_version(version)
    if parsed is None:
        return None
    return RCCL_RELEASES.get(".".join(str(part) for part in parsed.release[:3]))


def _names_no_release(env: Environment) -> bool:
    """Whether the stack says nothing of its ROCm release: no ``rocm``, HIP, ``+rocm`` torch or RCCL."""
    return not (env.rocm or env.hip or env.nccl or (env.torch_local or "").startswith("rocm"))


def _unstated(env: Environment) -> list[Finding]:
    """A stack naming no ROCm release: a GPU some tabled releases' RCCL lack is a risk (*uncertain*)."""
    lacking: list[str] = []
    for gpu in rocm_targets.amd_gpus(env):
        serving = [series for series, (targets, _) in _UNSTATED.items() if not rocm_targets.unserved([gpu], targets)]
        if len(serving) < len(_UNSTATED):
            where = f"only in ROCm {', '.join(serving)}" if serving else "in none of ROCm " + ", ".join(_UNSTATED)
            lacking.append(f"{gpu.shown} {where}")
    if not lacking:
        return []
    return [
        Finding(
            check=ID,
            reason="the stack names no ROCm release; the RCCL of the tabled releases has device code for "
            + "; ".join(lacking),
            fix="name the ROCm release (--set rocm=X.Y, or a +rocm torch) to settle it, and use one whose RCCL "
            "is built for this GPU",
            link=TARGETS["6.2"][1],
            uses=COLLECTIVE_USES,
            nodeids=COLLECTIVE_SUITE,
            conditional=True,
            uncertain=True,
        )
    ]
