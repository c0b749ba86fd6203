"""The official wheels' target table: nightlies by build day, corrected release rows, sources."""

from __future__ import annotations

import pytest
from packaging.specifiers import SpecifierSet

from pytest_rocmcompat.knowledge.checks import arch
from pytest_rocmcompat.knowledge.checks.cuda_targets import capability
from pytest_rocmcompat.knowledge.derived_facts import derive
from pytest_rocmcompat.knowledge.wheel_targets import (
    NIGHTLY,
    TABLE,
    build_day,
    ever_official,
    official_targets,
    release_rows,
)
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
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


_CU_KEPLER = ("sm_37", "sm_50", "sm_60", "sm_70")
_CU11 = (*_CU_KEPLER, "sm_75", "sm_80", "sm_86")


@pytest.mark.parametrize(
    ("torch", "expected"),
    [
        # pytorch/builder manywheel/build.sh at 1.5.0's day: TORCH_CUDA_ARCH_LIST="3.7+PTX;5.0" + 6.0;6.1;7.0;7.5
        ("1.5.1+cu101", ("sm_37", "sm_50", "sm_60", "sm_61", "sm_70", "sm_75", "compute_37")),
        ("1.6.0+cu92", ("sm_37", "sm_50", "sm_60", "sm_61", "sm_70", "compute_37")),  # builder#465 came 3 weeks before
        ("1.7.1+cu101", (*_CU_KEPLER, "sm_75")),
        ("1.7.1+cu102", (*_CU_KEPLER, "sm_75")),  # the same "10.*" branch: PyPI's default 1.7.1 wheel
        ("1.6.0+cu102", ("sm_37", "sm_50", "sm_60", "sm_61", "sm_70", "sm_75", "compute_37")),
        ("1.7.1+cu110", (*_CU_KEPLER, "sm_75", "sm_80")),
        ("1.8.0+cu111", _CU11),  # lts/release/1.8: 11.[12] adds 7.5;8.0;8.6
        ("1.8.1+cu102", _CU_KEPLER),  # builder#668 dropped 7.5 for CUDA 10.x
        ("1.10.0+cu113", _CU11),
        ("1.10.2+cu102", _CU_KEPLER),
        ("1.11.0+cu115", _CU11),
        ("1.12.1+cu116", _CU11),
        ("1.13.1+cu117", _CU11),
        ("2.0.1+cu117", _CU11),  # release/2.0 build_cuda.sh: 9.0 only for CUDA 11.8
        ("2.0.1+cu118", (*_CU11, "sm_90")),
        # ROCm: LoadHIP's default list with gfx803 (rocBLAS gfx803 files bundled) for the rocm3.x wheels
        ("1.7.1+rocm3.8", ("gfx803", "gfx900", "gfx906", "gfx908")),
        ("1.8.0+rocm4.0.1", ("gfx900", "gfx906", "gfx908")),  # gfx803 fails to load: pytorch#53738
        ("1.10.2+rocm4.2", ("gfx900", "gfx906", "gfx908")),
        ("1.11.0+rocm4.5.2", ("gfx900", "gfx906", "gfx908", "gfx90a", "gfx1030")),  # release/1.11 build_docker.sh
        ("1.12.1+rocm5.1.1", ("gfx900", "gfx906", "gfx908", "gfx90a", "gfx1030")),
        ("1.13.1+rocm5.2", ("gfx900", "gfx906", "gfx908", "gfx90a", "gfx1030")),
        # pytorch/pytorch#182250 prints get_arch_list of both
        ("2.11.0+cu126", ("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90")),
        ("2.11.0+cu128", ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120")),
    ],
)
def test_builds_of_2020_to_2022_have_their_sourced_targets(torch: str, expected: tuple[str, ...]) -> None:
    assert targets(torch) == expected


@pytest.mark.parametrize(
    ("torch", "has", "lacks"),
    [
        ("1.8.0+rocm4.0.1", "gfx906", "gfx1030"),
        ("1.12.1+rocm5.1.1", "gfx1030", "gfx1100"),
        ("1.10.0+cu113", "sm_86", "sm_90"),
        ("1.7.1+cu101", "sm_75", "sm_86"),
        ("1.13.1+cu117", "sm_86", "sm_90"),
        ("2.6.0+cu124", "sm_50", "sm_37"),  # the CUDA 12 builds never had Kepler
        ("2.10.0+cu126", "sm_50", "sm_37"),
        ("2.10.0+cu128", "sm_70", "sm_50"),
    ],
)
def test_old_builds_at_their_edges(torch: str, has: str, lacks: str) -> None:
    found = targets(torch)
    assert has in found and lacks not in found


@pytest.mark.parametrize(
    "torch",
    [
        "1.4.0+cu92",  # before the table
        "1.6.0+rocm3.7",  # no such build: the first ROCm wheels were 1.7.1
        "1.9.0+cu110",
        "1.12.1+rocm4.2",
        "2.6.0+cu121",  # 2.6 shipped no cu121 build
        "2.9.0+cu129",  # nor 2.9 a cu129 one (pytorch/test-infra release/2.10: 12.6, 12.8, 13.0)
    ],
)
def test_builds_that_were_never_made_stay_unknown(torch: str) -> None:
    assert official_targets(torch) is None


def _stack(gpu_arch: str, torch: str) -> Environment:
    platform = "rocm" if gpu_arch.startswith("gfx") else "cuda"
    return apply_overrides(Environment(platform=platform, python="3.8"), [f"arch={gpu_arch}", f"torch={torch}"])


@pytest.mark.parametrize(
    ("gpu_arch", "torch", "fires"),
    [
        ("gfx803", "1.8.0+rocm4.0.1", True),  # RX 470/480/580: hipErrorNoBinaryForGpu (pytorch#53738)
        ("gfx906", "1.8.0+rocm4.0.1", False),
        ("gfx1030", "1.10.2+rocm4.2", True),  # RDNA2 came with the rocm4.3 builds of 1.11
        ("gfx1030", "1.12.1+rocm5.1.1", False),
        ("sm_86", "1.7.1+cu101", True),  # RTX 30xx on the CUDA 10.1 builds: nothing newer than sm_75
        ("sm_86", "1.7.1+cu110", False),  # sm_80 code runs on sm_86 (same major)
        ("sm_86", "1.7.1", True),  # untagged: PyPI's default 1.7.1 wheel is the CUDA 10.2 build
        ("sm_86", "1.6.0", False),  # ... and 1.6.0's carries compute_37 PTX
        ("sm_90", "1.13.1+cu117", True),  # H100 on CUDA 11.7 builds: sm_90 came with cu118
        ("sm_80", "1.10.2+cu102", True),  # A100 on the cu102 builds
        ("sm_86", "1.5.0+cu101", False),  # compute_37 PTX: JIT-compiled for any newer GPU
    ],
)
def test_arch_not_in_build_judges_old_builds_from_the_table(gpu_arch: str, torch: str, fires: bool) -> None:
    found = arch.check(derive(_stack(gpu_arch, torch)))  # as evaluate() sees it: an untagged torch's build derived
    assert bool(found) == fires, [f.describe() for f in found]
    assert not any(f.uncertain for f in found)
    if fires:
        assert gpu_arch in found[0].reason and "table: https://" in found[0].reason


def test_old_builds_are_candidates_only_for_their_own_release() -> None:
    unstated = {(tag, spec) for tag, spec, _, _ in release_rows("amd")}
    assert ("rocm4.2", ">=1.9,<1.11") not in unstated and ("rocm5", ">=1.13,<2.1") in unstated
    assert [spec for tag, spec, _, _ in release_rows("amd", "rocm4.2")] == [">=1.9,<1.11"]
    assert {tag for tag, _, _, _ in release_rows("nvidia", "cu102")} == {"cu102"}
    # gfx803 (1.7.1's rocm3.x wheels) and compute_37 (1.5/1.6) are older than any candidate
    assert "gfx803" not in ever_official("amd") and "compute_37" not in ever_official("nvidia")
    assert "gfx1030" in ever_official("amd") and "sm_37" in ever_official("nvidia")


def test_table_rows_are_well_formed() -> None:
    for tag, spec, found, source in TABLE:
        names = found.split()
        assert len(set(names)) == len(names), (tag, spec)
        assert SpecifierSet(spec), (tag, spec)
        assert source.startswith("https://"), (tag, spec)
        for name in names:
            assert name.startswith("gfx") if tag.startswith("rocm") else capability(name.replace("compute", "sm")), name
