"""The generated rocBLAS/RCCL target lists (knowledge/data/library_targets.json) agree with what was read by hand."""

from __future__ import annotations

import re

from pytest_rocmcompat.knowledge import library_targets

# Read at the tags by hand before the generator existed (sessions 9-12): the generated rows must agree.
HAND_ROCBLAS = {
    "5.4": "gfx803 gfx900 gfx906 gfx908 gfx90a gfx1010 gfx1012 gfx1030 gfx1100 gfx1102",
    "5.7": "gfx803 gfx900 gfx906 gfx908 gfx90a gfx1010 gfx1012 gfx1030 gfx1100 gfx1102 gfx1101 gfx940 gfx941 gfx942",
    "6.2": "gfx900 gfx906 gfx908 gfx90a gfx1010 gfx1012 gfx1030 gfx1100 gfx1102 gfx1101 gfx940 gfx941 gfx942",
}
HAND_RCCL = {
    "5.4": "gfx803 gfx900 gfx906 gfx908 gfx90a gfx1030 gfx1100 gfx1101 gfx1102",
    "6.2": "gfx803 gfx900 gfx906 gfx908 gfx90a gfx1030 gfx1100 gfx1101 gfx1102 gfx940 gfx941 gfx942",
}


def test_generated_rows_agree_with_the_hand_read_ones() -> None:
    for library, hand in (("rocblas", HAND_ROCBLAS), ("rccl", HAND_RCCL)):
        rows = library_targets.series_rows(library)
        for series, targets in hand.items():
            assert set(rows[series][0]) == set(targets.split()), (library, series)


def test_rows_reach_back_to_rocm_3_and_name_their_tag() -> None:
    for library in ("rocblas", "rccl"):
        rows = library_targets.series_rows(library)
        assert "3.5" in rows and "4.2" in rows and "6.2" in rows
        for series, (targets, source) in rows.items():
            assert re.fullmatch(
                rf"https://github.com/ROCm/(rocBLAS|rccl)/blob/rocm-{re.escape(series)}\.\d+/CMakeLists.txt", source
            )
            assert targets and all(re.fullmatch(r"gfx[0-9a-f]{3,4}", t) for t in targets), (library, series)
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", library_targets.generated_on())


def test_rccl_releases_map_to_tabled_series() -> None:
    releases = library_targets.rccl_first_series()
    assert releases["2.20.5"] == "6.2" and releases["2.13.4"] == "5.4"
    assert set(releases.values()) <= set(library_targets.series_rows("rccl"))
