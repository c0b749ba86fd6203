"""``rocmcompat report --site DIR``: a static site of the merged results, with history.

DIR receives ``index.html`` (the grid, each stack linked to its page, what changed since the
previous publication, the headline figures' history), ``stacks/<id>.html`` (one page per
stack: verdicts per suite, what is broken, skip reasons, headline figures and their plots),
``figures.html`` (every headline figure's history as a chart, bandwidth per size, figures
against peak: :mod:`.site_plots`), ``report.html`` (the full merged report), ``history.json`` (every publication's headline
figures and notable outcomes; read back on the next run, capped at :data:`MAX_HISTORY`) and
``badge.json`` (a shields.io endpoint: ``https://img.shields.io/endpoint?url=.../badge.json``).
A corrupt ``history.json`` stops the command with its name before anything is written.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import datetime, timezone

from pytest_rocmcompat.outcomes import BROKEN, Outcome
from pytest_rocmcompat.report import digest, site_plots
from pytest_rocmcompat.report.grid import UNKNOWN_NOTE, legacy_stack_id, stack_id
from pytest_rocmcompat.report.history_keys import VERSION_KEYS, continue_history, follow_cells, version_notes
from pytest_rocmcompat.report.html import CSS, broken_html, floor_words, grid_html, html_table
from pytest_rocmcompat.report.merge import Merged, Row, headline
from pytest_rocmcompat.report.outcome_words import entry_cell, legend_line
from pytest_rocmcompat.report.table import label_cells, row_name, source_text
from pytest_rocmcompat.safe_io.atomic import write_atomic
from pytest_rocmcompat.safe_io.escape import html_text

__all__ = ["SiteError", "load_history", "stack_id", "write_site"]

HISTORY = "history.json"
MAX_HISTORY = 100
SCHEMA = 1


class SiteError(ValueError):
    """The site folder's history cannot be read: the message names the file."""


@dataclass
class Changes:
    new_failures: list[tuple[str, str, str]] = field(default_factory=list)  # stack, test, outcome
    new_known_bad: list[tuple[str, str, str]] = field(default_factory=list)  # stack, test, rule
    stale_rules: list[tuple[str, str, str]] = field(default_factory=list)  # stack, test, rule
    # stack, figure, before, now, unit, higher is better (a declared metric may be lower-is-better)
    moved: list[tuple[str, str, float, float, str, bool]] = field(default_factory=list)
    previous: str = ""  # the date of the publication compared against


def load_history(folder: str) -> list[dict]:
    """The previous publications, checked field by field (a published site comes back from anywhere).

    A regular file of bounded size; every string made safe (redacted, no control bytes) before
    it can reach a page again. Anything else stops the command naming the file and the place.
    """
    from pytest_rocmcompat.safe_io.input_files import InputError, read_text_file

    path = os.path.join(folder, HISTORY)
    if not os.path.lexists(path):
        return []
    move = "; move it aside to start a new history"
    try:
        data = json.loads(read_text_file(path, limit=HISTORY_BYTES, what="a site history"))
    except InputError as exc:
        where = f"{path}:{exc.line}" if exc.line else path
        raise SiteError(f"{where}: {exc}{move}") from None
    except OSError as exc:
        raise SiteError(f"{path}: cannot read the site's history ({exc.strerror or exc}){move}") from None
    except (ValueError, RecursionError) as exc:
        raise SiteError(f"{path}: cannot read the site's history (not JSON: {exc}){move}") from None
    if not isinstance(data, dict) or not isinstance(data.get("runs"), list):
        raise SiteError(f"{path}: not a rocmcompat site history (expected {{'schema': 1, 'runs': [...]}})")
    try:
        return [_checked_run(run, f"runs[{i}]") for i, run in enumerate(data["runs"][-MAX_HISTORY:])]
    except _BadHistory as exc:
        raise SiteError(f"{path}: {exc}{move}") from None


HISTORY_BYTES = 32 * 2**20


class _BadHistory(ValueError):
    pass


def _checked_run(run: object, where: str) -> dict:
    from pytest_rocmcompat.safe_io.escape import safe_text

    def need(ok: bool, place: str, expected: str) -> None:
        if not ok:
            raise _BadHistory(f"{place}: expected {expected}")

    need(isinstance(run, dict), where, "an object with 'date' and 'stacks'")
    assert isinstance(run, dict)
    need(isinstance(run.get("date"), str), f"{where}.date", "a string")
    need(isinstance(run.get("stacks"), dict), f"{where}.stacks", "an object")
    stacks = {}
    for sid, stack in run["stacks"].items():
        place = f"{where}.stacks.{safe_text(sid)[:40]}"
        need(isinstance(stack, dict) and isinstance(stack.get("name"), str), place, "an object with a string 'name'")
        figures, notable = stack.get("figures", {}), stack.get("notable", {})
        need(isinstance(figures, dict), f"{place}.figures", "an object")
        need(isinstance(notable, dict), f"{place}.notable", "an object")
        checked_figures = {}
        for label, fig in figures.items():
            need(
                isinstance(fig, list)
                and len(fig) == 3
                and isinstance(fig[0], (int, float))
                and not isinstance(fig[0], bool)
                and isinstance(fig[1], str)
                and isinstance(fig[2], bool),
                f"{place}.figures.{safe_text(label)[:40]}",
                "[number, unit, higher_is_better]",
            )
            checked_figures[safe_text(label)] = [float(fig[0]), safe_text(fig[1]), fig[2]]
        checked_notable = {}
        for test, entry in notable.items():
            need(
                isinstance(entry, list) and len(entry) == 2 and all(isinstance(e, str) for e in entry),
                f"{place}.notable.{safe_text(test)[:60]}",
                "[outcome, rule]",
            )
            checked_notable[safe_text(test)] = [safe_text(entry[0]), safe_text(entry[1])]
        checked = {"name": safe_text(stack["name"]), "figures": checked_figures, "notable": checked_notable}
        if "key" in stack:  # recorded since ids follow the matrix cell
            need(isinstance(stack["key"], str), f"{place}.key", "a string")
            checked["key"] = safe_text(stack["key"])
        if "versions" in stack:
            versions = stack["versions"]
            need(
                isinstance(versions, dict) and all(isinstance(v, str) for v in versions.values()),
                f"{place}.versions",
                "an object of strings",
            )
            checked["versions"] = {safe_text(k): safe_text(v) for k, v in versions.items() if k in VERSION_KEYS}
        stacks[safe_text(sid)] = checked
    return {"date": safe_text(run["date"]), "stacks": stacks}


def snapshot(merged: Merged, date: str) -> dict:
    """One publication: per stack, its name, headline figures and every test that was not a pass."""
    stacks = {}
    heads = digest.headlines(merged, lambda r: r.key)
    for row in merged.rows:
        if row.not_run:
            continue
        stacks[stack_id(row)] = {
            "name": row_name(row),
            "key": row.history or row.key,
            "versions": {k: row.label.get(k, "") for k in VERSION_KEYS},
            "figures": {
                h.label: [h.figure.value, h.figure.unit, h.figure.higher_is_better] for h in heads if h.stack == row.key
            },
            "notable": {
                t: [c.outcome.value, c.rule or ""] for t, c in row.tests.items() if c.outcome is not Outcome.PASS
            },
        }
    return {"date": date, "stacks": stacks}


def changes(current: dict, history: list[dict], threshold: float) -> Changes:
    """What changed in each stack since its own previous publication (the latest earlier run of
    the same matrix cell, not merely the previous run, which may not have published it).
    """
    found = Changes(previous=history[-1]["date"] if history else "")
    for sid, stack in current["stacks"].items():
        before: dict = next((run["stacks"][sid] for run in reversed(history) if sid in run["stacks"]), {})
        old = before.get("notable", {})
        for test, (outcome, rule) in stack["notable"].items():
            was = (old.get(test) or ["pass", ""])[0]
            if outcome in BROKEN and was not in BROKEN:
                found.new_failures.append((stack["name"], test, outcome))
            if outcome == "known-bad" and was != "known-bad":
                found.new_known_bad.append((stack["name"], test, rule))
            if outcome == "stale-rule":
                found.stale_rules.append((stack["name"], test, rule))
        for label, (value, unit, higher) in stack["figures"].items():
            old_value = (before.get("figures", {}).get(label) or [None])[0]
            if (
                isinstance(old_value, (int, float))
                and old_value
                and abs(value - old_value) / abs(old_value) > threshold
            ):
                found.moved.append((stack["name"], label, float(old_value), float(value), unit, higher))
    return found


def badge(merged: Merged) -> dict:
    """shields.io endpoint JSON: failing stacks in red, known-bad only in yellow, else green."""
    ran = [r for r in merged.rows if not r.not_run]
    bad = sum(1 for r in ran if any(c.outcome in BROKEN for c in r.tests.values()))
    known = sum(1 for r in ran if any(c.outcome is Outcome.KNOWN_BAD for c in r.tests.values()))
    if bad:
        message, colour = f"{bad} of {len(ran)} stacks failing", "red"
    elif known:
        message, colour = f"{len(ran)} stacks, {known} with known-bad", "yellow"
    else:
        message, colour = f"{len(ran)} stacks passing", "brightgreen"
    return {"schemaVersion": 1, "label": "rocmcompat", "message": message, "color": colour}


def write_site(folder: str, merged: Merged, report_html: str, threshold: float, date: str | None = None) -> Changes:
    """Write the site; return what changed since the previous publication."""
    history = load_history(folder)  # before anything is written: a corrupt history stops here
    history = continue_history(
        history, {r.origin: (stack_id(r), row_name(r)) for r in merged.rows if r.source == "unknown" and r.origin}
    )
    ran = [r for r in merged.rows if not r.not_run]
    history = follow_cells(history, [(stack_id(r), legacy_stack_id(r), row_name(r)) for r in ran])
    date = date or datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    current = snapshot(merged, date)
    found = changes(current, history, threshold)
    history = ([*history, current])[-MAX_HISTORY:]
    os.makedirs(os.path.join(folder, "stacks"), exist_ok=True)
    for row in merged.rows:
        if not row.not_run:
            write_atomic(
                os.path.join(folder, "stacks", f"{stack_id(row)}.html"), _stack_page(merged, row, history, threshold)
            )
    write_atomic(
        os.path.join(folder, "figures.html"), _page("Figures", site_plots.figures_body(merged, history, threshold))
    )
    write_atomic(os.path.join(folder, "report.html"), report_html)
    write_atomic(os.path.join(folder, "badge.json"), json.dumps(badge(merged)) + "\n")
    write_atomic(os.path.join(folder, "index.html"), _index(merged, found, history, threshold))
    write_atomic(os.path.join(folder, HISTORY), json.dumps({"schema": SCHEMA, "runs": history}, sort_keys=True) + "\n")
    return found


def _page(title: str, body: list[str]) -> str:
    return (
        "\n".join(
            [
                "<!DOCTYPE html>",
                '<html lang="en"><head><meta charset="utf-8">',
                '<meta name="viewport" content="width=device-width, initial-scale=1">',
                f"<title>{html_text(title)}</title>",
                f"<style>{CSS}</style></head><body>",
                *body,
                "</body></html>",
            ]
        )
        + "\n"
    )


def _index(merged: Merged, found: Changes, history: list[dict], threshold: float) -> str:
    body = [
        "<h1>Compatibility</h1>",
        f"<p>Published {html_text(history[-1]['date'])}; {len(history)} publication(s) in the history. "
        '<a href="figures.html">Figures (plots)</a> · <a href="report.html">Full report</a> · '
        '<a href="badge.json">badge</a></p>',
        grid_html(merged, link_of=lambda r: None if r.not_run else f"stacks/{stack_id(r)}.html", tools=True),
        legend_line(),
        "<h2>What changed since the last publication</h2>",
    ]
    if not found.previous:
        body.append("<p>First publication: nothing to compare with.</p>")
    else:
        body.append(f"<p>Compared with {html_text(found.previous)}; figures moved by more than {threshold:.0%}.</p>")
        for title, rows, headers in (
            ("New failures", found.new_failures, ("stack", "test", "outcome")),
            ("New known-bad", found.new_known_bad, ("stack", "test", "rule")),
            ("Stale rules (a known-bad rule's test passed)", found.stale_rules, ("stack", "test", "rule")),
            (
                "Figures that moved",
                [
                    (s, f, f"{a:.4g}", f"{b:.4g}", f"{(b - a) / a:+.0%}", _which_way(a, b, u, h))
                    for s, f, a, b, u, h in found.moved
                ],
                ("stack", "figure", "before", "now", "change", "better or worse"),
            ),
        ):
            body.append(f"<h3>{html_text(title)}</h3>")
            body.append(html_table(headers, rows) if rows else "<p>None.</p>")
    body += broken_html(merged)
    body += [
        "<h2>Headline figures over time</h2>",
        '<p><a href="figures.html">Plots of every figure over the publications</a>, of bus bandwidth by '
        "message size and of figures against the device's peak.</p>",
        f"<details><summary>As a table</summary>{_history_table(history, None)}</details>",
    ]
    return _page("Compatibility", body)


def _which_way(before: float, now: float, unit: str, higher_is_better: bool) -> str:
    """``worse (ms, lower is better)``: the direction a figure's metric declares (bundled: higher)."""
    better = (now > before) == higher_is_better
    rule = "higher is better" if higher_is_better else "lower is better"
    return (
        f"{'better' if better else 'worse'} ({unit}, {rule})" if unit else f"{'better' if better else 'worse'} ({rule})"
    )


def _history_table(history: list[dict], only: str | None) -> str:
    rows = []
    for sid in dict.fromkeys(s for run in history for s in run["stacks"]):
        if only is not None and sid != only:
            continue
        name = next(run["stacks"][sid]["name"] for run in reversed(history) if sid in run["stacks"])
        labels = dict.fromkeys(lbl for run in history for lbl in run["stacks"].get(sid, {}).get("figures", {}))
        notes = version_notes(history, sid)
        for label in labels:
            series = []
            for run, note in zip(history, notes, strict=True):
                fig = run["stacks"].get(sid, {}).get("figures", {}).get(label)
                if fig:
                    series.append(f"{run['date'][:10]}: {fig[0]:.4g} {fig[1]}" + (f" ({note})" if note else ""))
            rows.append((name, label, " → ".join(series[-8:])))
    return html_table(("stack", "figure", "history (oldest first, last 8)"), rows) if rows else "<p>No figures.</p>"


def _stack_page(merged: Merged, row: Row, history: list[dict], threshold: float) -> str:
    counts, causes = row.counts(), digest.causes_by_column(row)
    sid = stack_id(row)
    suites = "".join(
        f"<tr><td>{html_text(c)}</td>{entry_cell(c, headline(counts[c]), counts[c], 0, causes.get(c, ()))}</tr>"
        for c in merged.columns
        if c in counts
    )
    mine = Merged([row], merged.columns, merged.rules, [], len(row.files))
    skips = digest.skip_groups(mine, row_name)
    heads = digest.headlines(mine, row_name)
    body = [
        f'<p><a href="../index.html#s-{sid}">← all stacks</a></p>',
        f"<h1>{html_text(row_name(row))}</h1>",
        html_table(
            ("arch", "runtime", "torch · python", "libraries", "source"), [(*label_cells(row), source_text(row))]
        ),
        *([f'<p class="note">{UNKNOWN_NOTE}</p>'] if row.source == "unknown" else []),
        "<h2>Suites</h2>",
        f"<table><tr><th>suite</th><th>outcomes (worst first)</th></tr>{suites}</table>",
        legend_line(),
    ]
    body += broken_html(mine)
    if skips:
        body += ["<h2>Skip reasons</h2>", html_table(("reason", "tests"), [(g.key, g.count) for g in skips])]
    if heads:
        body += [
            "<h2>Headline figures</h2>",
            html_table(
                ("figure", "value", "floor", "of peak", "test"),
                [
                    (
                        h.label,
                        digest.figure_text(h.figure),
                        floor_words(h.figure),
                        digest.peak_text(h.figure),
                        h.test,
                    )
                    for h in heads
                ],
            ),
        ]
    body += site_plots.stack_body(merged, row, history, threshold)
    body += [
        "<h2>History</h2>",
        _history_table(history, sid),
        f"<p>From {len(row.files)} JUnit file(s): {html_text(', '.join(row.files), 4000)}</p>",
    ]
    return _page(row_name(row), body)
