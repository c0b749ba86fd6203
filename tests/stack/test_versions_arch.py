"""Pure helpers: version series, build tags, arch names."""

from __future__ import annotations

import pytest
from packaging.version import Version

from pytest_rocmcompat.stack.arch import arch_matches, is_valid_arch, is_valid_arch_pattern, normalize_arch, nvidia_arch
from pytest_rocmcompat.stack.versions import (
    InvalidSpecifier,
    build_tag_version,
    coerce_version,
    in_series,
    parse_specifier,
    specifier_contains,
)


@pytest.mark.parametrize(
    ("version", "series", "expected"),
    [
        ("2.6.3", "2.6", True),
        ("2.6.0+rocm6.2", "2.6", True),
        ("2.60.0", "2.6", False),
        ("2.7.0", "2.6", False),
        ("2.6", "2.6.0", True),
        ("2.6.1", "2.6.0", False),
        ("3.11.7", "3", True),
        ("2.6.0.dev20241001", "2.6", True),
        ("1!2.6.0", "2.6", False),
    ],
)
def test_in_series(version: str, series: str, expected: bool) -> None:
    assert in_series(Version(version), Version(series)) is expected


@pytest.mark.parametrize(
    ("spec", "version", "expected"),
    [
        (">=2.5", "2.5.1+rocm6.2", True),
        ("==2.5.1", "2.5.1+rocm6.2", True),
        ("==2.5.1+rocm6.2", "2.5.1+rocm6.2", True),
        ("==2.5.1+rocm6.2", "2.5.1+cu121", False),
        ("<2.6", "2.6.0.dev20241001+rocm6.2", False),
        ("<2.6", "2.5.0rc1", True),
        ("2.5.1", "2.5.1", True),
        ("2.5.1", "2.5.2", False),
        ("==2.5.*", "2.5.9+rocm6.2", True),
    ],
)
def test_specifier_semantics(spec: str, version: str, expected: bool) -> None:
    assert specifier_contains(parse_specifier(spec), version) is expected


@pytest.mark.parametrize("bad", [">=2.x", "", "  ", "=>2.5", "~=2", "latest"])
def test_bad_specifier_raises(bad: str) -> None:
    with pytest.raises(InvalidSpecifier):
        parse_specifier(bad)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("6.2.41133-dd7f95766", "6.2.41133"),
        ("12.4", "12.4"),
        ("550.54.15", "550.54.15"),
        ("v6.3.0", "6.3.0"),
        ("garbage", None),
        (None, None),
    ],
)
def test_coerce_version(text, expected) -> None:
    result = coerce_version(text)
    assert (str(result) if result is not None else None) == expected


@pytest.mark.parametrize(
    ("local", "kind", "expected"),
    [
        ("rocm6.2", "rocm", "6.2"),
        ("rocm6.2.4", "rocm", "6.2.4"),
        ("rocm7", "rocm", "7.0"),
        ("cu121", "cuda", "12.1"),
        ("cu118", "cuda", "11.8"),
        ("cu130", "cuda", "13.0"),
        # AMD's release-candidate wheels (torch 2.7.1+rocm7.0.0rc20250811) and TheRock's
        # nightlies (torch 2.10.0a0+rocm7.10.0a20251120): ROCm prereleases
        ("rocm7.0.0rc20250811", "rocm", "7.0.0rc20250811"),
        ("rocm7.10.0a20251120", "rocm", "7.10.0a20251120"),
        ("rocm7.0.0rc20250811", "cuda", None),
        ("cu128rc1", "cuda", None),
        ("cpu", "rocm", None),
        ("rocm6.2", "cuda", None),
        (None, "rocm", None),
    ],
)
def test_build_tag_version(local, kind, expected) -> None:
    result = build_tag_version(local, kind)
    assert (str(result) if result is not None else None) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("gfx906:sramecc+:xnack-", "gfx906"),
        ("gfx90a:xnack+", "gfx90a"),
        (" GFX942 ", "gfx942"),
        ("sm_90", "sm_90"),
        ("SM90", "sm_90"),
        ("gfx1100", "gfx1100"),
    ],
)
def test_normalize_arch(raw: str, expected: str) -> None:
    assert normalize_arch(raw) == expected


def test_arch_names_and_globs() -> None:
    assert nvidia_arch(9, 0) == "sm_90" and nvidia_arch(8, 9) == "sm_89"
    assert is_valid_arch("gfx942") and is_valid_arch("sm_100a") and not is_valid_arch("gfx94*")
    assert not is_valid_arch("vega20") and not is_valid_arch("gfx")
    assert is_valid_arch_pattern("gfx94*") and is_valid_arch_pattern("sm_8?")
    assert not is_valid_arch_pattern("mi300") and not is_valid_arch_pattern("*")
    assert arch_matches("gfx942", "gfx94*") and arch_matches("gfx906:xnack-", "gfx906")
    assert not arch_matches("gfx1100", "gfx11") and not arch_matches("gfx90a", "gfx94*")
