"""Expand a matrix's axes into cells, without the excluded combinations."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from pytest_rocmcompat.matrix.model import Cell, Matrix


def is_excluded(matrix: Matrix, values: dict[str, str]) -> bool:
    """Whether a combination matches any ``exclude`` entry (all of the entry's axes)."""
    return any(all(values.get(axis) in allowed for axis, allowed in entry) for entry in matrix.excludes)


def expand(matrix: Matrix, *, include_excluded: bool = False) -> Iterator[Cell]:
    """Yield the planned cells in axis order; lazily, matrices can be large."""
    names = matrix.axis_names
    if not names:
        return
    for combo in itertools.product(*(matrix.axis_values(n) for n in names)):
        values = dict(zip(names, combo, strict=False))
        if include_excluded or not is_excluded(matrix, values):
            yield Cell(tuple(values.items()))


def count_cells(matrix: Matrix) -> tuple[int, int]:
    """``(planned, excluded)`` cell counts."""
    planned = excluded = 0
    for cell in expand(matrix, include_excluded=True):
        if is_excluded(matrix, cell.as_dict()):
            excluded += 1
        else:
            planned += 1
    return planned, excluded
