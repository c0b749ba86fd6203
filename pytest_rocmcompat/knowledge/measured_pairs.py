"""Which releases of a pure-Python library ran with which of the library under it, read from
the generated ``data/api_pairs.json`` (``tools/measure_api_pairs.py``: real installs, resolved as
of each pair's date, and a smoke run each).

The data is per minor series (each measured at its newest patch). For a dependent release and each
feature the smoke run reports on (LoRA, prefix tuning, ...), it holds the window of dependency series
the feature ran with: the series current at its date, and by bisection the first series below and
above it that failed, with the exception each failing run ended with. A series beyond a failing one
is judged as failing too (the window is taken to be contiguous); a failure says whether the pair's
own series were run.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from packaging.version import InvalidVersion, Version

from pytest_rocmcompat.knowledge import packaged_data
from pytest_rocmcompat.stack.environment import normalize_library

DATA = "data/api_pairs.json"


@dataclass(frozen=True)
class PairFailure:
    """A dependent release beside a dependency release outside the window one of its features ran in."""

    dependent: str  # "peft"
    dependent_version: str  # as the stack states it
    dependency: str
    dependency_version: str
    feature: str  # what failed ("lora", "prefix", "trainer": the smoke script names them)
    core: bool  # what every user of the pair runs (LoRA), not one method of it (prefix tuning, the Trainer)
    failed_at: str  # the dependency release whose run failed ("4.47.1"): this one, or one nearer the window
    error: str  # the exception that run ended with
    # every exception the feature of this dependent series ended with at the failing series on that side
    # (the boundary's first): farther out, the same breakage may surface elsewhere first
    errors: tuple[str, ...]
    run: bool  # this pair's own series were run (not only judged by a failure nearer the window)
    window: tuple[str, str]  # the oldest and newest dependency series the feature ran with
    island: bool  # a run inside that window failed (the window is not contiguous there)
    smoke: str  # the smoke script's path in the repository
    generated: str  # the date the data was measured


@cache
def _data() -> dict[str, object]:
    return packaged_data.load(DATA)


def generated() -> str:
    """The date the data was measured (``YYYY-MM-DD``)."""
    return str(_data()["generated"])


def _series(version: str) -> tuple[int, int] | None:
    try:
        parsed = Version(version)
    except InvalidVersion:
        return None
    return (parsed.major, parsed.minor)


def _bound(version: str) -> tuple[int, int]:
    """A measured release's series (the data holds only releases the tool parsed)."""
    series = _series(version)
    assert series is not None, version
    return series


@cache
def _pairs() -> dict[tuple[str, str], dict[str, Any]]:
    pairs = _data()["pairs"]
    assert isinstance(pairs, list)
    return {(p["dependent"], p["dependency"]): p for p in pairs}


def pairs() -> tuple[tuple[str, str], ...]:
    """The (dependent, dependency) pairs measured."""
    return tuple(_pairs())


def _run(pair: dict[str, Any], dependent: str, dependency: str) -> dict[str, Any] | None:
    return next(
        (r for r in pair["runs"] if r["mode"] == "pair" and r["pins"] == [dependent, dependency]),
        None,
    )


@cache
def _runs_of(key: tuple[str, str], pinned: str) -> tuple[tuple[tuple[int, int], str, dict[str, str | None]], ...]:
    """(dependency series, release, each feature's exception or ``None``) of every smoke result ``pinned``
    (``peft==0.13.2``) has in the pair ``key``; a run uv found no environment for has none.
    """
    return tuple(
        (_bound(release), release, r["features"])
        for r in _pairs()[key]["runs"]
        if r["mode"] == "pair" and r["pins"][0] == pinned and r.get("features") is not None
        for release in [r["pins"][1].split("==")[1]]
    )


def failures(dependent: str, dependent_version: str, dependency: str, dependency_version: str) -> list[PairFailure]:
    """The measured failures of this pair, one per feature; none when every feature ran with it (or the
    pair was not measured, or a series is outside the measured range, or the boundary beyond which it
    lies could not be installed at all: ``requirement-not-met`` reads what the packages declare).
    """
    pair = _pairs().get((normalize_library(dependent), normalize_library(dependency)))
    mine, theirs = _series(dependent_version), _series(dependency_version)
    if pair is None or mine is None or theirs is None:
        return []
    window = next((w for w in pair["windows"] if _series(w["version"]) == mine), None)
    if window is None:
        return []
    if any(window["features"].get(core) is None for core in pair["core_features"]):
        return []  # its core did not run even beside the dependency of its day: this machine, not the pair
    name, other = pair["dependent"], pair["dependency"]
    found: list[PairFailure] = []
    for feature, bounds in window["features"].items():
        if bounds is None:
            continue  # it failed beside the dependency of its own day: not judged
        below, above = bounds["first_failing_below"], bounds["first_failing_above"]
        runs = _runs_of((name, other), f"{name}=={window['version']}")
        here = next(((release, ran) for at, release, ran in runs if at == theirs and feature in ran), None)
        if here is not None and here[1][feature] is None:
            continue  # this very pair ran and the feature worked: a run wins over the window's contiguity
        failed_at = (
            here[0]  # this very pair ran and failed: judged so whatever the window says
            if here is not None
            else below
            if below is not None and theirs <= _bound(below)
            else above
            if above is not None and theirs >= _bound(above)
            else None
        )
        if failed_at is None:
            continue
        side = _bound(failed_at)
        error = next((ran.get(feature) for at, _, ran in runs if at == side), None)
        if not error:
            continue  # no smoke result there (uv found no environment): not a run failure
        # every exception the feature ended with at or beyond the failing series on that side
        beyond = [
            text
            for at, _, ran in runs
            if (text := ran.get(feature)) and (at <= side if failed_at == below else at >= side)
        ]
        found.append(
            PairFailure(
                dependent=name,
                dependent_version=dependent_version,
                dependency=other,
                dependency_version=dependency_version,
                feature=feature,
                core=feature in pair["core_features"],
                failed_at=failed_at,
                error=error,
                errors=tuple(dict.fromkeys([error, *beyond])),
                run=theirs == _series(failed_at),
                window=(bounds["oldest_working"], bounds["newest_working"]),
                island=_bound(bounds["oldest_working"]) <= theirs <= _bound(bounds["newest_working"]),
                smoke=str(pair["smoke"]),
                generated=generated(),
            )
        )
    return found
