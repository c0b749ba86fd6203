"""The compatibility grid in HTML: a row per stack, a column per suite, built to scale to 50 stacks.

Every row has a short permalink (``#s-<id>``, the id of its site page) and its facets as data
attributes (arch, runtime series, torch series); every entry is words with a sort key. With
``tools`` the site adds filters by arch, runtime and torch series and sorting by any column:
a small inline script (:mod:`.grid_script`) that only enhances, so with JavaScript off every
stack is listed and every link works. The filters and sort are read from and written to the
query string (``index.html?arch=gfx942&torch=2.5&sort=gpu``), so a filtered view can be shared.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable

from pytest_rocmcompat.report.digest import causes_by_column, conflicts_by_column
from pytest_rocmcompat.report.grid_script import GRID_SCRIPT
from pytest_rocmcompat.report.merge import Merged, Row, headline
from pytest_rocmcompat.report.outcome_words import attr, entry_cell, not_run_cell
from pytest_rocmcompat.report.planned import LIST_HEADERS, PLANNED_ID, Planned, split_planned
from pytest_rocmcompat.report.table import GRID_LABELS, label_cells, source_text
from pytest_rocmcompat.safe_io.escape import html_attr, html_text

FACETS = (("arch", "arch"), ("runtime", "runtime"), ("torch", "torch series"))
UNKNOWN = "unknown"
SEVERAL = "several"  # the planned line's facet where its cells differ
_SERIES = re.compile(r"^(\d+)\.(\d+)")
UNKNOWN_NOTE = (
    "A stack named by its file (arch <b>?</b>, source <b>unknown</b>) comes from a JUnit file without "
    "rocmcompat's properties: pytest ran without the plugin (or another tool wrote it), so its GPU, "
    "runtime and versions were not recorded. Run it with the plugin installed to place it."
)


def stack_id(row: Row) -> str:
    """A stable short id of a stack (its site page's name, its permalink and its history's key):
    of its matrix cell and machine (:func:`~.merge.history_key`), so it survives a library release.
    """
    return hashlib.sha256((row.history or row.key).encode("utf-8")).hexdigest()[:12]


def legacy_stack_id(row: Row) -> str:
    """The id publications made before ids followed the cell (of the full key, library versions in it)."""
    return hashlib.sha256(row.key.encode("utf-8")).hexdigest()[:12]


def series(version: str) -> str:
    """``2.5.1+rocm6.2`` -> ``2.5``; a version without a minor part stays as it is."""
    match = _SERIES.match(version)
    return f"{match.group(1)}.{match.group(2)}" if match else version


def facets(row: Row) -> dict[str, str]:
    """The values a stack is filtered by: arch name, runtime series (``ROCm 6.2``), torch series."""
    arch = row.label.get("arch", "") or "?"
    runtime = row.label.get("runtime", "") or "?"
    torch = row.label.get("torch", "") or "?"
    kind, _, version = runtime.partition(" ")
    return {
        "arch": UNKNOWN if arch == "?" else ("no GPU" if arch.startswith("no GPU") else arch.split(" ")[0]),
        "runtime": UNKNOWN if runtime == "?" else (f"{kind} {series(version)}" if version else kind),
        "torch": UNKNOWN if torch == "?" else ("none" if torch == "-" else series(torch)),
    }


def grid_html(merged: Merged, link_of: Callable[[Row], str | None] | None = None, tools: bool = False) -> str:
    """The grid; ``link_of(row)`` gives a page to link each stack to (the site); ``tools`` adds the
    filters and sorting (the site's index).
    """
    keys = ("arch", "runtime", "torch", "libraries", "source", *merged.columns)
    heads = (*GRID_LABELS, "source", *merged.columns)
    kinds = ("label",) * 5 + ("outcome",) * len(merged.columns)  # an outcome column sorts worst first
    head = "".join(
        f'<th scope="col" class="col" data-key="{attr(k)}" data-kind="{kind}">{html_text(h)}</th>'
        for k, h, kind in zip(keys, heads, kinds, strict=True)
    )
    ran, planned = split_planned(merged.rows)
    rows = [_row_html(merged, row, link_of) for row in ran]
    if planned is not None:
        rows.append(_planned_html(merged, planned))
    shown = [facets(r) for r in ran] + ([planned_facets(planned)] if planned is not None else [])
    out = [_tools(shown) if tools else ""]
    out += ['<div class="grid-wrap">', f'<table id="grid"><thead><tr>{head}</tr></thead><tbody>', *rows]
    out += ["</tbody></table></div>"]
    if planned is not None:
        out.append(
            f'<details id="planned-cells"><summary>{html_text(planned.summary)}</summary>'
            f"{_plain_table(LIST_HEADERS, planned.list_rows())}</details>"
        )
    if any(r.source == UNKNOWN for r in merged.rows):
        out.append(f'<p class="note">{UNKNOWN_NOTE}</p>')
    if tools:
        out.append(f"<script>{GRID_SCRIPT}</script>")
    return "\n".join(o for o in out if o)


def _row_html(merged: Merged, row: Row, link_of: Callable[[Row], str | None] | None) -> str:
    sid = stack_id(row)
    counts, clash, causes = row.counts(), conflicts_by_column(row), causes_by_column(row)
    labels = [html_text(v) for v in label_cells(row)]
    href = link_of(row) if link_of else None
    if href:
        labels[0] = f'<a href="{html_attr(href)}">{labels[0]}</a>'
    labels[0] = (
        f'<a class="pl" href="#s-{sid}" title="link to this row" aria-label="link to this row">#</a> ' + labels[0]
    )
    cells = "".join(f"<td>{v}</td>" for v in labels) + f"<td>{html_text(source_text(row))}</td>"
    for column in merged.columns:
        c = counts.get(column)
        cells += entry_cell(column, headline(c) if c else None, c, clash.get(column, 0), causes.get(column, ()))
    data = "".join(f' data-{k}="{attr(v)}"' for k, v in facets(row).items())
    return f'<tr id="s-{sid}"{data}>{cells}</tr>'


def planned_facets(planned: Planned) -> dict[str, str]:
    """The planned line's filter values: a facet all its cells share, else ``several``."""
    found: dict[str, set[str]] = {}
    for row in planned.rows:
        for key, value in facets(row).items():
            found.setdefault(key, set()).add(value)
    return {k: next(iter(v)) if len(v) == 1 else SEVERAL for k, v in found.items()}


def _planned_html(merged: Merged, planned: Planned) -> str:
    """The one line of the planned cells without results (its cells listed below the grid)."""
    labels = [html_text(v) for v in planned.label_cells()]
    labels[0] = (
        f'<a class="pl" href="#{PLANNED_ID}" title="link to this row" aria-label="link to this row">#</a> ' + labels[0]
    )
    cells = "".join(f"<td>{v}</td>" for v in labels) + f"<td>{html_text(planned.source)}</td>"
    cells += "".join(not_run_cell(c) for c in merged.columns)
    data = "".join(f' data-{k}="{attr(v)}"' for k, v in planned_facets(planned).items())
    return f'<tr id="{PLANNED_ID}" class="planned"{data}>{cells}</tr>'


def _plain_table(headers: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    head = "".join(f"<th>{html_text(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{html_text(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _tools(found: list[dict[str, str]]) -> str:
    """The filter bar, hidden until the script shows it (nothing that needs JavaScript shows without it)."""
    selects = []
    for key, title in FACETS:
        values = sorted({f[key] for f in found} - {SEVERAL}, key=_natural)
        options = "".join(f'<option value="{attr(v)}">{html_text(v)}</option>' for v in values)
        selects.append(
            f'<label>{html_text(title)} <select data-filter="{key}"><option value="">all</option>{options}</select></label>'
        )
    return (
        '<form id="grid-tools" class="tools" hidden role="search" aria-label="filter the stacks">'
        + " ".join(selects)
        + ' <button type="reset">show all</button> <output id="grid-count" aria-live="polite"></output>'
        + ' <span class="note">Click a column heading to sort.</span></form>'
        + '<noscript><p class="note">Filters and sorting need JavaScript; every stack is listed.</p></noscript>'
    )


def _natural(text: str) -> list[object]:
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text)]
