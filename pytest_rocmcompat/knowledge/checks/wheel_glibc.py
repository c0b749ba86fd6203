"""``wheel-needs-newer-glibc``: a release's Linux wheels need a newer glibc than the stack's distribution ships.

What the build says it needs: the manylinux tag of every Linux x86_64 wheel a release published (the
generated :mod:`..declared_data`, read from PyPI): ``torch 2.7.0`` has ``manylinux_2_28_x86_64`` wheels
only, ``vllm 0.12.0`` ``manylinux_2_31``, ``sglang 0.5.11`` ``manylinux_2_34``. A wheel installs only where
glibc is at least its tag's (PEP 600); the distribution's glibc comes from :mod:`..distro_glibc` (an ``os``
naming the release: ``--rocm-set os="CentOS 7"``). Where even the oldest glibc any of the release's Linux
wheels accepts is newer than the distribution's, pip finds no wheel (without an sdist it refuses the
release; with one it builds it from source, a risk), and a copy installed anyway (a venv or image built
elsewhere, ``--platform``, conda) stops at load with the loader's ``version `GLIBC_2.28' not found``.

torch's own x86_64 wheels before 2.7 are tagged ``manylinux1`` whatever they were built on: PyTorch 2.6's
CUDA 12.6, ROCm 6.2.4 and XPU builds (download.pytorch.org, ``+cu126``/``+rocm6.2.4``/``+xpu``) were made on
Manylinux 2.28 (TORCH_26_SOURCE), which no tag shows: :data:`BUILD_FLOORS`. A release whose Linux wheels
carry no manylinux tag (none, or ``linux_x86_64`` only) and a distribution not tabled are not judged; the
machine is taken as x86_64.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from packaging.version import Version

from pytest_rocmcompat.knowledge import declared_data, distro_glibc
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.stack.environment import Environment, normalize_library
from pytest_rocmcompat.stack.versions import coerce_version

ID = "wheel-needs-newer-glibc"
TORCH_26_SOURCE = "https://pytorch.org/blog/pytorch2-6/"
# (torch release, its build labels) -> the glibc those builds need beyond what their tag says
BUILD_FLOORS: dict[tuple[str, tuple[str, ...]], str] = {
    ("2.6", ("cu126", "rocm6.2.4", "xpu")): "2.28",
}
NEWEST_GLIBC_MINOR = 45  # the loader's message is predicted for glibc 2.(distribution + 1) ... 2.45


def predicts(glibc: Version, name: str = r"[\w.-]+") -> str:
    """The failures of a build of ``name`` for a glibc newer than ``glibc``: the loader naming such a version,
    pip's and uv's refusal of the wheel's platform tag, and pip finding no release of ``name`` to install.
    """
    newer = "|".join(str(m) for m in range(glibc.minor + 1, NEWEST_GLIBC_MINOR + 1))
    return (
        rf"version [`'\"‘]GLIBC_2\.(?:{newer})['\"’]? not found"
        r"|is not a supported wheel on this platform|has no wheels with a matching platform tag"
        rf"|No matching distribution found for {name}\b|Could not find a version that satisfies the requirement {name}\b"
    )


# Every glibc a tabled distribution ships, any package: the check-wide signature (each finding claims only its own)
PREDICTS = predicts(Version("2.12"))


def _spelled(name: str) -> str:
    """``name`` as pip may print it: ``-``, ``_`` and ``.`` alike, any case."""
    return "(?i:" + "[-_.]".join(re.escape(part) for part in re.split(r"[-_.]+", name)) + ")"


class Floor(NamedTuple):
    """The oldest glibc any Linux x86_64 wheel of a release accepts, the release, and the source that says so."""

    glibc: Version
    release: declared_data.Release
    link: str


def wheel_floor(name: str, version: str) -> Floor | None:
    """The release's :class:`Floor`: its wheels' manylinux tags, raised for torch by :data:`BUILD_FLOORS`;
    ``None`` if not known.
    """
    release = declared_data.release(name, version)
    if release is None:
        return None
    floors = [g for tag in release.platforms if (g := distro_glibc.tag_glibc(tag)) is not None]
    if not floors:
        return None
    tagged = min(floors)
    built = _build_floor(version) if normalize_library(name) == "torch" else None
    if built is not None and built >= tagged:
        return Floor(built, release, TORCH_26_SOURCE)
    return Floor(tagged, release, release.source)


def _build_floor(torch: str) -> Version | None:
    v = coerce_version(torch)
    if v is None:
        return None
    series = f"{v.major}.{v.minor}"
    for (release, labels), floor in BUILD_FLOORS.items():
        if series == release and (v.local or "") in labels:
            return Version(floor)
    return None


def check(env: Environment) -> list[Finding]:
    glibc = distro_glibc.glibc(env.os)
    if glibc is None:
        return []
    shown = env.os.split(" ", 1)[-1]
    packages = {normalize_library(n): v for n, v in env.libraries.items()}
    if env.torch:
        packages["torch"] = env.torch
    found: list[Finding] = []
    for name, version in sorted(packages.items()):
        floor = wheel_floor(name, version)
        if floor is None or floor.glibc <= glibc:
            continue
        needed, release = floor.glibc, floor.release
        torch = name == "torch"
        then = "pip builds it from its sdist, if it can" if release.sdist else "pip finds no wheel to install"
        found.append(
            Finding(
                check=ID,
                reason=f"{name} {version}'s Linux wheels need glibc {needed} or newer; {shown} ships glibc {glibc}: "
                f"{then}, and a copy installed anyway fails to load",
                fix=f"use a distribution with glibc >= {needed} (or a container of one), or a {name} release whose "
                f"wheels accept glibc {glibc}",
                link=floor.link,
                everything=torch,  # every test imports torch
                uses=() if torch else (name,),
                uncertain=release.sdist,  # a source build may succeed
                predicts=predicts(glibc, _spelled(name)),
                signature_only=True,
            )
        )
    return found
