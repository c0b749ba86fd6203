"""The merged compatibility report as one self-contained HTML page (inline CSS, no network)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pytest_rocmcompat.outcomes import BROKEN
from pytest_rocmcompat.report import digest
from pytest_rocmcompat.report.baseline import Regression
from pytest_rocmcompat.report.grid import grid_html
from pytest_rocmcompat.report.merge import Merged
from pytest_rocmcompat.report.outcome_words import COLOURS, legend_line, legend_table
from pytest_rocmcompat.report.outcome_words import css as outcome_css
from pytest_rocmcompat.report.sizes import split_sized
from pytest_rocmcompat.report.table import MAX_FAILURE_ROWS, row_name
from pytest_rocmcompat.safe_io.escape import html_attr, html_text, one_environment_scan
from pytest_rocmcompat.session.measurements import Measurement

__all__ = ["COLOURS", "CSS", "broken_html", "grid_html", "headlines_html", "html_table", "render_html"]

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:24px;color:#1f2328}
table{border-collapse:collapse;margin:8px 0 24px}
th,td{border:1px solid #d0d7de;padding:6px 10px;text-align:left;vertical-align:top;font-size:14px}
th{background:#f6f8fa}
td.o{color:#fff;font-weight:600;min-width:90px}
.warn{background:#fff8c5;border:1px solid #d4a72c;padding:8px 12px}
.note{color:#59636e;font-size:13px}
details{margin:8px 0}summary{cursor:pointer;font-weight:600}
.e{white-space:nowrap}
.cause{font-weight:400;font-size:.85em}
.sw{display:inline-block;width:11px;height:11px;margin-right:4px;vertical-align:-1px;border:1px solid #8c959f}
.lg{white-space:nowrap;margin-right:10px}
.grid-wrap{overflow-x:auto}
th.col{position:sticky;top:0;z-index:1}
a.pl{color:#8c959f;text-decoration:none;font-weight:400}
button.sort{font:inherit;font-weight:600;background:none;border:0;padding:0;cursor:pointer;color:inherit;text-align:left}
.tools{margin:8px 0;display:flex;gap:12px;align-items:center;flex-wrap:wrap;font-size:14px}
select{font:inherit}
svg.rocmcompat-plot{max-width:100%;height:auto}
.plots{display:flex;flex-wrap:wrap;gap:12px 28px;align-items:flex-start;margin:4px 0 20px}
.plot{flex:0 1 760px;min-width:0}
""" + outcome_css()


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
    out += ["<h2>Compatibility</h2>", grid_html(merged), legend_line()]
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
            m.miss_text if m.below_floor else ("ok" if m.floor is not None else ""),
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
        (row_name(r), c.test, c.outcome.value, c.signature or "", c.cause, digest.without_cause(c.message, c.cause))
        for r in merged.rows
        for c in r.tests.values()
        if c.outcome in BROKEN
    ]
    if bad:
        out.append(
            _details(
                f"Every failure ({len(bad)})",
                html_table(
                    ("stack", "test", "outcome", "signature", "likely cause", "message"), bad[:MAX_FAILURE_ROWS]
                ),
            )
        )
    out += ["<h2>Legend</h2>", legend_table(), "</body></html>"]
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
                digest.FAILURE_HEADERS,
                digest.failure_rows(failures),
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
                    floor_words(h.figure),
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


def html_table(headers: Sequence[object], rows: Iterable[Sequence[object]]) -> str:
    """A plain HTML table; every cell escaped here (callers pass raw text)."""
    out = ["<table><tr>" + "".join(f"<th>{html_text(h)}</th>" for h in headers) + "</tr>"]
    out += ["<tr>" + "".join(f"<td>{html_text(c)}</td>" for c in row) + "</tr>" for row in rows]
    return "\n".join([*out, "</table>"])


def floor_words(m: Measurement) -> str:
    """A figure's floor in words (``300, below``): Markdown's emoji would need an emoji font here."""
    if m.floor is None:
        return ""
    if not m.higher_is_better:  # a ceiling: lower is better
        return f"ceiling {m.floor:g}, " + ("above" if m.below_floor else "met")
    return f"{m.floor:g}, " + ("below" if m.below_floor else "met")
