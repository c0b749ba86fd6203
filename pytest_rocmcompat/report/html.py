"""The merged compatibility report as one self-contained HTML page (inline CSS, no network)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from pytest_rocmcompat.outcomes import BROKEN, MEANING, SYMBOL, Outcome
from pytest_rocmcompat.report import digest
from pytest_rocmcompat.report.baseline import Regression
from pytest_rocmcompat.report.digest import CONFLICT_SYMBOL, compact_entry, conflicts_by_column
from pytest_rocmcompat.report.merge import NOT_RUN, Merged, Row, headline
from pytest_rocmcompat.report.sizes import split_sized
from pytest_rocmcompat.report.table import (
    GRID_LABELS,
    MAX_FAILURE_ROWS,
    NOT_RUN_SYMBOL,
    SYMBOL_LINE,
    entry_text,
    label_cells,
    row_name,
    source_text,
)
from pytest_rocmcompat.safe_io.escape import html_attr, html_text, one_environment_scan

# Background colour of a grid entry by its headline (worst) outcome.
COLOURS: dict[str, str] = {
    Outcome.PASS.value: "#2da44e",
    Outcome.FAIL.value: "#cf222e",
    Outcome.KNOWN_BAD.value: "#d4a72c",
    Outcome.STALE_RULE.value: "#8250df",
    Outcome.SKIPPED.value: "#afb8c1",
    Outcome.CRASHED.value: "#82071e",
    Outcome.HANG.value: "#e16f24",
    NOT_RUN: "#f6f8fa",
}
CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:24px;color:#1f2328}
table{border-collapse:collapse;margin:8px 0 24px}
th,td{border:1px solid #d0d7de;padding:6px 10px;text-align:left;vertical-align:top;font-size:14px}
th{background:#f6f8fa}
td.o{color:#fff;font-weight:600;min-width:90px}
td.o.not-run,td.o.skipped{color:#1f2328}
td.o{white-space:nowrap}
.warn{background:#fff8c5;border:1px solid #d4a72c;padding:8px 12px}
.note{color:#59636e;font-size:13px}
details{margin:8px 0}summary{cursor:pointer;font-weight:600}
""" + "".join(f"td.o.{cls.replace(' ', '-')}{{background:{colour}}}\n" for cls, colour in COLOURS.items())


def render_html(merged: Merged, regressions: list[Regression] | None = None, recommendations: str = "") -> str:
    """``recommendations``: an HTML fragment (already escaped) placed before the details."""
    with one_environment_scan():
        return _render(merged, regressions, recommendations)


def _render(merged: Merged, regressions: list[Regression] | None, recommendations: str = "") -> str:
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>Compatibility report</title>",
        f"<style>{CSS}</style></head><body>",
        "<h1>Compatibility report</h1>",
        f"<p>{sum(not r.not_run for r in merged.rows)} cell(s) from {merged.inputs} JUnit file(s).</p>",
    ]
    if merged.warnings:
        out.append(
            '<div class="warn"><b>Inputs left out:</b><ul>'
            + "".join(f"<li>{html_text(w)}</li>" for w in merged.warnings)
            + "</ul></div>"
        )
    out += ["<h2>Compatibility</h2>", grid_html(merged), f'<p class="note">{html_text(SYMBOL_LINE)}</p>']
    out += broken_html(merged)
    if regressions is not None:
        out.append("<h2>Regressions against the baseline</h2>")
        out.append(
            html_table(("stack", "test", "regression"), [(r.cell, r.test, r.what) for r in regressions])
            if regressions
            else "<p>None.</p>"
        )
    skips = digest.skip_groups(merged, row_name)
    if skips:
        out += [
            "<h2>Skip reasons</h2>",
            html_table(
                ("reason", "tests", "stacks"),
                [(g.key, g.count, "; ".join(f"{s} ({n})" for s, n in g.stacks.items())) for g in skips],
            ),
        ]
    out += headlines_html(merged)
    out.append(recommendations)
    out += ["<h2>Details</h2>"]
    perf = [
        (
            row_name(r),
            t,
            m.name,
            m.detail,
            f"{m.value:.4g} {m.unit}",
            "" if m.floor is None else f"{m.floor:g}",
            "" if m.fraction_of_peak is None else f"{m.fraction_of_peak:.0%}",
            "below floor" if m.below_floor else ("ok" if m.floor is not None else ""),
        )
        for r in merged.rows
        for t, m in r.measurements
    ]
    if perf:
        out.append(
            _details(
                f"Every figure ({len(perf)})",
                html_table(("stack", "test", "metric", "detail", "value", "floor", "of peak", "status"), perf),
            )
        )
    for metric, table in _sized_tables(merged):
        out.append(_details(f"{metric} by size", table))
    bad = [
        (row_name(r), c.test, c.outcome.value, c.signature or "", c.message)
        for r in merged.rows
        for c in r.tests.values()
        if c.outcome in BROKEN
    ]
    if bad:
        out.append(
            _details(
                f"Every failure ({len(bad)})",
                html_table(("stack", "test", "outcome", "signature", "message"), bad[:MAX_FAILURE_ROWS]),
            )
        )
    legend = [(SYMBOL[o], o.value, MEANING[o]) for o in Outcome] + [
        (NOT_RUN_SYMBOL, NOT_RUN, "planned, no results"),
        (CONFLICT_SYMBOL, "conflict", "one test reported with different outcomes in one stack"),
    ]
    out += ["<h2>Legend</h2>", "<table><tr><th></th><th>outcome</th><th>meaning</th></tr>"]
    for symbol, name, meaning in legend:
        out.append(
            f'<tr><td class="o {_cls(name)}">{html_text(symbol)}</td><td>{html_text(name)}</td><td>{html_text(meaning)}</td></tr>'
        )
    out += ["</table>", "</body></html>"]
    return "\n".join(out) + "\n"


def broken_html(merged: Merged) -> list[str]:
    rules = digest.rule_groups(merged, row_name)
    failures = digest.failure_groups(merged, row_name)
    clashes = digest.conflicts(merged, row_name)
    out = ["<h2>What is broken</h2>"]
    if not (rules or failures or clashes):
        return [*out, "<p>Nothing: no known-bad rule reached a test, and no test failed, crashed or hung.</p>"]
    if rules:
        rows = []
        for g in rules:
            links = " ".join(_link(u) for u in g.links)
            hit = "; ".join(f"{s}: {digest.outcome_counts_text(c)}" for s, c in g.stacks)
            rows.append(
                f"<tr><td>{html_text(g.rule)}</td><td>{html_text(g.action)}</td><td>{html_text(g.reason)}</td>"
                f"<td>{links}</td><td>{html_text(hit)}</td></tr>"
            )
        out += [
            "<h3>Known issues (by rule)</h3>",
            "<table><tr><th>rule</th><th>action</th><th>reason</th><th>links</th><th>stacks hit</th></tr>",
            *rows,
            "</table>",
        ]
    if failures:
        out += [
            "<h3>Failures (by diagnosis)</h3>",
            html_table(
                ("diagnosis", "tests", "outcomes", "stacks", "for example", "message"),
                [
                    (
                        g.key,
                        g.count,
                        digest.outcome_counts_text(g.outcomes),
                        "; ".join(f"{s} ({n})" for s, n in g.stacks.items()),
                        " ".join(g.examples),
                        g.message,
                    )
                    for g in failures
                ],
            ),
        ]
    if clashes:
        out += [
            "<h3>Conflicts</h3>",
            html_table(("stack", "test", "outcomes"), [(s, t, ", ".join(o.value for o in f)) for s, t, f in clashes]),
        ]
    return out


def headlines_html(merged: Merged) -> list[str]:
    found = digest.headlines(merged, row_name)
    if not found:
        return []
    return [
        "<h2>Headline figures</h2>",
        html_table(
            ("stack", "figure", "value", "floor", "of peak", "test"),
            [
                (
                    h.stack,
                    h.label,
                    digest.figure_text(h.figure),
                    digest.floor_text(h.figure),
                    digest.peak_text(h.figure),
                    h.test,
                )
                for h in found
            ],
        ),
    ]


def _sized_tables(merged: Merged) -> list[tuple[str, str]]:
    by_metric: dict[str, tuple[list[str], list[tuple[str, str, dict]]]] = {}
    for row in merged.rows:
        _, sized = split_sized(row.measurements)
        for test, metric, found in sized:
            sizes, lines = by_metric.setdefault(metric, ([], []))
            sizes.extend(size for size, _ in found if size not in sizes)
            lines.append((row_name(row), test, dict(found)))
    return [
        (
            metric,
            html_table(
                ("stack", "test", *sizes),
                [
                    (
                        stack,
                        test,
                        *("" if f.get(size) is None else f"{f[size].value:.4g} {f[size].unit}" for size in sizes),
                    )
                    for stack, test, f in lines
                ],
            ),
        )
        for metric, (sizes, lines) in by_metric.items()
    ]


def _details(summary: str, body: str) -> str:
    return f"<details><summary>{html_text(summary)}</summary>\n{body}\n</details>"


def _link(url: str) -> str:
    if url.startswith(("https://", "http://")):
        return f'<a href="{html_attr(url)}">{html_text(url)}</a>'
    return html_text(url)


def grid_html(merged: Merged, link_of: Callable[[Row], str | None] | None = None) -> str:
    """The compact grid; ``link_of(row)`` gives a page to link each stack to (the site)."""
    head = "".join(f"<th>{html_text(h)}</th>" for h in (*GRID_LABELS, "source", *merged.columns))
    out = [f'<table id="grid"><tr>{head}</tr>']
    for row in merged.rows:
        counts, clash = row.counts(), conflicts_by_column(row)
        labels = [html_text(v) for v in label_cells(row)]
        href = link_of(row) if link_of else None
        if href:
            labels[0] = f'<a href="{html_attr(href)}">{labels[0]}</a>'
        cells = "".join(f"<td>{v}</td>" for v in labels) + f"<td>{html_text(source_text(row))}</td>"
        for column in merged.columns:
            if row.not_run:
                cells += f'<td class="o {_cls(NOT_RUN)}" data-outcome="{NOT_RUN}">{NOT_RUN_SYMBOL} {NOT_RUN}</td>'
                continue
            c = counts.get(column)
            top = headline(c) if c else None
            if top is None:
                cells += "<td></td>"
            else:
                title = html_attr(entry_text(c))
                cells += (
                    f'<td class="o {_cls(top.value)}" data-outcome="{top.value}" title="{title}">'
                    f"{html_text(compact_entry(c, clash.get(column, 0)))}</td>"
                )
        out.append(f"<tr>{cells}</tr>")
    out.append("</table>")
    return "\n".join(out)


def html_table(headers: Sequence[object], rows: Iterable[Sequence[object]]) -> str:
    """A plain HTML table; every cell escaped here (callers pass raw text)."""
    out = ["<table><tr>" + "".join(f"<th>{html_text(h)}</th>" for h in headers) + "</tr>"]
    out += ["<tr>" + "".join(f"<td>{html_text(c)}</td>" for c in row) + "</tr>" for row in rows]
    return "\n".join([*out, "</table>"])


def _cls(name: str) -> str:
    return name.replace(" ", "-")
