"""The merged compatibility report in Markdown (GitHub tables through tabulate)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pytest_rocmcompat.outcomes import BROKEN, MEANING, SYMBOL, Outcome
from pytest_rocmcompat.report import digest
from pytest_rocmcompat.report.baseline import Regression
from pytest_rocmcompat.report.digest import CONFLICT_SYMBOL, compact_entry, conflicts_by_column
from pytest_rocmcompat.report.md_table import md_table
from pytest_rocmcompat.report.merge import NOT_RUN, Merged, Row
from pytest_rocmcompat.report.planned import LIST_HEADERS, split_planned
from pytest_rocmcompat.report.sizes import split_sized
from pytest_rocmcompat.safe_io.escape import md_cell, one_environment_scan
from pytest_rocmcompat.session.measurements import Measurement

NOT_RUN_SYMBOL = "⬜"
LABELS = ("arch", "runtime", "torch", "python", "libraries")
GRID_LABELS = ("arch", "runtime", "torch · python", "libraries")  # one screen: <= ~10 columns
MAX_FAILURE_ROWS = 200


def row_name(row: Row) -> str:
    """A short readable name of a cell for the sections below the grid."""
    label = row.label
    if row.source == "unknown":
        return f"unknown ({label.get('libraries', '')})"
    return f"{label['arch']} · {label['runtime']} · torch {label['torch']} · py {label['python']}" + (
        f" [{row.source}]" if row.source != "hardware" else ""
    )


def render_markdown(
    merged: Merged,
    regressions: list[Regression] | None = None,
    threshold: float | None = None,
    recommendations: list[str] | None = None,
) -> str:
    with one_environment_scan():
        return _render(merged, regressions, threshold, recommendations)


def _render(
    merged: Merged,
    regressions: list[Regression] | None,
    threshold: float | None,
    recommendations: list[str] | None = None,
) -> str:
    ran = [r for r in merged.rows if not r.not_run]
    lines = [
        "# Compatibility report",
        "",
        f"{len(ran)} cell(s) from {merged.inputs} JUnit file(s)"
        + (f"; {len(merged.rows) - len(ran)} planned cell(s) not run" if len(ran) < len(merged.rows) else "")
        + ".",
        "",
    ]
    if merged.warnings:
        lines += ["> **Inputs left out**:", ""] + [f"> - {md_cell(w)}" for w in merged.warnings] + [""]
    lines += ["## Compatibility", "", grid_markdown(merged), "", SYMBOL_LINE, ""]
    lines += _broken(merged)
    if regressions is not None:
        lines += _regressions(regressions, threshold)
    lines += _skips(merged)
    lines += _headlines(merged)
    if recommendations:
        lines += recommendations
    lines += ["## Details", ""]
    lines += _performance(merged)
    lines += _failures(merged)
    lines += [
        "## Legend",
        "",
        _table(
            ("", "outcome", "meaning"),
            [(SYMBOL[o], o.value, MEANING[o]) for o in Outcome]
            + [
                (NOT_RUN_SYMBOL, NOT_RUN, "a planned cell of the matrix without results"),
                (CONFLICT_SYMBOL, "conflict", "one test reported with different outcomes in one stack"),
            ],
        ),
        "",
        "Source: **hardware** = probed on the machine that ran the tests; **replay** = a recorded "
        "environment replayed (`--rocm-env`), not the hardware it ran on; **override** = "
        "versions set by hand (`--rocm-set`); **unknown** = a JUnit file without rocmcompat "
        "properties (a plain pytest run).",
        "",
    ]
    return "\n".join(lines)


SYMBOL_LINE = (
    "Each entry: outcome symbol, count and word, worst first — "
    + ", ".join(f"{SYMBOL[o]} {o.value}" for o in Outcome)
    + f", {CONFLICT_SYMBOL} conflict."
)


def grid_markdown(merged: Merged) -> str:
    """The grid: a row per stack; the planned cells without results one line, listed below it."""
    headers = [*GRID_LABELS, "source", *merged.columns]
    ran, planned = split_planned(merged.rows)
    body = []
    for row in ran:
        counts, clash = row.counts(), conflicts_by_column(row)
        entries = [compact_entry(counts.get(c), clash.get(c, 0)) for c in merged.columns]
        body.append([*label_cells(row), source_text(row), *entries])
    if not merged.columns:
        headers.append("tests")
        for line in body:
            line.append("no tests")
    if planned is not None:
        not_run = f"{NOT_RUN_SYMBOL} {NOT_RUN}"
        body.append([*planned.label_cells(), planned.source, *([not_run] * max(1, len(merged.columns)))])
    table = _table(headers, body)
    if planned is None:
        return table
    listed = _table(LIST_HEADERS, planned.list_rows())
    return f"{table}\n\n<details><summary>{planned.summary}</summary>\n\n{listed}\n\n</details>"


def label_cells(row: Row) -> list[str]:
    """The stack's cells of the grid: arch, runtime, torch · python, the key libraries in one cell."""
    label = row.label
    return [
        label.get("arch", ""),
        label.get("runtime", ""),
        f"{label.get('torch', '')} · py {label.get('python', '')}",
        label.get("libraries", ""),
    ]


def source_text(row: Row) -> str:
    """Hardware (with the run's date), replay (with its recording), override, unknown, not run."""
    if row.source == "replay" and row.origin:
        return f"replay ({row.origin})"
    if row.source == "hardware" and row.timestamp:
        return f"hardware {row.timestamp[:10]}"
    return row.source


def _broken(merged: Merged) -> list[str]:
    rules = digest.rule_groups(merged, row_name)
    failures = digest.failure_groups(merged, row_name)
    clashes = digest.conflicts(merged, row_name)
    out = ["## What is broken", ""]
    if not (rules or failures or clashes):
        return [*out, "Nothing: no known-bad rule reached a test, and no test failed, crashed or hung.", ""]
    if rules:
        out += [
            "### Known issues (by rule)",
            "",
            _table(
                ("rule", "action", "reason", "links", "stacks hit"),
                [
                    (
                        g.rule,
                        g.action,
                        g.reason,
                        " ".join(g.links),
                        "; ".join(f"{s}: {digest.outcome_counts_text(c)}" for s, c in g.stacks),
                    )
                    for g in rules
                ],
            ),
            "",
        ]
        stale = [
            (g.rule, "; ".join(s for s, c in g.stacks if c.get(Outcome.STALE_RULE)))
            for g in rules
            if any(c.get(Outcome.STALE_RULE) for _, c in g.stacks)
        ]
        if stale:
            out += [
                "### Stale rules",
                "",
                "A known-bad rule's test passed in these stacks: the rule may be obsolete.",
                "",
                _table(("rule", "stacks where its test passed"), stale),
                "",
            ]
    if failures:
        out += [
            "### Failures (by diagnosis)",
            "",
            _table(
                digest.FAILURE_HEADERS,
                digest.failure_rows(failures),
            ),
            "",
        ]
    if clashes:
        out += [
            "### Conflicts",
            "",
            "One test reported with different outcomes within one stack (shards or "
            "reruns disagree); the grid counts the worst.",
            "",
            _table(
                ("stack", "test", "outcomes"), [(s, t, ", ".join(o.value for o in found)) for s, t, found in clashes]
            ),
            "",
        ]
    return out


def _skips(merged: Merged) -> list[str]:
    groups = digest.skip_groups(merged, row_name)
    if not groups:
        return []
    return [
        "## Skip reasons",
        "",
        _table(
            ("reason", "tests", "stacks"),
            [(g.key, g.count, "; ".join(f"{s} ({n})" for s, n in g.stacks.items())) for g in groups],
        ),
        "",
    ]


def _headlines(merged: Merged) -> list[str]:
    found = digest.headlines(merged, row_name)
    if not found:
        return []
    return [
        "## Headline figures",
        "",
        "Per stack against the matrix floor and the datasheet peak; "
        "every figure and the per-size tables are under Details.",
        "",
        _table(
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
        "",
    ]


def _regressions(found: list[Regression], threshold: float | None) -> list[str]:
    head = ["## Regressions against the baseline", ""]
    if threshold is not None:
        head += [f"Measurements worse by more than {threshold:.0%}, and tests that went from pass to fail.", ""]
    if not found:
        return [*head, "None.", ""]
    return [*head, _table(("cell", "test", "regression"), [(r.cell, r.test, r.what) for r in found]), ""]


def _known_issues(merged: Merged) -> list[str]:
    hits = merged.hits()
    if not hits:
        return []
    names = {r.key: row_name(r) for r in merged.rows}
    rows, stale = [], []
    for rule_id in sorted(hits):
        info = merged.rules.get(rule_id)
        where = "; ".join(
            f"{names.get(k, k)}: " + ", ".join(f"{n} {o.value}" for o, n in c.items()) for k, c in hits[rule_id].items()
        )
        rows.append((rule_id, info.reason if info else "", info.links[0] if info and info.links else "", where))
        stale_cells = [names.get(k, k) for k, c in hits[rule_id].items() if c.get(Outcome.STALE_RULE)]
        if stale_cells:
            stale.append((rule_id, "; ".join(stale_cells)))
    out = ["## Known issues", "", _table(("rule", "reason", "link", "cells hit"), rows), ""]
    if stale:
        out += [
            "### Stale rules",
            "",
            "A known-bad rule's test passed in these cells: the rule may be obsolete.",
            "",
            _table(("rule", "cells where its test passed"), stale),
            "",
        ]
    return out


def _performance(merged: Merged) -> list[str]:
    flat_rows = []
    by_size: dict[str, tuple[list[str], list[tuple[str, str, dict[str, Measurement]]]]] = {}
    for row in merged.rows:
        flat, sized = split_sized(row.measurements)
        for test, m in flat:
            flat_rows.append(
                (
                    row_name(row),
                    test,
                    m.name,
                    m.detail,
                    f"{m.value:.4g} {m.unit}",
                    "" if m.floor is None else f"{m.floor:g}",
                    "" if m.fraction_of_peak is None else f"{m.fraction_of_peak:.0%}",
                    _status(m),
                )
            )
        for test, metric, found in sized:
            sizes, lines = by_size.setdefault(metric, ([], []))
            sizes.extend(size for size, _ in found if size not in sizes)
            lines.append((row_name(row), test, dict(found)))
    if not flat_rows and not by_size:
        return []
    out = ["### Every figure", "", "Each figure against its floor (a ceiling for lower-is-better figures).", ""]
    if flat_rows:
        out += [_table(("cell", "test", "metric", "detail", "value", "floor", "of peak", "status"), flat_rows), ""]
    for metric, (sizes, lines) in by_size.items():
        unit = next((m.unit for _, _, f in lines for m in f.values()), "")
        body = [(cell, test, *(_sized_value(f.get(size)) for size in sizes)) for cell, test, f in lines]
        out += [f"#### {md_cell(metric)} by size ({md_cell(unit)})", "", _table(("cell", "test", *sizes), body), ""]
    return out


def _sized_value(m: Measurement | None) -> str:
    if m is None:
        return ""
    return f"{m.value:.4g}" + (f" ❌ {m.miss_text}" if m.below_floor else "")


def _status(m: Measurement) -> str:
    return f"❌ {m.miss_text}" if m.below_floor else ("✅ met" if m.floor is not None else "")


def _failures(merged: Merged) -> list[str]:
    bad = [
        (
            row_name(row),
            case.test,
            case.outcome.value,
            case.signature or "",
            case.cause,
            digest.without_cause(case.message, case.cause),
        )
        for row in merged.rows
        for case in row.tests.values()
        if case.outcome in BROKEN
    ]
    if not bad:
        return []
    out = ["### Every failure", ""]
    if len(bad) > MAX_FAILURE_ROWS:
        out += [f"The first {MAX_FAILURE_ROWS} of {len(bad)}.", ""]
    return [
        *out,
        _table(("cell", "test", "outcome", "signature", "likely cause", "message"), bad[:MAX_FAILURE_ROWS]),
        "",
    ]


def _table(headers: Sequence[object], rows: Iterable[Sequence[object]]) -> str:
    """The merged report's tables: cells cut at 300 characters (many columns, many rows)."""
    return md_table(headers, rows, limit=300)
