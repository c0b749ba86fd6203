"""``bitsandbytes-rocm-build``: no bitsandbytes ROCm library serves this ROCm stack.

bitsandbytes loads one native library per GPU runtime (``libbitsandbytes_rocmXY.so`` for
torch's HIP version from 0.48); a ROCm stack without a matching one fails on the first
quantized op. What its own installation guide says, per release (``docs/source/installation.mdx``
at each tag of bitsandbytes-foundation/bitsandbytes):

- up to 0.42 "only supported on CUDA GPU hardwares"; 0.43-0.47 ROCm only on the alpha
  ``multi-backend-refactor`` branch (preview wheels, or built from source); 0.48 "ROCm support is
  currently only available in our preview wheels or when building from source". So a PyPI
  release before **0.49.0** carries no ROCm library at all;
- 0.49 and 0.50 ship ROCm libraries on Linux x86-64 for the ROCm releases and GPU targets of
  :data:`PYPI_ROCM` (a library per ROCm release: the version must match);
- every release that mentions ROCm starts at **ROCm 6.1** ("fully supported from ROCm 6.1
  onwards", 0.44): no bitsandbytes build of any kind serves ROCm 5.x;
- no release, preview or source build lists gfx803, gfx900, gfx906, gfx1010-1012 or the Vega APUs.

A dev bitsandbytes (and ``1.0.0``, multi-backend-refactor's fixed version; PyPI has published no
1.0.0 as of 2026-11-26: should it, that release must be told apart here) is a preview wheel or
a source build of that commit: it is judged by what the preview wheels of that version carried
(:mod:`.bitsandbytes_rocm_data`: their ROCm libraries and GPU targets); since a source build
targets whatever CMake was given or found, a GPU or ROCm release the previews lack is a risk
(``uncertain``), as is a GPU no build lists under such a version or a local label (a fork, a
source build). Without a listed bitsandbytes the finding is conditional (only tests that
``uses("bitsandbytes")`` meet it).

Real reports of the messages PREDICTS adds (each quoted in tests/knowledge/test_bitsandbytes_rocm_preview.py):
https://github.com/ROCm/bitsandbytes/issues/82 (a ROCm library for another ROCm release: "ROCm Setup
failed despite ROCm being available", multi-backend-refactor's cextension.py), and the same
template before the ROCm wording, "CUDA Setup failed despite CUDA being available" (0.43.1-0.45,
https://github.com/bitsandbytes-foundation/bitsandbytes/blob/0.43.3/bitsandbytes/cextension.py). Messages it already predicted, now quoted from ROCm
reports too: https://github.com/ROCm/bitsandbytes/issues/29 (the ``rocm_enabled`` fork, whose CMake
fallback is ``gfx908;gfx90a;gfx940;gfx941;gfx942``, on a gfx1100: "Error invalid device function at
line 679 in file /bitsandbytes/csrc/ops.hip"), https://github.com/ROCm/bitsandbytes/issues/64
(a ``rocm_enabled_multi_backend`` source build: "compiled without GPU support").
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from packaging.version import Version

from pytest_rocmcompat.knowledge.checks import bitsandbytes_rocm_data, rocm_targets
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.versions import coerce_version, optional_version

ID = "bitsandbytes-rocm-build"
DOCS = "https://github.com/bitsandbytes-foundation/bitsandbytes/blob/{tag}/docs/source/installation.mdx"
SOURCE_FIRST = DOCS.format(tag="0.49.0")  # the first release with "Installation from PyPI" for ROCm
SOURCE_PREVIEW = DOCS.format(tag="0.48.0")  # "only available in our preview wheels or when building from source"
SOURCE_FLOOR = DOCS.format(tag="0.44.1")  # "fully supported from ROCm 6.1 onwards"
FIRST_PYPI_ROCM = Version("0.49.0")
MIN_ROCM = Version("6.1")

_CDNA_49 = ("gfx90a", "gfx942")
_RDNA_49 = ("gfx1100", "gfx1101")
_LATE_49 = ("gfx1150", "gfx1151", "gfx1200", "gfx1201")
_RDNA_50 = (
    "gfx1100",
    "gfx1101",
    "gfx1102",
    "gfx1103",
    "gfx1150",
    "gfx1151",
    "gfx1152",
    "gfx1153",
    "gfx1200",
    "gfx1201",
)
_R714 = ("gfx908", "gfx90a", "gfx942", "gfx950", "gfx1250", *(f"gfx103{n}" for n in range(7)), *_RDNA_50)
# release series -> ROCm release series -> GPU targets of its Linux x86-64 PyPI wheel (the
# "Installation from PyPI" table of installation.mdx at the release's tag: 0.49.0-0.49.2, 0.50.0-0.50.1).
PYPI_ROCM: dict[str, dict[str, tuple[str, ...]]] = {
    "0.49": {
        "6.2": (*_CDNA_49, *_RDNA_49),
        "6.3": (*_CDNA_49, *_RDNA_49),
        "6.4": (*_CDNA_49, *_RDNA_49, *_LATE_49),
        "7.0": (*_CDNA_49, "gfx950", *_RDNA_49, *_LATE_49),
        "7.1": (*_CDNA_49, "gfx950", *_RDNA_49, *_LATE_49),
        "7.2": (*_CDNA_49, "gfx950", *_RDNA_49, *_LATE_49),  # from 0.49.2
    },
    "0.50": {
        "6.4": (*_CDNA_49, *_RDNA_50),
        "7.0": (*_CDNA_49, "gfx950", *_RDNA_50),
        "7.1": (*_CDNA_49, "gfx950", *_RDNA_50),
        "7.2": (*_CDNA_49, "gfx950", *_RDNA_50),
        "7.14": _R714,
    },
}
LAST_TAG = {"0.49": "0.49.2", "0.50": "0.50.1"}  # the tag whose table is cited
# Every target any release, preview wheel (gfx90a/gfx942/gfx1100) or documented build serves.
EVER = frozenset(t for rows in PYPI_ROCM.values() for targets in rows.values() for t in targets)

# What bitsandbytes prints when it has no library for the GPU runtime, or its library has no
# code for the GPU (each verbatim in its source: cextension.py of 0.39.1-0.41, 0.43-0.47, 0.48+),
# and HIP's missing-kernel errors.
PREDICTS = (
    r"compiled without GPU support|(?:CUDA|ROCm) Setup failed despite (?:GPU|CUDA|ROCm) being available"
    r"|CUDA SETUP: (?:Problem|Required library version not found)"
    r"|Could not find the bitsandbytes (?:CUDA|ROCm) binary|Configured (?:CUDA|ROCm) binary not found"
    r"|bitsandbytes native library functionality but it's not available|bitsandbytes library load error"
    r"|libbitsandbytes_\w+\.so|cadam32bit_grad_fp32|'NoneType' object has no attribute 'c\w+'"
    r"|hipErrorNoBinaryForGpu|(?i:invalid device function)"
    # seventh round, cextension.py of 0.48+ (main): a runtime library its ROCm/CUDA library links is
    # missing ("{BNB_BACKEND} SETUP ERROR: Missing dependency: ..."); and HIP's text for
    # hipErrorNoBinaryForGpu, which its kernels' error check prints (csrc/compat.cuh "Error %s at line")
    r"|(?:CUDA|ROCm) SETUP ERROR: Missing dependency"
    r"|no kernel image is available for execution on the device"
)


def check(env: Environment) -> list[Finding]:
    if env.platform != "rocm":
        return []
    listed = env.libraries.get("bitsandbytes")
    release = optional_version(listed)
    rocm = env.torch_rocm or _series(coerce_version(env.rocm))
    override = rocm_targets.overridden_arch(env.env.get("HSA_OVERRIDE_GFX_VERSION"))
    archs = [override if override else a for a in env.archs if a.startswith("gfx")]
    problem = _problem(release, rocm, archs)
    if problem is None:
        return []
    what = f"bitsandbytes {listed}" if listed else "bitsandbytes"
    return [
        Finding(
            check=ID,
            reason=f"{what} {problem.reason}",
            fix="install a bitsandbytes release whose ROCm library matches this ROCm and GPU "
            "(from 0.49.0 on PyPI), or build it from source for this GPU",
            link=problem.link,
            uses=("bitsandbytes",),
            conditional=listed is None,
            uncertain=problem.uncertain,
        )
    ]


@dataclass(frozen=True)
class _Problem:
    reason: str
    link: str
    uncertain: bool = False  # a preview wheel lacks it, but a source build of that version may not


def _problem(release: Version | None, rocm: Version | None, archs: list[str]) -> _Problem | None:
    if rocm is not None and rocm < MIN_ROCM:
        return _Problem(f"has no ROCm {rocm} build (bitsandbytes supports ROCm from 6.1)", SOURCE_FLOOR)
    elsewhere = release is not None and (
        release.is_prerelease
        or release.is_devrelease
        or bool(release.local)
        or release == bitsandbytes_rocm_data.MBR_FIXED
    )
    unserved = _missing(archs, EVER)
    if unserved:
        return _Problem(
            f"has no ROCm build for {', '.join(unserved)} (no release or preview lists it)", SOURCE_FIRST, elsewhere
        )
    if release is None:
        return None
    if elsewhere:
        return _preview_problem(release, rocm, archs)
    if release < FIRST_PYPI_ROCM:
        return _Problem("from PyPI carries no ROCm library (ROCm wheels start with 0.49.0)", SOURCE_PREVIEW)
    series = f"{release.major}.{release.minor}"
    rows = dict(PYPI_ROCM.get(series) or {})
    if not rows or rocm is None:
        return None
    if release < Version("0.49.2"):
        rows.pop("7.2", None)  # the ROCm 7.2 library came with 0.49.2
    link = DOCS.format(tag=LAST_TAG[series])
    targets = rows.get(f"{rocm.major}.{rocm.minor}")
    if targets is None:  # the library must match torch's ROCm exactly (cextension.py)
        return _Problem(f"ships no library for ROCm {rocm} (its wheels: ROCm {', '.join(rows)})", link)
    missing = _missing(archs, targets)
    if missing:
        return _Problem(f"has no kernels for {', '.join(missing)} in its ROCm {rocm} library", link)
    return None


def _preview_problem(release: Version, rocm: Version | None, archs: list[str]) -> _Problem | None:
    """A dev version: what no preview wheel of it carried (a source build of it may have)."""
    preview = bitsandbytes_rocm_data.preview_of(release)
    if preview is None:
        return None
    origin = f"(a {preview.branch} preview wheel or a source build)"
    if rocm is None:
        targets = {t for row in preview.rocm.values() for t in row}
        missing = _missing(archs, targets)
        if missing:
            return _Problem(
                f"{origin}: no preview wheel of it has kernels for {', '.join(missing)}", preview.link, True
            )
        return None
    row = preview.rocm.get(f"{rocm.major}.{rocm.minor}")
    if row is None:  # the loader wants libbitsandbytes_rocm{torch's HIP major minor}
        rows = ", ".join(preview.rocm)
        return _Problem(f"{origin}: its preview wheels ship no ROCm {rocm} library (ROCm {rows})", preview.link, True)
    missing = _missing(archs, row)
    if missing:
        return _Problem(
            f"{origin}: its preview wheels' ROCm {rocm} library has no kernels for {', '.join(missing)} "
            f"({', '.join(row)})",
            preview.link,
            True,
        )
    return None


def _missing(archs: list[str], targets: Collection[str]) -> list[str]:
    """The GPUs whose base target is not among ``targets``."""
    return [a for a in archs if rocm_targets.base(a) not in targets]


def _series(v: Version | None) -> Version | None:
    return Version(f"{v.major}.{v.minor}") if v is not None else None
