"""The GPU processors each ROCm release's rocBLAS and RCCL are built for, as generated from their tags.

``data/library_targets.json`` is written by ``python -m tools.rocm_library_targets`` from clones of
ROCm/rocBLAS and ROCm/rccl: per library and ROCm series, the default target list of ``CMakeLists.txt``
at the series' ``rocm-X.Y.Z`` tags (ROCm 3.3-6.2; later releases live in ROCm/rocm-libraries and
ROCm/rocm-systems, whose rows the checks keep by hand), and for RCCL the series each release first
shipped with. Pure data access; the checks (:mod:`checks.rocblas_arch`, :mod:`checks.rccl_arch`) judge.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from packaging.version import Version

from pytest_rocmcompat.knowledge import packaged_data

DATA = "data/library_targets.json"
# A stack naming no ROCm release is judged against the releases of torch 2's ROCm wheels (2.0: rocm5.4.2) on
UNSTATED_FROM = "5.4"


@cache
def _data() -> dict[str, Any]:
    return packaged_data.load(DATA)


def _libraries() -> dict[str, dict[str, object]]:
    libraries: dict[str, dict[str, object]] = _data()["libraries"]
    return libraries


def series_rows(library: str) -> dict[str, tuple[tuple[str, ...], str]]:
    """ROCm series -> (processors, the ``CMakeLists.txt`` at the series' first tag), oldest first."""
    entry = _libraries()[library]
    rows: dict[str, dict[str, object]] = entry["series"]  # type: ignore[assignment]
    url = f"https://github.com/{entry['repository']}/blob/{{}}/CMakeLists.txt"
    return {
        series: (tuple(row["targets"]), url.format(row["tags"][0]))  # type: ignore[index,arg-type]
        for series, row in rows.items()
    }


def rccl_first_series() -> dict[str, str]:
    """RCCL release (as torch reports it, ``2.20.5``) -> the ROCm series it first shipped with."""
    releases: dict[str, str] = _libraries()["rccl"]["releases"]  # type: ignore[assignment]
    return dict(releases)


def generated_on() -> str:
    """The date the data file was regenerated."""
    return str(_data()["generated"])


def unstated_rows(table: dict[str, tuple[tuple[str, ...], str]]) -> dict[str, tuple[tuple[str, ...], str]]:
    """The rows of a per-series ``table`` a stack naming no ROCm release is judged against (:data:`UNSTATED_FROM` on)."""
    return {series: row for series, row in table.items() if Version(series) >= Version(UNSTATED_FROM)}
