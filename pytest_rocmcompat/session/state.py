"""Everything the plugin decides once per session: environment, matrix, cell, active rules."""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pytest_rocmcompat.errors import ConfigError, OverrideError
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.registry import compile_rules, evaluate_risks
from pytest_rocmcompat.knowledge.checks.registry import evaluate as evaluate_checks
from pytest_rocmcompat.knowledge.rules.engine import ActiveRules
from pytest_rocmcompat.matrix.cache import MatrixCache
from pytest_rocmcompat.matrix.loader import bundled_known_bad, load_matrix, resolve_matrix_name
from pytest_rocmcompat.matrix.model import Matrix
from pytest_rocmcompat.outcomes import Outcome, worst
from pytest_rocmcompat.stack.environment import Environment, EnvironmentFileError

if TYPE_CHECKING:  # imported where used: a run without axes or overrides needs neither
    from pytest_rocmcompat.matrix.locate import Location
    from pytest_rocmcompat.session.measurements import Measurement

WORKER_ENV_KEY = "rocmcompat_environment"
PROBE_CACHED_KEY = pytest.StashKey[bool]()  # this session's environment came from the probe cache


@dataclass
class TestResult:
    """The controller's record of one test, built from its reports (worst phase wins)."""

    nodeid: str
    outcome: Outcome | None = None
    rule: str | None = None
    signature: str | None = None
    message: str = ""

    def merge(self, outcome: Outcome, rule: str | None, signature: str | None, message: str) -> None:
        new = worst(self.outcome, outcome)
        if new != self.outcome:
            self.outcome = new
            self.rule = rule or self.rule
            self.signature = signature or self.signature
            self.message = message or self.message


def suite_of(nodeid: str) -> str:
    """``suites/gpu/test_x.py::t`` -> ``gpu``; other tests are grouped by their file."""
    return _suite_of_path(nodeid.partition("::")[0])


@lru_cache(maxsize=4096)
def _suite_of_path(path: str) -> str:
    parts = path.split("/")
    if "suites" in parts and parts.index("suites") + 1 < len(parts) - 1:
        return parts[parts.index("suites") + 1]
    return path


@dataclass
class CompatState:
    env: Environment
    matrix: Matrix | None
    rules_source: str
    location: Location | None
    rules: ActiveRules
    strict: bool
    report_path: str | None
    problems: list[Finding] = field(default_factory=list)  # built-in checks' findings
    applied: dict[str, list[str]] = field(default_factory=dict)  # nodeid -> rule ids at collection
    # nodeid -> {rule id: "verl requires ray"} for rules reaching the test only through a required library
    through: dict[str, dict[str, str]] = field(default_factory=dict)
    # Finished tests: counts for all, details only for the notable (not a plain pass), so a
    # large passing suite keeps no per-test objects alive.
    counts: Counter = field(default_factory=Counter)  # (suite, Outcome) -> n
    notable: dict[str, TestResult] = field(default_factory=dict)
    _open: dict[str, TestResult | Outcome] = field(default_factory=dict)  # teardown pending
    measurements: list[tuple[str, Measurement]] = field(default_factory=list)  # (nodeid, figure)
    collected: list[str] = field(default_factory=list)  # node ids, in collection order
    finished: set[str] = field(default_factory=set)  # node ids with a final result
    not_run: list[str] = field(default_factory=list)  # collected, never finished (interrupted, -x)
    # facts a failure states (("arch=gfx1031",)) -> the rules active with them (session.facts_from_failure)
    by_failure_facts: dict[tuple[str, ...], ActiveRules] = field(default_factory=dict)

    def mark_not_run(self, nodeids: list[str], reason: str) -> None:
        """Collected tests that never ran count as skipped, each with ``reason``.

        Listed first: a salvage that cuts this short (see :mod:`.interrupt`) still lists them all.
        """
        listed = set(self.not_run)
        self.not_run.extend(n for n in nodeids if n not in listed)
        for nodeid in nodeids:
            if nodeid in self.finished:
                continue
            self.notable[nodeid] = TestResult(nodeid, Outcome.SKIPPED, message=reason)
            self.counts[(suite_of(nodeid), Outcome.SKIPPED)] += 1
            self.finished.add(nodeid)

    def record_measurements(self, nodeid: str, found: list[Measurement]) -> None:
        self.measurements.extend((nodeid, m) for m in found)

    def record_pass(self, nodeid: str) -> None:
        """A passing call phase (no rule, no properties): no per-test object needed."""
        self._open.setdefault(nodeid, Outcome.PASS)

    def record(
        self, nodeid: str, when: str, outcome: Outcome | None, rule: str | None, signature: str | None, message: str
    ) -> None:
        """Merge one phase's report; a test is final after its teardown (or xdist's crash report)."""
        if outcome is not None:
            current = self._open.get(nodeid)
            if not isinstance(current, TestResult):
                current = self._open[nodeid] = TestResult(nodeid, current)
            current.merge(outcome, rule, signature, message)
        if when in ("teardown", "???"):
            self.finish(nodeid)

    def finish(self, nodeid: str) -> None:
        """The test's last report arrived: count it (details kept only for notable tests)."""
        result = self._open.pop(nodeid, None)
        if result is not None:
            self.finished.add(nodeid)
        if isinstance(result, Outcome):  # only PASS is ever stored bare
            self.counts[(suite_of(nodeid), result)] += 1
            return
        if result is None or result.outcome is None:
            self.finished.discard(nodeid)  # started, no result: it did not run to an end
            return
        self.counts[(suite_of(nodeid), result.outcome)] += 1
        if result.outcome is not Outcome.PASS or result.rule:
            self.notable[nodeid] = result

    def finish_all(self) -> None:
        """Tests that never reached teardown (interrupted, worker lost) count with what they have."""
        for nodeid in list(self._open):
            self.finish(nodeid)

    def outcome_totals(self) -> Counter:
        totals: Counter = Counter()
        for (_, outcome), n in self.counts.items():
            totals[outcome] += n
        return totals


STATE_KEY = pytest.StashKey["CompatState"]()


def state_of(config: pytest.Config) -> CompatState | None:
    """The session's state, or ``None`` where the plugin is inactive (``--help``, a usage error)."""
    return config.stash.get(STATE_KEY, None)


def build_state(config: pytest.Config) -> CompatState:
    """Load matrix, environment and rules; any user mistake becomes a ``UsageError`` (exit 4)."""
    try:
        matrix, rules_source = _load_rules_file(config)
        env = _environment(config, matrix)
    except (ConfigError, EnvironmentFileError, OverrideError) as exc:  # they quote the user's input
        from pytest_rocmcompat.safe_io.escape import terminal_text

        raise pytest.UsageError(terminal_text(f"rocmcompat: {exc}")) from None
    problems, rules = judge(env, matrix)
    location = None
    if matrix is not None and matrix.axis_names:
        from pytest_rocmcompat.matrix.locate import locate

        location = locate(matrix, env)
    strict = config.getoption("rocm_strict")
    if strict is None:
        strict = bool(config.getini("rocm_strict"))
    report = config.getoption("rocm_report") or _ini_path(config, "rocm_report")
    return CompatState(env, matrix, rules_source, location, rules, strict, report, problems)


def judge(env: Environment, matrix: Matrix | None) -> tuple[list[Finding], ActiveRules]:
    """The built-in checks' findings for ``env`` and every rule active there (the matrix's, then the checks')."""
    settings = matrix.checks if matrix is not None else {}
    problems = evaluate_checks(env, settings)
    # the matrix's own rules first: their signatures are more specific than a check's
    risks = evaluate_risks(env, settings)  # rules only: never listed as the stack's problems
    return problems, ActiveRules(
        (*(matrix.rules if matrix else ()), *compile_rules([*problems, *risks], settings)), env
    )


def _ini_path(config: pytest.Config, name: str) -> str | None:
    value = str(config.getini(name) or "").strip()
    return str(Path(config.rootpath, value)) if value else None


def _load_rules_file(config: pytest.Config) -> tuple[Matrix | None, str]:
    option = config.getoption("rocm_matrix")
    path = resolve_matrix_name(option) if option else _ini_path(config, "rocm_matrix")
    cache = MatrixCache.from_environ()
    if path:
        return load_matrix(path, cache=cache), str(path)
    if config.getoption("rocm_no_bundled"):
        return None, "none (--rocm-no-bundled)"
    bundled = bundled_known_bad()
    if not bundled.is_file():
        return None, "none (bundled known_bad.yaml not found)"
    return load_matrix(bundled, cache=cache), f"bundled {bundled.name}"


def _environment(config: pytest.Config, matrix: Matrix | None) -> Environment:
    child_env = config.getoption("rocm_child_env")
    if child_env:  # an isolated child: the parent's environment, exactly
        with open(child_env, encoding="utf-8") as fh:
            return Environment.from_json(fh.read())
    worker_input = getattr(config, "workerinput", None)
    if worker_input and WORKER_ENV_KEY in worker_input:  # probed once, in the xdist controller
        return Environment.from_dict(json.loads(worker_input[WORKER_ENV_KEY]))
    replay = config.getoption("rocm_env")
    if replay:
        env = Environment.load(os.fspath(replay))
    else:
        from pytest_rocmcompat.probe.cache import cached_probe

        fresh = config.getoption("rocm_probe") == "fresh"
        env, cached = cached_probe(matrix.library_names if matrix else (), fresh=fresh)
        config.stash[PROBE_CACHED_KEY] = cached
    assignments = config.getoption("rocm_set") or []
    if not assignments:
        return env
    from pytest_rocmcompat.stack.overrides import apply_overrides  # raises OverrideError

    return apply_overrides(env, assignments)
