"""bitsandbytes' ROCm preview wheels: which dev versions carried which ROCm libraries and GPU targets.

Before 0.49.0 no PyPI release of bitsandbytes carries a ROCm library; ROCm users ran the preview
("continuous release") wheels that CI rebuilt on every push, or built from source. A preview wheel
installs with the version of the commit it was built from, so the installed version tells which
branch and period it came from:

- ``multi-backend-refactor`` (GitHub release ``continuous-release_multi-backend-refactor``),
  August 2024 - May 2025: version ``0.43.3.dev`` (setup.py from 6d9b69b6), then
  ``{last tag}.dev+{git hash}`` (02d5b423, 2024-09-27), ``0.45.3.devN`` (setuptools_scm, 6c4d8789,
  2025-02-10) and ``1.0.0`` (setup.py ``VERSION = "1.0.0"``, #1532 "fix version", 26407538,
  2025-02-20). Every ROCm library built for ``gfx90a;gfx942;gfx1100`` (.github/scripts/build-rocm.sh
  ``bnb_rocm_arch``), for ROCm 6.1.2, 6.2 (from e8881bef, #1367) and 6.3.2 (from 7c917b0f)
  (python-package.yml ``rocm_version``). Its installation.mdx: "Pre-compiled binaries are only
  built for ROCm versions ``6.1.0``/``6.1.1``/``6.1.2``/``6.2.0`` and ``gfx90a``, ``gfx942``,
  ``gfx1100`` GPU architectures".
- ``main`` (GitHub release ``continuous-release_main``) from the ROCm backend's merge (#1683,
  888788d7, 2025-06-20, during 0.47.0.dev0): the ``__version__`` of bitsandbytes/__init__.py
  (0.47.0.dev0 ... 0.50.2.dev0); the wheels are renamed to ``1.33.7.preview`` only in the file
  name. ``gfx90a;gfx942;gfx1100`` for ROCm 6.1.2/6.2.4/6.3.x, with 6.4.4 and 7.0 from #1767
  (42e8abc3, 0.48.0.dev0) - the "Preview Wheels from ``main``" table of installation.mdx at
  0.48.0-0.48.2; the release tables' targets from #1788 (fad47f20, 2025-10-29, during 0.48.3.dev0);
  gfx1150/gfx1151 from #1822 (190d3e22); ROCm 7.1 from #1807, 7.2 from #1845 (0.49.2.dev0);
  gfx1102/gfx1103/gfx1152/gfx1153 from #1886 (3322a64f, 0.50.0.dev0); ROCm 7.14 with gfx908 and
  gfx1030-gfx1036 from #2007 (a89f7aa7), ROCm 6.2/6.3 dropped there; gfx1250 from #2023 (4e007ecf,
  0.50.1.dev0).

A dev version's row is the union of what its wheels carried over its whole period: a target
missing from it was in no preview wheel of that version. The same version is also what a source
build of that commit installs (CMake builds for ``BNB_ROCM_ARCH``, else ``AMDGPU_TARGETS``, else
what ``rocm_agent_enumerator`` reports - CMAKE_HIP_ARCHITECTURES - and only then the
``gfx90a;gfx942;gfx1100`` fallback of CMakeLists.txt), so whatever a preview lacks is a risk, not
a verdict. Sources: bitsandbytes-foundation/bitsandbytes at those commits,
https://github.com/bitsandbytes-foundation/bitsandbytes/blob/multi-backend-refactor/.github/scripts/build-rocm.sh,
https://github.com/bitsandbytes-foundation/bitsandbytes/blob/multi-backend-refactor/docs/source/installation.mdx,
https://github.com/bitsandbytes-foundation/bitsandbytes/blob/0.48.0/docs/source/installation.mdx,
https://github.com/bitsandbytes-foundation/bitsandbytes/blob/main/.github/scripts/build-rocm.sh,
https://cmake.org/cmake/help/latest/variable/CMAKE_HIP_ARCHITECTURES.html.

``bitsandbytes-rocm`` (the community forks' name, e.g. broncotc/bitsandbytes-rocm) was never
published on PyPI (https://pypi.org/pypi/bitsandbytes-rocm/json: 404); those forks install as
``bitsandbytes`` from source (``name="bitsandbytes"`` in the setup.py of broncotc/bitsandbytes-rocm
0.35.4, agrocylo/bitsandbytes-rocm 0.37.2 and arlo-phoenix/bitsandbytes-rocm-5.6 0.41.3.post1), each
for targets of its own (broncotc's Makefile hard-codes ``--amdgpu-target=gfx1030``; arlo-phoenix's
defaults to ``gfx900;gfx906;gfx908;gfx90a;gfx1030;gfx1100;gfx1101``, "Requiers ROCm 5.6+"), so a
stack naming ``bitsandbytes-rocm`` is judged by nothing here.

Two dev versions no ROCm preview wheel ever had are source builds only (:data:`SOURCE_ONLY`), and
every source build of them either has no ROCm backend or falls back to CDNA targets when CMake is
given none (``CMAKE_HIP_ARCHITECTURES "gfx908;gfx90a;gfx940;gfx941;gfx942"``):

- ``0.43.2.dev``: upstream main from 127788a9 (2024-04-11; CMake backends ``cpu, cuda, mps`` only),
  multi-backend-refactor from the ROCm backend's merge (#1207, eb3b816e, 2024-05-24) until #1299
  (6d9b69b6, 2024-08-02) moved its fallback to ``gfx90a;gfx942;gfx1100``, and ROCm/bitsandbytes
  ``rocm_enabled`` (its setup.py ``version="0.43.2.dev"``);
- ``0.44.0.dev`` without a local label: upstream main (17681f68, 2024-03-08; a0da01e6, 2024-09-11) and
  multi-backend-refactor before #1207 (no ``hip`` backend), and ROCm/bitsandbytes
  ``rocm_enabled_arch_detect``/``IFU-master-2024-03-28`` (the CDNA fallback); arlo-phoenix/bitsandbytes-rocm-5.6's
  ``hip-preprocessor`` and ``rocm_enabled_rocm_fork`` branches carry it too, built for CMake's ``AMDGPU_TARGETS``
  (so the finding is a risk, not a verdict). multi-backend-refactor's
  ``0.44.0.dev+{hash}`` (after 02d5b423) is a preview and has a local label.

Sources: https://github.com/ROCm/bitsandbytes/blob/2f124986059f4203b055da0f241c4cb0b9572786/CMakeLists.txt
(``rocm_enabled``), https://github.com/ROCm/bitsandbytes/blob/21d5ff6066389ecbafa5963a934a362091307fbd/setup.py
(``rocm_enabled_arch_detect``, ``0.44.0.dev``),
https://github.com/bitsandbytes-foundation/bitsandbytes/blob/eb3b816ee9075aba009ec387c827e41109f21ff9/CMakeLists.txt,
https://github.com/bitsandbytes-foundation/bitsandbytes/blob/a0da01e69312a385316144edbad7b11cec59efba/CMakeLists.txt.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from packaging.version import Version

REPO = "https://github.com/bitsandbytes-foundation/bitsandbytes"
SOURCE_MBR = f"{REPO}/blob/multi-backend-refactor/.github/scripts/build-rocm.sh"
SOURCE_MAIN_048 = f"{REPO}/blob/0.48.0/docs/source/installation.mdx"
SOURCE_MAIN = f"{REPO}/blob/main/.github/scripts/build-rocm.sh"

T3 = ("gfx90a", "gfx942", "gfx1100")  # every preview before fad47f20
_T4 = (*T3, "gfx1101")
_RDNA4 = ("gfx1200", "gfx1201")
_T6 = (*_T4, "gfx1102", "gfx1103")  # 3322a64f's base list
_RDNA35 = ("gfx1150", "gfx1151", "gfx1152", "gfx1153")
_R49_64 = (*_T4, "gfx1150", "gfx1151", *_RDNA4)
_R50_64 = (*_T6, *_RDNA35, *_RDNA4)
_R714_0500 = (*_R50_64, "gfx950", "gfx908", *(f"gfx103{n}" for n in range(7)))  # a89f7aa7
_R714 = (*_R714_0500, "gfx1250")  # 4e007ecf


@dataclass(frozen=True)
class Preview:
    """Preview wheels of the versions ``first <= v < end``: ROCm series -> GPU targets."""

    first: Version
    end: Version
    branch: str
    rocm: dict[str, tuple[str, ...]]
    link: str

    def holds(self, version: Version) -> bool:
        return self.first <= version < self.end


def _v(text: str) -> Version:
    return Version(text)


PREVIEWS: tuple[Preview, ...] = (
    # multi-backend-refactor's 0.43.3.dev-0.45.x dev wheels (main's own previews of 0.44.2.dev0-0.46.x
    # carried no ROCm library at all: what these lack, those lack too)
    Preview(
        _v("0.43.3.dev0"),
        _v("0.47.0.dev0"),
        "multi-backend-refactor",
        dict.fromkeys(("6.1", "6.2", "6.3"), T3),
        SOURCE_MBR,
    ),
    Preview(
        _v("1.0.0"), _v("1.0.1.dev0"), "multi-backend-refactor", dict.fromkeys(("6.1", "6.2", "6.3"), T3), SOURCE_MBR
    ),
    Preview(_v("0.47.0.dev0"), _v("0.48.0.dev0"), "main", dict.fromkeys(("6.1", "6.2", "6.3"), T3), SOURCE_MAIN_048),
    Preview(
        _v("0.48.0.dev0"),
        _v("0.48.3.dev0"),
        "main",
        dict.fromkeys(("6.1", "6.2", "6.3", "6.4", "7.0"), T3),
        SOURCE_MAIN_048,
    ),
    Preview(
        _v("0.48.3.dev0"),
        _v("0.49.0.dev0"),
        "main",
        {"6.1": T3, "6.2": _T4, "6.3": _T4, "6.4": (*_T4, *_RDNA4), "7.0": (*_T4, *_RDNA4, "gfx950")},
        SOURCE_MAIN,
    ),
    Preview(
        _v("0.49.0.dev0"),
        _v("0.49.2.dev0"),
        "main",
        {"6.2": _T4, "6.3": _T4, "6.4": _R49_64, "7.0": (*_R49_64, "gfx950"), "7.1": (*_R49_64, "gfx950")},
        SOURCE_MAIN,
    ),
    Preview(
        _v("0.49.2.dev0"),
        _v("0.50.0.dev0"),
        "main",
        {"6.2": _T4, "6.3": _T4, "6.4": _R49_64, **dict.fromkeys(("7.0", "7.1", "7.2"), (*_R49_64, "gfx950"))},
        SOURCE_MAIN,
    ),
    Preview(
        _v("0.50.0.dev0"),
        _v("0.50.1.dev0"),
        "main",
        {
            "6.2": _T6,
            "6.3": _T6,
            "6.4": _R50_64,
            **dict.fromkeys(("7.0", "7.1", "7.2"), (*_R50_64, "gfx950")),
            "7.14": _R714_0500,
        },
        SOURCE_MAIN,
    ),
    Preview(
        _v("0.50.1.dev0"),
        _v("0.50.3.dev0"),
        "main",
        {"6.4": _R50_64, **dict.fromkeys(("7.0", "7.1", "7.2"), (*_R50_64, "gfx950")), "7.14": _R714},
        SOURCE_MAIN,
    ),
)


# multi-backend-refactor's fixed version (setup.py ``VERSION = "1.0.0"``); no PyPI release has it
MBR_FIXED = Version("1.0.0")


# the CMake fallback of ROCm/bitsandbytes rocm_enabled and of multi-backend-refactor from #1207 to #1299
CDNA_FALLBACK = ("gfx908", "gfx90a", "gfx940", "gfx941", "gfx942")
SOURCE_CDNA = "https://github.com/ROCm/bitsandbytes/blob/2f124986059f4203b055da0f241c4cb0b9572786/CMakeLists.txt"


@dataclass(frozen=True)
class SourceOnly:
    """Dev versions ``first <= v < end`` that only source builds carry (no preview wheel)."""

    first: Version
    end: Version
    plain: bool  # only without a local label (with one, it is another branch's preview)
    origin: str


SOURCE_ONLY: tuple[SourceOnly, ...] = (
    SourceOnly(
        _v("0.43.2.dev0"),
        _v("0.43.2"),
        False,
        "upstream main (no ROCm backend), or multi-backend-refactor or ROCm/bitsandbytes rocm_enabled",
    ),
    SourceOnly(
        _v("0.44.0.dev0"),
        _v("0.44.0"),
        True,
        "upstream main (no ROCm backend), or ROCm/bitsandbytes rocm_enabled_arch_detect",
    ),
)


def source_only_of(version: Version) -> SourceOnly | None:
    """The source-only dev series ``version`` belongs to, if any."""
    public = Version(version.public)
    return next(
        (
            s
            for s in SOURCE_ONLY
            if public.is_devrelease and s.first <= public < s.end and not (s.plain and version.local)
        ),
        None,
    )


def preview_of(version: Version) -> Preview | None:
    """The preview wheels a dev bitsandbytes (or multi-backend-refactor's ``1.0.0``) may be."""
    public = Version(version.public)
    if not (public.is_devrelease or public == MBR_FIXED):
        return None
    return next((p for p in PREVIEWS if p.holds(public)), None)


# --- PyPI releases' ROCm libraries ------------------------------------------------------------------------------
# What each release's wheels carry, read from the wheels on PyPI (https://pypi.org/project/bitsandbytes/<v>/#files:
# the ``libbitsandbytes_rocm*`` files of bitsandbytes-<v>-py3-none-{manylinux_2_24_x86_64,win_amd64}.whl and the
# targets of their offload bundles). No manylinux_2_24_aarch64 wheel (0.46.0 on) carries any ROCm library, nor
# does any wheel before 0.49.0. The guides agree (installation.mdx "Installation from PyPI" at 0.49.2, 0.50.0,
# 0.50.1), except where a release is newer than its guide:
# - 0.49.0 and 0.49.1 have no ROCm 7.2 library (0.49.2's guide lists it);
# - 0.50.0's ROCm 7.14 library has no gfx1250 (its guide agrees; #2023 added it for 0.50.1);
# - 0.50.2 adds gfx908 and gfx1030 to every Linux library, gfx1010/gfx1011/gfx1012 to ROCm 7.14, gfx908, gfx90a,
#   gfx1010-gfx1012 and gfx1103 to Windows' ROCm 7.14 (#2046, "ci: expand ROCm architecture coverage"), and
#   a ROCm 7.15 library on Linux and Windows with the 7.14 targets (the wheels: libbitsandbytes_rocm715.so/.dll).
# A later release of a series is judged by the newest release tabled here (0.50.x after 0.50.2 as 0.50.2).
_GUIDE = f"{REPO}/blob/{{tag}}/docs/source/installation.mdx"
SOURCE_0502 = f"{REPO}/pull/2046"

_CDNA = ("gfx90a", "gfx942")
_RDNA3 = ("gfx1100", "gfx1101")
_LATE = ("gfx1150", "gfx1151", "gfx1200", "gfx1201")
_W49_62 = (*_CDNA, *_RDNA3)
_W49_64 = (*_W49_62, *_LATE)
_W49_70 = (*_CDNA, "gfx950", *_RDNA3, *_LATE)
_RDNA_50 = (*_RDNA3, "gfx1102", "gfx1103", *_RDNA35, *_RDNA4)
_W50_64 = (*_CDNA, *_RDNA_50)
_W50_70 = (*_CDNA, "gfx950", *_RDNA_50)
_RDNA2 = tuple(f"gfx103{n}" for n in range(7))
_RDNA1 = ("gfx1010", "gfx1011", "gfx1012")
_W50_714 = ("gfx908", *_CDNA, "gfx950", *_RDNA2, *_RDNA_50)
_WIN_72 = (*_RDNA3, "gfx1102", "gfx1150", "gfx1151", *_RDNA4)
_WIN_714 = (*_RDNA2, *_RDNA3, "gfx1102", *_RDNA35, *_RDNA4)
_W502_714 = (*_W50_714, "gfx1250", *_RDNA1)
_WIN502_714 = ("gfx908", "gfx90a", *_RDNA1, *_RDNA2, *_RDNA_50)

LINUX_0491 = {"6.2": _W49_62, "6.3": _W49_62, "6.4": _W49_64, "7.0": _W49_70, "7.1": _W49_70}
LINUX_0492 = {**LINUX_0491, "7.2": _W49_70}
LINUX_0500 = {"6.4": _W50_64, **dict.fromkeys(("7.0", "7.1", "7.2"), _W50_70), "7.14": _W50_714}
LINUX_0501 = {**LINUX_0500, "7.14": (*_W50_714, "gfx1250")}
LINUX_0502 = {
    "6.4": ("gfx908", *_W50_64, "gfx1030"),
    **dict.fromkeys(("7.0", "7.1", "7.2"), ("gfx908", *_W50_70, "gfx1030")),
    **dict.fromkeys(("7.14", "7.15"), _W502_714),
}
WINDOWS_0501 = {"7.2": _WIN_72, "7.14": _WIN_714}
WINDOWS_0502 = {"7.2": _WIN_72, **dict.fromkeys(("7.14", "7.15"), _WIN502_714)}


@dataclass(frozen=True)
class Wheels:
    """The PyPI releases ``first <= v < end``: their Linux x86-64 and Windows wheels' ROCm series -> GPU targets."""

    first: Version
    end: Version
    linux: dict[str, tuple[str, ...]]
    windows: dict[str, tuple[str, ...]]
    link: str  # the release series' guide (0.50.2: the PR that set its targets)

    def holds(self, version: Version) -> bool:
        return self.first <= version < self.end


PYPI_WHEELS: tuple[Wheels, ...] = (
    Wheels(_v("0.49.0"), _v("0.49.2"), LINUX_0491, {}, _GUIDE.format(tag="0.49.2")),
    Wheels(_v("0.49.2"), _v("0.50.0"), LINUX_0492, {}, _GUIDE.format(tag="0.49.2")),
    Wheels(_v("0.50.0"), _v("0.50.1"), LINUX_0500, WINDOWS_0501, _GUIDE.format(tag="0.50.1")),
    Wheels(_v("0.50.1"), _v("0.50.2"), LINUX_0501, WINDOWS_0501, _GUIDE.format(tag="0.50.1")),
    Wheels(_v("0.50.2"), _v("0.51.0"), LINUX_0502, WINDOWS_0502, SOURCE_0502),
)


def wheels_of(release: Version) -> Wheels | None:
    """The ROCm libraries of a PyPI release's wheels; None before 0.49.0 (none) or past the tabled series."""
    return next((w for w in PYPI_WHEELS if w.holds(release)), None)


def first_serving(release: Version, windows: bool, series: str, missing: Collection[str]) -> Wheels | None:
    """The first release after ``release`` whose ``series`` library carries every target of ``missing``."""
    return next(
        (
            w
            for w in PYPI_WHEELS
            if w.first > release and set(missing) <= set((w.windows if windows else w.linux).get(series, ()))
        ),
        None,
    )
