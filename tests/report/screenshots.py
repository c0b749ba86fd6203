"""Writes the screenshots shown in docs/reports.md: ``python -m tests.report.screenshots [DIR]``.

Each is a real project run for real, published with ``rocmcompat report --site`` and rendered in
headless Chromium (no emoji font needed):

- ``site-index.png`` (the grid, filtered by nothing) and ``site-stack.png`` (the MI300X stack's
  page): the report tests' project (three replayed cells: MI50, MI300X with torchao set by hand,
  CPU), published with its matrix (two planned cells that did not run);
- ``site-plots.png``: the MI300X stack page's plots over three publications
  (``tests/report/test_site_plots.py``);
- ``site-declared.png``: a project's own declared metrics (``metrics:`` of its matrix, a floor and
  a ceiling) on its stack page over three publications (``tests/report/test_declared_figures.py``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from pytest_rocmcompat.cli.main import main
from tests.conftest import REPO
from tests.report import test_declared_figures as declared
from tests.report import test_site_plots
from tests.report.conftest import CELLS, make_project, run_cell
from tests.report.test_report_html import CHROMIUM

# The declared project's three publications: tok/J (floor 12.5) and p50 latency in ms (lower is
# better, ceiling 40), first missing both, then meeting both, then latency 25 % worse. The first two
# are dated a week apart afterwards (publications seconds apart would share one day on the x axis);
# the last is today.
DECLARED_RUNS = ((9.5, 55.0), (14.0, 31.0), (13.6, 38.8))
DECLARED_DATES = ("2026-03-02T09:00:00Z", "2026-03-09T09:00:00Z")


def shoot(page: str, out: Path, size: str, *extra: str) -> None:
    assert CHROMIUM, "headless Chromium is needed (Debian: apt-get install -y chromium)"
    subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--screenshot={out}",
            f"--window-size={size}",
            *extra,
            page,
        ],
        capture_output=True,
        timeout=120,
        check=True,
    )
    assert out.is_file(), f"Chromium wrote no {out}"


def scrolled_to(page: Path, anchor: str, frame: Path) -> str:
    """A page holding ``page`` scrolled to ``#anchor`` (a screenshot of the page itself ignores '#')."""
    frame.write_text(
        '<!DOCTYPE html><body style="margin:0"><iframe style="border:0;width:100vw;height:100vh" '
        f'src="{page.as_uri()}#{anchor}"></iframe></body>',
        encoding="utf-8",
    )
    return frame.as_uri()


def publish_declared(root: Path) -> Path:
    """The declared-metrics project run for real three times, each run's JUnit published into one site."""
    declared.write_project(root)
    site = root / "site"
    for n, (tok_j, latency) in enumerate(DECLARED_RUNS):
        out = root / f"pub{n}"
        out.mkdir()
        declared.run(root, tok_j, latency, out / "junit.xml")
        assert main(["report", str(out), "-o", str(out / "c.md"), "--site", str(site)]) == 0
        if n < len(DECLARED_DATES):
            history = json.loads((site / "history.json").read_text(encoding="utf-8"))
            history["runs"][n]["date"] = DECLARED_DATES[n]
            (site / "history.json").write_text(json.dumps(history), encoding="utf-8")
    return site


def write_declared(folder: Path) -> Path:
    """``folder/site-declared.png``: the declared metrics' plots on their stack page."""
    out = folder / "site-declared.png"
    with tempfile.TemporaryDirectory() as tmp:
        site = publish_declared(Path(tmp))
        (stack,) = (site / "stacks").iterdir()
        shoot(scrolled_to(stack, "plots", Path(tmp) / "frame.html"), out, "820,1080", "--virtual-time-budget=3000")
    return out


def write(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_project(root)
        for cell in CELLS:
            run_cell(root, cell, *(() if cell == "cpu" else ("--rocm-set", "lib.torchao=0.7.0")))
        site = root / "site"
        args = ["report", str(root / "*.xml"), "--matrix", str(root / "matrix.yaml"), "-o", str(root / "c.md")]
        assert main([*args, "--site", str(site)]) == 0
        stack = next(p for p in (site / "stacks").iterdir() if "MI300X" in p.read_text(encoding="utf-8"))
        shots = [(site / "index.html", folder / "site-index.png"), (stack, folder / "site-stack.png")]
        for page, out in shots:
            shoot(page.as_uri(), out, "1280,900")
    return [out for _, out in shots] + [test_site_plots.write_screenshot(folder), write_declared(folder)]


if __name__ == "__main__":
    for path in write(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "docs"):
        print(path)
