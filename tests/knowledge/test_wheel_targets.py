"""The official wheels' target table: nightlies by build day, corrected release rows, sources."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.wheel_targets import NIGHTLY, TABLE, build_day, official_targets
from pytest_rocmcompat.stack.versions import parse_version


def targets(torch: str) -> tuple[str, ...]:
    found = official_targets(torch)
    assert found is not None, torch
    return found[0]


@pytest.mark.parametrize(
    ("arch", "before", "after"),
    [
        # pytorch/pytorch#141667 (2024-12-04): gfx1101 joins the ROCm wheels
        ("gfx1101", "2.6.0.dev20241203+rocm6.2", "2.6.0.dev20241204+rocm6.2.4"),
        # #147761 (2025-02-24): gfx1102
        ("gfx1102", "2.7.0.dev20250223+rocm6.3", "2.7.0.dev20250301+rocm6.2.4"),
        # #148562 (2025-03-05): gfx1200/gfx1201 (RDNA4)
        ("gfx1201", "2.7.0.dev20250304+rocm6.3", "2.7.0.dev20250305+rocm6.3"),
        # #167299 (2025-11-07): gfx115x no longer behind the ROCm 7.0 check
        ("gfx1151", "2.10.0.dev20251106+rocm6.4", "2.10.0.dev20251107+rocm6.4"),
        ("gfx1150", "2.10.0.dev20251020+rocm6.4", "2.10.0.dev20251110+rocm7.0"),
        # #179653 (opened 2026-04-08, landed by 2026-04-17): gfx1103
        ("gfx1103", "2.12.0.dev20260301+rocm7.1", "2.12.0.dev20260420+rocm7.2"),
    ],
)
def test_nightly_lacks_a_target_before_its_change_and_has_it_after(arch: str, before: str, after: str) -> None:
    assert arch not in targets(before)
    assert arch in targets(after)


def test_first_cu128_nightlies_still_carried_pascal_and_volta() -> None:
    early = targets("2.7.0.dev20250201+cu128")  # #145792 (2025-01-27); #147607 dropped sm_70 on 2025-03-05
    assert {"sm_50", "sm_60", "sm_70", "sm_120"} <= set(early)
    assert "sm_60" not in targets("2.7.0.dev20250401+cu128") and "sm_60" not in targets("2.7.0+cu128")


def test_rocm7_nightly_before_the_unconditional_change_has_the_rocm7_only_targets() -> None:
    early = targets("2.10.0.dev20250929+rocm7.0")  # the ROCm >= 7.0 check added them for rocm7.x
    assert {"gfx950", "gfx1150", "gfx1151"} <= set(early) and "gfx1103" not in early


@pytest.mark.parametrize(
    ("torch", "has", "lacks"),
    [
        ("2.5.1+cu124", "sm_90", "sm_100"),
        ("2.8.0+cu128", "sm_70", "sm_60"),
        ("2.6.0+rocm6.2.4", "gfx942", "gfx1010"),
        ("2.9.0+rocm6.4", "gfx950", "gfx1151"),
        ("2.4.1+rocm6.0", "gfx942", "gfx1101"),
        ("2.10.0+rocm7.1", "gfx1151", "gfx1010"),
    ],
)
def test_releases_unchanged(torch: str, has: str, lacks: str) -> None:
    found = targets(torch)
    assert has in found and lacks not in found


@pytest.mark.parametrize(
    ("torch", "has", "lacks"),
    [
        ("2.0.1+rocm5.4.2", "gfx1030", "gfx1100"),  # gfx1100 only from pytorch/builder#1407 (2.1)
        ("2.1.2+rocm5.6", "gfx1100", "gfx942"),
        ("2.5.1+rocm6.2", "gfx942", "gfx1101"),  # get_arch_list in astral-sh/uv#14086
        ("2.6.0+rocm6.1", "gfx1101", "gfx1102"),  # 2.6 shipped rocm6.1: known now
        ("2.7.1+rocm6.2.4", "gfx1201", "gfx950"),  # RDNA4 is in 2.7's rocm6.2.4 wheels too
        ("2.9.1+rocm6.3", "gfx1201", "gfx950"),  # 2.9 shipped rocm6.3: known now
        ("2.11.0+rocm7.2", "gfx1151", "gfx1103"),  # gfx1103 came after 2.11 (#179653)
        ("2.10.0+rocm7.0", "gfx950", "gfx1103"),
    ],
)
def test_corrected_release_rows(torch: str, has: str, lacks: str) -> None:
    found = targets(torch)
    assert has in found and lacks not in found


@pytest.mark.parametrize(
    "torch",
    [
        "2.10.0+rocm7.13.0a20260318",  # AMD's own per-GPU-family builds (TheRock), not these wheels
        "2.14.0.dev20260920+rocm7.14",  # a nightly after the last documented change, no release row
        "2.12.0+rocm7.2",  # release not in the table
        "2.10.0.dev20250929+rocmpreview",
    ],
)
def test_unknown_builds_say_nothing(torch: str) -> None:
    assert official_targets(torch) is None


def test_build_day() -> None:
    assert build_day(parse_version("2.10.0.dev20250929+rocm7.0")) == 20250929
    assert build_day(parse_version("2.10.0")) is None and build_day(parse_version("2.10.0.dev1")) is None


def test_every_row_names_a_source_url() -> None:
    sources = [row[-1] for row in TABLE] + [row[-1] for row in NIGHTLY]
    assert sources and all(source.startswith("https://") for source in sources)


def test_nightly_rows_are_well_formed() -> None:
    for tag, first, until, found, _source in NIGHTLY:
        assert first >= 20000101 and (until is None or first < until), tag
        assert len(set(found.split())) == len(found.split()), tag
