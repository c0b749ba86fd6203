"""Planned cells that did not run, collapsed: one line of the grid, the cells listed below it.

``report --matrix`` adds a row per planned cell without results; a matrix of 75 cells run on 3
would bury the 3 under 72 identical "not run" rows. Every writer (Markdown, HTML, the site) shows
them as one line, whose label cells name the values the planned cells span, and lists the cells
in a collapsed ``<details>`` below the grid.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_rocmcompat.report.merge import NOT_RUN, Row

MAX_VALUES = 6  # values named in a label cell of the line; more are counted
PLANNED_ID = "s-planned"  # the line's permalink


@dataclass(frozen=True)
class Planned:
    """The planned cells without results, and what the one line shows of them."""

    rows: tuple[Row, ...]

    @property
    def count(self) -> int:
        return len(self.rows)

    def values(self, key: str) -> list[str]:
        """The distinct values of a label key, in natural order (``2.9`` before ``2.10``)."""
        return sorted({r.label.get(key, "") for r in self.rows} - {""}, key=_natural)

    def span(self, key: str) -> str:
        found = self.values(key)
        if len(found) > MAX_VALUES:
            return ", ".join(found[:MAX_VALUES]) + f" +{len(found) - MAX_VALUES} more"
        return ", ".join(found)

    def label_cells(self) -> list[str]:
        """The grid's label cells (arch, runtime, torch · python, libraries)."""
        python = self.span("python")
        return [
            self.span("arch"),
            self.span("runtime"),
            f"{self.span('torch')}" + (f" · py {python}" if python else ""),
            self.span("libraries"),
        ]

    @property
    def source(self) -> str:
        return f"{NOT_RUN} ({self.count} planned cell{'s' if self.count != 1 else ''})"

    @property
    def summary(self) -> str:
        return f"{self.count} planned cell{'s' if self.count != 1 else ''} of the matrix without results"

    def list_rows(self) -> list[tuple[str, ...]]:
        """One row per planned cell for the list below the grid."""
        return [
            (
                r.label.get("arch", ""),
                r.label.get("runtime", ""),
                r.label.get("torch", ""),
                r.label.get("python", ""),
                r.label.get("libraries", ""),
                r.cell,
            )
            for r in self.rows
        ]


LIST_HEADERS = ("arch", "runtime", "torch", "python", "libraries", "matrix cell")


def split_planned(rows: list[Row]) -> tuple[list[Row], Planned | None]:
    """The rows that ran (or are unknown), and the planned cells without results (None if none)."""
    ran = [r for r in rows if not r.not_run]
    planned = tuple(r for r in rows if r.not_run)
    return ran, (Planned(planned) if planned else None)


def _natural(text: str) -> list[object]:
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text)]
