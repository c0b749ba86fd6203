"""The site's plots (``report/site_plots.py``): real runs published three times, every drawn point
read back from the pages and compared with ``history.json`` and the JUnit it came from.

``python -m tests.report.test_site_plots [DIR]`` writes ``DIR/site-plots.png`` (``docs/`` by
default), the picture shown in docs/reports.md.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pytest_rocmcompat.cli.main import main
from pytest_rocmcompat.report import plots
from pytest_rocmcompat.report.site_plots import publication_labels

from .conftest import make_project, run_cell
from .test_report_html import CHROMIUM, read_png, rgb

NS = {"svg": plots.SVG_NS}
ALLREDUCE = "all_reduce bus bandwidth, largest size"
# The project's GPU and collectives suites, rewritten so each publication measures other figures:
# GEMM and a device copy against the datasheet peak (the GEMM with a floor), and all_reduce bus
# bandwidth at three sizes named as the bundled collectives suite names them.
SUITES = {
    "suites/gpu/test_gpu.py": """
        import os

        SCALE = float(os.environ.get("PLOT_SCALE", "1"))

        def test_gemm(rocm_env, rocm_measure):
            kind = "mi300" if len(rocm_env.gpus) == 8 else "mi50" if rocm_env.gpus else "cpu"
            gemm, gemm_peak, copy, copy_peak = {
                "mi300": (650.0, 1307.0, 3100.0, 5300.0),
                "mi50": (21.0, 26.5, 700.0, 1024.0),
                "cpu": (1.5, 3.0, 40.0, 80.0),
            }[kind]
            rocm_measure("gemm_bf16_tflops", gemm * SCALE, floor=300.0 if kind == "mi300" else None,
                         peak=gemm_peak, detail="4096^3")
            rocm_measure("copy_d2d_gbps", copy * SCALE, peak=copy_peak)
        """,
    "suites/collectives/test_coll.py": """
        import os

        SCALE = float(os.environ.get("PLOT_SCALE", "1"))

        def test_allreduce(rocm_env, rocm_measure):
            gpus = len(rocm_env.gpus) == 8
            world, peak, scale = ("nccl-8", 448.0, 1.8 * SCALE) if gpus else ("gloo-2", None, 0.25 * SCALE)
            for size, bw in (("1MiB", 20.0), ("16MiB", 95.0), ("256MiB", 180.0)):
                rocm_measure(f"allreduce_busbw_gbps[{world}]@{size}", bw * scale, "GB/s", peak=peak,
                             detail=f"{world}, {size} bf16")
            rocm_measure(f"allreduce_busbw_gbps[{world}]", 180.0 * scale, "GB/s", detail=f"{world}, 256MiB")
        """,
}
# (scale, cells, suites) per publication: +5 % (under the threshold), then -40 % (over it) with
# a third stack (MI50) that ran the GPU suite only: no bandwidth plot on its page.
PUBLICATIONS = (
    (1.0, ("mi300", "cpu"), ("suites/gpu", "suites/collectives")),
    (1.05, ("mi300", "cpu"), ("suites/gpu", "suites/collectives")),
    (0.63, ("mi300", "cpu", "mi50"), ("suites/gpu", "suites/collectives")),
)
# The earlier publications are dated a week apart (written into history.json after each is
# published: publications a second apart would share one day on the x axis); the last is today.
DATES = ("2026-03-02T09:00:00Z", "2026-03-09T09:00:00Z")


def publish(root: Path) -> Path:
    """The project run for real three times, each run's JUnit published into one site."""
    make_project(root)
    for name, text in SUITES.items():
        (root / name).write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    site = root / "site"
    for n, (scale, cells, suites) in enumerate(PUBLICATIONS):
        out = root / f"pub{n}"
        out.mkdir()
        environ = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
        environ["PLOT_SCALE"] = str(scale)
        for cell in cells:
            only = suites if cell != "mi50" else ("suites/gpu",)
            result = run_cell(root, cell, *only, junit=str(out / f"{cell}.xml"), environ=environ)
            assert (out / f"{cell}.xml").is_file(), result.stdout + result.stderr
        assert main(["report", str(out), "-o", str(out / "c.md"), "--site", str(site)]) == 0
        if n < len(DATES):
            history = json.loads((site / "history.json").read_text(encoding="utf-8"))
            history["runs"][n]["date"] = DATES[n]
            (site / "history.json").write_text(json.dumps(history), encoding="utf-8")
    return site


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return publish(tmp_path_factory.mktemp("plots"))


# ----------------------------------------------------------------------------------------------
# reading back


def svgs(page: Path) -> dict[str, ET.Element]:
    """Every inline SVG of a page by its title (well-formed XML, or this raises)."""
    out = {}
    for text in re.findall(r"<svg .*?</svg>", page.read_text(encoding="utf-8"), re.S):
        root = ET.fromstring(text)
        title = root.find("svg:title", NS)
        assert title is not None and title.text and title.text not in out
        out[title.text] = root
    return out


def points(svg: ET.Element) -> list[dict[str, str]]:
    return [dict(g.attrib) for g in svg.iterfind(".//svg:g", NS) if g.get("class", "").split()[:1] == ["point"]]


def references(svg: ET.Element, kind: str) -> list[float]:
    return sorted(float(g.get("data-y", "nan")) for g in svg.iterfind(f".//svg:g[@class='{kind}']", NS))


def junit_figures(path: Path) -> dict[str, dict]:
    """metric name -> the JSON the JUnit file holds for it."""
    out = {}
    for prop in ET.parse(path).getroot().iter("property"):
        name = prop.get("name", "")
        if name.startswith("rocm_metric."):
            out[name.removeprefix("rocm_metric.")] = json.loads(prop.get("value", ""))
    return out


def history_of(site: Path) -> list[dict]:
    return json.loads((site / "history.json").read_text(encoding="utf-8"))["runs"]


def stack_page(site: Path, arch: str) -> tuple[str, Path]:
    runs = history_of(site)
    sid = next(sid for sid, s in runs[-1]["stacks"].items() if s["name"].startswith(arch))
    return sid, site / "stacks" / f"{sid}.html"


def figure_of(label: str) -> tuple[str, str]:
    """``all_reduce bus bandwidth, largest size (nccl-8)`` -> the chart's figure and the line's suffix."""
    match = re.fullmatch(r"(.*?)(?: \((.*)\))?", label)
    assert match
    return match.group(1), match.group(2) or ""


def expected_history(runs: list[dict], chart: str, sids: list[str]) -> set[tuple[str, int, float]]:
    """(line, publication, value) of every history.json figure the chart draws."""
    out = set()
    for sid in sids:
        name = runs[-1]["stacks"][sid]["name"]
        for i, run in enumerate(runs):
            for label, (value, _, _) in run["stacks"].get(sid, {}).get("figures", {}).items():
                figure, suffix = figure_of(label)
                if figure == chart:
                    out.add((f"{name}, {suffix}" if suffix else name, i, value))
    return out


def drawn(svg: ET.Element) -> set[tuple[str, int, float]]:
    return {(p["data-series"], int(p["data-x"]), float(p["data-y"])) for p in points(svg)}


# ----------------------------------------------------------------------------------------------
# the checks


def test_figures_page_draws_every_history_point_from_history_json(site: Path) -> None:
    runs = history_of(site)
    assert len(runs) == 3
    charts = svgs(site / "figures.html")
    labels = list(
        dict.fromkeys(figure_of(lbl)[0] for run in runs for s in run["stacks"].values() for lbl in s["figures"])
    )
    assert labels and set(labels) == {"GEMM bf16", "copy device-device", "all_reduce bus bandwidth, largest size"}
    assert set(charts) >= set(labels)
    sids = list(runs[-1]["stacks"])
    for label in labels:
        chart = charts[label]
        assert drawn(chart) == expected_history(runs, label, sids), label
        ticks = list(chart.iterfind(".//svg:g[@class='xtick']", NS))
        assert [int(t.get("data-x", "-1")) for t in ticks] == [0, 1, 2]  # one per publication
        assert {p["data-label"] for p in points(chart)} <= set(publication_labels(runs))
    assert publication_labels(runs)[:2] == ["2026-03-02", "2026-03-09"]
    # the latest figures are the JUnit measurements they were taken from
    mi300 = junit_figures(site.parent / "pub2" / "mi300.xml")
    gemm = {(p["data-series"], int(p["data-x"])): float(p["data-y"]) for p in points(charts["GEMM bf16"])}
    sid, _ = stack_page(site, "gfx942")
    assert gemm[(runs[-1]["stacks"][sid]["name"], 2)] == mi300["gemm_bf16_tflops"]["value"] == 650.0 * 0.63
    allreduce = {(p["data-series"], int(p["data-x"])): float(p["data-y"]) for p in points(charts[ALLREDUCE])}
    assert len({series for series, _ in allreduce}) == 2  # MI300X (nccl-8) and CPU (gloo-2) on one chart
    name = runs[-1]["stacks"][sid]["name"]
    assert allreduce[(f"{name}, nccl-8", 2)] == mi300["allreduce_busbw_gbps[nccl-8]"]["value"]
    # floors: the one this publication's GEMM measurements carry, for every stack
    assert references(charts["GEMM bf16"], "floor") == [mi300["gemm_bf16_tflops"]["floor"]] == [300.0]
    assert references(charts["copy device-device"], "floor") == []


def test_moved_points_are_the_index_changes(site: Path) -> None:
    """Ringed points: moved more than the site's threshold; the last ones are the index's 'moved' rows."""
    runs = history_of(site)
    charts = svgs(site / "figures.html")
    ringed = set()
    for label, chart in charts.items():
        for p in points(chart):
            if "data-moved" in p:
                assert "highlighted" in p["class"]
                ringed.add((p["data-series"], label, int(p["data-x"])))
    assert ringed and {x for _, _, x in ringed} == {2}  # +5 % stays under 10 %, -37 % is over it
    index = (site / "index.html").read_text(encoding="utf-8")
    moved = index.split("<h3>Figures that moved</h3>", 1)[1].split("<h3>", 1)[0].split("</h2>", 1)[0]
    listed = {(m[0], m[1]) for m in re.findall(r"<tr><td>([^<]*)</td><td>([^<]*)</td><td>", moved)}
    assert {(stack, figure_of(label)[0]) for stack, label in listed} == {
        (stack.rsplit(", ", 1)[0] if stack.endswith(("nccl-8", "gloo-2")) else stack, chart)
        for stack, chart, _ in ringed
    }
    both = [sid for sid in runs[-1]["stacks"] if sid in runs[-2]["stacks"]]
    assert len(listed) == sum(len(runs[-2]["stacks"][sid]["figures"]) for sid in both) == 6  # GEMM, copy, all_reduce


def test_stack_page_bandwidth_and_peak_come_from_its_junit(site: Path) -> None:
    sid, page = stack_page(site, "gfx942")
    charts = svgs(page)
    mi300 = junit_figures(site.parent / "pub2" / "mi300.xml")
    bandwidth = charts["all_reduce bus bandwidth by message size"]
    sized = {name.partition("@")[2]: m for name, m in mi300.items() if name.startswith("allreduce_busbw_gbps[nccl-8]@")}
    assert len(sized) == 3
    sizes = {"1MiB": 2**20, "16MiB": 2**24, "256MiB": 2**28}
    assert {(p["data-series"], float(p["data-x"]), float(p["data-y"])) for p in points(bandwidth)} == {
        ("nccl-8", float(sizes[s]), m["value"]) for s, m in sized.items()
    }
    assert references(bandwidth, "peak") == [448.0] == sorted({m["peak"] for m in sized.values()})
    bars = {p["data-series"]: p for p in points(charts["Headline figures against the device's peak"])}
    assert set(bars) == {"GEMM bf16", "copy device-device"}
    for label, metric in (("GEMM bf16", "gemm_bf16_tflops"), ("copy device-device", "copy_d2d_gbps")):
        m = mi300[metric]
        assert float(bars[label]["data-y"]) == m["value"] and float(bars[label]["data-peak"]) == m["peak"]
        assert float(bars[label]["data-fraction"]) == pytest.approx(m["value"] / m["peak"])
        assert ("data-floor" in bars[label]) == ("floor" in m)
    assert float(bars["GEMM bf16"]["data-floor"]) == mi300["gemm_bf16_tflops"]["floor"]
    # its own history: one line per figure, this stack's values only
    runs = history_of(site)
    for label in runs[-1]["stacks"][sid]["figures"]:
        figure, suffix = figure_of(label)
        chart = charts[figure]
        assert drawn(chart) == expected_history(runs, figure, [sid]), label
        name = runs[-1]["stacks"][sid]["name"]
        assert {p["data-series"] for p in points(chart)} == {f"{name}, {suffix}" if suffix else name}


def test_bandwidth_plot_only_where_collectives_ran(site: Path) -> None:
    _, mi50 = stack_page(site, "gfx906")
    charts = svgs(mi50)
    assert not any("bus bandwidth by message size" in title for title in charts)
    assert "GEMM bf16" in charts and len(points(charts["GEMM bf16"])) == 1  # published once
    caption = mi50.read_text(encoding="utf-8").split('<h2 id="plots">Plots</h2>', 1)[1].split("</p>", 1)[0]
    assert "bandwidth" not in caption and "against the device's peak" in caption  # what it draws, only
    _, cpu = stack_page(site, "no GPU")
    cpu_bw = svgs(cpu)["all_reduce bus bandwidth by message size"]
    assert {p["data-series"] for p in points(cpu_bw)} == {"gloo-2"} and references(cpu_bw, "peak") == []
    across = svgs(site / "figures.html")["all_reduce bus bandwidth by message size"]
    assert len({p["data-series"] for p in points(across)}) == 2  # MI300X and CPU, not MI50


def test_pages_are_self_contained(site: Path) -> None:
    for page in [site / "figures.html", *sorted((site / "stacks").iterdir())]:
        text = page.read_text(encoding="utf-8")
        assert "svg.rocmcompat-plot{max-width:100%;height:auto}" in text
        assert "<script" not in text and not re.search(r'(?:src|href)="(?:https?:)?//', text), page
    index = (site / "index.html").read_text(encoding="utf-8")
    assert '<a href="figures.html">' in index


def test_many_stacks_split_by_arch_then_torch_series() -> None:
    """Past GROUP_LIMIT stacks a figure is one chart per arch, an arch that still has too many one per
    torch series; a stack no longer published keeps its line on a chart of its own."""
    from pytest_rocmcompat.report.grid import stack_id
    from pytest_rocmcompat.report.merge import Merged, Row
    from pytest_rocmcompat.report.site_plots import GROUP_LIMIT, NOT_PUBLISHED, history_charts

    def row(n: int, arch: str, torch: str) -> Row:
        label = {"arch": arch, "runtime": "ROCm 6.2.4", "torch": torch, "python": "3.12", "libraries": ""}
        return Row(f"stack {n}", "hardware", label)

    rows = [row(n, "gfx942 (AMD Instinct MI300X x8)", f"2.{4 + n % 2}.1") for n in range(GROUP_LIMIT + 2)]
    rows.append(row(99, "gfx90a (AMD Instinct MI250X x8)", "2.5.1"))
    gone = "0123456789ab"
    runs = [
        {
            "date": f"2026-03-0{day}T00:00:00Z",
            "stacks": {
                **{
                    stack_id(r): {"name": r.key, "figures": {"GEMM bf16": [100.0 + day + n, "TFLOP/s", True]}}
                    for n, r in enumerate(rows)
                },
                **(
                    {gone: {"name": "old <stack>", "figures": {"GEMM bf16": [5.0, "TFLOP/s", True]}}}
                    if day == 1
                    else {}
                ),
            },
        }
        for day in (1, 2)
    ]
    charts = history_charts(Merged(rows, [], {}, [], len(rows)), runs, 0.1)
    titles = [c.heading for c in charts]
    assert titles == [
        "GEMM bf16, gfx942, torch 2.4",
        "GEMM bf16, gfx942, torch 2.5",
        "GEMM bf16, gfx90a",
        f"GEMM bf16, {NOT_PUBLISHED}",
    ]
    seen = []
    for chart in charts:
        lines = {p["data-series"] for p in points(ET.fromstring(chart.svg))}
        assert len(lines) <= GROUP_LIMIT
        seen += lines
    assert sorted(seen) == sorted([r.key for r in rows] + ["old <stack>"])
    assert "old &lt;stack&gt;" in charts[-1].svg and "old <stack>" not in charts[-1].svg


# ----------------------------------------------------------------------------------------------
# in a browser


def chromium(*args: str) -> subprocess.CompletedProcess:
    assert CHROMIUM
    return subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (Debian: apt-get install -y chromium)")
def test_plots_render_in_chromium(site: Path, tmp_path: Path) -> None:
    _, page = stack_page(site, "gfx942")
    dom = chromium("--dump-dom", page.as_uri()).stdout
    expected = len(svgs(page))
    assert expected >= 5 and dom.count('class="rocmcompat-plot"') == expected
    assert dom.count('class="point') == page.read_text(encoding="utf-8").count('class="point')
    shot = tmp_path / "stack.png"
    chromium(f"--screenshot={shot}", "--window-size=1000,2600", page.as_uri())
    assert shot.is_file(), "Chromium wrote no screenshot"
    width, height, pixels = read_png(shot)
    assert (width, height) == (1000, 2600)
    counts: dict[bytes, int] = {}
    for px in pixels:
        counts[px] = counts.get(px, 0) + 1
    assert counts.get(b"\xff\xff\xff", 0) < len(pixels) * 0.97  # not blank
    assert counts.get(rgb(plots.PALETTE[0]), 0) > 300  # the first series' lines and markers


def write_screenshot(folder: Path) -> Path:
    """``folder/site-plots.png``: the MI300X stack page's plots, three publications."""
    import tempfile

    assert CHROMIUM, "headless Chromium is needed (Debian: apt-get install -y chromium)"
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / "site-plots.png"
    with tempfile.TemporaryDirectory() as tmp:
        site = publish(Path(tmp))
        _, page = stack_page(site, "gfx942")
        frame = Path(tmp) / "frame.html"  # the page scrolled to its plots (a screenshot ignores '#')
        frame.write_text(
            '<!DOCTYPE html><body style="margin:0"><iframe style="border:0;width:100vw;height:100vh" '
            f'src="{page.as_uri()}#plots"></iframe></body>',
            encoding="utf-8",
        )
        # Full scale, one plot per row: text of 11-12 px as a reader sees it (the former 60 % scale
        # of a two-column page left 7 px tick labels, too small once a viewer shrinks the picture).
        chromium(f"--screenshot={out}", "--window-size=820,2200", "--virtual-time-budget=3000", frame.as_uri())
    assert out.is_file()
    return out


if __name__ == "__main__":
    print(write_screenshot(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parents[2] / "docs"))
