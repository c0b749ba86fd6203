"""Static plots for the site: inline SVG drawn in Python, no script, no network, no dependency.

Three pictures, each one ``<svg role="img">`` string with a ``<title>``, an ``aria-label``, a
``<desc>`` saying what was drawn (and how many values were not), labelled axes with units, a
legend, and one marker per data item (``<g class="point">`` carrying ``data-*`` attributes
with the value it was drawn from). Series differ by marker shape and dash pattern as well as
colour, so a plot reads in grey print and for colour-blind readers. Every label is untrusted
(it comes from JUnit files) and passes through :func:`~pytest_rocmcompat.safe_io.escape.html_text`
or :func:`~pytest_rocmcompat.safe_io.escape.html_attr`; the output is well-formed XML, usable
inline in HTML or saved as a ``.svg`` file. Values that cannot be drawn (NaN, infinities,
negative figures, sizes below one byte, values above :data:`MAX_VALUE`) are skipped and
counted in the plot's ``<desc>`` and footnote, never an exception. Same input, same bytes.

How ``site.py`` calls them (inputs are plain values, not the report's objects):

- :func:`history_svg`, one per headline figure label (``history.json``:
  ``runs[i].stacks[ID].figures[LABEL] = [value, unit, higher_is_better]``)::

      runs = history  # load_history(folder) plus the current snapshot
      ids = [sid for sid in stacks_in_order if any(LABEL in r["stacks"].get(sid, {}).get("figures", {}) for r in runs)]
      series = [
          HistorySeries(
              label=name_of[sid],
              values=tuple((r["stacks"].get(sid, {}).get("figures", {}).get(LABEL) or [None])[0] for r in runs),
              floor=floor_of.get((sid, LABEL)),  # the matrix cell's floor, when there is one
          )
          for sid in ids
      ]
      svg = history_svg(LABEL, unit, [r["date"][:10] for r in runs], series, threshold=threshold)

  On a stack page pass that stack's series alone. ``notes`` (per publication) can name what
  changed, e.g. a library upgrade; a point with a note gets a ring and a numbered footnote.
- :func:`bandwidth_svg`, one per collective (``allreduce_busbw_gbps``, ...): the per-size
  figures ``base@size`` that :func:`~pytest_rocmcompat.report.sizes.split_sized` groups,
  sizes turned into bytes with :func:`~pytest_rocmcompat.report.digest.size_bytes`::

      series = [BandwidthSeries(name_of(row), tuple((digest.size_bytes(size), m.value) for size, m in sized)) ...]
      svg = bandwidth_svg("all_reduce bus bandwidth", series, peaks=[("H100 NVLink", 450.0)])

- :func:`versus_peak_svg`: GEMM and copy headline figures that carry ``Measurement.peak``
  (or a datasheet peak from ``suites/peaks.py``)::

      bars = [PeakBar(f"{h.label}, {h.stack}", h.figure.value, h.figure.peak, h.figure.unit, h.figure.floor)
              for h in digest.headlines(merged, name_of) if h.figure.peak]
      svg = versus_peak_svg("GEMM and copy against the datasheet peak", bars)

Several SVGs may share one page: nothing here uses an ``id``. Each has a fixed ``width`` and a
``viewBox``; the page's CSS should add ``svg.rocmcompat-plot{max-width:100%;height:auto}`` so
a plot shrinks on a narrow screen. Fifty stacks draw (the legend grows below the plot) but read
badly as one history chart: the index should draw one chart per arch or torch series, a stack
page its own series alone.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pytest_rocmcompat.safe_io.escape import clean, html_attr, html_text

SVG_NS = "http://www.w3.org/2000/svg"
MAX_VALUE = 1e15  # above any plausible GB/s, TFLOP/s or tokens/s: a corrupt figure, not drawn
MAX_BYTES = 2.0**60
MAX_FRACTION = 2.0  # the peak chart's axis stops at 200 %; a bar beyond is cut and says so
LABEL_LIMIT = 60  # characters of a bar label (the full text is in the tooltip)
LEGEND_LIMIT = 96  # characters of a legend label: a stack's whole name fits one row of a 760-wide plot
TOOLTIP_LIMIT = 300

# Okabe-Ito (colour-blind safe; yellow left out: too pale on white), then two darker tones.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#8C564B")
MARKERS = ("circle", "square", "triangle", "diamond", "cross")
DASHES = ("", "7 3", "2 3")  # solid, dashed, dotted; 5 markers x 3 dashes: 15 series apart in grey
REFERENCE_DASH = "12 4 2 4"  # floor and peak lines: dash-dot, unlike any series
REFERENCE_COLOUR = "#444444"
HIGHLIGHT_COLOUR = "#000000"
_HALO = 'stroke="#ffffff" stroke-width="3" stroke-linejoin="round" paint-order="stroke"'  # text over lines

_FONT = 12
_CHAR = 0.58  # average sans-serif glyph width per font size, for layout estimates
_TOP, _BOTTOM, _LEFT, _RIGHT = 46, 58, 76, 28
_RIGHT_REFERENCE = 56  # room for a floor or peak line's value
_PLOT_HEIGHT = 300


@dataclass(frozen=True)
class HistorySeries:
    """One stack's figure over the publications: ``values[i]`` for publication ``i`` (None: absent)."""

    label: str
    values: Sequence[float | None]
    floor: float | None = None
    notes: Sequence[str] = ()  # per publication, "" for none: what changed (a library upgrade, ...)
    higher_is_better: bool = True  # else the floor is a ceiling (a declared lower-is-better metric)


@dataclass(frozen=True)
class BandwidthSeries:
    """One stack's bus bandwidth per message size: ``(bytes, GB/s)`` pairs, in any order."""

    label: str
    points: Sequence[tuple[float, float]]


@dataclass(frozen=True)
class PeakBar:
    """One figure against its peak, both in ``unit`` (the bar is ``value / peak``)."""

    label: str
    value: float
    peak: float
    unit: str
    floor: float | None = None


# ----------------------------------------------------------------------------------------------
# text and numbers


def _one_line(text: object) -> str:
    """One line of text XML accepts (U+FFFE/U+FFFF are not XML characters; safe text keeps them)."""
    return " ".join(str(text).replace("\ufffe", "\ufffd").replace("\uffff", "\ufffd").split())


def _text(text: object, limit: int = LABEL_LIMIT) -> str:
    return html_text(_one_line(text), limit)


def _attr(text: object, limit: int = TOOLTIP_LIMIT) -> str:
    return html_attr(clean(_one_line(text), limit))


def _px(value: float) -> str:
    """A pixel coordinate: two decimals, no ``-0``."""
    out = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if out in ("-0", "") else out


def _num(value: float) -> str:
    """A figure for a tick or a label: 3 significant digits, k/M/G/T/P above a thousand."""
    size = abs(value)
    if size == 0:
        return "0"
    for div, suffix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if size >= div:
            return f"{value / div:.3g}{suffix}"
    if size < 1e-3:
        return f"{value:.2e}"
    return f"{value:.3g}"


def _data(value: float) -> str:
    """A value in a ``data-*`` attribute: Python's shortest round-trip form."""
    return repr(float(value))


def _size_label(exponent: int) -> str:
    """``2**exponent`` bytes as nccl-tests writes it: 1, 2, ... 512, 1K ... 512K, 1M ... 1G ..."""
    unit = min(max(exponent, 0) // 10, 5)
    return f"{2 ** (exponent - 10 * unit)}{('', 'K', 'M', 'G', 'T', 'P')[unit]}"


def _human_bytes(size: float) -> str:
    for power, unit in ((50, "P"), (40, "T"), (30, "G"), (20, "M"), (10, "K")):
        if size >= 2.0**power:
            return f"{size / 2.0**power:.4g}{unit}B"
    return f"{size:.4g} B"


def _drawable(value: object, limit: float = MAX_VALUE) -> float | None:
    """``value`` as a float when it can be drawn on a 0-based axis, else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    if not math.isfinite(number) or number < 0 or number > limit:
        return None
    return number


def _nice_ticks(top: float, count: int = 5) -> list[float]:
    """Ticks from 0 to at least ``top`` on a 1/2/2.5/5 x 10^n step."""
    if not top > 0:
        top = 1.0
    raw = top / count
    magnitude = 10.0 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1.0, 2.0, 2.5, 5.0, 10.0) if m * magnitude >= raw * (1 - 1e-12))
    steps = math.ceil(top / step - 1e-9)
    return [step * i for i in range(steps + 1)]


def _width(text: str, size: float = _FONT) -> float:
    return len(text) * size * _CHAR


# ----------------------------------------------------------------------------------------------
# shapes


def _style(index: int) -> tuple[str, str, str]:
    """(colour, marker, dash) of series ``index``: colour, marker and dash cycle on coprime lengths."""
    return PALETTE[index % len(PALETTE)], MARKERS[index % len(MARKERS)], DASHES[index % len(DASHES)]


def _marker(kind: str, colour: str, scale: float = 1.0) -> str:
    s = 4.2 * scale
    if kind == "circle":
        return f'<circle r="{_px(s)}" fill="{colour}" stroke="#ffffff" stroke-width="1"/>'
    if kind == "cross":
        d = s * 0.85
        return (
            f'<path d="M{_px(-d)} {_px(-d)}L{_px(d)} {_px(d)}M{_px(-d)} {_px(d)}L{_px(d)} {_px(-d)}" '
            f'fill="none" stroke="{colour}" stroke-width="2.4"/>'
        )
    if kind == "square":
        d = s * 0.85
        path = f"M{_px(-d)} {_px(-d)}H{_px(d)}V{_px(d)}H{_px(-d)}Z"
    elif kind == "triangle":
        path = f"M0 {_px(-s * 1.15)}L{_px(s)} {_px(s * 0.6)}H{_px(-s)}Z"
    else:  # diamond
        d = s * 1.15
        path = f"M0 {_px(-d)}L{_px(d)} 0L0 {_px(d)}L{_px(-d)} 0Z"
    return f'<path d="{path}" fill="{colour}" stroke="#ffffff" stroke-width="1"/>'


def _ring(radius: float = 8.5) -> str:
    return f'<circle r="{_px(radius)}" fill="none" stroke="{HIGHLIGHT_COLOUR}" stroke-width="2"/>'


def _dash(dash: str) -> str:
    return f' stroke-dasharray="{dash}"' if dash else ""


def _head(title: str, width: float, height: float, summary: str) -> list[str]:
    name = _attr(title)
    return [
        f'<svg xmlns="{SVG_NS}" class="rocmcompat-plot" role="img" aria-label="{name}" '
        f'width="{_px(width)}" height="{_px(height)}" viewBox="0 0 {_px(width)} {_px(height)}" '
        f'font-family="sans-serif" font-size="{_FONT}">',
        f"<title>{_text(title, TOOLTIP_LIMIT)}</title>",
        f"<desc>{_text(summary, 2000)}</desc>",
        f'<rect class="background" x="0" y="0" width="{_px(width)}" height="{_px(height)}" fill="#ffffff"/>',
        f'<text class="plot-title" x="{_px(width / 2)}" y="24" text-anchor="middle" font-size="15" '
        f'font-weight="bold">{_text(title, 90)}</text>',
    ]


def _legend(entries: list[tuple[str, str]], top: float, width: float) -> tuple[list[str], float]:
    """Legend rows below the plot: ``(sample SVG drawn around (0, 0), label)``; returns (svg, height)."""
    if not entries:
        return [], 0.0
    longest = max(_width(html_text(_one_line(label), LEGEND_LIMIT)) for _, label in entries)
    column = min(max(longest + 44, 140.0), width - 2 * 16)
    columns = max(1, int((width - 2 * 16) // column))
    rows = math.ceil(len(entries) / columns)
    out = [f'<g class="legend" transform="translate(16 {_px(top)})">']
    for i, (sample, label) in enumerate(entries):
        x, y = (i % columns) * column, (i // columns) * 20 + 10
        out.append(
            f'<g class="legend-entry" transform="translate({_px(x)} {_px(y)})">{sample}'
            f'<text x="40" y="4">{_text(label, LEGEND_LIMIT)}</text></g>'
        )
    out.append("</g>")
    return out, rows * 20 + 8


def _y_axis(ticks: list[float], y_of: Callable[[float], float], left: float, right: float, label: str) -> list[str]:
    out = ['<g class="y-axis">']
    for tick in ticks:
        y = _px(y_of(tick))
        out.append(
            f'<g class="ytick" data-value="{_data(tick)}" transform="translate(0 {y})">'
            f'<line x1="{_px(left)}" x2="{_px(right)}" stroke="#e4e4e4"/>'
            f'<text x="{_px(left - 6)}" y="4" text-anchor="end">{_text(_num(tick))}</text></g>'
        )
    middle = (y_of(ticks[0]) + y_of(ticks[-1])) / 2
    out.append(
        f'<text class="axis-label" transform="translate(18 {_px(middle)}) rotate(-90)" text-anchor="middle">'
        f"{_text(label)}</text>"
    )
    out.append("</g>")
    return out


def _frame(left: float, top: float, right: float, bottom: float) -> str:
    return (
        f'<path class="frame" d="M{_px(left)} {_px(top)}V{_px(bottom)}H{_px(right)}" fill="none" '
        'stroke="#333333" stroke-width="1"/>'
    )


def _references(
    found: Sequence[tuple[float, str]], y_of: Callable[[float], float], left: float, right: float, kind: str
) -> list[str]:
    """Horizontal floor or peak lines across the plot, each value written in the right margin
    (outside the data, nudged apart when close; the legend names each line in full).
    """
    out = []
    last = -math.inf
    for value, label in sorted(found, key=lambda item: -item[0]):  # top first
        y = y_of(value)
        text_y = max(y + 4, last + 13)
        last = text_y
        out.append(
            f'<g class="{kind}" data-y="{_data(value)}" data-label="{_attr(label)}">'
            f'<line x1="{_px(left)}" x2="{_px(right)}" y1="{_px(y)}" y2="{_px(y)}" '
            f'stroke="{REFERENCE_COLOUR}" stroke-width="1.6"{_dash(REFERENCE_DASH)}/>'
            f'<text x="{_px(right + 5)}" y="{_px(text_y)}" fill="{REFERENCE_COLOUR}" font-size="11">'
            f"{_text(_num(value))}</text></g>"
        )
    return out


def _reference_sample() -> str:
    return f'<line x1="2" x2="34" y1="0" y2="0" stroke="{REFERENCE_COLOUR}" stroke-width="1.6"{_dash(REFERENCE_DASH)}/>'


def _series_sample(index: int) -> str:
    colour, marker, dash = _style(index)
    return (
        f'<line x1="2" x2="34" y1="0" y2="0" stroke="{colour}" stroke-width="2"{_dash(dash)}/>'
        f'<g transform="translate(18 0)">{_marker(marker, colour)}</g>'
    )


def _empty(out: list[str], left: float, top: float, right: float, bottom: float) -> None:
    out.append(
        f'<text class="no-data" x="{_px((left + right) / 2)}" y="{_px((top + bottom) / 2)}" '
        'text-anchor="middle" fill="#555555">no data to draw</text>'
    )


def _skipped_note(skipped: int, y: float, width: float) -> list[str]:
    if not skipped:
        return []
    return [
        f'<text class="skipped" x="{_px(width - 16)}" y="{_px(y)}" text-anchor="end" fill="#555555" font-size="11">'
        f"{skipped} value{'s' if skipped != 1 else ''} not drawn (not finite, negative or out of range)</text>"
    ]


@dataclass
class _Point:
    x: float  # pixels
    y: float
    attrs: dict[str, str]  # data-* attribute -> raw value (escaped when written)
    tooltip: str
    ring: bool = False
    tag: str = ""  # text beside a highlighted point


@dataclass
class _Line:
    label: str
    index: int
    segments: list[list[_Point]] = field(default_factory=list)


def _draw_lines(lines: list[_Line]) -> list[str]:
    out: list[str] = []
    for line in lines:
        colour, marker, dash = _style(line.index)
        out.append(f'<g class="series" data-series="{_attr(line.label)}" data-index="{line.index}">')
        for segment in line.segments:
            if len(segment) > 1:
                points = " ".join(f"{_px(p.x)},{_px(p.y)}" for p in segment)
                out.append(
                    f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"{_dash(dash)} '
                    'stroke-linejoin="round"/>'
                )
        for segment in line.segments:
            for p in segment:
                data = "".join(f' data-{key}="{_attr(value)}"' for key, value in p.attrs.items())
                extra = ""
                if p.ring:
                    extra = _ring()
                body = f"<title>{_text(p.tooltip, TOOLTIP_LIMIT)}</title>{extra}{_marker(marker, colour)}"
                if p.tag:
                    body += (
                        f'<text class="point-tag" x="0" y="-13" text-anchor="middle" font-weight="bold" '
                        f'font-size="11" {_HALO}>{_text(p.tag, 30)}</text>'
                    )
                out.append(
                    f'<g class="point{" highlighted" if p.ring else ""}" transform="translate({_px(p.x)} {_px(p.y)})"'
                    f"{data}>{body}</g>"
                )
        out.append("</g>")
    return out


# ----------------------------------------------------------------------------------------------
# 1. a headline figure over the publications


def history_svg(
    title: str,
    unit: str,
    publications: Sequence[str],
    series: Sequence[HistorySeries],
    *,
    threshold: float | None = None,
    width: int = 760,
) -> str:
    """A line per stack: one point per publication (x: the publication, labelled), y in ``unit``.

    A series' floor (a ceiling where lower is better) is a dash-dot line. With ``threshold`` (a fraction: 0.1 is 10 %), a point
    that moved more than that from the stack's previous drawn point gets a black ring and its
    change as a label ("+74%"); a point with a note gets a ring and a numbered footnote.
    """
    width = max(int(width), 320)
    count = len(publications)
    left, right = _LEFT, width - _RIGHT_REFERENCE
    top, bottom = _TOP, _TOP + _PLOT_HEIGHT
    band = (right - left) / max(count, 1)

    def x_of(index: int) -> float:
        return left + band * (index + 0.5)

    skipped = 0
    drawn: list[tuple[int, HistorySeries, list[tuple[int, float]]]] = []
    for index, one in enumerate(series):
        values = list(one.values)[:count]
        skipped += sum(1 for v in values if v is not None and _drawable(v) is None)
        skipped += sum(1 for v in list(one.values)[count:] if v is not None)  # no publication to stand at
        kept = [(i, v) for i, v in enumerate(_drawable(v) for v in values) if v is not None]
        drawn.append((index, one, kept))
    floors: dict[float, list[str]] = {}
    ceilings = {_drawable(one.floor) for one in series if not one.higher_is_better}
    for _, one, _ in drawn:
        floor = _drawable(one.floor)
        if floor is not None:
            floors.setdefault(floor, []).append(one.label)
    floor_labels = [
        (
            floor,
            f"{'ceiling' if floor in ceilings else 'floor'} {_num(floor)} {unit}"
            + ("" if len(names) == len(series) else " (" + ", ".join(names) + ")"),
        )
        for floor, names in floors.items()
    ]
    top_value = max([v for _, _, kept in drawn for _, v in kept] + list(floors), default=0.0)
    ticks = _nice_ticks(top_value * 1.05 if top_value else 1.0)

    def y_of(value: float) -> float:
        return bottom - (bottom - top) * value / ticks[-1]

    lines: list[_Line] = []
    notes: list[str] = []
    moved = 0
    for index, one, kept in drawn:
        line = _Line(one.label, index)
        segment: list[_Point] = []
        previous: tuple[int, float] | None = None
        for i, value in kept:
            if previous is not None and previous[0] != i - 1 and segment:
                line.segments.append(segment)  # a publication without this stack: a gap in the line
                segment = []
            attrs = {"x": str(i), "y": _data(value), "series": one.label, "label": publications[i]}
            tooltip = f"{one.label}, {publications[i]}: {_num(value)} {unit}"
            point = _Point(x_of(i), y_of(value), attrs, tooltip)
            if threshold is not None and previous is not None and previous[1] > 0:
                change = (value - previous[1]) / previous[1]
                if abs(change) > threshold:
                    point.ring, point.tag = True, f"{change:+.0%}"
                    attrs["moved"] = f"{change:+.4f}"
                    point.tooltip += f" ({change:+.0%} since {publications[previous[0]]})"
                    moved += 1
            note = _one_line(one.notes[i]) if i < len(one.notes) and isinstance(one.notes[i], str) else ""
            if note:
                notes.append(f"{one.label}, {publications[i]}: {note}")
                point.ring = True
                point.tag = f"{point.tag} [{len(notes)}]".strip()
                attrs["note"] = note
                point.tooltip += f" ({note})"
            segment.append(point)
            previous = (i, value)
        if segment:
            line.segments.append(segment)
        lines.append(line)

    points = sum(len(kept) for _, _, kept in drawn)
    summary = (
        f"Line chart of {title} in {unit} over {count} publication{'s' if count != 1 else ''}, "
        f"{len(series)} stack{'s' if len(series) != 1 else ''}, {points} points"
        + (f", {moved} moved more than {threshold:.0%}" if threshold is not None else "")
        + (f", {skipped} values not drawn" if skipped else "")
        + "."
    )

    entries = [(_series_sample(index), one.label) for index, one, _ in drawn]
    entries += [(_reference_sample(), label) for _, label in floor_labels]
    if threshold is not None:
        entries.append((f'<g transform="translate(18 0)">{_ring()}</g>', f"moved more than {threshold:.0%}"))
    legend_top = bottom + 44
    legend, legend_height = _legend(entries, legend_top, width)
    notes_top = legend_top + legend_height + 6
    height = notes_top + 18 * len(notes) + (20 if skipped else 0) + 8

    out = _head(title, width, height, summary)
    out += _y_axis(ticks, y_of, left, right, unit)
    out.append('<g class="x-axis">')
    if count:
        stride = max(1, math.ceil(max(_width(_one_line(p)[:20]) + 12 for p in publications) / band))
        for i, label in enumerate(publications):
            shown = i % stride == 0 or (i == count - 1 and (count - 1) % stride >= stride / 2)
            text = f'<text y="{_px(bottom + 18)}" text-anchor="middle">{_text(label, 20)}</text>' if shown else ""
            out.append(
                f'<g class="xtick" data-x="{i}" transform="translate({_px(x_of(i))} 0)">'
                f'<line y1="{_px(bottom)}" y2="{_px(bottom + 5)}" stroke="#333333"/>{text}</g>'
            )
    out.append(
        f'<text class="axis-label" x="{_px((left + right) / 2)}" y="{_px(bottom + 38)}" text-anchor="middle">'
        "publication</text></g>"
    )
    out += _references(floor_labels, y_of, left, right, "floor")
    out.append(_frame(left, top, right, bottom))
    if points:
        out += _draw_lines(lines)
    else:
        _empty(out, left, top, right, bottom)
    out += legend
    for n, note in enumerate(notes, 1):
        out.append(
            f'<text class="note" x="16" y="{_px(notes_top + 18 * n - 4)}" font-size="11">[{n}] {_text(note, 160)}</text>'
        )
    out += _skipped_note(skipped, height - 10, width)
    out.append("</svg>")
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------------------------
# 2. bus bandwidth per message size


def bandwidth_svg(
    title: str,
    series: Sequence[BandwidthSeries],
    *,
    peaks: Sequence[tuple[str, float]] = (),
    unit: str = "GB/s",
    width: int = 760,
) -> str:
    """A line per stack: bus bandwidth (``unit``) against message size (bytes, log 2 scale).

    ``peaks`` are ``(label, value)`` horizontal lines (a link's datasheet bandwidth).
    """
    width = max(int(width), 320)
    left, right = _LEFT, width - (_RIGHT_REFERENCE if peaks else _RIGHT)
    top, bottom = _TOP, _TOP + _PLOT_HEIGHT
    skipped = 0
    drawn: list[tuple[int, BandwidthSeries, list[tuple[float, float]]]] = []
    for index, one in enumerate(series):
        kept = []
        for pair in one.points:
            size = _drawable(pair[0], MAX_BYTES) if len(pair) == 2 else None
            value = _drawable(pair[1]) if len(pair) == 2 else None
            if size is None or value is None or size < 1:
                skipped += 1
            else:
                kept.append((size, value))
        drawn.append((index, one, sorted(kept)))
    references = [(label, v) for label, v in ((label, _drawable(value)) for label, value in peaks) if v is not None]
    skipped += len(peaks) - len(references)
    sizes = [size for _, _, kept in drawn for size, _ in kept]
    low = math.floor(math.log2(min(sizes))) if sizes else 10
    high = math.ceil(math.log2(max(sizes))) if sizes else 30
    if high - low < 2:
        low, high = low - 1, high + 1
    pad = (high - low) * 0.03  # end points clear of the frame
    span = high - low + 2 * pad
    stride = next(s for s in (1, 2, 3, 4, 5, 10, 20) if (high - low) / s <= max(4, (right - left) // 60) or s == 20)

    def x_of(size: float) -> float:
        return left + (right - left) * (math.log2(size) - low + pad) / span

    top_value = max([v for _, _, kept in drawn for _, v in kept] + [v for _, v in references], default=0.0)
    ticks = _nice_ticks(top_value * 1.05 if top_value else 1.0)

    def y_of(value: float) -> float:
        return bottom - (bottom - top) * value / ticks[-1]

    lines = []
    for index, one, kept in drawn:
        line = _Line(one.label, index)
        segment = [
            _Point(
                x_of(size),
                y_of(value),
                {"x": _data(size), "y": _data(value), "series": one.label, "label": _human_bytes(size)},
                f"{one.label}, {_human_bytes(size)}: {_num(value)} {unit}",
            )
            for size, value in kept
        ]
        if segment:
            line.segments.append(segment)
        lines.append(line)
    points = len(sizes)
    summary = (
        f"Line chart of {title}: bus bandwidth in {unit} against message size in bytes (log scale), "
        f"{len(series)} stack{'s' if len(series) != 1 else ''}, {points} points"
        + (f", {skipped} values not drawn" if skipped else "")
        + "."
    )
    entries = [(_series_sample(index), one.label) for index, one, _ in drawn]
    entries += [(_reference_sample(), f"{label} {_num(value)} {unit}") for label, value in references]
    legend_top = bottom + 44
    legend, legend_height = _legend(entries, legend_top, width)
    height = legend_top + legend_height + (20 if skipped else 0) + 8

    out = _head(title, width, height, summary)
    out += _y_axis(ticks, y_of, left, right, f"bus bandwidth ({unit})")
    out.append('<g class="x-axis">')
    first = low + (-low) % stride
    for exponent in range(first, high + 1, stride):
        x = _px(x_of(2.0**exponent))
        out.append(
            f'<g class="xtick" data-x="{_data(2.0**exponent)}" transform="translate({x} 0)">'
            f'<line y1="{_px(top)}" y2="{_px(bottom)}" stroke="#eeeeee"/>'
            f'<line y1="{_px(bottom)}" y2="{_px(bottom + 5)}" stroke="#333333"/>'
            f'<text y="{_px(bottom + 18)}" text-anchor="middle">{_text(_size_label(exponent))}</text></g>'
        )
    out.append(
        f'<text class="axis-label" x="{_px((left + right) / 2)}" y="{_px(bottom + 38)}" text-anchor="middle">'
        "message size (bytes, log scale)</text></g>"
    )
    out += _references([(v, f"{label} {_num(v)} {unit}") for label, v in references], y_of, left, right, "peak")
    out.append(_frame(left, top, right, bottom))
    if points:
        out += _draw_lines(lines)
    else:
        _empty(out, left, top, right, bottom)
    out += legend
    out += _skipped_note(skipped, height - 10, width)
    out.append("</svg>")
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------------------------
# 3. figures against the device's peak


def versus_peak_svg(title: str, bars: Sequence[PeakBar], *, width: int = 760) -> str:
    """A horizontal bar per figure: ``value / peak`` in percent, 100 % marked; a floor as a tick.

    Bars above :data:`MAX_FRACTION` stop at the axis end, with the real percentage written.
    """
    width = max(int(width), 320)
    skipped = 0
    kept: list[tuple[PeakBar, float, float, float | None]] = []
    for bar in bars:
        value, peak = _drawable(bar.value), _drawable(bar.peak)
        if value is None or peak is None or peak == 0:
            skipped += 1
            continue
        floor = _drawable(bar.floor)
        kept.append((bar, value, peak, floor))
    row = 30
    fits = max(8, int(width * 0.42 / (_FONT * _CHAR)))  # a longer label is cut (whole in the tooltip)
    labels = [html_text(_one_line(bar.label), min(LABEL_LIMIT, fits)) for bar, *_ in kept]
    label_width = min(max((_width(label) for label in labels), default=60.0), width * 0.42)
    left, right = 16 + label_width + 10, width - 200.0
    top = _TOP + 8
    bottom = top + row * max(len(kept), 1)
    largest = max([value / peak for _, value, peak, _ in kept] + [1.0])
    ticks = _nice_ticks(min(largest, MAX_FRACTION) * 100, 4)
    end = ticks[-1] / 100

    def x_of(fraction: float) -> float:
        return left + (right - left) * min(fraction, end) / end

    summary = (
        f"Bar chart of {title}: {len(kept)} figure{'s' if len(kept) != 1 else ''} as a percentage of the "
        "device's datasheet peak" + (f", {skipped} not drawn" if skipped else "") + "."
    )
    entries = [
        ('<rect x="2" y="-6" width="32" height="12" fill="#4a7fb5"/>', "measured, % of peak"),
        (
            f'<line x1="18" x2="18" y1="-9" y2="9" stroke="{REFERENCE_COLOUR}" stroke-width="1.6"{_dash(REFERENCE_DASH)}/>',
            "datasheet peak (100%)",
        ),
    ]
    if any(floor is not None for *_, floor in kept):
        entries.append(('<line x1="18" x2="18" y1="-9" y2="9" stroke="#000000" stroke-width="3"/>', "floor"))
    legend_top = bottom + 50
    legend, legend_height = _legend(entries, legend_top, width)
    height = legend_top + legend_height + (20 if skipped else 0) + 8

    out = _head(title, width, height, summary)
    out.append('<g class="x-axis">')
    for tick in ticks:
        x = _px(x_of(tick / 100))
        out.append(
            f'<g class="xtick" data-x="{_data(tick / 100)}" transform="translate({x} 0)">'
            f'<line y1="{_px(top)}" y2="{_px(bottom)}" stroke="#e4e4e4"/>'
            f'<text y="{_px(bottom + 18)}" text-anchor="middle">{_text(_num(tick))}%</text></g>'
        )
    out.append(
        f'<text class="axis-label" x="{_px((left + right) / 2)}" y="{_px(bottom + 38)}" text-anchor="middle">'
        "measured figure as a percentage of the datasheet peak (%)</text></g>"
    )
    px = _px(x_of(1.0))
    out.append(
        f'<g class="peak"><line x1="{px}" x2="{px}" y1="{_px(top - 8)}" y2="{_px(bottom)}" '
        f'stroke="{REFERENCE_COLOUR}" stroke-width="1.6"{_dash(REFERENCE_DASH)}/>'
        f'<text x="{px}" y="{_px(top - 12)}" text-anchor="middle" fill="{REFERENCE_COLOUR}" font-size="11">'
        "datasheet peak</text></g>"
    )
    if kept:
        out.append('<g class="bars">')
        for i, ((bar, value, peak, floor), label) in enumerate(zip(kept, labels, strict=True)):
            fraction = value / peak
            y = top + row * i + 5
            attrs = {
                "series": bar.label,
                "y": _data(value),
                "peak": _data(peak),
                "fraction": _data(fraction),
                "unit": bar.unit,
            }
            if floor is not None:
                attrs["floor"] = _data(floor)
            data = "".join(f' data-{key}="{_attr(v)}"' for key, v in attrs.items())
            cut = fraction > end
            unit = _one_line(bar.unit)[:16]
            words = f"{_num(value)} {unit} of {_num(peak)} ({_num(fraction * 100)}%)"
            shown = f"{_num(value)} {unit} of {_num(peak)} (>{_num(end * 100)}%)" if cut else words
            out.append(f'<g class="point bar" data-index="{i}"{data}>')
            out.append(f"<title>{_text(f'{_one_line(bar.label)}: {words}', TOOLTIP_LIMIT)}</title>")
            out.append(
                f'<text class="bar-label" x="{_px(left - 8)}" y="{_px(y + 14)}" text-anchor="end">{label}</text>'
            )
            out.append(
                f'<rect x="{_px(left)}" y="{_px(y)}" width="{_px(x_of(fraction) - left)}" height="{row - 10}" '
                'fill="#4a7fb5"/>'
            )
            if cut:
                tip = x_of(fraction)
                out.append(
                    f'<path class="cut" d="M{_px(tip - 6)} {_px(y)}L{_px(tip)} {_px(y + 10)}L{_px(tip - 6)} '
                    f'{_px(y + 20)}" fill="none" stroke="#ffffff" stroke-width="2"/>'
                )
            if floor is not None:
                fx = _px(x_of(floor / peak))
                out.append(
                    f'<line class="floor" x1="{fx}" x2="{fx}" y1="{_px(y - 3)}" y2="{_px(y + row - 7)}" '
                    'stroke="#000000" stroke-width="3"/>'
                )
            out.append(
                f'<text class="bar-value" x="{_px(x_of(fraction) + 6)}" y="{_px(y + 14)}" font-size="11" {_HALO}>'
                f"{_text(shown, 60)}</text>"
            )
            out.append("</g>")
        out.append("</g>")
    else:
        _empty(out, left, top, right, bottom)
    out.append(_frame(left, top, right, bottom))
    out += legend
    out += _skipped_note(skipped, height - 10, width)
    out.append("</svg>")
    return "\n".join(out) + "\n"
