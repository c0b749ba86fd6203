"""``rocmcompat report --site DIR``: real runs published twice, history and changes read back,
rendered in headless Chromium."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from pytest_rocmcompat.cli.main import main
from pytest_rocmcompat.report.html import COLOURS

from .conftest import run_cell
from .test_report_html import CHROMIUM, read_png, rgb


@pytest.fixture(scope="module")
def published(cell_runs: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Published twice: first without the failing torchao test (deselected), then the full run."""
    site = tmp_path_factory.mktemp("site")
    first = tmp_path_factory.mktemp("first")
    result = run_cell(
        cell_runs, "mi300", "--rocm-set", "lib.torchao=0.7.0", "-k", "not other_error", junit=str(first / "mi300.xml")
    )
    assert (first / "mi300.xml").is_file(), result.stdout + result.stderr
    assert main(["report", str(first), "-o", str(first / "c.md"), "--site", str(site)]) == 0
    history = json.loads((site / "history.json").read_text(encoding="utf-8"))
    (stack,) = history["runs"][0]["stacks"].values()
    stack["figures"]["GEMM bf16"][0] = 1000.0  # the earlier publication measured a faster GEMM
    (site / "history.json").write_text(json.dumps(history), encoding="utf-8")
    assert (
        main(
            [
                "report",
                str(cell_runs / "mi300.xml"),
                str(cell_runs / "cpu.xml"),
                "-o",
                str(first / "d.md"),
                "--site",
                str(site),
            ]
        )
        == 0
    )
    return site


def test_site_pages_history_and_changes(published: Path) -> None:
    index = (published / "index.html").read_text(encoding="utf-8")
    history = json.loads((published / "history.json").read_text(encoding="utf-8"))
    assert len(history["runs"]) == 2
    pages = re.findall(r'href="(stacks/[0-9a-f]{12}\.html)"', index)
    assert len(pages) == 2 and all((published / p).is_file() for p in pages)  # mi300 and cpu
    changed = index.split("What changed since the last publication", 1)[1].split("<h2>", 1)[0]
    new_failures = changed.split("<h3>New failures</h3>", 1)[1].split("<h3>", 1)[0]
    assert "suites/libs/test_torchao.py::test_other_error" in new_failures
    moved = changed.split("<h3>Figures that moved</h3>", 1)[1]
    assert re.search(r"<td>GEMM bf16</td><td>1000</td><td>650</td><td>-35%</td>", moved)
    stale = changed.split("<h3>Stale rules", 1)[1].split("<h3>", 1)[0]
    assert "test_passes_now" in stale and "int1" in stale
    over_time = index.split("Headline figures over time", 1)[1]
    assert re.search(r"GEMM bf16</td><td>\d{4}-\d\d-\d\d: 1000 TFLOP/s → \d{4}-\d\d-\d\d: 650 TFLOP/s", over_time)
    mi300 = next(
        (published / p).read_text(encoding="utf-8")
        for p in pages
        if "gfx942" in (published / p).read_text(encoding="utf-8")
    )
    assert "<h2>Suites</h2>" in mi300 and "torchao needs torch.int1" in mi300 and "../index.html" in mi300
    assert (published / "report.html").is_file()
    assert json.loads((published / "badge.json").read_text(encoding="utf-8")) == {
        "schemaVersion": 1,
        "label": "rocmcompat",
        "message": "2 of 2 stacks failing",
        "color": "red",
    }


def test_corrupt_history_stops_before_anything_is_written(cell_runs: Path, tmp_path: Path) -> None:
    (tmp_path / "history.json").write_text("{not json", encoding="utf-8")
    out = tmp_path / "c.md"
    assert main(["report", str(cell_runs / "cpu.xml"), "-o", str(out), "--site", str(tmp_path)]) == 1
    assert not out.exists() and not (tmp_path / "index.html").exists()
    assert (tmp_path / "history.json").read_text(encoding="utf-8") == "{not json"


GOOD_RUN = {
    "date": "2026-11-01T00:00:00",
    "stacks": {"abc": {"name": "s", "figures": {"GEMM": [1.0, "TF", True]}, "notable": {"t.py::x": ["fail", ""]}}},
}


@pytest.mark.parametrize(
    ("runs", "place"),
    [
        ([5], "runs[0]: expected an object"),
        ([{"date": 7, "stacks": {}}], "runs[0].date: expected a string"),
        ([{"date": "d", "stacks": []}], "runs[0].stacks: expected an object"),
        (
            [{"date": "d", "stacks": {"abc": {"name": 3}}}],
            "runs[0].stacks.abc: expected an object with a string 'name'",
        ),
        (
            [{"date": "d", "stacks": {"abc": {"name": "s", "figures": {"GEMM": ["fast", "TF", True]}}}}],
            "runs[0].stacks.abc.figures.GEMM: expected [number, unit, higher_is_better]",
        ),
        (
            [{"date": "d", "stacks": {"abc": {"name": "s", "figures": {"GEMM": [True, "TF", True]}}}}],
            "runs[0].stacks.abc.figures.GEMM: expected [number, unit, higher_is_better]",
        ),
        (
            [GOOD_RUN, {"date": "d", "stacks": {"abc": {"name": "s", "notable": {"t": "fail"}}}}],
            "runs[1].stacks.abc.notable.t: expected [outcome, rule]",
        ),
    ],
)
def test_hostile_history_fields_stop_with_the_place(cell_runs: Path, tmp_path: Path, capsys, runs, place) -> None:
    """A published site comes back from anywhere: a wrong type is a clear error, never a traceback."""
    text = json.dumps({"schema": 1, "runs": runs})
    (tmp_path / "history.json").write_text(text, encoding="utf-8")
    out = tmp_path / "c.md"
    assert main(["report", str(cell_runs / "cpu.xml"), "-o", str(out), "--site", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert f"history.json: {place}" in err and "Traceback" not in err, err
    assert not out.exists() and not (tmp_path / "index.html").exists()
    assert (tmp_path / "history.json").read_text(encoding="utf-8") == text


def test_history_that_is_not_a_regular_file_or_too_big_is_refused(cell_runs: Path, tmp_path: Path, capsys) -> None:
    import os

    os.mkfifo(tmp_path / "history.json")  # would block a plain open() forever
    assert main(["report", str(cell_runs / "cpu.xml"), "-o", str(tmp_path / "c.md"), "--site", str(tmp_path)]) == 1
    assert "is not a regular file" in capsys.readouterr().err
    (tmp_path / "history.json").unlink()
    with open(tmp_path / "history.json", "wb") as fh:
        fh.truncate(33 * 2**20)
    assert main(["report", str(cell_runs / "cpu.xml"), "-o", str(tmp_path / "c.md"), "--site", str(tmp_path)]) == 1
    assert "a site history may be at most" in capsys.readouterr().err


def test_history_strings_are_made_safe_before_they_are_published_again(cell_runs: Path, tmp_path: Path) -> None:
    token = "ghp_" + "Zq9X" * 9
    run = json.loads(json.dumps(GOOD_RUN))
    run["stacks"]["abc"]["name"] = f"<script>x</script> {token} \x1b[2J"
    run["stacks"]["abc"]["figures"] = {f"GEMM {token}": [1.0, "TF\x07", True]}
    (tmp_path / "history.json").write_text(json.dumps({"schema": 1, "runs": [run]}), encoding="utf-8")
    assert main(["report", str(cell_runs / "cpu.xml"), "-o", str(tmp_path / "c.md"), "--site", str(tmp_path)]) == 0
    for name in ("index.html", "history.json"):
        text = (tmp_path / name).read_text(encoding="utf-8")
        assert token not in text and "\x1b" not in text and "\x07" not in text, name
    assert "<script>x" not in (tmp_path / "index.html").read_text(encoding="utf-8")


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (Debian: apt-get install -y chromium)")
def test_site_renders_in_chromium(published: Path, tmp_path: Path) -> None:
    shot = tmp_path / "index.png"
    subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--screenshot={shot}",
            "--window-size=1600,1200",
            (published / "index.html").as_uri(),
        ],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert shot.is_file(), "Chromium wrote no screenshot"
    width, height, pixels = read_png(shot)
    assert (width, height) == (1600, 1200)
    counts: dict[bytes, int] = {}
    for px in pixels:
        counts[px] = counts.get(px, 0) + 1
    for outcome in ("pass", "fail", "crashed"):  # the grid's headline colours fill their boxes
        assert counts.get(rgb(COLOURS[outcome]), 0) > 300, outcome
