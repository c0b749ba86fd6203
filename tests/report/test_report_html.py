"""The HTML report renders in a real browser: headless Chromium screenshot, grid colours checked."""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from pytest_rocmcompat.cli.main import main
from pytest_rocmcompat.matrix.loader import load_matrix
from pytest_rocmcompat.report.html import COLOURS
from pytest_rocmcompat.report.merge import NOT_RUN, expand_inputs, headline, merge, read_runs

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def read_png(path: Path) -> tuple[int, int, list[bytes]]:
    """Width, height and RGB(A) rows of a non-interlaced 8-bit PNG (what Chromium writes)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        chunk = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, header
    bpp = 3 if colour == 2 else 4
    raw, stride, rows, prev = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, [bytes(r[i : i + 3]) for r in rows for i in range(0, stride, bpp)]


def rgb(hex_colour: str) -> bytes:
    return bytes.fromhex(hex_colour.lstrip("#"))


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (Debian: apt-get install -y chromium)")
def test_grid_renders_with_outcome_colours(cell_runs: Path, tmp_path: Path) -> None:
    page = tmp_path / "compat.html"
    assert (
        main(
            [
                "report",
                str(cell_runs),
                "--matrix",
                str(cell_runs / "matrix.yaml"),
                "-o",
                str(tmp_path / "c.md"),
                "--html",
                str(page),
            ]
        )
        == 0
    )
    shot = tmp_path / "shot.png"
    subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--screenshot={shot}",
            "--window-size=2400,1400",
            page.as_uri(),
        ],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert shot.is_file(), "Chromium wrote no screenshot"
    width, height, pixels = read_png(shot)
    assert (width, height) == (2400, 1400)
    counts: dict[bytes, int] = {}
    for px in pixels:
        counts[px] = counts.get(px, 0) + 1
    runs, _ = read_runs(expand_inputs([str(cell_runs)]))
    merged = merge(runs, load_matrix(str(cell_runs / "matrix.yaml")))
    shown = {NOT_RUN} | {headline(r.counts()[c]).value for r in merged.rows for c in merged.columns if c in r.counts()}
    assert {"pass", "fail", "crashed", NOT_RUN} <= shown
    # every headline outcome of the grid fills solid boxes of its colour
    for outcome in shown:
        assert counts.get(rgb(COLOURS[outcome]), 0) > 500, f"no {outcome} colour ({COLOURS[outcome]}) rendered"
    # an outcome no grid entry shows fills no grid box (at most the legend's, further down)
    for outcome in set(COLOURS) - shown:
        assert counts.get(rgb(COLOURS[outcome]), 0) < 500, outcome
