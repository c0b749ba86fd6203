"""tools/measure_api_pairs.py's pure parts: the release list, the bisection, the exception a run ended with.

The measurement itself (uv environments, smoke runs) is recorded in ``knowledge/data/api_pairs.json``
and checked in ``tests/knowledge/test_measured_pair.py``; it needs the network and is not re-run here.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tools.measure_api_pairs import SMOKE, bisect_window, exception_line, minor_releases


def _file(date: str, yanked: bool = False) -> dict[str, object]:
    return {"upload_time_iso_8601": f"{date}T10:00:00.000Z", "yanked": yanked}


def test_minor_releases_keep_the_newest_final_patch_of_each_series() -> None:
    index = {
        "releases": {
            "4.40.0": [_file("2024-04-18")],
            "4.40.2": [_file("2024-05-06")],
            "4.41.0rc1": [_file("2024-05-20")],  # a pre-release: never measured
            "4.41.0": [_file("2024-05-21")],
            "4.41.1": [_file("2024-05-24", yanked=True)],  # yanked: pip does not pick it
            "4.39.3": [_file("2024-04-02")],
            "4.38.2": [_file("2024-02-29")],  # before ``since``
            "nonsense": [_file("2024-01-01")],
            "4.42.0": [],  # no files
        }
    }
    assert minor_releases(index, "2024-03-01") == [
        ("4.39.3", "2024-04-02"),
        ("4.40.2", "2024-05-06"),
        ("4.41.0", "2024-05-21"),
    ]


@pytest.mark.parametrize(("lo", "hi"), [(3, 6), (0, 9), (5, 5), (0, 4), (2, 9)])
def test_bisection_finds_the_first_failures_on_each_side(lo: int, hi: int) -> None:
    releases = [f"1.{i}" for i in range(10)]
    asked: list[str] = []

    def works(version: str) -> bool:
        asked.append(version)
        return lo <= releases.index(version) <= hi

    below, above = bisect_window(releases, lo + (hi - lo) // 2, works)
    assert below == (lo - 1 if lo > 0 else None)
    assert above == (hi + 1 if hi < 9 else None)
    assert len(asked) < 2 * len(releases)  # probed and bisected: never every release twice


def test_an_island_of_failures_away_from_the_far_end_is_found() -> None:
    """accelerate 1.0 runs with transformers 4.30 and 4.45 but not with 4.38: the far end alone misleads."""
    releases = [f"1.{i}" for i in range(12)]
    failing = {3, 4, 5}  # the window is 6..11; 0..2 run again

    def works(version: str) -> bool:
        return releases.index(version) not in failing

    below, above = bisect_window(releases, 9, works)
    assert below == 5 and above is None  # the failure nearest the start, found past working probes


def test_the_exception_line_is_the_interpreters_own() -> None:
    run = subprocess.run(
        [sys.executable, "-c", "import json\ndef f():\n    json.loads('{')\nf()"], capture_output=True, text=True
    )
    assert run.returncode == 1
    assert exception_line(run.stderr).startswith("json.decoder.JSONDecodeError: Expecting property name")
    run = subprocess.run([sys.executable, "-c", "from os import not_there"], capture_output=True, text=True)
    assert exception_line(run.stderr).startswith("ImportError: cannot import name 'not_there' from 'os'")
    # a run that printed no exception: its last line, never an empty verdict
    assert exception_line("Killed\n\n") == "Killed"
    assert exception_line("") == "no output"


@pytest.mark.parametrize(
    ("script", "features"),
    [("peft_transformers.py", {"lora", "prefix", "prompt"}), ("accelerate_transformers.py", {"trainer"})],
)
def test_the_smoke_runs_report_every_feature_on_the_installed_pair(script: str, features: set[str]) -> None:
    """The smoke scripts as the tool runs them, on this environment's own releases (a real run, no network)."""
    pytest.importorskip("peft" if script.startswith("peft") else "accelerate")
    run = subprocess.run(
        [sys.executable, str(SMOKE / script), "pair"], capture_output=True, text=True, timeout=600, check=False
    )
    assert run.returncode == 0, run.stderr[-2000:]
    (line,) = [line for line in run.stdout.splitlines() if line.startswith("FEATURES ")]
    reported = json.loads(line[len("FEATURES ") :])
    assert set(reported) == features
    assert all(value is None or (isinstance(value, str) and value.strip()) for value in reported.values())
    assert run.stdout.strip().endswith("OK") == (not any(reported.values()))
