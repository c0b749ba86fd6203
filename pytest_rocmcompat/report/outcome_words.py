"""Outcomes in HTML as words, never only as a colour or an emoji.

A grid entry reads ``1 fail · 34 pass`` on the colour of its worst outcome, and carries the same
text with its column as an accessible name, so a page read without an emoji font, without colour
or by a screen reader means the same. The legend pairs each word with a small swatch of its
colour and its meaning. (Markdown keeps the emoji GitHub renders, with the word in its legend.)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from pytest_rocmcompat.outcomes import MEANING, SEVERITY, Outcome
from pytest_rocmcompat.report.merge import NOT_RUN
from pytest_rocmcompat.safe_io.escape import html_attr, html_text

CONFLICT = "conflict"
# Background colour of a grid entry by its headline (worst) outcome.
COLOURS: dict[str, str] = {
    Outcome.PASS.value: "#2da44e",
    Outcome.FAIL.value: "#cf222e",
    Outcome.KNOWN_BAD.value: "#d4a72c",
    Outcome.XFAIL.value: "#54aeff",
    Outcome.STALE_RULE.value: "#8250df",
    Outcome.SKIPPED.value: "#afb8c1",
    Outcome.CRASHED.value: "#82071e",
    Outcome.HANG.value: "#e16f24",
    NOT_RUN: "#f6f8fa",
}
# Sort keys of a grid entry (higher is worse): empty, not run, then the outcomes by severity.
SORT_EMPTY, SORT_NOT_RUN = 0, 1
LEGEND: tuple[tuple[str, str], ...] = (
    *((o.value, MEANING[o]) for o in sorted(Outcome, key=lambda o: -SEVERITY[o])),
    (NOT_RUN, "a planned cell of the matrix without results"),
    (CONFLICT, "one test reported with different outcomes in one stack (the worst is counted)"),
)


def attr(text: object) -> str:
    """An attribute value from quoted text: :func:`html_attr`, and ``=`` as ``&#61;`` so nothing
    inside an opening tag reads like an event handler (``x onerror=``) to a scanner.
    """
    return html_attr(text).replace("=", "&#61;")


def cls(name: str) -> str:
    """The CSS class of an outcome name (``not run`` -> ``not-run``)."""
    return name.replace(" ", "-")


def entry_words(counts: Counter | None, conflicts: int = 0) -> str:
    """``1 fail · 34 pass``: every outcome present with its count, worst first (the verdict leads)."""
    if not counts:
        return ""
    return " · ".join(_entries(counts, conflicts))


def _entries(counts: Counter, conflicts: int) -> list[str]:
    present = sorted((o for o in Outcome if counts.get(o)), key=lambda o: -SEVERITY[o])
    words = [f"{counts[o]} {o.value}" for o in present]
    return [*words, f"{conflicts} {CONFLICT}"] if conflicts else words


def sort_key(worst: Outcome | None, not_run: bool = False) -> int:
    """A grid entry's sort key: the severity of its worst outcome (higher is worse)."""
    if not_run:
        return SORT_NOT_RUN
    return SORT_EMPTY if worst is None else 2 + SEVERITY[worst]


def entry_cell(
    column: str, worst: Outcome | None, counts: Counter | None, conflicts: int = 0, causes: Sequence[str] = ()
) -> str:
    """One grid ``<td>``: the words on the worst outcome's colour, named for assistive technology;
    ``causes``, the likely causes its failures carry, follow in its name and as a marked line.
    """
    if worst is None:
        return f'<td data-sort="{SORT_EMPTY}" aria-label="{attr(column)}: no tests"></td>'
    entries = _entries(counts or Counter(), conflicts)
    cause = "; ".join(causes)
    name = attr(f"{column}: {', '.join(entries)}" + (f"{CAUSE_SEP}{cause}" if cause else ""))
    text = " · ".join(f'<span class="e">{html_text(e)}</span>' for e in entries)  # wraps between entries
    if cause:
        text += f'<span class="cause"><br>likely cause: {html_text(cause, 300)}</span>'
    return (
        f'<td class="o {cls(worst.value)}" data-outcome="{worst.value}" data-sort="{sort_key(worst)}" '
        f'title="{name}" aria-label="{name}">{text}</td>'
    )


CAUSE_SEP = " \u2014 likely cause: "


def not_run_cell(column: str) -> str:
    name = attr(f"{column}: {NOT_RUN}")
    return (
        f'<td class="o {cls(NOT_RUN)}" data-outcome="{NOT_RUN}" data-sort="{SORT_NOT_RUN}" '
        f'title="{name}" aria-label="{name}">{NOT_RUN}</td>'
    )


def swatch(name: str) -> str:
    """A small square of an outcome's colour beside its word (decorative: the word carries it)."""
    return f'<span class="sw {cls(name)}" aria-hidden="true"></span>'


def legend_line() -> str:
    """The short legend under the grid: each word with its colour."""
    items = " ".join(f'<span class="lg">{swatch(name)}{html_text(name)}</span>' for name, _ in LEGEND)
    return (
        f'<p class="note legend">Each entry counts the tests of a suite by outcome, worst first; '
        f"its colour is the worst outcome's. {items}</p>"
    )


def legend_table() -> str:
    """The full legend: word, colour and meaning."""
    rows = "".join(
        f"<tr><td>{swatch(name)} {html_text(name)}</td><td>{html_text(meaning)}</td></tr>" for name, meaning in LEGEND
    )
    return f'<table class="legend"><tr><th>outcome</th><th>meaning</th></tr>{rows}</table>'


def css() -> str:
    """Entry and swatch colours; light backgrounds take dark text."""
    dark = (NOT_RUN, Outcome.SKIPPED.value, Outcome.KNOWN_BAD.value, Outcome.XFAIL.value)
    out = [f"td.o.{cls(n)}{{background:{c}}}\n.sw.{cls(n)}{{background:{c}}}\n" for n, c in COLOURS.items()]
    out += [f"td.o.{cls(n)}{{color:#1f2328}}\n" for n in dark]
    out.append(".sw.conflict{background:repeating-linear-gradient(45deg,#cf222e 0 3px,#fff 3px 6px)}\n")
    return "".join(out)
