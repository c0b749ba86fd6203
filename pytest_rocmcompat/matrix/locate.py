"""Find the matrix cell an environment belongs to, or say why it is outside."""

from __future__ import annotations

from dataclasses import dataclass

from pytest_rocmcompat.matrix.expand import is_excluded
from pytest_rocmcompat.matrix.model import Cell, Matrix
from pytest_rocmcompat.stack.arch import arch_matches
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.versions import in_series, parse_version


@dataclass(frozen=True)
class Location:
    """The environment's place in a matrix.

    ``cell`` is set when every axis matched and the combination is not
    excluded; otherwise ``reasons`` says which axes did not match.
    """

    matrix: Matrix
    cell: Cell | None
    reasons: tuple[str, ...] = ()
    excluded: bool = False

    @property
    def inside(self) -> bool:
        return self.cell is not None and not self.excluded

    def describe(self) -> str:
        if self.cell is None:  # (only a located cell can be excluded)
            return f"OUTSIDE matrix {self.matrix.name!r}: {'; '.join(self.reasons)}"
        if self.excluded:
            return (
                f"OUTSIDE matrix {self.matrix.name!r}: cell {self.cell.key} "
                "is excluded by the matrix (not a shipped combination)"
            )
        return f"matrix {self.matrix.name!r} cell {self.cell.key}"


def locate(matrix: Matrix, env: Environment) -> Location:
    """Match each axis: arch by name or glob, versions by series (``"2.6"`` matches 2.6.x)."""
    reasons: list[str] = []
    values: dict[str, str] = {}
    if matrix.platform and env.platform != matrix.platform:
        reasons.append(f"platform is {env.platform}, the matrix is for {matrix.platform}")
    for axis in matrix.axis_names:
        choices = matrix.axis_values(axis)
        found = _match_axis(env, axis, choices)
        if found is None:
            actual = ",".join(env.archs) if axis == "arch" else env.field_version(axis)
            listed = ", ".join(choices)
            if actual in (None, ""):
                reasons.append(f"{axis} not detected (the matrix lists {listed})")
            else:
                reasons.append(f"{axis} {actual} is not on the {axis} axis ({listed})")
        else:
            values[axis] = found
    if reasons:
        return Location(matrix, None, tuple(reasons))
    cell = Cell(tuple(values.items()))
    return Location(matrix, cell, excluded=is_excluded(matrix, values))


def _match_axis(env: Environment, axis: str, choices: tuple[str, ...]) -> str | None:
    if axis == "arch":
        return next((c for c in choices for a in env.archs if arch_matches(a, c)), None)
    version = env.field_version(axis)
    if version is None:
        return None
    # The most specific series wins: "2.6.1" before "2.6" when both are listed.
    matches = [c for c in choices if in_series(version, parse_version(c))]
    return max(matches, key=lambda c: len(parse_version(c).release), default=None)
