"""The Triton that each official ROCm build of torch (download.pytorch.org/whl/rocmX.Y) requires.

PyPI's torch metadata is the CUDA wheel's (``triton==X``); the ROCm wheels on
download.pytorch.org declare their own Triton distribution instead, which the generated
data lacks. Inductor imports Triton internals that move between releases, so
``torch.compile`` fails with another Triton.

How the pin is made (primary sources):

- 2.1 and 2.2: ``pytorch/builder``'s release branches append
  ``pytorch-triton-rocm==$(cat .ci/docker/triton_version.txt)`` to the ROCm wheel's
  ``PYTORCH_EXTRA_INSTALL_REQUIREMENTS`` (``manywheel/build_rocm.sh``), the same file
  ``build_cuda.sh`` reads for ``triton==`` (:data:`BUILDER_21`, :data:`BUILDER_22`). 2.2's
  Python 3.12 wheels declare no Triton.
- 2.3 on: pytorch's ``binary_populate_env.sh`` (moved there by pytorch PR #120744, see
  :data:`MOVED_TO_PYTORCH`) appends ``pytorch-triton-rocm==${TRITON_VERSION}`` for a
  ``+rocm`` wheel, ``TRITON_VERSION`` again read from ``triton_version.txt`` as for the CUDA
  wheel's ``triton==``. From 2.10 the distribution is ``triton-rocm`` (:data:`RENAMED`);
  from 2.14 ``triton-rocm~=X`` (:data:`MAIN_POPULATE_ENV`), out of this table's range.

So a release's ROCm pin is the version its PyPI metadata pins for ``triton``; each row's source
is that metadata, and users' reports quoting the ROCm pair agree (see the tests). The one file
is read whatever the ROCm index (``rocm6.1``, ``rocm6.2`` ...), so one torch release pins the
same Triton on every ROCm index; download.pytorch.org even serves one ``pytorch-triton-rocm``
wheel under several ROCm indexes (:data:`ONE_WHEEL`).

Version scheme: a release build pins a plain ``X.Y.Z`` (``pytorch-triton-rocm==3.1.0``);
nightlies pin ``X.Y.Z+<triton commit>``: ten hex digits in builder's scripts and still in
late-2024 nightlies (``pytorch-triton-rocm==3.1.0+cf34004b8a`` under
``torch-2.6.0.dev20241113+rocm6.2``, :data:`NIGHTLY_REPORT`), ``+git`` and eight in today's
``binary_populate_env.sh``. AMD's own builds (repo.radeon.com, local tags such as
``+rocm6.4.1.git1ded221d``) and TheRock's (``+rocmsdk…``, ``+rocm7.12.0a…``) pin their own
Triton and are not answered here.

torch 2.0.x is left out: its ROCm wheels from download.pytorch.org carried
``pytorch-triton-rocm`` only as a ``setup.py`` extra, not an install requirement
(:data:`EXTRA_ONLY_20`), and the range pytorch PR #95793 set (2.0.x) was not checked against
the wheel's metadata.
"""

from __future__ import annotations

import re

from packaging.version import Version

from pytest_rocmcompat.stack.versions import optional_version

__all__ = ["TORCH_ROCM_TRITON", "release_rocm_triton_pin", "rocm_triton_distribution", "rocm_triton_pin"]

BUILDER_21 = "https://github.com/pytorch/builder/pull/1515"  # [Release-Only] 2.1.0: build_rocm.sh
BUILDER_22 = "https://github.com/pytorch/builder/pull/1632"  # [RELEASE-ONLY CHANGES] 2.2
MOVED_TO_PYTORCH = "https://github.com/pytorch/builder/pull/1712"  # needs pytorch PR #120744
MAIN_POPULATE_ENV = "https://github.com/pytorch/pytorch/blob/main/.ci/pytorch/binary_populate_env.sh"
# torch 2.10's ROCm wheels pull triton-rocm, not pytorch-triton-rocm
RENAMED = "https://github.com/invoke-ai/InvokeAI/pull/9297"
ONE_WHEEL = "https://github.com/ROCm/triton/issues/626"
NIGHTLY_REPORT = "https://github.com/pytorch/pytorch/issues/141956"
EXTRA_ONLY_20 = "https://github.com/pytorch/builder/pull/1463"

RENAMED_IN = Version("2.10")
_OLD_NAME = "pytorch-triton-rocm"
_NEW_NAME = "triton-rocm"


def _pypi(version: str) -> str:
    return f"https://pypi.org/project/torch/{version}/"


# torch release series ("2.5") or exact release ("2.7.1") -> (Triton version its ROCm wheels pin,
# source). The exact release wins over its series.
TORCH_ROCM_TRITON: dict[str, tuple[str, str]] = {
    "2.1": ("2.1.0", _pypi("2.1.0")),  # 2.1.0, 2.1.1, 2.1.2 all triton==2.1.0
    "2.2": ("2.2.0", _pypi("2.2.0")),  # 2.2.0 .. 2.2.2 triton==2.2.0
    "2.3.0": ("2.3.0", _pypi("2.3.0")),
    "2.3.1": ("2.3.1", _pypi("2.3.1")),
    "2.4": ("3.0.0", _pypi("2.4.0")),  # 2.4.0, 2.4.1
    "2.5": ("3.1.0", _pypi("2.5.0")),  # 2.5.0, 2.5.1
    "2.6": ("3.2.0", _pypi("2.6.0")),
    "2.7.0": ("3.3.0", _pypi("2.7.0")),
    "2.7.1": ("3.3.1", _pypi("2.7.1")),
    "2.8": ("3.4.0", _pypi("2.8.0")),
    "2.9.0": ("3.5.0", _pypi("2.9.0")),
    "2.9.1": ("3.5.1", _pypi("2.9.1")),
    "2.10": ("3.6.0", _pypi("2.10.0")),
    "2.11": ("3.6.0", _pypi("2.11.0")),
    "2.12.0": ("3.7.0", _pypi("2.12.0")),
    "2.12.1": ("3.7.1", _pypi("2.12.1")),
    "2.13": ("3.7.1", _pypi("2.13.0")),
}

# the releases a series row covers (PyPI's torch releases); another patch release is unknown
_SERIES_PATCHES: dict[str, tuple[int, ...]] = {
    "2.1": (0, 1, 2),
    "2.2": (0, 1, 2),
    "2.4": (0, 1),
    "2.5": (0, 1),
    "2.6": (0,),
    "2.8": (0,),
    "2.10": (0,),
    "2.11": (0,),
    "2.13": (0,),
}

# an official ROCm wheel's local tag: "rocm6.2", "rocm6.2.4" (not "rocm6.4.1.git…", "rocmsdk…")
_OFFICIAL_LOCAL = re.compile(r"^rocm\d+\.\d+(\.\d+)?$")


def rocm_triton_distribution(torch_version: Version) -> str:
    """``pytorch-triton-rocm`` before torch 2.10, ``triton-rocm`` from 2.10 on."""
    return _NEW_NAME if Version(torch_version.base_version) >= RENAMED_IN else _OLD_NAME


def rocm_triton_pin(torch_version: str) -> tuple[str, str] | None:
    """(requirement, source) that an official ``+rocmX.Y`` torch release's wheel declares.

    ``"2.5.1+rocm6.2"`` -> ``("pytorch-triton-rocm==3.1.0", source)``. ``None`` for a
    development, nightly, pre- or post-release, a build without an official ``+rocm`` tag
    (CUDA, CPU, AMD's or TheRock's builds, a source build) or a release not in the table.
    Before 2.4 the requirement carries ``python_version < "3.12"``: 2.2's Python 3.12 ROCm wheels
    declare no Triton (builder's release/2.2 ``build_rocm.sh``), and pytorch PR #128525 added it for
    3.12 only in 2.4 (PyPI's CUDA pins of 2.3.x carry the same marker).
    """
    version = optional_version(str(torch_version))
    if version is None:
        return None
    if version.is_prerelease or version.is_devrelease or version.is_postrelease:
        return None
    if not version.local or not _OFFICIAL_LOCAL.match(version.local):
        return None
    return _release_pin(version)


def release_rocm_triton_pin(release: Version) -> tuple[str, str] | None:
    """(requirement, source) every official ROCm wheel of torch ``release`` declares, whatever its ROCm index
    (one ``triton_version.txt`` is read for all: the module docstring), for a release named without its
    build tag (``2.5.1``); ``None`` for a tagged, pre-, dev or post-release, or one not in the table.
    """
    if release.local or release.is_prerelease or release.is_devrelease or release.is_postrelease:
        return None
    return _release_pin(release)


def _release_pin(version: Version) -> tuple[str, str] | None:
    """The official ROCm wheels' Triton requirement of an official release (its local tag not read)."""
    major, minor, patch = (*version.release, 0, 0)[:3]
    series = f"{major}.{minor}"
    row = TORCH_ROCM_TRITON.get(f"{series}.{patch}")
    if row is None and patch in _SERIES_PATCHES.get(series, ()):
        row = TORCH_ROCM_TRITON.get(series)
    if row is None:
        return None
    pinned, source = row
    marker = '; python_version < "3.12"' if (major, minor) < (2, 4) else ""
    return f"{rocm_triton_distribution(version)}=={pinned}{marker}", source
