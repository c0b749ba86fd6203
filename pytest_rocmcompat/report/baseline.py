"""The merged table as JSON (``--json``), and regressions against an earlier one (``--baseline``).

A regression is, in a cell present in both (the same matrix cell and machine, whatever its
library versions; an older baseline by its full key): a test that passed and now fails
(``fail``, ``crashed`` or ``hang``), or a measurement worse by more than the
threshold (lower for higher-is-better figures, higher otherwise).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from pytest_rocmcompat.outcomes import BROKEN, Outcome
from pytest_rocmcompat.report.merge import Merged

SCHEMA = 1


class BaselineError(ValueError):
    """The ``--baseline`` file is missing or not an earlier ``--json`` output."""


@dataclass(frozen=True)
class Regression:
    cell: str
    test: str
    what: str  # "pass -> fail" or "gemm_bf16_tflops 600 -> 480 TFLOP/s (-20.0%)"


def snapshot(merged: Merged) -> dict:
    """A JSON-able summary: per cell, its label, counts, every test's outcome and every figure."""
    cells = []
    for row in merged.rows:
        counts = {col: {o.value: n for o, n in c.items()} for col, c in row.counts().items()}
        cells.append(
            {
                "key": row.key,
                "history": row.history or row.key,  # the cell and machine: a baseline matches by it
                "source": row.source,
                "label": row.label,
                "cell": row.cell,
                "origin": row.origin,
                "files": row.files,
                "counts": counts,
                "tests": {t: c.outcome.value for t, c in row.tests.items()},
                "measurements": [
                    {
                        "test": t,
                        "name": m.name,
                        "detail": m.detail,
                        "value": m.value,
                        "unit": m.unit,
                        "floor": m.floor,
                        "peak": m.peak,
                        "higher_is_better": m.higher_is_better,
                    }
                    for t, m in row.measurements
                ],
            }
        )
    rules = {k: {"reason": r.reason, "links": list(r.links), "action": r.action} for k, r in merged.rules.items()}
    return {"schema": SCHEMA, "columns": merged.columns, "cells": cells, "rules": rules, "warnings": merged.warnings}


def load_baseline(path: str) -> dict:
    """Read an earlier ``--json`` output; a clear :class:`BaselineError` if it is not one."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as exc:
        raise BaselineError(f"{path}: cannot read the baseline: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise BaselineError(
            f"{path}:{exc.lineno}: the baseline is not valid JSON ({exc.msg}); "
            "pass a file written by `rocmcompat report --json`"
        ) from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA or not isinstance(data.get("cells"), list):
        raise BaselineError(f"{path}: not a `rocmcompat report --json` file (schema {SCHEMA} with 'cells')")
    return data


def _node_id(test: object) -> str:
    """Baselines written before node ids named tests ``pkg.test_x.TestC::name``: read them as node ids."""
    from pytest_rocmcompat.report.junit_read import node_id

    text = str(test)
    head, sep, name = text.partition("::")
    if not sep or head.endswith(".py") or "/" in head:
        return text
    return node_id(head, name)


def regressions(merged: Merged, baseline: dict, threshold: float) -> list[Regression]:
    """Pass-to-fail tests and figures worse by more than ``threshold`` (0.10 = 10%)."""
    cells = [c for c in baseline["cells"] if isinstance(c, dict)]
    old = {c.get("key"): c for c in cells}
    same_cell = {c["history"]: c for c in cells if isinstance(c.get("history"), str)}
    found: list[Regression] = []
    for row in merged.rows:
        before = same_cell.get(row.history) if row.history else None  # across a library release
        before = before if before is not None else old.get(row.key)
        if before is None or row.not_run:
            continue
        tests = {_node_id(t): o for t, o in (before.get("tests") or {}).items()}
        for test, case in row.tests.items():
            if tests.get(test) == Outcome.PASS.value and case.outcome in BROKEN:
                found.append(Regression(row.key, test, f"pass -> {case.outcome.value}"))
        figures = {}
        for m in before.get("measurements") or []:
            try:
                figures[(_node_id(m["test"]), m["name"], m.get("detail", ""))] = float(m["value"])
            except (KeyError, TypeError, ValueError):
                continue
        for test, m in row.measurements:
            was = figures.get((test, m.name, m.detail))
            if was is None or was == 0:
                continue
            change = (m.value - was) / abs(was)
            worse = -change if m.higher_is_better else change
            if worse > threshold:
                what = f"{m.name} {was:.4g} -> {m.value:.4g} {m.unit} ({change:+.1%})"
                if m.detail:
                    what += f" [{m.detail}]"
                found.append(Regression(row.key, test, what))
    return found
