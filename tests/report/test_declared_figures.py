"""A project's own declared metrics in the published report (issue 27 item 6): history, plots,
"figures that moved" and baselines treat them like the bundled ones, from the JUnit alone.
Two real runs of a small project, published twice with ``rocmcompat report --site``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pytest_rocmcompat.cli.main import main
from tests.conftest import CPU_ENV, REPO

from .test_site_plots import history_of, points, references, svgs

MATRIX = """
name: OwnFigures
platform: cpu
axes:
  torch: ["2.13"]
  python: ["3.11"]
metrics:
  tokens_per_joule: {unit: "tok/J", better: higher, headline: true}
  p50_latency_ms: {unit: ms, better: lower, label: p50 latency}
  warmup_s: {unit: s, better: lower, headline: false}
floors:
  tokens_per_joule: 12.5
  p50_latency_ms: 40
"""
TEST = """
import os

def test_efficiency(rocm_measure):
    rocm_measure("tokens_per_joule", float(os.environ["TOK_J"]))

def test_latency(rocm_measure):
    rocm_measure("p50_latency_ms", float(os.environ["LATENCY"]))

def test_warmup(rocm_measure):
    rocm_measure("warmup_s", 3.0)
"""


def run(root: Path, tok_j: float, latency: float, junit: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "TOK_J": str(tok_j), "LATENCY": str(latency)}
    env.pop("GITHUB_STEP_SUMMARY", None)
    args = ["-m", "pytest", "-p", "no:cacheprovider", "-q", "--rocm-matrix", "matrix.yaml", "--rocm-env", "env.json"]
    result = subprocess.run(
        [sys.executable, *args, f"--junitxml={junit}"], cwd=root, env=env, capture_output=True, text=True, timeout=300
    )
    assert junit.is_file(), result.stdout + result.stderr


def write_project(root: Path) -> None:
    """The project: its matrix declaring three metrics, a CPU recording to replay, one suite."""
    (root / "matrix.yaml").write_text(MATRIX, encoding="utf-8")
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (root / "env.json").write_text(CPU_ENV.to_json(), encoding="utf-8")
    (root / "suites" / "own").mkdir(parents=True)
    (root / "suites" / "own" / "test_own.py").write_text(textwrap.dedent(TEST), encoding="utf-8")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same cell twice: 9.5 tok/J (below its floor) at 55 ms (above its ceiling), then 14 tok/J at 31 ms."""
    root = tmp_path_factory.mktemp("declared")
    write_project(root)
    for name in ("one", "two"):
        (root / name).mkdir()
    run(root, 9.5, 55.0, root / "one" / "junit.xml")
    run(root, 14.0, 31.0, root / "two" / "junit.xml")
    return root


def publish(runs: Path, site: Path, which: str) -> None:
    assert main(["report", str(runs / which), "-o", str(runs / f"{which}.md"), "--site", str(site)]) == 0


def test_history_plots_and_moved_figures_carry_the_declared_metrics(runs: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    publish(runs, site, "one")
    publish(runs, site, "two")
    history = history_of(site)
    (sid,) = history[1]["stacks"]
    assert [r["stacks"][sid]["figures"] for r in history] == [
        {"tokens_per_joule": [9.5, "tok/J", True], "p50 latency": [55.0, "ms", False]},
        {"tokens_per_joule": [14.0, "tok/J", True], "p50 latency": [31.0, "ms", False]},
    ]  # warmup_s is declared headline: false
    charts = svgs(site / "figures.html")
    for title, unit, values in (("tokens_per_joule", "tok/J", [9.5, 14.0]), ("p50 latency", "ms", [55.0, 31.0])):
        svg = charts[title]
        assert [float(p["data-y"]) for p in points(svg)] == values
        assert [p["data-moved"][:3] for p in points(svg)[1:]] == (["+0."] if values[1] > values[0] else ["-0."])
        assert f"{unit}" in "".join(svg.itertext())  # the axis and the chart's summary name the unit
    assert references(charts["tokens_per_joule"], "floor") == [12.5]
    assert references(charts["p50 latency"], "floor") == [40.0]  # drawn as the others' floors are
    assert "ceiling 40 ms" in "".join(charts["p50 latency"].itertext())  # named as what it is
    assert "floor 12.5 tok/J" in "".join(charts["tokens_per_joule"].itertext())
    page = (site / "stacks" / f"{sid}.html").read_text(encoding="utf-8")
    assert "<td>tokens_per_joule</td><td>14 tok/J</td><td>12.5, met</td>" in page
    assert "<td>p50 latency</td><td>31 ms</td><td>ceiling 40, met</td>" in page
    caption = page.split('<h2 id="plots">Plots</h2>', 1)[1].split("</p>", 1)[0]
    assert "peak" not in caption.split(".")[0] and "bandwidth" not in caption  # names only what it draws
    assert "a floor (a ceiling where lower is better)" in caption
    index = (site / "index.html").read_text(encoding="utf-8")
    moved = index.split("<h3>Figures that moved</h3>", 1)[1].split("<h3>", 1)[0].split("<h2>", 1)[0]
    assert re.search(
        r"<td>tokens_per_joule</td><td>9\.5</td><td>14</td><td>\+47%</td><td>better \(tok/J, higher is better\)</td>",
        moved,
    ), moved
    assert re.search(
        r"<td>p50 latency</td><td>55</td><td>31</td><td>-44%</td><td>better \(ms, lower is better\)", moved
    )
    assert "warmup_s" not in moved


def test_the_first_run_shows_its_floor_missed_in_the_merged_report(runs: Path) -> None:
    assert main(["report", str(runs / "one"), "-o", str(runs / "floor.md")]) == 0
    text = (runs / "floor.md").read_text(encoding="utf-8")
    assert re.search(r"\| tokens_per_joule \| 9\.5 tok/J \| 12\.5 ❌ below", text), text
    assert re.search(r"\| p50 latency +\| 55 ms +\| ceiling 40 ❌ above", text), text


def test_a_baseline_compares_a_declared_metric_in_its_direction(runs: Path, tmp_path: Path) -> None:
    """Latency 55 -> 31 ms is better (declared lower); 31 -> 55 ms is a regression."""
    for earlier, later, code in (("one", "two", 0), ("two", "one", 1)):
        base = tmp_path / f"{earlier}.json"
        assert main(["report", str(runs / earlier), "-o", str(tmp_path / "a.md"), "--json", str(base)]) == 0
        out = tmp_path / f"{later}.md"
        args = ["report", str(runs / later), "-o", str(out), "--baseline", str(base), "--fail-on-regression"]
        assert main(args) == code
        text = out.read_text(encoding="utf-8")
        if code:
            assert "p50_latency_ms 31 -&gt; 55 ms (+77.4%)" in text
            assert "tokens_per_joule 14 -&gt; 9.5 tok/J (-32.1%)" in text
        else:
            section = text.split("## Regressions against the baseline", 1)[1].split("\n## ", 1)[0]
            assert section.strip().endswith("from pass to fail.\n\nNone."), section
