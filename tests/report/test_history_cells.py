"""A figure's history follows the matrix cell (issue 27): a library patch release continues the
line, marked, and "figures that moved" compares with the previous publication of that cell.
Real runs of the plugin over a small project, published twice with ``rocmcompat report --site``."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from pytest_rocmcompat.cli.main import main
from tests.conftest import CPU_ENV, REPO

from .test_site_plots import points, svgs

MATRIX = """
name: HistoryMatrix
platform: cpu
axes:
  torch: ["2.13"]
  python: ["3.11"]
"""
TEST = """
import os

def test_rollout(rocm_measure):
    rocm_measure("ppo_rollout_tokens_per_s", float(os.environ["ROLLOUT"]))
"""


def run(root: Path, env_file: str, rollout: float, junit: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "ROLLOUT": str(rollout)}
    env.pop("GITHUB_STEP_SUMMARY", None)
    args = ["-m", "pytest", "-p", "no:cacheprovider", "-q", "--rocm-matrix", "matrix.yaml", "--rocm-env", env_file]
    result = subprocess.run(
        [sys.executable, *args, f"--junitxml={junit}"], cwd=root, env=env, capture_output=True, text=True, timeout=300
    )
    assert junit.is_file(), result.stdout + result.stderr


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same cell twice: transformers 5.23.0 at 2.97e4 tokens/s, then 5.24.0 at 5.19e4."""
    root = tmp_path_factory.mktemp("history")
    (root / "matrix.yaml").write_text(MATRIX, encoding="utf-8")
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (root / "suites" / "ppo").mkdir(parents=True)
    (root / "suites" / "ppo" / "test_rollout.py").write_text(textwrap.dedent(TEST), encoding="utf-8")
    for name, version in (("old", "5.23.0"), ("new", "5.24.0")):
        stack = replace(CPU_ENV, libraries={"transformers": version, "accelerate": "1.15.0"})
        (root / f"{name}.json").write_text(stack.to_json(), encoding="utf-8")
    (root / "one").mkdir()
    (root / "two").mkdir()
    run(root, "old.json", 29700.0, root / "one" / "junit.xml")
    run(root, "new.json", 51900.0, root / "two" / "junit.xml")
    return root


def publish(runs: Path, site: Path, which: str) -> None:
    assert main(["report", str(runs / which), "-o", str(runs / f"{which}.md"), "--site", str(site)]) == 0


def rollout_lines(site: Path) -> list[list[tuple[int, float, str]]]:
    """The mini-PPO rollout chart's lines: per series, (publication, value, note) of each point."""
    charts = {title: svg for title, svg in svgs(site / "figures.html").items() if title.startswith("mini-PPO rollout")}
    assert len(charts) == 1, list(svgs(site / "figures.html"))
    series: dict[str, list[tuple[int, float, str]]] = {}
    for point in points(next(iter(charts.values()))):
        series.setdefault(point["data-series"], []).append(
            (int(point["data-x"]), float(point["data-y"]), point.get("data-note", ""))
        )
    return list(series.values())


def test_a_library_patch_release_continues_the_line_and_the_jump_is_moved(runs: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    publish(runs, site, "one")
    publish(runs, site, "two")
    history = json.loads((site / "history.json").read_text(encoding="utf-8"))["runs"]
    assert [list(r["stacks"]) for r in history] == [list(history[0]["stacks"])] * 2  # one stack id, both times
    (sid,) = history[0]["stacks"]
    assert history[0]["stacks"][sid]["versions"]["libraries"] == "accelerate 1.15.0, transformers 5.23.0"
    assert history[1]["stacks"][sid]["figures"]["mini-PPO rollout"][0] == 51900.0
    (line,) = rollout_lines(site)  # one line, not two same-named series
    assert [(x, y) for x, y, _ in line] == [(0, 29700.0), (1, 51900.0)]
    assert line[1][2] == "transformers 5.23.0 -> 5.24.0" and line[0][2] == ""
    index = (site / "index.html").read_text(encoding="utf-8")
    moved = index.split("<h3>Figures that moved</h3>", 1)[1].split("<h3>", 1)[0].split("<h2>", 1)[0]
    assert re.search(r"<td>mini-PPO rollout</td><td>2\.97e\+04</td><td>5\.19e\+04</td><td>\+75%</td>", moved), moved
    page = (site / "stacks" / f"{sid}.html").read_text(encoding="utf-8")
    assert "5.19e+04 tokens/s (transformers 5.23.0 -&gt; 5.24.0)" in page  # the history table marks it too


def test_earlier_publications_keyed_by_library_versions_continue(runs: Path, tmp_path: Path) -> None:
    """A history written before ids followed the cell: the first publication under the old id
    (its key had the library versions in it), and no ``key``: it maps onto the new id."""
    site = tmp_path / "site"
    publish(runs, site, "one")
    path = site / "history.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    ((sid, stack),) = data["runs"][0]["stacks"].items()
    old = {k: v for k, v in stack.items() if k not in ("key", "versions")}
    data["runs"][0]["stacks"] = {"0123456789ab": old}  # as the old site wrote it: another id, no key
    data["runs"].append({"date": "2026-01-02T00:00:00Z", "stacks": {"ba9876543210": dict(old)}})  # the split
    path.write_text(json.dumps(data), encoding="utf-8")
    publish(runs, site, "two")
    history = json.loads(path.read_text(encoding="utf-8"))["runs"]
    assert [list(r["stacks"]) for r in history] == [[sid]] * 3  # nothing duplicated
    (line,) = rollout_lines(site)
    assert [y for _, y, _ in line] == [29700.0, 29700.0, 51900.0]


def test_a_baseline_matches_the_cell_across_a_library_release(runs: Path, tmp_path: Path) -> None:
    base = tmp_path / "base.json"
    assert main(["report", str(runs / "two"), "-o", str(tmp_path / "a.md"), "--json", str(base)]) == 0
    args = ["report", str(runs / "one"), "-o", str(tmp_path / "b.md"), "--baseline", str(base)]
    assert main([*args, "--fail-on-regression"]) == 1
    text = (tmp_path / "b.md").read_text(encoding="utf-8")
    assert "ppo_rollout_tokens_per_s 5.19e+04 -&gt; 2.97e+04 tokens/s (-42.8%)" in text
