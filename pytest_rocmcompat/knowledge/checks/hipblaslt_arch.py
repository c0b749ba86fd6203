"""``hipblaslt-arch-unsupported``: torch asks hipBLASLt for GEMMs on a GPU it has no kernels for.

On ROCm (5.7+, pytorch/pytorch#122106) torch runs GEMMs through hipBLASLt when it prefers it:

- by default on torch 2.4-2.6 for every GPU (pytorch/pytorch#127944), from 2.7 only on the
  Instinct GPUs it lists (pytorch/pytorch#150212, as ROCm/pytorch#2053 says); on request with
  ``TORCH_BLAS_PREFER_HIPBLASLT=1`` (torch reads only ``0``/``1``: ``c10::utils::check_env``);
- for the fused addmm path with ``DISABLE_ADDMM_HIP_LT=0`` (pytorch/pytorch#114329);
- always, for code that calls hipBLASLt itself (a test that ``uses("hipblaslt")``).

Since pytorch/pytorch#128753 torch checks every GPU against its own list (gfx90a and gfx940-942;
RDNA3/RDNA4 and gfx908 only in builds for ROCm 6.3+, gfx950 for 6.5+: the ``ROCM_VERSION`` lines
of release/2.6 quoted in ROCm/pytorch#2053 and of ROCm/pytorch#2742) and otherwise prints
``Attempting to use hipBLASLt on an unsupported architecture! Overriding blas backend to hipblas``
and runs hipBLAS. The addmm check raised ``RuntimeError: Attempting to use hipBLASLt on a
unsupported architecture!`` until pytorch/pytorch#138267 (ROCm/hipBLASLt#1243). hipBLASLt itself
is built for the processors of its ``CMakeLists.txt``'s default ``AMDGPU_TARGETS`` per ROCm
release (:data:`TARGETS`).

A GPU the loaded release cannot serve (not in its hipBLASLt, or not in torch's list for it: gfx1150/
gfx1151 in no list of torch 2.9 or older, ROCm/pytorch#2742) with a variable that asks is a finding,
*uncertain* when only some builds the stack could be lack it (a failure this check predicts
confirms it, a pass stands). With nothing asking, torch's own default only warns and falls back,
so only tests that use hipBLASLt meet it (conditional). ``HSA_OVERRIDE_GFX_VERSION`` makes the
runtime load the named processor's kernels: it is judged. A CUDA or CPU torch has no hipBLASLt.
Releases before 5.7 are not judged; after 6.3 only by torch's list and for a GPU no hipBLASLt or
torch list ever named (:data:`EVER`: Vega gfx900/906, RDNA1/2 gfx101x/103x, GCN). Two bounds of
torch's lists reach past the table: gfx950 only ``#if ROCM_VERSION >= 60500`` (ROCm/pytorch#2742's
context lines; ROCm has no 6.5, 7.0 follows 6.4 in hipBLASLt's CHANGELOG), so ROCm 6.4 never serves
it; gfx1150/gfx1151 only ``#if ROCM_VERSION >= 60402`` in the lists that name them, and hipBLASLt
0.12.1 "for ROCm 6.4.2" adds gfx1151 (CHANGELOG), so 6.4.0/6.4.1 do not serve them (a ``6.4`` with
no patch release is *uncertain*). gfx1102 entered torch's list in the same change (``>= 60300``),
so a torch 2.9 or older refuses it too; hipBLASLt's own default ("all") targets never name it (only
its later accepted ``SUPPORTED_ARCHITECTURES`` do), so a newer torch on a release after 6.3 may or
may not find kernels for it (*uncertain*).

torch's list also changes by torch release, whatever the ROCm (:func:`_torch_list`, from 2.5, when the list
arrived): gfx908 is named only from torch 2.9 (pytorch/pytorch#159092, "enable hipblaslt on gfx908 for ROCm >=
6.3"), gfx1103 only from 2.11 (pytorch/pytorch#172180), gfx1152/gfx1153/gfx1250 in no list read (refused up to
2.10, a risk after), and the MI300 engineering parts gfx940/gfx941 in none from release/2.6 on.

hipBLASLt's own default targets after 6.3 could not be read at the release tags (the monorepo is
too large to mirror here and the index holds no tag version), so they are not tabled: :data:`LINES`
holds the lists read at development commits of each code line (0.11 before 6.4, 0.14 after it,
rocm-libraries' ``tensilelite_supported_architectures.cmake`` for 7.x), which bound :data:`EVER`
and back the one judgement they all agree on: RDNA1/RDNA2 (gfx10xx) are "NOT included in the
default 'all' build in hipBLASLt" (that file's own note), nor is Vega or GCN.
"""

from __future__ import annotations

from typing import Literal

from packaging.version import Version

from pytest_rocmcompat.knowledge.checks import rocm_targets
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.versions import coerce_version

ID = "hipblaslt-arch-unsupported"
GPU_SUITE = ("suites/gpu", "*/suites/gpu/*")
_TAG = "https://github.com/ROCm/hipBLASLt/blob/rocm-{}/CMakeLists.txt"
SOURCE_63 = "https://github.com/ROCm/hipBLASLt/blob/902dbb92838001c7a51af923a16f438e1d49c310/CMakeLists.txt"  # release-staging/rocm-rel-6.3
SOURCE_TORCH = "https://github.com/pytorch/pytorch/pull/128753"
SOURCE_GATE_63 = "https://github.com/ROCm/pytorch/pull/2053"  # release/2.6: the ROCM_VERSION >= 60300 list
# torch's list of GPUs it routes to hipBLASLt, in every build since pytorch#128753; the rest of a
# 6.3 hipBLASLt's targets only in torch builds for ROCm 6.3+ of torch 2.6 on (ROCm/pytorch#2053)
GATE = frozenset({"gfx90a", "gfx940", "gfx941", "gfx942"})
GATE_63_FROM = Version("2.6")
FIRST_RELEASE = Version("5.7")  # torch's hipBLASLt code is built for ROCm 5.7+ (pytorch#122106)
# torch's list named gfx1150/gfx1151 only after 2.9 (added by ROCm/pytorch#2742 and pytorch#166133,
# October 2025; the list they change has neither): a 2.9 or older torch refuses them on any ROCm
LATE = frozenset({"gfx1150", "gfx1151"})
LATE_FROM = Version("2.10")
SOURCE_LATE = "https://github.com/ROCm/pytorch/pull/2742"
# torch's lists: '#if ROCM_VERSION >= 60500 "gfx950"' (ROCm/pytorch#2742's context lines), and
# after ROCm 6.4 came 7.0 (hipBLASLt 0.12.1 "for ROCm 6.4.2", then 1.0.0 "for ROCm 7.0.0": CHANGELOG)
GFX950_FROM = Version("7.0")
# '#if ROCM_VERSION >= 60402 "gfx1150", "gfx1151"' (ROCm/pytorch#2742); hipBLASLt 0.12.1 for ROCm
# 6.4.2: "Support for gfx1151" (CHANGELOG)
STRIX_FROM = Version("6.4.2")
# torch's lists by torch release, beyond the ROCM_VERSION gates (session 21, sources quoted in the tests):
# - gfx908 only from torch 2.9: "[ROCm] enable hipblaslt on gfx908 for ROCm >= 6.3" (pytorch/pytorch#159092,
#   merged 2025-07-25); release/2.6's list (ROCm/pytorch#2053) names no gfx908
# - gfx1103 only from torch 2.11: "[ROCm] Enable hipBLASLt on gfx1103" (pytorch/pytorch#172180, merged 2026-01-15:
#   "I found hipBLASLt was not enabled on gfx1103"); gfx1152, gfx1153 and gfx1250 (in hipBLASLt's own later lists)
#   are in no torch list read (2.10's, ROCm/pytorch#2742): refused before 2.11, unknown after
# - gfx940/gfx941 (MI300 engineering parts) in no list from release/2.6 on (ROCm/pytorch#2053: "gfx90a", "gfx942")
LIST_FROM = Version("2.5")  # torch's list arrived with pytorch/pytorch#128753
GFX908_FROM = Version("2.9")
SOURCE_GFX908 = "https://github.com/pytorch/pytorch/pull/159092"
APU_1103_FROM = Version("2.11")
SOURCE_GFX1103 = "https://github.com/pytorch/pytorch/pull/172180"
UNLISTED_NEW = frozenset({"gfx1152", "gfx1153", "gfx1250"})
EARLY_MI300 = frozenset({"gfx940", "gfx941"})
# where torch's list by torch release is read, per GPU (:func:`_torch_list`)
TORCH_LIST_SOURCES = {
    "gfx908": SOURCE_GFX908,
    "gfx1103": SOURCE_GFX1103,
    **dict.fromkeys(UNLISTED_NEW, SOURCE_GFX1103),
    **dict.fromkeys(EARLY_MI300, SOURCE_GATE_63),
}
SOURCE_CHANGELOG = "https://github.com/ROCm/rocm-libraries/blob/0337fe01754968f5d6e9d0a01cb9065f686aad94/projects/hipblaslt/CHANGELOG.md"
Status = Literal["served", "unserved", "maybe"]

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
_HIPBLASLT_AT = "https://github.com/ROCm/hipBLASLt/blob/{}/CMakeLists.txt"
_LIBRARIES_AT = (
    "https://github.com/ROCm/rocm-libraries/blob/{}/projects/hipblaslt/cmake/tensilelite_supported_architectures.cmake"
)
# hipBLASLt's own default targets after the 6.3 branch, read at development commits (not release
# tags): code line -> (processors, source). 0.11 (CMakeLists VERSION_STRING) is the line between 6.3
# (0.10) and 6.4 (0.12); 0.14 follows 6.4; rocm-libraries' BASE_ARCHITECTURES (the "all" build) is 7.x's.
_CDNA = ("gfx908", "gfx90a", "gfx942", "gfx950")
_APU = ("gfx1103", "gfx1150", "gfx1151")
LINES: dict[str, tuple[tuple[str, ...], str]] = {
    "0.11": (
        ("gfx908", "gfx90a", "gfx940", "gfx941", "gfx942", "gfx1100", "gfx1101", "gfx1200", "gfx1201"),
        _HIPBLASLT_AT.format("c3681274e47d50c2064333f9692bf5dbbe10a32b"),
    ),
    "0.14": (
        (*_CDNA, "gfx1100", "gfx1101", *_APU, "gfx1200", "gfx1201"),
        _HIPBLASLT_AT.format("013b59ee1f3153cddbe0bcc95e7bc7a1cb1bf906"),
    ),
    "rocm-libraries": (
        (*_CDNA, "gfx1100", "gfx1101", *_APU, "gfx1152", "gfx1153", "gfx1200", "gfx1201", "gfx1250"),
        _LIBRARIES_AT.format("b21709c573433d75ed66964a34bfd579d77d04d3"),
    ),
}
# that file's note: "gfx10XX architectures (e.g., gfx1010, gfx1011, gfx1030, etc...) are technically
# supported by tensilelite, but are NOT included in the default "all" build in hipBLASLt"
SOURCE_NEVER = LINES["rocm-libraries"][1]
# gfx1102: in torch's lists from ROCm/pytorch#2742 on ('#if ROCM_VERSION >= 60300 ... "gfx1102"'), and
# in rocm-libraries' SUPPORTED_ARCHITECTURES (accepted as a GPU_TARGETS entry) but no default list
NAVI33 = "gfx1102"
# Every processor a hipBLASLt build or a torch hipBLASLt list has named, later releases included
# (torch: ROCm/pytorch#2742 adds gfx1102, gfx1150, gfx1151; gfx950 from ROCm 6.5/7.0): a GPU
# outside it (Vega gfx900/906, RDNA1/2 gfx101x/103x, GCN) has hipBLASLt kernels in no release.
EVER = frozenset(
    {
        *(t for targets, _ in TARGETS.values() for t in targets),
        *(t for targets, _ in LINES.values() for t in targets),
        NAVI33,
    }
)

# torch's messages (Context.cpp's warning, Blas.cpp's TORCH_CHECK: 'an' and 'a'), hipBLASLt's
# Tensile library build refusing the processor (TensileCreateLibrary.py printExit, ROCm/hipBLASLt
# rocm-6.2.0 tensilelite/Tensile/TensileCreateLibrary.py#L1341), and its runtime loader finding no
# library for it (rocblaslt tensile_host.cpp; in 7.x the path is a std::filesystem::path, printed
# in quotes: rocm-libraries 003add5 projects/hipblaslt/library/src/amd_detail/rocblaslt/src/).
PREDICTS = (
    r"Attempting to use hipBLASLt on an? unsupported architecture!"
    r"|Tensile::FATAL: Architecture gfx\w+ not supported"
    r"|rocblaslt error: (?:Cannot read|Could not load) [^\n]{0,400}?TensileLibrary"
    r"|rocblaslt error: Could not initialize Tensile library"
    r"|No paths matched [^\n]{0,400}?HIPBLASLT_TENSILE_LIBPATH"
)


def check(env: Environment) -> list[Finding]:
    if env.platform != "rocm" or (env.torch_local or "").startswith(("cu", "cpu")):
        return []
    release = rocm_targets.loaded_series(env)
    loaded = env.torch_rocm or coerce_version(env.rocm)
    torch = env.torch_version
    gpus = _gpus(rocm_targets.amd_gpus(env))
    judged = [(named, effective, _status(effective, release, torch, loaded)) for named, effective in gpus]
    unserved = [named for named, _, status in judged if status == "unserved"]
    maybe = [named for named, _, status in judged if status == "maybe"]
    if not unserved and not maybe:
        return []
    lacking: list[tuple[str, Status]] = [(eff, status) for _, eff, status in judged if status != "served"]
    problem = _problem(
        unserved, maybe, lacking, _where(release, loaded, [e for e, s in lacking if s == "unserved"], torch)
    )
    link = _link(release, lacking)
    fix = (
        "do not ask for hipBLASLt on this GPU (unset TORCH_BLAS_PREFER_HIPBLASLT, DISABLE_ADDMM_HIP_LT=0; "
        "TORCH_BLAS_PREFER_HIPBLASLT=0 keeps torch on hipBLAS), or use a ROCm release and torch whose hipBLASLt serves it"
    )
    asked = _asked(env.env)
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
                uncertain=not unserved,
            )
        ]
    # nothing asks: torch stays on (or falls back to) hipBLAS, only code calling hipBLASLt meets it
    return [
        Finding(
            check=ID, reason=problem, fix=fix, link=link, uses=("hipblaslt",), conditional=True, uncertain=not unserved
        )
    ]


def _problem(unserved: list[str], maybe: list[str], lacking: list[tuple[str, Status]], where: str) -> str:
    """The reason's account of the GPUs hipBLASLt does not (or may not) serve."""
    if unserved:
        return (
            f"hipBLASLt does not serve {', '.join(unserved)} on {where} "
            "(not in its build targets, or not in torch's hipBLASLt list)"
        )
    navi33 = "; hipBLASLt's default targets never name gfx1102" if (NAVI33, "maybe") in lacking else ""
    return (
        f"torch routes {', '.join(maybe)} to hipBLASLt only in some builds the stack could be "
        f"(none for ROCm before 6.3{navi33})"
    )


def _link(release: str | None, lacking: list[tuple[str, Status]]) -> str:
    """The tabled release's targets; hipBLASLt's own lists for GPUs none (or no default) names; else torch's."""
    if release in TARGETS and any(arch not in TARGETS[release][0] for arch, _ in lacking):
        return TARGETS[release][1]
    if lacking and lacking[0][0] in TORCH_LIST_SOURCES:
        return TORCH_LIST_SOURCES[lacking[0][0]]
    if release in TARGETS:
        return TARGETS[release][1]
    if lacking and all(arch not in EVER or (arch, status) == (NAVI33, "maybe") for arch, status in lacking):
        return SOURCE_NEVER
    return SOURCE_LATE if release else SOURCE_TORCH


def _gpus(gpus: list[rocm_targets.EffectiveArch]) -> list[tuple[str, str]]:
    """(name for the reason, processor whose kernels the runtime loads) of each AMD GPU."""
    return [(gpu.shown, rocm_targets.base(gpu.effective)) for gpu in gpus]


def _where(release: str | None, loaded: Version | None, unserved: list[str], torch: Version | None) -> str:
    """The releases the reason names: the tabled series, the loaded release, or any."""
    if any(_torch_list(arch, torch) == "unserved" for arch in unserved):
        return "any ROCm release"  # the torch release's own list refuses it
    if release in TARGETS:
        return f"ROCm {release}"
    if loaded is None or any(_everywhere(arch, torch) for arch in unserved):
        return "any ROCm release"
    return f"ROCm {loaded}"


def _everywhere(arch: str, torch: Version | None) -> bool:
    """``arch`` is refused on every ROCm release: no list names it, or the torch predates its entry."""
    late = arch in LATE or arch == NAVI33
    if arch not in EVER or _torch_list(arch, torch) == "unserved":
        return True
    return late and _since(torch, LATE_FROM, "unserved") == "unserved"


def _status(arch: str, release: str | None, torch: Version | None, loaded: Version | None = None) -> Status:
    """Whether the stack's hipBLASLt and torch's list serve ``arch`` (``maybe``: some builds it could be)."""
    if release is not None and Version(release) < FIRST_RELEASE:
        return "served"  # torch builds for ROCm before 5.7 have no hipBLASLt path at all
    if arch not in EVER:
        return "unserved"
    listed = _torch_list(arch, torch)
    if release is None:
        return listed or ("served" if arch in GATE else "maybe")
    if release in TARGETS:
        if arch not in TARGETS[release][0] or (arch not in GATE and release != "6.3"):
            return "unserved"  # torch lists the other targets only for ROCm 6.3+
        return listed or ("served" if arch in GATE else _since(torch, GATE_63_FROM, "maybe"))
    if listed is not None:
        return listed
    if arch in LATE:  # a release after the table: torch's list decides
        return _strix(_since(torch, LATE_FROM, "unserved"), loaded)
    if arch == NAVI33:  # torch 2.10+ routes it; hipBLASLt's default builds never name it
        return "unserved" if _since(torch, LATE_FROM, "unserved") == "unserved" else "maybe"
    if arch == "gfx950" and Version(release) < GFX950_FROM:
        return "unserved"  # ROCm 6.4: torch's lists name gfx950 only for ROCM_VERSION >= 60500
    return "served"


def _torch_list(arch: str, torch: Version | None) -> Status | None:
    """What torch's own list says of ``arch`` by torch release (``None``: the ROCm gates decide; a torch
    before 2.5 has no list, pytorch/pytorch#128753).
    """
    base = None if torch is None else Version(torch.base_version)
    if base is not None and base < LIST_FROM:
        return None
    if arch == "gfx908":  # named from 2.9: unknown for an unknown torch, no verdict of its own after
        return "maybe" if base is None else ("unserved" if base < GFX908_FROM else None)
    if arch == "gfx1103":
        return _since(torch, APU_1103_FROM, "unserved")
    if arch in UNLISTED_NEW:  # no list read names them: refused before 2.11, unknown from it
        return "unserved" if base is not None and base < APU_1103_FROM else "maybe"
    if arch in EARLY_MI300 and base is not None and base >= GATE_63_FROM:
        return "unserved"
    return None


def _strix(status: Status, loaded: Version | None) -> Status:
    """gfx1150/gfx1151 on ROCm 6.4: served only from 6.4.2 (``maybe`` when the patch release is unknown)."""
    if status == "unserved" or loaded is None or (loaded.major, loaded.minor) != (6, 4):
        return status
    patch = loaded.release[2] if len(loaded.release) > 2 else None
    if patch is None or patch >= 100:  # "6.4", or a HIP version's build number (6.4.43482)
        return "maybe"
    return status if loaded >= STRIX_FROM else "unserved"


def _since(torch: Version | None, first: Version, before: Status) -> Status:
    """``served`` for a torch from ``first`` on, ``before`` for an older one, ``maybe`` for an unknown one."""
    if torch is None:
        return "maybe"
    return "served" if Version(torch.base_version) >= first else before


def _asked(variables: dict[str, str]) -> str | None:
    """The stack's variable that asks torch for hipBLASLt, as ``NAME=value``; ``None`` when none does."""
    if variables.get("TORCH_BLAS_PREFER_HIPBLASLT", "").strip() == "1":
        return "TORCH_BLAS_PREFER_HIPBLASLT=1"
    if variables.get("DISABLE_ADDMM_HIP_LT", "").strip() == "0":
        return "DISABLE_ADDMM_HIP_LT=0"
    return None
