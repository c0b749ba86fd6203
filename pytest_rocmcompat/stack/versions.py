"""Version helpers on top of :mod:`packaging`: parsing, series matching, build tags.

Axis values such as ``"2.6"`` name a *series*: they match every ``2.6.x``.
Specifiers (``">=2.5,<2.7"``) follow PEP 440; local tags such as ``+rocm6.2``
are ignored unless the specifier names one (``"==2.5.1+rocm6.2"``).
"""

from __future__ import annotations

import re
from functools import lru_cache

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

__all__ = [
    "InvalidSpecifier",
    "InvalidVersion",
    "build_tag_version",
    "coerce_version",
    "in_series",
    "parse_specifier",
    "parse_version",
    "specifier_contains",
]

_LEADING_VERSION = re.compile(r"^\s*v?(\d+(?:\.\d+)*)")


@lru_cache(maxsize=4096)
def parse_version(text: str) -> Version:
    """Parse a PEP 440 version; raise :class:`InvalidVersion` with the text."""
    return Version(str(text).strip())


def optional_version(text: str | None) -> Version | None:
    """A PEP 440 version, or ``None`` for no text or text that is not one (no best-effort reading)."""
    try:
        return parse_version(text) if text else None
    except InvalidVersion:
        return None


def coerce_version(text: str | None) -> Version | None:
    """Best-effort version from tool output: ``"6.2.41133-dd7f95766"`` -> ``6.2.41133``.

    Returns ``None`` when no leading dotted number is present.
    """
    if text is None:
        return None
    text = str(text).strip()
    try:
        return parse_version(text)
    except InvalidVersion:
        match = _LEADING_VERSION.match(text)
        return Version(match.group(1)) if match else None


@lru_cache(maxsize=4096)
def parse_specifier(text: str) -> SpecifierSet:
    """Parse a specifier set. A bare version (``"2.5.1"``) means ``==2.5.1``.

    Raises :class:`InvalidSpecifier` for anything else that is not PEP 440.
    """
    text = str(text).strip()
    if not text:
        raise InvalidSpecifier("empty specifier")
    if text[0].isdigit():
        text = "==" + text
    return SpecifierSet(text)


def specifier_contains(spec: SpecifierSet, version: Version | str) -> bool:
    """Whether ``version`` satisfies ``spec``; pre-releases and dev builds count."""
    return spec.contains(version, prereleases=True)


def in_series(version: Version, series: Version) -> bool:
    """Whether ``version`` belongs to the axis value ``series``.

    ``2.6.3`` is in series ``2.6`` and ``2``; ``2.6.0`` is in ``2.6.0``;
    local tags are ignored; a pre-release belongs to its series.
    """
    n = len(series.release)
    release = version.release + (0,) * max(0, n - len(version.release))
    return release[:n] == series.release and version.epoch == series.epoch


# ``rocm7.0.0rc20250811`` (AMD's release-candidate wheels) and ``rocm7.10.0a20251120`` (TheRock's nightlies)
# name a ROCm prerelease: kept as one, so that ranges compare it per bound (derived_facts.contains)
_TAG = re.compile(r"^(rocm|cu|cuda)(\d+)(?:\.(\d+))?(?:\.(\d+))?((?:a|b|rc|dev)\d+)?$")


def build_tag_version(local: str | None, kind: str) -> Version | None:
    """The toolkit version named in a torch local tag.

    ``build_tag_version("rocm6.2", "rocm")`` -> ``6.2``;
    ``build_tag_version("cu121", "cuda")`` -> ``12.1``; ``build_tag_version("rocm7.0.0rc20250811", "rocm")``
    -> ``7.0.0rc20250811`` (a prerelease); otherwise ``None``.
    """
    if not local:
        return None
    match = _TAG.match(local)
    if not match:
        return None
    prefix, major, minor, patch, pre = match.groups()
    if kind == "rocm" and prefix == "rocm":
        return Version(".".join(p for p in (major, minor or "0", patch) if p) + (pre or ""))
    if pre:
        return None  # no CUDA build is labelled so
    if kind == "cuda" and prefix in ("cu", "cuda"):
        if minor is None and prefix == "cu" and len(major) >= 3:
            # cu121 -> 12.1, cu118 -> 11.8, cu130 -> 13.0
            return Version(f"{major[:-1]}.{major[-1]}")
        return Version(".".join(p for p in (major, minor or "0", patch) if p))
    return None
