"""Writes the screenshots shown in docs/reports.md: ``python -m tests.report.screenshots [DIR]``.

The report tests' project (three replayed cells: MI50, MI300X with torchao set by hand, CPU) is
run for real, published with its matrix (two planned cells that did not run) and rendered in
headless Chromium: ``docs/site-index.png`` (the grid, filtered by nothing) and
``docs/site-stack.png`` (the MI300X stack's page).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from pytest_rocmcompat.cli.main import main
from tests.conftest import REPO
from tests.report.conftest import CELLS, make_project, run_cell
from tests.report.test_report_html import CHROMIUM


def shoot(page: str, out: Path, size: str) -> None:
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
            page,
        ],
        capture_output=True,
        timeout=120,
        check=True,
    )
    assert out.is_file(), f"Chromium wrote no {out}"


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
    return [out for _, out in shots]


if __name__ == "__main__":
    for path in write(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "docs"):
        print(path)
