"""report/plots.py: every drawn point matches its data, labels are escaped, odd input draws."""

from __future__ import annotations

import itertools
import math
import re
import xml.etree.ElementTree as ET

import pytest

from pytest_rocmcompat.report import plots
from pytest_rocmcompat.report.plots import (
    BandwidthSeries,
    HistorySeries,
    PeakBar,
    bandwidth_svg,
    history_svg,
    versus_peak_svg,
)

NS = {"svg": plots.SVG_NS}
TRANSLATE = re.compile(r"translate\(([-0-9.]+) ([-0-9.]+)\)")
HOSTILE = '</text><script>alert(1)</script>"onload="x" &amp; \x1b[31m\ufffe\ud800 end'
PUBS = ("2024-05-01", "2024-05-08", "2024-05-15", "2024-06-01", "2024-06-20")


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)  # well-formed XML, or this raises
    assert root.tag == f"{{{plots.SVG_NS}}}svg"
    return root


def translate(element: ET.Element) -> tuple[float, float]:
    match = TRANSLATE.fullmatch(element.get("transform", ""))
    assert match, element.attrib
    return float(match.group(1)), float(match.group(2))


def points(root: ET.Element) -> list[dict]:
    """Each marker: its data attributes, its pixel position and its series."""
    out = []
    for series in root.iterfind(".//svg:g[@class='series']", NS):
        for g in series.iterfind("svg:g", NS):
            assert g.get("class", "").split()[0] == "point"
            x, y = translate(g)
            out.append(
                {
                    "series": g.get("data-series"),
                    "index": int(series.get("data-index", "-1")),
                    "x": float(g.get("data-x", "nan")),
                    "y": float(g.get("data-y", "nan")),
                    "px": x,
                    "py": y,
                    "moved": g.get("data-moved"),
                    "note": g.get("data-note"),
                    "highlighted": "highlighted" in g.get("class", ""),
                    "tag": "".join(t.text or "" for t in g.iterfind("svg:text", NS)),
                }
            )
    return out


def assert_affine(pairs: list[tuple[float, float]], increasing: bool) -> None:
    """Pixels are one affine function of the data (within rounding), and move the right way."""
    pairs = sorted(set(pairs))
    if len(pairs) < 2:
        return
    (d0, p0), (d1, p1) = pairs[0], pairs[-1]
    scale = (p1 - p0) / (d1 - d0)
    assert (scale > 0) == increasing
    for d, p in pairs:
        assert p == pytest.approx(p0 + scale * (d - d0), abs=0.02)
    by_data = [p for _, p in pairs]
    assert by_data == sorted(by_data, reverse=not increasing)


def assert_accessible(root: ET.Element, title: str) -> None:
    assert root.get("role") == "img"
    assert root.get("aria-label") == title
    assert root[0].tag == f"{{{plots.SVG_NS}}}title" and root[0].text == title
    assert root[1].tag == f"{{{plots.SVG_NS}}}desc" and root[1].text
    assert root.get("font-family") == "sans-serif"


def texts(root: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in root.iter(f"{{{plots.SVG_NS}}}text")]


# ------------------------------------------------------------------------------------------- history


def test_history_points_match_the_data() -> None:
    series = [
        HistorySeries("MI300X", (310.0, 312.0, 305.0, 190.0, 200.0), floor=250.0),
        HistorySeries("H100", (360, None, 365, 368.5, 371)),
    ]
    root = parse(history_svg("all_reduce busbw", "GB/s", PUBS, series))
    assert_accessible(root, "all_reduce busbw")
    found = points(root)
    expected = {(s.label, float(i), float(v)) for s in series for i, v in enumerate(s.values) if v is not None}
    assert {(p["series"], p["x"], p["y"]) for p in found} == expected
    assert len(found) == len(expected)  # one marker per data item, none twice
    assert_affine([(p["x"], p["px"]) for p in found], increasing=True)
    assert_affine([(p["y"], p["py"]) for p in found], increasing=False)
    # the same publication stands at the same x for every stack; one x tick per publication
    ticks = root.findall(".//svg:g[@class='xtick']", NS)
    tick_x = {int(t.get("data-x", "")): translate(t)[0] for t in ticks}
    assert sorted(tick_x) == list(range(len(PUBS)))
    for p in found:
        assert p["px"] == pytest.approx(tick_x[int(p["x"])], abs=0.01)
    assert {t.findtext("svg:text", namespaces=NS) for t in ticks} == set(PUBS)
    # the floor line sits where a value of 250 would
    (floor,) = root.findall(".//svg:g[@class='floor']", NS)
    assert float(floor.get("data-y", "")) == 250.0
    line = floor.find("svg:line", NS)
    assert line is not None
    y_pairs = [(p["y"], p["py"]) for p in found]
    (d0, p0), (d1, p1) = min(y_pairs), max(y_pairs)
    assert float(line.get("y1", "")) == pytest.approx(p0 + (p1 - p0) / (d1 - d0) * (250 - d0), abs=0.02)
    assert any("floor 250 GB/s (MI300X)" in t for t in texts(root))  # named in the legend, not all stacks have it
    # y ticks: start at 0, increase upward, cover every value; the axis says its unit
    yticks = root.findall(".//svg:g[@class='ytick']", NS)
    values = [float(t.get("data-value", "")) for t in yticks]
    assert values[0] == 0 and values == sorted(values) and values[-1] >= 371
    assert_affine([(v, translate(t)[1]) for v, t in zip(values, yticks, strict=True)], increasing=False)
    assert "GB/s" in texts(root) and "publication" in texts(root)


def test_history_gap_splits_the_line() -> None:
    svg = history_svg("f", "u", PUBS, [HistorySeries("H100", (1.0, None, 3.0, 4.0, 5.0))])
    polylines = parse(svg).findall(".//svg:g[@class='series']/svg:polyline", NS)
    assert len(polylines) == 1  # (0) alone, then 2-3-4 joined: nothing drawn across the gap
    assert len(polylines[0].get("points", "").split()) == 3


def test_history_highlights_a_move_past_the_threshold() -> None:
    series = [HistorySeries("MI300X", (100.0, 105.0, 150.0, None, 120.0))]
    found = points(parse(history_svg("f", "GB/s", PUBS, series, threshold=0.1)))
    moved = {p["x"]: p for p in found if p["highlighted"]}
    assert set(moved) == {2.0, 4.0}  # +43 % over 105; -20 % over 150, the previous drawn point
    assert moved[2.0]["tag"] == "+43%" and float(moved[2.0]["moved"]) == pytest.approx(150 / 105 - 1, abs=1e-4)
    assert moved[4.0]["tag"] == "-20%" and float(moved[4.0]["moved"]) == pytest.approx(-0.2)
    assert all(p["moved"] is None for p in found if not p["highlighted"])
    # without a threshold nothing is highlighted
    assert not any(p["highlighted"] for p in points(parse(history_svg("f", "GB/s", PUBS, series))))


def test_history_notes_become_footnotes() -> None:
    series = [HistorySeries("H100", (1.0, 2.0, 2.0), notes=("", "", "transformers 5.23 -> 5.24"))]
    root = parse(history_svg("f", "tokens/s", PUBS[:3], series))
    (noted,) = [p for p in points(root) if p["note"]]
    assert noted["x"] == 2.0 and noted["highlighted"] and noted["tag"] == "[1]"
    assert "[1] H100, 2024-05-15: transformers 5.23 -> 5.24" in texts(root)


def test_history_skips_what_cannot_be_drawn() -> None:
    values = (float("nan"), float("inf"), -4.0, 1e300, 5.0, 7.0)
    series = [HistorySeries("x", values, floor=float("nan"))]
    root = parse(history_svg("f", "u", [*PUBS, "extra"], series))
    assert [(p["x"], p["y"]) for p in points(root)] == [(4.0, 5.0), (5.0, 7.0)]
    assert "4 values not drawn (not finite, negative or out of range)" in texts(root)
    assert root.find(".//svg:g[@class='floor']", NS) is None


@pytest.mark.parametrize(
    ("publications", "series"),
    [
        ((), ()),
        (PUBS, ()),
        ((), (HistorySeries("a", (1.0, 2.0)),)),  # values without a publication: not drawn
        (PUBS, (HistorySeries("a", ()),)),
        (PUBS, (HistorySeries("a", (None, None)),)),
        (PUBS[:1], (HistorySeries("a", (0.0,)),)),
        (PUBS[:1], (HistorySeries("a", (3.0,), floor=0.0),)),
    ],
)
def test_history_degenerate_inputs(publications, series) -> None:
    root = parse(history_svg("t", "u", publications, series, threshold=0.1))
    found = points(root)
    drawn = sum(1 for s in series for v in list(s.values)[: len(publications)] if v is not None)
    assert len(found) == drawn
    if not drawn:
        assert "no data to draw" in texts(root)
    for p in found:
        assert math.isfinite(p["px"]) and math.isfinite(p["py"])


def test_history_fifty_stacks_and_fifty_publications() -> None:
    pubs = [f"2024-{m:02d}-{d:02d}" for m in range(1, 6) for d in range(1, 11)]
    series = [HistorySeries(f"stack {i}", tuple(float(i * 10 + j % 7) for j in range(50))) for i in range(50)]
    root = parse(history_svg("f", "u", pubs, series, threshold=0.05))
    found = points(root)
    assert len(found) == 2500
    assert_affine([(p["x"], p["px"]) for p in found], increasing=True)
    assert_affine([(p["y"], p["py"]) for p in found], increasing=False)
    assert len(root.findall(".//svg:g[@class='legend-entry']", NS)) == 51  # 50 stacks + the highlight
    # x labels thinned so they do not overlap, every publication still has its tick
    ticks = root.findall(".//svg:g[@class='xtick']", NS)
    assert len(ticks) == 50
    labelled = [translate(t)[0] for t in ticks if t.find("svg:text", NS) is not None]
    assert 2 < len(labelled) < 50 and min(b - a for a, b in itertools.pairwise(labelled)) > 70
    # everything inside the picture
    height = float(root.get("height", ""))
    assert all(0 < p["py"] < height for p in found)
    legend_y = [translate(e)[1] for e in root.iterfind(".//svg:g[@class='legend']", NS)]
    assert legend_y and max(legend_y) < height


def test_series_differ_without_colour() -> None:
    styles = [plots._style(i) for i in range(50)]
    assert len(set(styles)) == 50  # colour, marker and dash together
    assert len({(marker, dash) for _, marker, dash in styles[:15]}) == 15  # shape and dash alone


# ------------------------------------------------------------------------------------------- bandwidth


def test_bandwidth_points_match_the_data() -> None:
    mi300 = tuple((float(2**e), min(320.0, 2**e / 2**18 * 3)) for e in range(10, 31))
    h100 = tuple((float(2**e), min(370.0, 2**e / 2**18 * 4)) for e in range(30, 9, -2))  # any order
    series = [BandwidthSeries("MI300X", mi300), BandwidthSeries("H100", h100)]
    root = parse(bandwidth_svg("all_reduce", series, peaks=[("MI300X xGMI", 448.0)]))
    assert_accessible(root, "all_reduce")
    found = points(root)
    assert {(p["series"], p["x"], p["y"]) for p in found} == {
        (s.label, size, value) for s in series for size, value in s.points
    }
    assert len(found) == len(mi300) + len(h100)
    assert_affine([(math.log2(p["x"]), p["px"]) for p in found], increasing=True)  # log scale
    assert_affine([(p["y"], p["py"]) for p in found], increasing=False)
    for line in root.iterfind(".//svg:g[@class='series']", NS):  # each line drawn left to right
        xs = [float(pair.split(",")[0]) for pair in line.find("svg:polyline", NS).get("points", "").split()]
        assert xs == sorted(xs)
    ticks = root.findall(".//svg:g[@class='xtick']", NS)
    labels = [t.findtext("svg:text", namespaces=NS) for t in ticks]
    assert {"1K", "1M", "1G"} <= set(labels)
    assert_affine([(math.log2(float(t.get("data-x", ""))), translate(t)[0]) for t in ticks], increasing=True)
    (peak,) = root.findall(".//svg:g[@class='peak']", NS)
    assert float(peak.get("data-y", "")) == 448.0
    assert "MI300X xGMI 448 GB/s" in texts(root)
    assert "bus bandwidth (GB/s)" in texts(root) and "message size (bytes, log scale)" in texts(root)


@pytest.mark.parametrize(
    ("exponent", "label"),
    [(0, "1"), (9, "512"), (10, "1K"), (19, "512K"), (20, "1M"), (30, "1G"), (40, "1T")],
)
def test_size_labels(exponent: int, label: str) -> None:
    assert plots._size_label(exponent) == label


def test_bandwidth_skips_what_cannot_be_drawn() -> None:
    bad = [(0.0, 1.0), (-8.0, 1.0), (float("nan"), 1.0), (1024.0, float("inf")), (2048.0, -1.0), (4096.0, 1e300)]
    series = [BandwidthSeries("x", [*bad, (8192.0, 2.0)]), BandwidthSeries("empty", ())]
    root = parse(bandwidth_svg("t", series, peaks=[("nan peak", float("nan"))]))
    assert [(p["x"], p["y"]) for p in points(root)] == [(8192.0, 2.0)]
    assert "7 values not drawn (not finite, negative or out of range)" in texts(root)
    assert root.find(".//svg:g[@class='peak']", NS) is None


@pytest.mark.parametrize(
    "series",
    [
        (),
        (BandwidthSeries("one", ((1 << 20, 10.0),)),),
        (BandwidthSeries("same size", ((1 << 20, 10.0), (1 << 20, 12.0))),),
        (BandwidthSeries("one byte", ((1.0, 0.0),)),),
        (BandwidthSeries("non-power", ((1000.0, 1.0), (3e9, 2.0))),),
    ],
)
def test_bandwidth_degenerate_inputs(series) -> None:
    root = parse(bandwidth_svg("t", series, peaks=[("peak", 5.0)]))
    found = points(root)
    assert len(found) == sum(len(s.points) for s in series)
    if not found:
        assert "no data to draw" in texts(root)
    width = float(root.get("width", ""))
    assert all(0 < p["px"] < width for p in found)


def test_bandwidth_fifty_stacks() -> None:
    series = [BandwidthSeries(f"s{i}", tuple((float(2**e), float(e + i)) for e in range(10, 31))) for i in range(50)]
    root = parse(bandwidth_svg("t", series))
    assert len(points(root)) == 50 * 21
    assert len(root.findall(".//svg:g[@class='series']", NS)) == 50


# ------------------------------------------------------------------------------------------- versus peak


def bars_of(root: ET.Element) -> list[dict]:
    out = []
    for g in root.iterfind(".//svg:g[@class='bars']/svg:g", NS):
        rect = g.find("svg:rect", NS)
        floor = g.find("svg:line[@class='floor']", NS)
        assert rect is not None
        out.append(
            {
                "label": g.get("data-series"),
                "value": float(g.get("data-y", "")),
                "peak": float(g.get("data-peak", "")),
                "fraction": float(g.get("data-fraction", "")),
                "x": float(rect.get("x", "")),
                "width": float(rect.get("width", "")),
                "y": float(rect.get("y", "")),
                "floor_x": float(floor.get("x1", "")) if floor is not None else None,
                "text": "".join(g.find("svg:text[@class='bar-value']", NS).itertext()),
            }
        )
    return out


def test_versus_peak_bars_match_the_data() -> None:
    given = [
        PeakBar("GEMM bf16, MI300X", 812.0, 1307.4, "TFLOP/s", floor=600.0),
        PeakBar("GEMM bf16, H100", 720.0, 989.4, "TFLOP/s"),
        PeakBar("copy device-device, MI300X", 4100.0, 5300.0, "GB/s"),
        PeakBar("copy host-device, H100", 70.0, 64.0, "GB/s"),  # above the datasheet: drawn past 100 %
    ]
    root = parse(versus_peak_svg("against peak", given))
    assert_accessible(root, "against peak")
    bars = bars_of(root)
    assert [(b["label"], b["value"], b["peak"]) for b in bars] == [(g.label, g.value, g.peak) for g in given]
    for b in bars:
        assert b["fraction"] == b["value"] / b["peak"]
    assert len({b["x"] for b in bars}) == 1  # all from the same origin
    origin = bars[0]["x"]
    assert_affine([(0.0, origin)] + [(b["fraction"], origin + b["width"]) for b in bars], increasing=True)
    assert [b["y"] for b in bars] == sorted(b["y"] for b in bars)  # in the given order, top to bottom
    scale = bars[0]["width"] / bars[0]["fraction"]
    assert bars[0]["floor_x"] == pytest.approx(origin + scale * 600.0 / 1307.4, abs=0.02)
    # the 100 % line where a fraction of 1 would end
    peak_line = root.find(".//svg:g[@class='peak']/svg:line", NS)
    assert peak_line is not None and float(peak_line.get("x1", "")) == pytest.approx(origin + scale, abs=0.02)
    assert bars[0]["text"] == "812 TFLOP/s of 1.31k (62.1%)"
    assert "measured figure as a percentage of the datasheet peak (%)" in texts(root)


def test_versus_peak_cuts_and_skips() -> None:
    given = [
        PeakBar("ok", 50.0, 100.0, "GB/s"),
        PeakBar("bogus", 1e9, 64.0, "GB/s"),
        PeakBar("nan", float("nan"), 64.0, "GB/s"),
        PeakBar("no peak", 5.0, 0.0, "GB/s"),
        PeakBar("negative peak", 5.0, -1.0, "GB/s"),
        PeakBar("inf peak", 5.0, float("inf"), "GB/s"),
    ]
    root = parse(versus_peak_svg("t", given))
    bars = bars_of(root)
    assert [b["label"] for b in bars] == ["ok", "bogus"]
    ends = [float(t.get("data-x", "")) for t in root.iterfind(".//svg:g[@class='xtick']", NS)]
    assert max(ends) == plots.MAX_FRACTION  # the axis stops at 200 %, the bogus bar is cut there
    assert bars[1]["fraction"] == 1e9 / 64
    assert bars[1]["width"] == pytest.approx(bars[0]["width"] * plots.MAX_FRACTION / 0.5, abs=0.02)
    assert bars[1]["text"] == "1G GB/s of 64 (>200%)"
    assert "4 values not drawn (not finite, negative or out of range)" in texts(root)


@pytest.mark.parametrize("count", [0, 1, 50])
def test_versus_peak_counts(count: int) -> None:
    root = parse(versus_peak_svg("t", [PeakBar(f"b{i}", float(i), 100.0, "GB/s") for i in range(count)]))
    bars = bars_of(root)
    assert len(bars) == count
    assert all(b["y"] < float(root.get("height", "")) for b in bars)
    if not count:
        assert "no data to draw" in texts(root)


# ------------------------------------------------------------------------------------------- all three


def every_plot(label: str) -> list[str]:
    return [
        history_svg(
            label,
            label,
            [label, "2024-05-02"],
            [HistorySeries(label, (1.0, 2.0), floor=1.5, notes=(label, ""))],
            threshold=0.1,
        ),
        bandwidth_svg(
            label, [BandwidthSeries(label, ((1024.0, 1.0), (2048.0, 2.0)))], peaks=[(label, 3.0)], unit=label
        ),
        versus_peak_svg(label, [PeakBar(label, 1.0, 2.0, label, floor=0.5)]),
    ]


def test_hostile_labels_are_escaped() -> None:
    for svg in every_plot(HOSTILE):
        assert "<script" not in svg and "\x1b" not in svg and "\ufffe" not in svg
        root = parse(svg)
        assert not root.findall(".//script") and not root.findall(".//svg:script", NS)
        for element in root.iter():
            assert "onload" not in element.attrib  # the quote did not end an attribute
            assert element.tag.startswith(f"{{{plots.SVG_NS}}}")
        assert "alert(1)" in root.get("aria-label", "")  # shown as text, not run
        assert any("</text><script>alert(1)</script>" in t for t in texts(root))


def test_secrets_in_labels_are_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UPLOAD_API_TOKEN", "s3cr3t-t0ken-value")
    for svg in every_plot("stack s3cr3t-t0ken-value"):
        assert "s3cr3t-t0ken-value" not in svg
        parse(svg)


def test_long_labels_are_cut() -> None:
    label = "x" * 5000
    for svg in every_plot(label):
        assert len(svg) < 20000
        assert all(len(t) < 400 for t in texts(parse(svg)))


def test_output_is_deterministic_and_uses_no_ids() -> None:
    first, second = every_plot("a & b"), every_plot("a & b")
    assert first == second
    for svg in first:
        assert " id=" not in svg  # several plots share a page
        assert "<script" not in svg and "http" not in svg.replace(plots.SVG_NS, "")  # nothing fetched


def test_width_is_respected_and_floored() -> None:
    for width in (100, 760, 1600):
        root = parse(history_svg("t", "u", PUBS, [HistorySeries("a", (1.0, 2.0, 3.0))], width=width))
        assert float(root.get("width", "")) == max(width, 320)
        assert all(p["px"] < max(width, 320) for p in points(root))
