"""What GPU-stack releases declared, read from the generated ``data/declared.json``.

``tools/regenerate_declared.py`` writes the file from PyPI's metadata (every release since
2020 of 77 packages: torch, vLLM, SGLang, xformers, the domain libraries, the Hugging Face
libraries and the fine-tuning, RL and inference libraries on them; their ``Requires-Dist`` on
torch, NumPy, Triton, the ``nvidia-*`` wheels and each other (the file's ``kept`` list; those
gated on an extra left out), their wheel tags, and for bitsandbytes the native libraries inside
its wheel); this module only reads it.
A release the file does not list is unknown (``None``), never "declares nothing".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from packaging.markers import InvalidMarker, Marker, UndefinedEnvironmentName
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from pytest_rocmcompat.knowledge import packaged_data

DATA = "data/declared.json"
# a wheel's Python tag as the data records it: cp310, cp37-cp37m, cp313-cp313t, cp39-abi3
_CP_TAG = re.compile(r"cp(\d)(\d+)(?:-cp\d+[mt]?)?(-abi3)?")
# where each release's requirements were read (the file's "index" pattern names the project page)
RELEASE_SOURCE = "https://pypi.org/project/{name}/{version}/"
# Linux x86_64, where the PyPI CUDA wheels and their nvidia-* dependencies apply
LINUX_X86_64 = {
    "platform_system": "Linux",
    "platform_machine": "x86_64",
    "sys_platform": "linux",
    "os_name": "posix",
    "platform_python_implementation": "CPython",
    "implementation_name": "cpython",
    "extra": "",
}


@dataclass(frozen=True)
class Release:
    """One release as the data file records it."""

    name: str
    version: str
    date: str
    requires: tuple[str, ...] | None  # None: the release published no requirements (sdist metadata < 2.2)
    read_from: str  # the metadata file it was read from
    wheel_tags: tuple[str, ...] = ()  # the Python tags of its wheels (``cp310``, ``cp313-cp313t``, ``py3``)
    sdist: bool = False  # it also published a source archive (pip builds from it where no wheel fits)
    native: tuple[str, ...] = ()  # the ``*.so`` files in its Linux x86_64 wheel's package folder (data's NATIVE)
    platforms: tuple[str, ...] = ()  # the platform tags of its wheels (``manylinux_2_28_x86_64``, ``win_amd64``)

    @property
    def source(self) -> str:
        return RELEASE_SOURCE.format(name=self.name, version=self.version)

    @property
    def cpython_wheels(self) -> frozenset[str] | None:
        """The CPython minors (``"3.10"``) it has a version-specific wheel for; ``None`` when any
        Python may install it (a ``py3``/``abi3`` wheel) or it published no wheel at all.
        """
        minors: set[str] = set()
        for tag in self.wheel_tags:
            if tag.startswith(("pp", "cp2", "py2")):  # PyPy's and Python 2's wheels serve no CPython 3
                continue
            m = _CP_TAG.fullmatch(tag)
            if m is None or m.group(3):  # py3, py39, cp39-abi3: not bound to one Python
                return None
            minors.add(f"{m.group(1)}.{m.group(2)}")
        return frozenset(minors) or None


@cache
def _data() -> dict[str, object]:
    return packaged_data.load(DATA)


def generated() -> str:
    """The date the data was generated (``YYYY-MM-DD``)."""
    return str(_data()["generated"])


def since() -> str:
    """The first upload date the data covers."""
    return str(_data()["since"])


@cache
def _releases(name: str) -> dict[Version, tuple[str, dict[str, object]]]:
    packages = _data()["packages"]
    assert isinstance(packages, dict)
    found: dict[Version, tuple[str, dict[str, object]]] = {}
    for text, entry in (packages.get(canonicalize_name(name)) or {}).items():
        try:
            found[Version(text)] = (text, entry)
        except InvalidVersion:
            continue
    return found


def versions(name: str) -> tuple[Version, ...]:
    """Every recorded release of ``name``, oldest first."""
    return tuple(sorted(_releases(name)))


def covers(name: str) -> bool:
    """Whether the data lists ``name`` at all."""
    return bool(_releases(name))


def release(name: str, version: str | Version | None) -> Release | None:
    """The recorded release of ``name`` at ``version`` (a local label such as ``+cu124`` ignored)."""
    if version is None:
        return None
    try:
        public = Version(Version(str(version)).public)
    except InvalidVersion:
        return None
    hit = _releases(name).get(public)
    if hit is None:
        return None
    text, entry = hit
    requires, tags, native = entry.get("requires"), entry.get("python"), entry.get("native")
    platforms = entry.get("platforms")
    return Release(
        name=canonicalize_name(name),
        version=text,
        date=str(entry.get("date", "")),
        requires=tuple(str(r) for r in requires) if isinstance(requires, list) else None,
        read_from=str(entry.get("from", "")),
        wheel_tags=tuple(str(t) for t in tags) if isinstance(tags, list) else (),
        sdist=entry.get("sdist") is True,
        native=tuple(str(n) for n in native) if isinstance(native, list) else (),
        platforms=tuple(str(p) for p in platforms) if isinstance(platforms, list) else (),
    )


def requirements(rel: Release, python: str | None = None) -> tuple[Requirement, ...]:
    """``rel``'s requirements that hold on Linux x86_64 (with ``python`` if given), extras left out."""
    return requirements_of(rel.requires or (), python)


def requirements_of(texts: Iterable[str], python: str | None = None) -> tuple[Requirement, ...]:
    """The ``Requires-Dist`` ``texts`` that hold on Linux x86_64 (with ``python`` if given), extras and
    unparseable ones left out.
    """
    found = []
    for text in texts:
        try:
            req = Requirement(text)
        except InvalidRequirement:
            continue
        if marker_holds(req.marker, python):
            found.append(req)
    return tuple(found)


def requirements_on(rel: Release, dist: str, python: str | None = None) -> tuple[Requirement, ...]:
    """:func:`requirements` on the distribution ``dist``."""
    wanted = canonicalize_name(dist)
    return tuple(r for r in requirements(rel, python) if canonicalize_name(r.name) == wanted)


_INTEGRATION = re.compile(r"""^extra\s*==\s*["']([A-Za-z0-9._-]+)["']$""")


def integration_extra(req: Requirement) -> bool:
    """Whether ``req`` is versioned and gated on nothing but an extra named after the package it requires
    (``vllm>=0.10.2; extra == "vllm"``: what ``pip install trl[vllm]`` pins).
    """
    m = _INTEGRATION.match(str(req.marker).strip()) if req.marker is not None else None
    return m is not None and canonicalize_name(m.group(1)) == canonicalize_name(req.name) and bool(req.specifier)


def integration_requirements(rel: Release) -> tuple[Requirement, ...]:
    """``rel``'s :func:`integration_extra` requirements, returned without the marker."""
    found = []
    for text in rel.requires or ():
        try:
            req = Requirement(text)
        except InvalidRequirement:
            continue
        if integration_extra(req):
            found.append(Requirement(f"{req.name}{req.specifier}"))
    return tuple(found)


@cache
def pinned_to_torch(name: str, torch: Version) -> tuple[Version, ...]:
    """The releases of ``name`` whose torch requirements are all exact pins admitting ``torch`` (``torch==2.5.1``):
    the releases built for that torch. Releases declaring a floor or no torch tell nothing.
    """
    found = []
    for version in versions(name):
        rel = release(name, version)
        pins = requirements_on(rel, "torch") if rel is not None else ()
        exact = pins and all(any(s.operator == "==" for s in req.specifier) for req in pins)
        if exact and all(req.specifier.contains(torch, prereleases=True) for req in pins):
            found.append(version)
    return tuple(found)


def marker_holds(marker: Marker | None, python: str | None) -> bool:
    """Whether a requirement's marker holds on Linux x86_64 with ``python`` (False where it cannot be told)."""
    if marker is None:
        return True
    env = dict(LINUX_X86_64)
    if python:
        try:
            v = Version(python)
        except InvalidVersion:
            v = None
        if v is not None:
            env["python_version"] = f"{v.major}.{v.minor}"
            env["python_full_version"] = str(v)
    try:
        return bool(marker.evaluate(env))
    except (InvalidMarker, UndefinedEnvironmentName):
        return False
