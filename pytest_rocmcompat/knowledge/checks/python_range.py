"""``python-unsupported-by-torch``: Python outside the torch release's supported range.

PyTorch RELEASE.md, "Release Compatibility Matrix" (experimental Python versions with
published wheels count as supported here, to avoid false problems); a release that table does
not cover (before 1.13, after 2.9) is judged by the CPython tags of its published wheels
(``declared_data``, generated from PyPI).

A stack that names no torch but a platform gets an *uncertain* finding when some of the torch
releases it could hold have no wheel for its Python: the releases with official builds for its
stated ROCm/CUDA release (``knowledge/wheel_targets.py``), else every release tabled here. pip's
"no matching distribution" (predicted) confirms it; a pass stands.
"""

from __future__ import annotations

from dataclasses import dataclass

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from pytest_rocmcompat.knowledge import declared_data
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.wheel_targets import release_rows, stated_build_series
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.versions import coerce_version

ID = "python-unsupported-by-torch"
SOURCE = "https://github.com/pytorch/pytorch/blob/main/RELEASE.md#release-compatibility-matrix"
# No wheel of this torch for this Python (pip's resolver), or torch.compile's own Python gate.
PREDICTS = (
    r"No matching distribution found for torch\b|Could not find a version that satisfies the requirement torch\b"
    r"|Dynamo is not supported on Python 3\.\d+|torch\.compile is not supported on Python 3\.\d+"
    r"|Python 3\.\d+\+? not yet supported for torch\.compile"
)
# torch series -> (oldest Python, newest Python with wheels)
RANGES: dict[str, tuple[str, str]] = {
    "1.13": ("3.7", "3.11"),
    "2.0": ("3.8", "3.11"),
    "2.1": ("3.8", "3.11"),
    "2.2": ("3.8", "3.12"),
    "2.3": ("3.8", "3.12"),
    "2.4": ("3.8", "3.12"),
    "2.5": ("3.9", "3.13"),
    "2.6": ("3.9", "3.13"),
    "2.7": ("3.9", "3.13"),
    "2.8": ("3.9", "3.13"),
    "2.9": ("3.10", "3.14"),
}


def python_minor(env: Environment) -> Version | None:
    v = coerce_version(env.python)
    return Version(f"{v.major}.{v.minor}") if v is not None else None


def torch_series(env: Environment) -> str | None:
    v = env.torch_version
    return f"{v.major}.{v.minor}" if v is not None else None


def check(env: Environment) -> list[Finding]:
    series, python = torch_series(env), python_minor(env)
    if series is None and python is not None and env.torch is None:
        return _at_risk(env, python)
    if python is not None and series not in RANGES:
        return _from_wheels(env, python)
    if series not in RANGES or python is None:
        return []
    low, high = (Version(x) for x in RANGES[series])
    if low <= python <= high:
        return []
    return [
        Finding(
            check=ID,
            reason=f"torch {env.torch} supports Python {low}-{high}, this is Python {env.python}",
            fix=f"use Python {low}-{high} or a torch release that supports Python {python}",
            link=SOURCE,
            everything=True,
        )
    ]


def _from_wheels(env: Environment, python: Version) -> list[Finding]:
    """A release :data:`RANGES` does not table: the CPython versions its published wheels name
    (the generated ``declared_data``, e.g. torch 1.8.1: cp36-cp39, 2.11.0: cp310-cp314).
    """
    release = declared_data.release("torch", env.torch)
    wheels = release.cpython_wheels if release is not None else None
    if release is None or not wheels or str(python) in wheels:
        return []
    ordered = sorted(wheels, key=Version)
    return [
        Finding(
            check=ID,
            reason=f"torch {env.torch} has wheels for Python {ordered[0]}-{ordered[-1]} only, this is Python {env.python}",
            fix=f"use Python {ordered[0]}-{ordered[-1]} or a torch release with wheels for Python {python}",
            link=release.source,
            everything=True,
        )
    ]


@dataclass(frozen=True)
class Candidates:
    """The official torch release series a stack that names no torch could hold on its GPU platform."""

    platform: str  # "ROCm" or "CUDA"
    release: str | None  # the ROCm/CUDA release the stack states, if any
    series: list[str]


def unnamed_torch_candidates(env: Environment) -> Candidates | None:
    """:class:`Candidates` of a ROCm or CUDA stack (the builds for its stated release, else all); ``None`` off them."""
    vendor = {"rocm": "amd", "cuda": "nvidia"}.get(env.platform or "")
    if vendor is None:
        return None
    stated = stated_build_series(env, vendor)
    return Candidates(
        "ROCm" if vendor == "amd" else "CUDA",
        (env.rocm or env.cuda) if stated else None,
        candidate_series(vendor, stated),
    )


def _at_risk(env: Environment, python: Version) -> list[Finding]:
    """The uncertain finding: some torch releases the stack could hold have no wheel for ``python``."""
    found = unnamed_torch_candidates(env)
    if found is None or not found.series:
        return []
    candidates = found.series
    fits = [s for s in candidates if Version(RANGES[s][0]) <= python <= Version(RANGES[s][1])]
    if len(fits) == len(candidates):
        return []
    built = f" built for {found.platform} {found.release}" if found.release else ""
    which = f"only torch {', '.join(fits)}" if fits else f"none of torch {candidates[0]}-{candidates[-1]}"
    return [
        Finding(
            check=ID,
            reason=f"the stack names no torch, and of the torch releases{built}, {which} has wheels for "
            f"Python {python}",
            fix="name the torch release (torch=VERSION) to settle it; use a Python its wheels support",
            link=SOURCE,
            everything=True,
            uncertain=True,
        )
    ]


def candidate_series(vendor: str, series: str | None) -> list[str]:
    """Torch series (tabled in :data:`RANGES`) with an official release build of ``vendor``, for ``series``."""
    specs = [SpecifierSet(spec) for _, spec, _, _ in release_rows(vendor, series)]
    return [s for s in RANGES if any(Version(f"{s}.0") in spec for spec in specs)]
