"""``pair-failed-when-run``: library pairs judged by real runs (``knowledge/data/api_pairs.json``).

The data is what ``tools/measure_api_pairs.py`` measured; these tests read it as the check does and
hold it to what the tool promises (every boundary is a failing run with its exception; the window's
ends ran), then judge stacks built from it: a pair inside a window is not judged, one at or beyond a
failing boundary is, and through pytest the measured exception ends known-bad while another does not.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge import measured_pairs
from pytest_rocmcompat.knowledge.checks import measured_pair
from pytest_rocmcompat.knowledge.checks.registry import compile_rules, evaluate
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import run_source

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
DATA = measured_pairs._data()
PAIRS = {(p["dependent"], p["dependency"]): p for p in DATA["pairs"]}  # type: ignore[attr-defined]


def _boundaries() -> list[tuple[str, str, str, str, str, str]]:
    """(dependent, its measured release, dependency, feature, side, the failing release) of every window."""
    found = []
    for (dependent, dependency), pair in PAIRS.items():
        for window in pair["windows"]:
            if any(window["features"].get(core) is None for core in pair["core_features"]):
                continue  # its core did not run beside the dependency of its day: not judged at all
            for feature, bounds in window["features"].items():
                for side in ("first_failing_below", "first_failing_above"):
                    if bounds and bounds[side]:
                        found.append((dependent, window["version"], dependency, feature, side, bounds[side]))
    return found


BOUNDARIES = _boundaries()


def _findings(*stack: str) -> list:
    return [f for f in evaluate(apply_overrides(BASE, list(stack))) if f.check == measured_pair.ID]


def test_the_data_says_when_and_how_it_was_measured() -> None:
    assert DATA["generated"] >= "2026-11-28" and DATA["python"].startswith("3.11")
    assert {("peft", "transformers"), ("accelerate", "transformers")} <= set(PAIRS)
    for pair in PAIRS.values():
        assert pair["smoke"].startswith("tools/api_smoke/") and pair["features"]
        assert len(pair["usable"]) >= 20  # dependency series that ran alone
        assert len(pair["windows"]) >= 10
    assert BOUNDARIES, "no failing pair was measured at all"


@pytest.mark.parametrize(("dependent", "version", "dependency", "feature", "side", "failed"), BOUNDARIES)
def test_every_boundary_is_a_failing_run_and_its_neighbour_ran(
    dependent: str, version: str, dependency: str, feature: str, side: str, failed: str
) -> None:
    pair = PAIRS[(dependent, dependency)]
    run = measured_pairs._run(pair, f"{dependent}=={version}", f"{dependency}=={failed}")
    assert run is not None and run["ok"] is not True
    if not (run.get("features") or {}).get(feature):
        return  # no environment there (uv found none): the check leaves it to requirement-not-met
    assert run["features"][feature].strip()
    window = next(w for w in pair["windows"] if w["version"] == version)
    bounds = window["features"][feature]
    working = bounds["oldest_working" if side == "first_failing_below" else "newest_working"]
    ran = measured_pairs._run(pair, f"{dependent}=={version}", f"{dependency}=={working}")
    if ran is not None:  # the window's end was run (the bisection asked it) and the feature ran
        assert (ran.get("features") or {}).get(feature) is None
    judged = measured_pairs.failures(dependent, version, dependency, failed)
    (mine,) = [f for f in judged if f.feature == feature]
    assert mine.run and mine.failed_at == failed and mine.error == run["features"][feature]
    assert not [f for f in measured_pairs.failures(dependent, version, dependency, working) if f.feature == feature]


def _one_boundary(core: bool) -> tuple[str, str, str, str, str, str]:
    for entry in BOUNDARIES:
        dependent, version, dependency, feature, _, failed = entry
        pair = PAIRS[(dependent, dependency)]
        run = measured_pairs._run(pair, f"{dependent}=={version}", f"{dependency}=={failed}")
        measured = (run.get("features") or {}).get(feature)  # type: ignore[union-attr]
        # (a method's failure is listed only where the core runs)
        core_fails = [f for f in measured_pairs.failures(dependent, version, dependency, failed) if f.core]
        if (feature in pair["core_features"]) == core and measured and (core or not core_fails):
            return entry
    pytest.skip("the data has no such boundary")


def test_a_stack_beyond_a_boundary_is_judged_and_names_the_run() -> None:
    dependent, version, dependency, feature, side, failed = _one_boundary(core=False)
    label = measured_pair._LABELS[feature]
    (finding,) = [f for f in _findings(f"lib.{dependent}={version}", f"lib.{dependency}={failed}") if label in f.reason]
    assert "failed when run" in finding.reason and "tools/api_smoke/" in finding.reason
    assert finding.uses == (dependent, dependency) and finding.uncertain and finding.conditional
    # a release farther out than the boundary is judged by it (the window is contiguous), not as run
    farther = "0.1" if side == "first_failing_below" else "99.0"
    beyond = [f for f in _findings(f"lib.{dependent}={version}", f"lib.{dependency}={farther}") if label in f.reason]
    if side == "first_failing_above":
        assert beyond and f"is beyond {dependency} {failed}" in beyond[0].reason


def test_a_stack_inside_every_window_is_not_judged() -> None:
    for (dependent, dependency), pair in PAIRS.items():
        for window in pair["windows"]:
            if window["features"] and all(window["features"].values()):
                inside = window["current"]
                assert not _findings(f"lib.{dependent}={window['version']}", f"lib.{dependency}={inside}")


def test_a_release_whose_core_did_not_run_in_its_day_is_not_judged() -> None:
    unjudged = [
        (pair, window)
        for pair in PAIRS.values()
        for window in pair["windows"]
        if any(window["features"].get(core) is None for core in pair["core_features"])
    ]
    assert unjudged  # PEFT before 0.4 fails its own day's transformers on this machine (torch 2.13)
    for pair, window in unjudged:
        for other in pair["usable"]:
            assert not measured_pairs.failures(pair["dependent"], window["version"], pair["dependency"], other)


def test_an_unmeasured_release_or_a_partial_stack_is_not_judged() -> None:
    dependent, version, dependency, *_, failed = BOUNDARIES[0]
    assert not _findings(f"lib.{dependent}=0.0.0.1", f"lib.{dependency}={failed}")  # no window for the series
    assert not _findings(f"lib.{dependent}={version}")  # the dependency not stated
    assert not _findings(f"lib.{dependency}={failed}")


def test_where_the_core_fails_the_methods_are_not_listed_again() -> None:
    dependent, version, dependency, _, _, failed = _one_boundary(core=True)
    found = _findings(f"lib.{dependent}={version}", f"lib.{dependency}={failed}")
    assert found and all("(LoRA)" in f.reason and not f.uncertain for f in found)


def test_a_core_failure_is_certain_and_its_rule_claims_the_measured_exception_only() -> None:
    dependent, version, dependency, feature, _, failed = _one_boundary(core=True)
    stack = (f"lib.{dependent}={version}", f"lib.{dependency}={failed}")
    (finding,) = [f for f in _findings(*stack) if not f.uncertain]
    assert not finding.conditional
    error = measured_pairs._run(PAIRS[(dependent, dependency)], f"{dependent}=={version}", f"{dependency}=={failed}")
    text = error["features"][feature].split(" <- ")[0]  # type: ignore[index]
    (rule,) = compile_rules([finding])
    assert rule.signature_matches(text)
    assert not rule.signature_matches("ValueError: a genuinely different regression")


SOURCE = """
import pytest

@pytest.mark.uses({dependent!r})
def test_predicted():
    raise RuntimeError({error!r})

@pytest.mark.uses({dependent!r})
def test_unrelated():
    raise ValueError("a genuinely different regression")
"""


def test_through_pytest_the_measured_failure_is_known_bad_and_another_stays_a_failure(
    pytester: pytest.Pytester,
) -> None:
    dependent, version, dependency, feature, _, failed = _one_boundary(core=False)
    run = measured_pairs._run(PAIRS[(dependent, dependency)], f"{dependent}=={version}", f"{dependency}=={failed}")
    error = run["features"][feature].split(" <- ")[0]  # type: ignore[index]
    stack = (f"lib.{dependent}={version}", f"lib.{dependency}={failed}")
    cases = run_source(pytester, SOURCE.format(dependent=dependent, error=error), stack)
    assert cases["test_predicted"]["rocm_outcome"] == "known-bad"
    assert cases["test_predicted"]["rocm_rule"].startswith(measured_pair.ID)
    assert cases["test_unrelated"].get("rocm_outcome", "fail") == "fail"
