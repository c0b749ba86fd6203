"""The site's plots: ``history.json`` and the merged runs turned into :mod:`.plots` inputs.

- :func:`figures_body`, the site's ``figures.html``: each headline figure's history, one line
  per stack, its floor and the figures that moved more than the site's ``--threshold`` ringed
  (one chart per arch, then per arch and torch series, when there are more than
  :data:`GROUP_LIMIT` stacks); collective bus bandwidth per message size per stack, beside the
  peak; GEMM and copy figures against the device's peak.
- :func:`stack_body`, a stack page's plots: its own figures' history (one line each), its bus
  bandwidth per message size, its figures against the peak.

A stack's line follows its matrix cell: a library or runtime change between two of its
publications is a ringed, numbered point with the change in a footnote.

Floors come from this publication's measurements (``history.json`` keeps values only), so a
stack that is no longer published has none drawn. Everything drawn is inline SVG: no script,
no network; every label is escaped by :mod:`.plots`, every heading here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pytest_rocmcompat.report import digest
from pytest_rocmcompat.report.grid import facets, stack_id
from pytest_rocmcompat.report.history_keys import version_notes
from pytest_rocmcompat.report.merge import Merged, Row
from pytest_rocmcompat.report.plots import (
    BandwidthSeries,
    HistorySeries,
    PeakBar,
    bandwidth_svg,
    history_svg,
    versus_peak_svg,
)
from pytest_rocmcompat.report.sizes import split_sized
from pytest_rocmcompat.report.table import row_name
from pytest_rocmcompat.safe_io.escape import html_text

__all__ = ["GROUP_LIMIT", "Chart", "figures_body", "publication_labels", "stack_body"]

GROUP_LIMIT = 8  # stacks on one history chart; more are split by arch, then by torch series
NOT_PUBLISHED = "stacks not in this publication"
COLLECTIVES = {
    "allreduce": "all_reduce",
    "allgather": "all_gather",
    "reducescatter": "reduce_scatter",
    "alltoall": "all_to_all",
    "broadcast": "broadcast",
}


@dataclass(frozen=True)
class Chart:
    heading: str  # plain text (escaped where it is written)
    svg: str


def publication_labels(history: Sequence[dict]) -> list[str]:
    """The x labels: the day, or day and minute where two publications share a day."""
    for labels in (
        [r["date"][:10] for r in history],
        [r["date"][:16].replace("T", " ") for r in history],
    ):
        if len(set(labels)) == len(labels):
            return labels
    return [f"{r['date'][:16].replace('T', ' ')} #{i + 1}" for i, r in enumerate(history)]


def _figure(run: dict, sid: str, label: str) -> list | None:
    fig = run["stacks"].get(sid, {}).get("figures", {}).get(label)
    return fig if isinstance(fig, list) and fig else None


def _floors(merged: Merged) -> dict[tuple[str, str], float]:
    """(stack id, headline label) -> this publication's floor."""
    rows = {r.key: r for r in merged.rows}
    return {
        (stack_id(rows[h.stack]), h.label): h.figure.floor
        for h in digest.headlines(merged, lambda r: r.key)
        if h.figure.floor is not None
    }


def _groups(merged: Merged, sids: list[str]) -> list[tuple[str, list[str]]]:
    """One group of every stack, or per arch (and torch series where an arch still has too many)."""
    if len(sids) <= GROUP_LIMIT:
        return [("", sids)]
    rows = {stack_id(r): r for r in merged.rows if not r.not_run}
    by_arch: dict[str, list[str]] = {}
    for sid in sids:
        by_arch.setdefault(facets(rows[sid])["arch"] if sid in rows else NOT_PUBLISHED, []).append(sid)
    out: list[tuple[str, list[str]]] = []
    for arch, members in by_arch.items():
        if len(members) <= GROUP_LIMIT or arch == NOT_PUBLISHED:
            out.append((arch, members))
            continue
        by_torch: dict[str, list[str]] = {}
        for sid in members:
            by_torch.setdefault(facets(rows[sid])["torch"], []).append(sid)
        out += [(f"{arch}, torch {torch}", part) for torch, part in by_torch.items()]
    return out


def _headline(label: str) -> tuple[int, str]:
    """(place in the headline table, the figure without its size or backend): ``all_reduce bus
    bandwidth, largest size (nccl-8)`` is drawn with every other stack's all_reduce, and a declared
    ``tokens_per_joule (4096)`` with every other size's.
    """
    for place, (_, name) in enumerate(digest.HEADLINE_METRICS):
        if label == name or (label.startswith(f"{name} (") and label.endswith(")")):
            return place, name
    name, sep, _ = label.rpartition(" (")  # a project's declared metric, after the bundled ones
    return len(digest.HEADLINE_METRICS), name if sep and name and label.endswith(")") else label


def history_charts(merged: Merged, history: Sequence[dict], threshold: float, only: str | None = None) -> list[Chart]:
    """Per headline figure (and group of stacks), its values over the publications.

    A line per stack and label: a figure measured at another size or on another backend (the
    label's parenthesis) is another line of the same chart, named with it.
    """
    if not history:
        return []
    publications = publication_labels(history)
    floor_of = _floors(merged)
    current = [stack_id(r) for r in merged.rows if not r.not_run]
    sids = [only] if only is not None else list(dict.fromkeys([*current, *(s for r in history for s in r["stacks"])]))
    names = {
        sid: next((r["stacks"][sid]["name"] for r in reversed(history) if sid in r["stacks"]), sid) for sid in sids
    }
    labels = dict.fromkeys(lbl for r in history for sid in sids for lbl in r["stacks"].get(sid, {}).get("figures", {}))
    figures: dict[tuple[int, str], list[str]] = {}
    for label in labels:
        figures.setdefault(_headline(label), []).append(label)
    groups = [("", sids)] if only is not None else _groups(merged, sids)
    notes: dict[str, list[str]] = {}  # per stack: a library or runtime change, marked on its line
    charts = []
    for (_, figure), same in sorted(figures.items()):
        for group, members in groups:
            lines = [(sid, lbl) for sid in members for lbl in same if any(_figure(r, sid, lbl) for r in history)]
            if not lines:
                continue
            unit = next(fig[1] for r in reversed(history) for sid, lbl in lines if (fig := _figure(r, sid, lbl)))
            series = [
                HistorySeries(
                    names[sid] + (f", {lbl[len(figure) + 2 : -1]}" if lbl != figure else ""),
                    tuple((fig[0] if (fig := _figure(r, sid, lbl)) else None) for r in history),
                    floor_of.get((sid, lbl)),
                    notes.setdefault(sid, version_notes(list(history), sid)),
                    next((fig[2] for r in reversed(history) if (fig := _figure(r, sid, lbl))), True),
                )
                for sid, lbl in lines
            ]
            title = f"{figure}, {group}" if group else figure
            charts.append(Chart(title, history_svg(title, unit, publications, series, threshold=threshold)))
    return charts


def _collective(base: str) -> str:
    op = base.removesuffix("_busbw_gbps")
    return COLLECTIVES.get(op, op)


def bandwidth_charts(rows: Sequence[Row], name_of: Callable[[Row], str], many: bool) -> list[Chart]:
    """Per collective, bus bandwidth per message size: a line per stack (and backend, ranks)."""
    found: dict[str, tuple[str, list[BandwidthSeries], dict[float, str]]] = {}
    for row in rows:
        _, sized = split_sized(row.measurements)
        for test, name, pairs in sized:
            base, _, qualifier = name.partition("[")
            case = row.tests.get(test)
            if "busbw" not in base and (case is None or case.suite != "collectives"):
                continue
            qualifier = qualifier.rstrip("]")
            label = ", ".join(filter(None, (name_of(row) if many else "", qualifier))) or test.rpartition("::")[2]
            _, series, peaks = found.setdefault(base, (pairs[0][1].unit or "GB/s", [], {}))
            series.append(BandwidthSeries(label, tuple((digest.size_bytes(size), m.value) for size, m in pairs)))
            for _, m in pairs:
                if m.peak:
                    where = " ".join(filter(None, (facets(row)["arch"] if many else "", qualifier)))
                    peaks.setdefault(m.peak, f"peak, {where}" if where else "peak")
    return [
        Chart(
            f"{_collective(base)} bus bandwidth by message size",
            bandwidth_svg(
                f"{_collective(base)} bus bandwidth by message size",
                series,
                peaks=[(label, value) for value, label in peaks.items()],
                unit=unit,
            ),
        )
        for base, (unit, series, peaks) in found.items()
    ]


def peak_chart(merged: Merged, name_of: Callable[[Row], str], many: bool) -> list[Chart]:
    """Headline figures that carry the device's peak (GEMM, copies), as a share of it."""
    bars = [
        PeakBar(
            f"{h.label}, {h.stack}" if many else h.label, h.figure.value, h.figure.peak, h.figure.unit, h.figure.floor
        )
        for h in digest.headlines(merged, name_of)
        if h.figure.peak
    ]
    title = "Headline figures against the device's peak"
    return [Chart(title, versus_peak_svg(title, bars))] if bars else []


def _html(charts: list[Chart], anchor: str = "") -> list[str]:
    """Each chart in a ``div`` (its heading is the SVG's own title; ``anchor`` numbers the divs), side
    by side where the window is wide enough.
    """
    if not charts:
        return []
    ids = [f' id="{anchor}{n}"' if anchor else "" for n in range(1, len(charts) + 1)]
    return [
        '<div class="plots">',
        *(f'<div class="plot"{i}>{chart.svg}</div>' for i, chart in zip(ids, charts, strict=True)),
        "</div>",
    ]


def figures_body(merged: Merged, history: Sequence[dict], threshold: float) -> list[str]:
    """``figures.html``: every stack's headline figures over time, bandwidth per size, against peak."""
    ran = [r for r in merged.rows if not r.not_run]
    over_time = history_charts(merged, history, threshold)
    bandwidth = bandwidth_charts(ran, row_name, many=True)
    peaks = peak_chart(Merged(ran, merged.columns, merged.rules, [], merged.inputs), row_name, many=True)
    contents = [f'<li><a href="#over-time-{n}">{html_text(c.heading)}</a></li>' for n, c in enumerate(over_time, 1)] + [
        f'<li><a href="#bandwidth-{n}">{html_text(c.heading)}</a></li>' for n, c in enumerate(bandwidth, 1)
    ]
    body = [
        '<p><a href="index.html">← all stacks</a></p>',
        "<h1>Figures</h1>",
        f"<p>{len(history)} publication(s). A ringed point moved more than {threshold:.0%} since the "
        "stack's previous point (the threshold of the index's changes); a dash-dot line is a floor "
        "(this publication's; a ceiling where lower is better) or a peak.</p>",
        *([f"<ul>{''.join(contents)}</ul>"] if contents else []),
        "<h2>Headline figures over time</h2>",
        *(_html(over_time, "over-time-") or ["<p>No figures.</p>"]),
    ]
    if bandwidth:
        body += ["<h2>Collective bus bandwidth by message size</h2>", *_html(bandwidth, "bandwidth-")]
    if peaks:
        body += ["<h2>Against the device's peak</h2>", *_html(peaks)]
    return body


def stack_body(merged: Merged, row: Row, history: Sequence[dict], threshold: float) -> list[str]:
    """A stack page's plots: its figures over time, against the device's peak, bandwidth per size."""
    mine = Merged([row], merged.columns, merged.rules, [], len(row.files))
    over_time = history_charts(merged, history, threshold, only=stack_id(row))
    peaks = peak_chart(mine, row_name, many=False)
    bandwidth = bandwidth_charts([row], row_name, many=False)
    if not over_time and not peaks and not bandwidth:
        return []
    drawn = [  # the caption names only what is drawn
        *(
            [f"its headline figures over the publications (a ringed point moved more than {threshold:.0%})"]
            * bool(over_time)
        ),
        *(["its figures against the device's peak"] * bool(peaks)),
        *(["collective bus bandwidth by message size"] * bool(bandwidth)),
    ]
    caption = ", ".join(drawn[:-1]) + (" and " if len(drawn) > 1 else "") + drawn[-1]
    return [
        '<h2 id="plots">Plots</h2>',
        f"<p>{caption[0].upper()}{caption[1:]}. A dash-dot line is a floor (a ceiling where lower is "
        "better) or a peak.</p>",
        *_html([*over_time, *peaks, *bandwidth]),
    ]
