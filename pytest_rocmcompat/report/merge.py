"""Merge many JUnit runs into one compatibility table: one row per cell, one column per suite.

A row is one environment (platform, GPUs, ROCm/CUDA, torch, Python, libraries, and
whether it was real hardware or a replay), read from the testsuite properties the
plugin writes. Several files of one environment (shards) share a row; a test seen
twice keeps its worse outcome, and two different outcomes of one test are kept as a
conflict (``Row.conflicts``) that the reports show. A file without those properties (a plain pytest run)
is a row of its own, labelled with what is known: its file (relative to the argument's root;
the host only when asked).
"""

from __future__ import annotations

import glob
import json
import os
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pytest_rocmcompat.matrix.model import SUITES, Matrix
from pytest_rocmcompat.outcomes import (
    PROP_CELL,
    PROP_CELL_PREFIX,
    PROP_ENV_PREFIX,
    PROP_LIB_PREFIX,
    PROP_MATRIX,
    PROP_RULE_INFO_PREFIX,
    SEVERITY,
    Outcome,
)
from pytest_rocmcompat.report.junit_read import CaseRecord, JUnitReadError, RunRecord, read_run
from pytest_rocmcompat.report.local_paths import (
    InputPath,
    common_root,
    glob_root,
    public_origin,
    shown_name,
    shown_names,
)
from pytest_rocmcompat.session.measurements import Measurement

if TYPE_CHECKING:  # imported where an environment is rebuilt
    from pytest_rocmcompat.stack.environment import Environment

SOURCE_LABEL = {"live": "hardware", "replay": "replay", "overridden": "override"}
# The libraries that define a cell in the row label (the rest of the probe's list, such as
# tokenizers or torchvision, stays in each file's testsuite properties).
KEY_LIBRARIES = frozenset(
    {
        "vllm",
        "sglang",
        "transformers",
        "peft",
        "trl",
        "accelerate",
        "deepspeed",
        "torchao",
        "torchtune",
        "triton",
        "pytorch-triton-rocm",
        "triton-rocm",
        "flash-attn",
        "xformers",
        "bitsandbytes",
        "transformer-engine",
        "megatron-core",
        "ray",
        "verl",
        "roll",
        "openrlhf",
        "liger-kernel",
        "apex",
        "numpy",
    }
)
NOT_RUN = "not run"
LIB_PREFIX = "lib "


class NoInputError(ValueError):
    """Nothing to merge: no file matched, or none could be read."""


@dataclass
class Row:
    """One cell of the table."""

    key: str
    source: str  # hardware | replay | override | unknown | not run
    label: dict[str, str]  # arch, runtime, torch, python, libraries
    origin: str = ""
    cell: str = ""  # the matrix cell key, when known
    files: list[str] = field(default_factory=list)
    tests: dict[str, CaseRecord] = field(default_factory=dict)
    measurements: list[tuple[str, Measurement]] = field(default_factory=list)  # (test, figure)
    conflicts: dict[str, set[Outcome]] = field(default_factory=dict)  # test -> the outcomes seen
    timestamp: str = ""  # the newest run's time (ISO), when recorded
    history: str = ""  # what its history follows: the matrix cell and machine, not library versions
    _counts: dict[str, Counter] | None = field(default=None, repr=False, compare=False)

    @property
    def not_run(self) -> bool:
        return self.source == NOT_RUN

    def add(self, case: CaseRecord) -> None:
        self._counts = None
        old = self.tests.get(case.test)
        if old is not None and old.outcome is not case.outcome:
            self.conflicts.setdefault(case.test, {old.outcome}).add(case.outcome)
        if old is None or SEVERITY[case.outcome] > SEVERITY[old.outcome]:
            self.tests[case.test] = case
        self.measurements.extend((case.test, m) for m in case.measurements)

    def counts(self) -> dict[str, Counter]:
        """Column -> outcome counts; library columns (``lib peft``) count tests that use it."""
        if self._counts is not None:
            return self._counts
        out: dict[str, Counter] = {}
        for case in self.tests.values():
            out.setdefault(case.suite, Counter())[case.outcome] += 1
            for lib in case.uses:
                out.setdefault(LIB_PREFIX + lib, Counter())[case.outcome] += 1
        self._counts = out
        return out


@dataclass
class RuleInfo:
    reason: str = ""
    links: tuple[str, ...] = ()
    action: str = ""


@dataclass
class Merged:
    rows: list[Row]
    columns: list[str]
    rules: dict[str, RuleInfo]
    warnings: list[str]
    inputs: int

    def hits(self) -> dict[str, dict[str, Counter]]:
        """Rule id -> row key -> outcomes of the tests that rule reached."""
        out: dict[str, dict[str, Counter]] = {}
        for row in self.rows:
            for case in row.tests.values():
                if case.rule:
                    out.setdefault(case.rule, {}).setdefault(row.key, Counter())[case.outcome] += 1
        return out


def expand_inputs(patterns: Iterable[str]) -> list[str]:
    """Files, directories (every ``*.xml`` below) and globs (``**`` allowed), de-duplicated, in order.

    Each path carries the name it is published under (:class:`~.local_paths.InputPath`): relative
    to the directory given, to a glob's leading folders, or to the common folder of the files given.
    """
    patterns = list(patterns)
    files = [p for p in patterns if not os.path.isdir(p) and os.path.exists(p)]
    files_root = common_root(files)
    found: dict[str, str] = {}
    for pattern in patterns:
        if os.path.isdir(pattern):
            root, matches = pattern, sorted(glob.glob(os.path.join(pattern, "**", "*.xml"), recursive=True))
        elif os.path.exists(pattern):
            root, matches = files_root, [pattern]
        else:
            root, matches = glob_root(pattern), sorted(glob.glob(pattern, recursive=True))
        for path in matches:
            if os.path.isfile(path):
                found.setdefault(os.path.normpath(path), root)
    return list(shown_names(list(found.items())))


def read_runs(paths: list[str], warn: Callable[[str], None] | None = None) -> tuple[list[RunRecord], list[str]]:
    """Read every file; unreadable ones are named in a warning and left out."""
    runs: list[RunRecord] = []
    warnings: list[str] = []
    if not all(isinstance(p, InputPath) for p in paths):  # named relative to their common folder
        paths = list(shown_names([(p, common_root(paths)) for p in paths]))
    for path in paths:
        try:
            runs.append(read_run(path))
        except JUnitReadError as exc:
            message = f"skipped {exc}"
            (warn or _stderr)(f"rocmcompat report: warning: {message}")  # the local terminal: the real path
            text = str(exc)
            if text.startswith(path):
                message = f"skipped {shown_name(path)}{text[len(path) :]}"
            warnings.append(message)
    return runs, warnings


def merge(
    runs: list[RunRecord], matrix: Matrix | None = None, warnings: list[str] | None = None, hosts: bool = False
) -> Merged:
    """``hosts``: name the host of a file without environment properties (off: nothing local)."""
    rows: dict[str, Row] = {}
    rules: dict[str, RuleInfo] = {}
    for run in runs:
        key, row = _row_for(run, matrix, hosts)
        row = rows.setdefault(key, row)
        row.files.append(run.name or shown_name(run.path))
        row.timestamp = max(row.timestamp, run.timestamp or "")
        for case in run.cases:
            row.add(case)
        for name, value in run.props.items():
            if name.startswith(PROP_RULE_INFO_PREFIX) and name[len(PROP_RULE_INFO_PREFIX) :] not in rules:
                rules[name[len(PROP_RULE_INFO_PREFIX) :]] = _rule_info(value)
    ordered = sorted(rows.values(), key=_row_order)
    _history_keys(ordered)
    if matrix is not None:
        ordered += _not_run_rows(matrix, {r.cell for r in ordered if r.cell})
    columns = _columns(ordered)
    return Merged(ordered, columns, rules, list(warnings or ()), len(runs))


def _row_for(run: RunRecord, matrix: Matrix | None, hosts: bool = False) -> tuple[str, Row]:
    p = run.props
    if PROP_ENV_PREFIX + "platform" not in p:  # a plain pytest run: no environment recorded
        name = run.name or shown_name(run.path)
        key = f"unknown: {name}"
        label = {
            "arch": "?",
            "runtime": "?",
            "torch": "?",
            "python": "?",
            "libraries": name + (f" (host {run.hostname or '?'})" if hosts else ""),
        }
        return key, Row(key, "unknown", label, origin=name)
    platform = p[PROP_ENV_PREFIX + "platform"]
    gpus = p.get(PROP_ENV_PREFIX + "gpus", "0")
    arch = p.get(PROP_ENV_PREFIX + "arch", "") or "no GPU"
    gpu_name = p.get(PROP_ENV_PREFIX + "gpu", "")
    if gpu_name and not gpu_name.startswith("("):  # "(overridden gfx906)" names no product
        arch = f"{arch} ({gpu_name} x{gpus})"
    elif gpus not in ("", "0", "1"):
        arch = f"{arch} x{gpus}"
    if platform == "rocm":
        runtime = (
            f"ROCm {p.get('rocm_env.rocm') or p.get('rocm_env.hip') or _cell_value(p, 'rocm') or _torch_rocm(p) or '?'}"
        )
    elif platform == "cuda":
        runtime = f"CUDA {p.get('rocm_env.cuda') or '?'}"
    else:
        runtime = "CPU"
    libs = {
        k[len(PROP_LIB_PREFIX) :]: v
        for k, v in p.items()
        if k.startswith(PROP_LIB_PREFIX) and k[len(PROP_LIB_PREFIX) :] in KEY_LIBRARIES
    }
    label = {
        "arch": arch,
        "runtime": runtime,
        "torch": p.get(PROP_ENV_PREFIX + "torch", "-"),
        "python": p.get(PROP_ENV_PREFIX + "python", "?"),
        "libraries": ", ".join(f"{k} {v}" for k, v in sorted(libs.items())),
    }
    source = SOURCE_LABEL.get(p.get(PROP_ENV_PREFIX + "source", ""), p.get(PROP_ENV_PREFIX + "source", "?"))
    key = " ".join([f"{k}={v}" for k, v in label.items() if v] + [f"[{source}]"])
    cell = _cell_of(p, matrix)
    return key, Row(key, source, label, origin=public_origin(p.get(PROP_ENV_PREFIX + "origin", "")), cell=cell)


def history_key(row: Row) -> str:
    """What a stack's history follows from one publication to the next: its matrix cell (else its
    runtime, torch and Python), its GPUs and its source, never its library versions, so a library
    release (transformers 5.23 -> 5.24) continues the line, marked, instead of starting another.
    """
    if row.source in ("unknown", NOT_RUN):
        return row.key
    label = row.label
    where = (
        f"cell {row.cell}" if row.cell else " ".join(f"{k}={label.get(k, '')}" for k in ("runtime", "torch", "python"))
    )
    return f"{where} gpu={label.get('arch', '')} [{row.source}]"


def _history_keys(rows: list[Row]) -> None:
    """Each row's history key; rows of one publication that would share one keep their full key."""
    keys = Counter(history_key(r) for r in rows)
    for row in rows:
        key = history_key(row)
        row.history = key if keys[key] == 1 else row.key


def _cell_value(props: dict[str, str], axis: str) -> str:
    """An axis value of the recorded matrix cell (``rocm_cell.rocm``, else from the cell key)."""
    if props.get(PROP_CELL_PREFIX + axis):
        return props[PROP_CELL_PREFIX + axis]
    for part in props.get(PROP_CELL, "").split():
        key, _, value = part.partition("=")
        if key == axis:
            return value
    return ""


def _torch_rocm(props: dict[str, str]) -> str:
    """The ROCm release a ``2.5.1+rocm6.2`` torch was built for."""
    local = props.get(PROP_ENV_PREFIX + "torch", "").partition("+")[2]
    return local[4:] if local.startswith("rocm") else ""


def _cell_of(props: dict[str, str], matrix: Matrix | None) -> str:
    """The matrix cell key: as recorded, or (another matrix) by locating the recorded environment."""
    if matrix is None:
        return props.get(PROP_CELL, "")
    if props.get(PROP_MATRIX) == matrix.name and props.get(PROP_CELL):
        return props[PROP_CELL]
    from pytest_rocmcompat.matrix.locate import locate

    location = locate(matrix, environment_of(props))
    return location.cell.key if location.inside and location.cell is not None else ""


def environment_of(props: dict[str, str]) -> Environment:
    """An :class:`Environment` rebuilt from testsuite properties (for locating it in a matrix)."""
    from pytest_rocmcompat.stack.environment import GPU, Environment

    archs = [a for a in props.get(PROP_ENV_PREFIX + "arch", "").split(",") if a]
    count = (
        int(props.get(PROP_ENV_PREFIX + "gpus", "0") or 0) if props.get(PROP_ENV_PREFIX + "gpus", "").isdigit() else 0
    )
    gpus = (
        tuple(GPU(i, props.get(PROP_ENV_PREFIX + "gpu", ""), archs[min(i, len(archs) - 1)]) for i in range(count))
        if archs
        else ()
    )
    return Environment(
        platform=props.get(PROP_ENV_PREFIX + "platform", "cpu")
        if props.get(PROP_ENV_PREFIX + "platform") in ("rocm", "cuda", "cpu")
        else "cpu",
        gpus=gpus,
        rocm=props.get(PROP_ENV_PREFIX + "rocm"),
        hip=props.get(PROP_ENV_PREFIX + "hip"),
        cuda=props.get(PROP_ENV_PREFIX + "cuda"),
        driver=props.get(PROP_ENV_PREFIX + "driver"),
        torch=props.get(PROP_ENV_PREFIX + "torch"),
        python=props.get(PROP_ENV_PREFIX + "python", ""),
        libraries={k[len(PROP_LIB_PREFIX) :]: v for k, v in props.items() if k.startswith(PROP_LIB_PREFIX)},
    )


def _not_run_rows(matrix: Matrix, have: set[str]) -> list[Row]:
    from pytest_rocmcompat.matrix.expand import expand

    rows = []
    for cell in expand(matrix):
        if cell.key in have:
            continue
        values = cell.as_dict()
        runtime = (
            f"ROCm {values['rocm']}"
            if "rocm" in values
            else f"CUDA {values['cuda']}"
            if "cuda" in values
            else {"rocm": "ROCm", "cuda": "CUDA", "cpu": "CPU"}.get(matrix.platform or "", "?")
        )
        libs = ", ".join(f"{k[4:]} {v}" for k, v in values.items() if k.startswith("lib."))
        label = {
            "arch": values.get("arch", "?"),
            "runtime": runtime,
            "torch": values.get("torch", "?"),
            "python": values.get("python", "?"),
            "libraries": libs,
        }
        rows.append(Row(f"planned: {cell.key}", NOT_RUN, label, cell=cell.key))
    return rows


def _columns(rows: list[Row]) -> list[str]:
    """One column per suite (bundled suites first, then other test files); the libraries a test
    uses are counted per row (``Row.counts``) but condensed into the stack's libraries cell.
    """
    seen = {case.suite for row in rows for case in row.tests.values()}
    suites = [s for s in SUITES if s in seen]
    return suites + sorted(seen - set(suites))


def _row_order(row: Row) -> tuple:
    return (
        row.source == "unknown",
        row.label.get("arch", ""),
        row.label.get("runtime", ""),
        row.label.get("torch", ""),
        row.label.get("python", ""),
        row.key,
    )


def _rule_info(value: str) -> RuleInfo:
    try:
        data = json.loads(value)
        return RuleInfo(
            str(data.get("reason", "")), tuple(str(x) for x in data.get("links") or ()), str(data.get("action", ""))
        )
    except (ValueError, AttributeError, TypeError):
        return RuleInfo()


def headline(counts: Counter) -> Outcome | None:
    """The outcome a grid entry shows first: the worst one present."""
    present = [o for o in Outcome if counts.get(o)]
    return max(present, key=lambda o: SEVERITY[o]) if present else None


def _stderr(message: str) -> None:
    from pytest_rocmcompat.safe_io.escape import echo

    echo(message, err=True)  # it quotes file names: redacted, no control characters
