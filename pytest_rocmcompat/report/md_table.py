"""The one Markdown table writer: GitHub tables whose every cell is escaped here."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tabulate import tabulate

from pytest_rocmcompat.safe_io.escape import md_cell


def md_table(headers: Sequence[object], rows: Iterable[Sequence[object]], limit: int = 400) -> str:
    """A GitHub table; callers pass raw text, each cell is :func:`md_cell`'d and cut at ``limit``
    (``None`` is an empty cell).
    """
    body = [["" if c is None else md_cell(c, limit) for c in row] for row in rows]
    return tabulate(body, headers=[md_cell(h) for h in headers], tablefmt="github", disable_numparse=True)
