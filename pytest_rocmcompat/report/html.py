"""The merged compatibility report as one self-contained HTML page (inline CSS, no network)."""

from __future__ import annotations

import html

from ..outcomes import MEANING, Outcome
from .baseline import Regression
from .escape import clean, one_environment_scan
from .markdown import SYMBOL
from .merge import NOT_RUN, Merged, headline
from .table import LABELS, MAX_FAILURE_ROWS, NOT_RUN_SYMBOL, entry_text, row_name

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
_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:24px;color:#1f2328}
table{border-collapse:collapse;margin:8px 0 24px}
th,td{border:1px solid #d0d7de;padding:6px 10px;text-align:left;vertical-align:top;font-size:14px}
th{background:#f6f8fa}
td.o{color:#fff;font-weight:600;min-width:90px}
td.o.not-run,td.o.skipped{color:#1f2328}
.warn{background:#fff8c5;border:1px solid #d4a72c;padding:8px 12px}
""" + "".join(f"td.o.{cls}{{background:{colour}}}\n" for cls, colour in COLOURS.items())


def _e(text: object) -> str:
    return html.escape(clean(str(text), 600))


def render_html(merged: Merged, regressions: list[Regression] | None = None) -> str:
    with one_environment_scan():
        return _render(merged, regressions)


def _render(merged: Merged, regressions: list[Regression] | None) -> str:
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           "<title>Compatibility report</title>", f"<style>{_CSS}</style></head><body>",
           "<h1>Compatibility report</h1>",
           f"<p>{sum(not r.not_run for r in merged.rows)} cell(s) from {merged.inputs} JUnit file(s).</p>"]
    if merged.warnings:
        out.append('<div class="warn"><b>Inputs left out:</b><ul>'
                   + "".join(f"<li>{_e(w)}</li>" for w in merged.warnings) + "</ul></div>")
    out += ["<h2>Compatibility</h2>", _grid(merged)]
    if regressions is not None:
        out.append("<h2>Regressions against the baseline</h2>")
        out.append(_simple(("cell", "test", "regression"), [(r.cell, r.test, r.what) for r in regressions])
                   if regressions else "<p>None.</p>")
    hits = merged.hits()
    if hits:
        names = {r.key: row_name(r) for r in merged.rows}
        rows = []
        for rule_id in sorted(hits):
            info = merged.rules.get(rule_id)
            where = "; ".join(f"{names.get(k, k)}: " + ", ".join(f"{n} {o.value}" for o, n in c.items())
                              for k, c in hits[rule_id].items())
            rows.append((rule_id, info.reason if info else "", info.links[0] if info and info.links else "", where))
        out += ["<h2>Known issues</h2>", _simple(("rule", "reason", "link", "cells hit"), rows)]
    perf = [(row_name(r), t, m.name, m.detail, f"{m.value:.4g} {m.unit}", "" if m.floor is None else f"{m.floor:g}",
             "below floor" if m.below_floor else ("ok" if m.floor is not None else ""))
            for r in merged.rows for t, m in r.measurements]
    if perf:
        out += ["<h2>Performance</h2>", _simple(("cell", "test", "metric", "detail", "value", "floor", "status"), perf)]
    bad = [(row_name(r), c.test, c.outcome.value, c.signature or "", c.message)
           for r in merged.rows for c in r.tests.values()
           if c.outcome in (Outcome.FAIL, Outcome.CRASHED, Outcome.HANG)][:MAX_FAILURE_ROWS]
    if bad:
        out += ["<h2>Failures</h2>", _simple(("cell", "test", "outcome", "signature", "message"), bad)]
    legend = [(SYMBOL[o], o.value, MEANING[o]) for o in Outcome] + [(NOT_RUN_SYMBOL, NOT_RUN, "planned, no results")]
    out += ["<h2>Legend</h2>", "<table><tr><th></th><th>outcome</th><th>meaning</th></tr>"]
    for symbol, name, meaning in legend:
        out.append(f'<tr><td class="o {_cls(name)}">{_e(symbol)}</td><td>{_e(name)}</td><td>{_e(meaning)}</td></tr>')
    out += ["</table>", "</body></html>"]
    return "\n".join(out) + "\n"


def _grid(merged: Merged) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in (*LABELS, "source", *merged.columns))
    out = [f'<table id="grid"><tr>{head}</tr>']
    for row in merged.rows:
        counts = row.counts()
        cells = "".join(f"<td>{_e(row.label.get(k, ''))}</td>" for k in LABELS)
        cells += f"<td>{_e(row.source)}</td>"
        for column in merged.columns:
            if row.not_run:
                cells += f'<td class="o not-run" data-outcome="{NOT_RUN}">{NOT_RUN_SYMBOL} {NOT_RUN}</td>'
                continue
            c = counts.get(column)
            top = headline(c) if c else None
            if top is None:
                cells += "<td></td>"
            else:
                cells += f'<td class="o {_cls(top.value)}" data-outcome="{top.value}">{_e(entry_text(c))}</td>'
        out.append(f"<tr>{cells}</tr>")
    out.append("</table>")
    return "\n".join(out)


def _simple(headers, rows) -> str:
    out = ["<table><tr>" + "".join(f"<th>{_e(h)}</th>" for h in headers) + "</tr>"]
    out += ["<tr>" + "".join(f"<td>{_e(c)}</td>" for c in row) + "</tr>" for row in rows]
    return "\n".join(out + ["</table>"])


def _cls(name: str) -> str:
    return name.replace(" ", "-")
