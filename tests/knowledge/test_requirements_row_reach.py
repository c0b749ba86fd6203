"""Every run-time row's message reaches the ``requirement-not-met`` signature when its requirement is unmet.

A release can be reported from two sources for the same dependency: what it declared and a
run-time row (``requirement_tables.RUNTIME_MINIMUMS``), or two rows. The finding names the first
pair per dependency; the later rows' failures must still be predicted, else a stack broken the
way a later row says ends ``fail`` (before this, deepspeed 0.8.2's ``torch<2.12`` and
liger-kernel 0.5.10's ``triton>=3.0.0`` messages dropped out behind an earlier pair).
"""

from __future__ import annotations

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from pytest_rocmcompat.knowledge.checks import requirements
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.knowledge.checks.requirement_tables import RUNTIME_MINIMUMS, RuntimeRow
from pytest_rocmcompat.stack.environment import Environment


def _outside(spec: SpecifierSet) -> str | None:
    """A release the specifier rejects: next to one of its bounds, else far below or above."""
    candidates: list[str] = []
    for one in spec:
        release = list(Version(one.version.replace(".*", "")).release)
        lower = release[:]
        for i in reversed(range(len(lower))):
            if lower[i] > 0:
                lower[i] -= 1
                break
        candidates += [".".join(map(str, lower)), ".".join(map(str, [*release[:-1], release[-1] + 1]))]
    return next((c for c in [*candidates, "0.0.1", "99.0"] if not spec.contains(c, prereleases=True)), None)


ROWS = [(dist, row) for dist, rows in RUNTIME_MINIMUMS.items() for row in rows if row.message]


@pytest.mark.parametrize(("dist", "row"), ROWS, ids=[f"{d}-{r.since}-{r.requirement}" for d, r in ROWS])
def test_row_message_is_predicted(dist: str, row: RuntimeRow) -> None:
    requirement = Requirement(row.requirement)
    bad = _outside(requirement.specifier)
    assert bad is not None, row
    python = next(  # a Python the row's marker holds for (the rows conditioned on one name it)
        p
        for p in ("3.12.3", "3.13.1", "3.9.18")
        if requirement.marker is None
        or requirement.marker.evaluate({"python_version": p[:4], "python_full_version": p})
    )
    env = Environment(platform="cpu", python=python, os="Linux", libraries={dist: row.since, requirement.name: bad})
    findings = [f for f in evaluate(env) if f.check == requirements.ID and not f.uncertain]
    assert findings, f"{dist} {row.since} beside {requirement.name} {bad}: no finding"
    assert any(row.message in f.predicts for f in findings), (row, [f.predicts for f in findings])


def test_the_sweep_covers_the_rows_that_shared_a_dependency() -> None:
    """The two rows that an earlier pair on the same dependency hid are among those swept."""
    swept = {(d, r.since, r.requirement) for d, r in ROWS}
    assert ("deepspeed", "0.8.2", "torch<2.12") in swept
    assert ("liger-kernel", "0.5.10", "triton>=3.0.0") in swept
