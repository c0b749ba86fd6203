"""Run one isolated test in a sandbox (see :mod:`.sandbox`) and turn how it ended into reports.

The sandbox is a spawned interpreter (never ``fork``) that shares nothing with the
parent but the environment variables, the command line's options (see :mod:`.args`),
the rootdir, the ini file, the conftest files and plugins it loads itself, and the
probed environment (handed over as a file: the sandbox does not probe). Session
fixtures run again for every isolated test. The child's own reports say what
happened when the test finished; otherwise (a crash, a hang, an early exit) the
runner writes the outcome, the signal and the rule that reached it, and judges the
process's last output as an in-process failure is judged (:func:`..classify.classify`):
a rule's signature, else the built-in diagnosis (``rocm_signature``, ``rocm_diagnosis``).
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any, Literal

import pytest
from _pytest._code.code import ExceptionChainRepr, ReprEntryNative, ReprFileLocation, ReprTraceback

from pytest_rocmcompat.knowledge.rules.model import Rule
from pytest_rocmcompat.outcomes import PROP_ISOLATION, PROP_OUTCOME, PROP_RULE, Outcome
from pytest_rocmcompat.running.isolation.child import FORKED, SPAWNED
from pytest_rocmcompat.running.isolation.sandbox import TAIL_CHARS, ChildEnd, SandboxPool
from pytest_rocmcompat.session.classify import _prop, classify

DEFAULT_TIMEOUT_S = 300.0
_JUDGED_SECTION = "Captured output (isolated process)"  # the text a death is judged on, then dropped


def run_isolated(
    item: pytest.Item,
    timeout: float,
    pool: SandboxPool,
    rules: list[Rule],
    *,
    environ: dict[str, str] | None = None,
    reuse: bool = False,
    more: bool = True,
    standby: dict | None = None,
) -> list[pytest.TestReport]:
    """Run ``item`` in a sandbox of ``pool`` (seeing ``environ``); return its reports.

    ``standby``: the next isolated test's environment and GPU use, for a child forked ahead.
    """
    config = item.config
    end, _more = pool.run(item.nodeid, timeout, environ=environ, reuse=reuse, more=more, standby=standby)
    _forward_warnings(config, end)
    rebuilt = [
        _verbatim_subtest(config.hook.pytest_report_from_serializable(config=config, data=_tuple_longrepr(d)), d)
        for d in end.reports
    ]
    mine = [r for r in rebuilt if isinstance(r, pytest.TestReport) and r.nodeid == item.nodeid]
    process = _process_property(end)
    for report in mine:  # what the parent attached at collection (rocm_uses ...) reaches JUnit too
        report.user_properties = _merged(item.user_properties, [*report.user_properties, *process])
    if end.done and not end.hung and end.signal_name is None and {r.when for r in mine} >= {"setup", "teardown"}:
        if end.leftovers:
            _note_leftovers(mine, end)
        return mine  # the child finished the test: its own reports say what happened
    death = _death_report(item, end, timeout, rules)
    death.user_properties = _merged(death.user_properties, process)
    setup = [r for r in mine if r.when == "setup" and r.passed] or [_report(item, "setup", "passed")]
    # pytest's JUnit writer takes properties from the teardown report.
    return [*setup, death, _report(item, "teardown", "passed", props=tuple(death.user_properties))]


def _process_property(end: ChildEnd) -> list[tuple[str, str]]:
    """``rocm_isolation``: how the test got its process (``spawned`` with the template's reason)."""
    if not end.mode:
        return []
    value = f"{end.mode}: {end.note}" if end.mode == SPAWNED and end.note else end.mode
    if end.mode == FORKED and end.standby:
        value = f"{end.mode}: standby, {end.standby}"
    return [(PROP_ISOLATION, value)]


def _merged(first: list, second: list) -> list[tuple]:
    """``first`` then ``second`` (JSON turned its pairs into lists), each pair once."""
    merged: list[tuple] = []
    for raw in (*first, *second):
        pair = tuple(raw)
        if pair not in merged:
            merged.append(pair)
    return merged


def _note_leftovers(reports: list[pytest.TestReport], end: ChildEnd) -> None:
    note = "the test left processes running; they were killed when it ended:\n" + "\n".join(
        f"  pid {line}" for line in end.leftovers
    )
    target = next((r for r in reports if r.when == "call"), reports[-1])
    target.sections.append(("rocmcompat", note))


def _forward_warnings(config: pytest.Config, end: ChildEnd) -> None:
    """The sandbox's warnings reach this session's warnings summary."""
    for data in end.warnings:
        module, _, name = str(data.get("category", "")).rpartition(".")
        try:
            category = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError, ValueError):
            category = UserWarning
        if not (isinstance(category, type) and issubclass(category, Warning)):
            category = UserWarning
        message = warnings.WarningMessage(
            category(data.get("message", "")), category, str(data.get("filename", "")), int(data.get("lineno") or 0)
        )
        config.hook.pytest_warning_recorded.call_historic(
            kwargs={
                "warning_message": message,
                "when": data.get("when", "runtest"),
                "nodeid": data.get("nodeid", ""),
                "location": None,
            }
        )


def _verbatim_subtest(report: object, data: dict[str, Any]) -> object:
    """A subtest report's keyword values exactly as the child showed them (``i=2``, not ``i='2'``).

    pytest's ``SubtestContext`` replaces every value by its ``saferepr`` whenever it is built, so
    the child's report already holds ``{"i": "2"}`` and rebuilding it from JSON would repr the
    string again (``"'2'"``). The child's values are restored as they were: the report is then
    the one the child made, and crosses pytest-xdist (one more rebuild) like any in-process one.
    """
    context = getattr(report, "context", None)
    raw = data.get("_subtest.context")
    kwargs = raw.get("kwargs") if isinstance(raw, dict) else None
    if (
        context is not None
        and isinstance(kwargs, dict)
        and hasattr(context, "kwargs")
        and all(isinstance(k, str) and isinstance(v, str) for k, v in kwargs.items())
    ):
        object.__setattr__(context, "kwargs", dict(kwargs))  # a frozen dataclass, as pytest sets it
    return report


def _tuple_longrepr(data: dict[str, Any]) -> dict[str, Any]:
    """A skip's ``(path, line, reason)`` comes back from JSON as a list; pytest's -rs wants a tuple."""
    if isinstance(data.get("longrepr"), list):
        data = dict(data, longrepr=tuple(data["longrepr"]))
    return data


def _report(
    item: pytest.Item,
    when: Literal["setup", "call", "teardown"],
    outcome: Literal["passed", "failed", "skipped"],
    longrepr: str | None = None,
    sections: tuple = (),
    props: tuple = (),
    duration: float = 0.0,
) -> pytest.TestReport:
    properties = list(dict.fromkeys([*item.user_properties, *props]))
    return pytest.TestReport(
        item.nodeid,
        item.location,
        dict.fromkeys(item.keywords, 1),
        outcome,
        longrepr,
        when,
        sections,
        duration,
        user_properties=properties,
    )


def _isolate_rule(item: pytest.Item, rules: list[Rule]) -> Rule | None:
    marker = item.get_closest_marker("isolated")
    rule_id = marker.kwargs.get("rule") if marker is not None else None
    return next((r for r in rules if r.id == rule_id), None) or next((r for r in rules if r.action == "isolate"), None)


def _death_report(item: pytest.Item, end: ChildEnd, timeout: float, rules: list[Rule]) -> pytest.TestReport:
    tail = end.output[-TAIL_CHARS:]
    if end.hung:
        outcome, what = Outcome.HANG, f"killed after the {timeout:g} s time limit (process tree killed)"
    elif not end.started and end.returncode in (1, 2, 3, 4, 5):  # pytest's own exit codes, before any test
        outcome, what = (
            Outcome.FAIL,
            (f"the isolated pytest could not run the test (exit code {end.returncode}); see its output"),
        )
    elif end.signal_name is not None:
        outcome, what = Outcome.CRASHED, f"died from {end.signal_name} (signal {-(end.returncode or 0)})"
    elif end.errors:
        outcome, what = Outcome.FAIL, "the isolated pytest could not run the test; see its output"
        tail = "\n".join([*end.errors, tail])[-TAIL_CHARS:]
    else:
        outcome, what = Outcome.CRASHED, f"the test process exited with code {end.returncode} in mid-test"
    headline = f"[{outcome.value}] {what}"
    # The same judgement as a failure raised in-process (classify.py), on the process's last output
    # and how it ended (the headline names the signal: a signature `SIGABRT` matches a test that died
    # from it), given to classify as a "Captured" section: a rule's signature makes it known-bad (a
    # signature that runs out of time is a note); otherwise the built-in diagnosis (rocm_signature,
    # rocm_diagnosis, a rocmcompat section) and, when rules' signatures did not match, their note.
    # Only a rule with a signature claims a death: an xfail rule without one describes a raised
    # failure, not a crash or a hang.
    judged = (_JUDGED_SECTION, f"{tail}\n{headline}")
    report = _report(item, "call", "failed", sections=(judged,), duration=end.seconds)
    rule = classify(item, report, [r for r in rules if r.signature is not None], strict=False, unmatched=outcome)
    # The output is shown once, in the failure below (it reaches JUnit's failure text there); as a
    # section too, the terminal would print the stack a second time.
    report.sections = [section for section in report.sections if section is not judged]
    isolating = None
    if rule is None:
        if not any(name == PROP_OUTCOME for name, _ in report.user_properties):
            _prop(item, report, PROP_OUTCOME, outcome.value)
        isolating = _isolate_rule(item, rules)
        if isolating is not None:
            _prop(item, report, PROP_RULE, isolating.id)
    lines = [f"{headline} ({end.seconds:.1f} s)"]
    if rule is not None:
        lines.append(f"known-bad: {rule.describe()}")
    elif isolating is not None:
        lines.append(f"isolated by rule {isolating.id}")
    lines += [
        "--- last output of the isolated process ---",
        tail.rstrip() or "(no output)",
        "--- end of output ---",
        headline,
    ]
    report.longrepr = death_text(item, "\n".join(lines), headline)
    return report


def death_text(item: pytest.Item, body: str, headline: str) -> ExceptionChainRepr:
    """A failure whose one-line message is ``headline`` and whose full text is ``body``.

    A plain string would be its own one-line message: pytest's short summary prints it whole
    on CI (``CI`` set) or with ``-vv``, and JUnit's ``message`` attribute would hold the whole
    output. pytest's own traceback pieces (private, but what every ``--tb=native`` report and
    pytest-xdist's serialisation use) keep the two apart and survive the trip from a worker.
    """
    path, lineno, _ = item.location
    crash = ReprFileLocation(path=str(path), lineno=(lineno or 0) + 1, message=headline)
    traceback = ReprTraceback(reprentries=[ReprEntryNative([body + "\n"])], extraline=None, style="native")
    return ExceptionChainRepr([(traceback, crash, None)])
