"""Turn pytest reports into outcomes, applying known-bad rules and their signatures.

A rule whose action is ``xfail`` (or ``isolate`` with a signature) turns a failure
into ``known-bad`` only when the failure text matches its signature; any other
failure stays ``fail``. A test such a rule reaches that passes is ``stale-rule``
(a failure under ``--rocm-strict``), except for a check's uncertain finding (``Rule.at_risk``:
the stack did not state what decides it), where the pass stands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from pytest_rocmcompat.knowledge.rules.model import Rule
from pytest_rocmcompat.outcomes import (
    PROP_DIAGNOSIS,
    PROP_NAMESPACE,
    PROP_NOTE,
    PROP_OUTCOME,
    PROP_RULE,
    PROP_SIGNATURE,
    Outcome,
)

if TYPE_CHECKING:  # diagnoses are compiled on the first failure only
    from pytest_rocmcompat.knowledge.diagnoses import Diagnosis

_XFAIL_PREFIX = "rocmcompat "
_OUTCOMES = {o.value: o for o in Outcome}


def attach(item: pytest.Item, rules: list[Rule]) -> tuple[str, ...]:
    """Apply collection-time actions: skip now; mark isolate; xfail is decided after the call.

    Returns the names of the markers it added.
    """
    added: tuple[str, ...] = ()
    skip = next((r for r in rules if r.action == "skip"), None)
    if skip is not None:
        item.add_marker(_skip_mark(skip))
        _prop(item, None, PROP_RULE, skip.id)
        added += ("skip",)
    isolate = next((r for r in rules if r.action == "isolate"), None)
    if isolate is not None and item.get_closest_marker("isolated") is None:
        item.add_marker(pytest.mark.isolated(rule=isolate.id, fresh=isolate.fresh))
        added += ("isolated",)
    return added


_SKIP_MARKS: dict[str, pytest.MarkDecorator] = {}


def _skip_mark(rule: Rule) -> pytest.MarkDecorator:
    """One skip marker per rule text, shared by every test it reaches."""
    reason = rule.describe()
    mark = _SKIP_MARKS.get(reason)
    if mark is None:
        mark = _SKIP_MARKS[reason] = pytest.mark.skip(reason=reason)
    return mark


def failure_text(report: pytest.TestReport) -> str:
    """Everything a signature may match: the failure representation and captured output."""
    parts = [report.longreprtext or ""]
    parts.extend(content for name, content in report.sections if name.startswith("Captured"))
    return "\n".join(parts)


def classify(
    item: pytest.Item, report: pytest.TestReport, rules: list[Rule], *, strict: bool, unmatched: Outcome = Outcome.FAIL
) -> Rule | None:
    """Adjust ``report`` in place for the item's rules and record the outcome as properties.

    Returns the rule whose signature made a failure ``known-bad``, else ``None``. ``unmatched``
    is the outcome recorded when rules reach the failure but none of their signatures matches
    (the isolation runner passes ``crashed`` or ``hang`` for a test whose process died).
    """
    # An isolate rule with a signature says how the test fails, like an xfail rule (a crash is
    # matched by the isolation runner; a raised error is matched here, in the sandbox).
    xfail_rules = (
        [r for r in rules if r.action == "xfail" or (r.action == "isolate" and r.signature is not None)]
        if report.when == "call"
        else []
    )
    if hasattr(report, "wasxfail"):  # the test's own pytest.xfail wins
        if report.failed:
            diagnose_failure(item, report, failure_text(report))
        return None
    text = failure_text(report) if report.failed else ""
    if report.failed and report.when == "call":
        matched = _first_matching(xfail_rules, text, report) if xfail_rules else None
        if matched is None:
            matched = _failure_facts_match(item, report, text, xfail_rules)
        if matched is not None:
            report.outcome = "skipped"
            report.wasxfail = _XFAIL_PREFIX + matched.describe()
            _prop(item, report, PROP_OUTCOME, Outcome.KNOWN_BAD.value)
            _prop(item, report, PROP_RULE, matched.id)
            if matched.signature is not None:
                _prop(item, report, PROP_SIGNATURE, matched.signature.pattern)
            return matched
    if not xfail_rules:
        if report.failed:
            diagnose_failure(item, report, text)
        return None
    if report.failed:
        if all(r.at_risk for r in xfail_rules):  # an unconfirmed risk is no cause of another failure
            diagnose_failure(item, report, text)
            # said, not blamed: the stack is at risk of the rule's failure, and this failure is not it
            risks = ", ".join(r.id for r in xfail_rules)
            _prop(item, report, PROP_NOTE, f"risk {risks} reaches this test but its signature did not match")
            return None
        diagnosed = diagnose_failure(item, report, text) is not None
        certain = [r for r in xfail_rules if not r.at_risk]  # an unconfirmed risk is no cause here either
        ids = ", ".join(r.id for r in certain)
        report.sections.append(
            (
                "rocmcompat",
                f"known-bad rule(s) {ids} apply to this test, but the failure text does not match "
                "their signature: this is a real failure, not the known issue.",
            )
        )
        _prop(item, report, PROP_OUTCOME, unmatched.value)
        # the same note reaches JUnit (a testcase property) and the run report (the message)
        note = f"rule {ids} applies but its signature did not match"
        _prop(item, report, PROP_NOTE, note + _stack_problem_as_cause(item, report, certain, diagnosed))
    elif report.passed and all(r.at_risk for r in xfail_rules):
        pass  # a risk the stack did not confirm (a check's uncertain finding): the pass stands
    elif report.passed:
        rule = next(r for r in xfail_rules if not r.at_risk)  # a risk never says the test fails
        _prop(item, report, PROP_OUTCOME, Outcome.STALE_RULE.value)
        _prop(item, report, PROP_RULE, rule.id)
        if strict:
            report.outcome = "failed"
            report.longrepr = (
                f"[stale-rule] {rule.describe()}: the test passed although the rule "
                f"says it fails here ({rule.location}); the rule may be obsolete "
                "(failing because of --rocm-strict)"
            )
        else:
            report.wasxfail = _XFAIL_PREFIX + rule.describe()
    return None


def _stack_problem_as_cause(item: pytest.Item, report: pytest.TestReport, rules: list[Rule], diagnosed: bool) -> str:
    """A built-in check reached this failure but does not predict it: its stack problem is the likely cause.

    It becomes the failure's diagnosis (JUnit ``rocm_diagnosis``, the terminal line, the reports)
    unless the failure text named one itself; then it is added to the note. Returns the text to
    add to the note ("" when no rule is a built-in check, or when it became the diagnosis).
    """
    from pytest_rocmcompat.knowledge.checks.registry import likely_cause

    cause = likely_cause(rules)
    if cause is None:
        return ""
    report.sections.append(("rocmcompat", f"likely cause, a stack problem found by a built-in check: {cause}"))
    if diagnosed:
        return f"; likely cause: {cause}"
    _prop(item, report, PROP_DIAGNOSIS, cause)
    return ""


def _failure_facts_match(item: pytest.Item, report: pytest.TestReport, text: str, tried: list[Rule]) -> Rule | None:
    """A rule what the failure states of the stack (its GPU's arch, its ROCm release) brings, whose signature matches."""
    from pytest_rocmcompat.session.facts_from_failure import rules_from_failure_facts  # failures only

    facts, offered = rules_from_failure_facts(item, text, tried)
    matched = _first_matching(offered, text, report) if offered else None
    if matched is not None:
        _prop(item, report, PROP_NOTE, f"{facts} read from the failure text (the stack does not state it)")
    return matched


def _first_matching(rules: list[Rule], text: str, report: pytest.TestReport) -> Rule | None:
    """The first rule whose signature matches, a certain one before a check's uncertain finding (the
    certain cause is the one to name); one that runs out of time is a note, not a match.
    """
    from pytest_rocmcompat.knowledge.rules.signature import SignatureTimeout

    for rule in sorted(rules, key=lambda r: r.at_risk):  # stable: matrix order within each kind
        try:
            if rule.signature_matches(text):
                return rule
        except SignatureTimeout as exc:
            report.sections.append(("rocmcompat", f"known-bad rule {rule.id} ({rule.location}): {exc}"))
    return None


def diagnose_failure(item: pytest.Item, report: pytest.TestReport, text: str) -> Diagnosis | None:
    """Name an unexplained failure by its diagnosis (likely cause, usual fix, link); the Diagnosis or None."""
    from pytest_rocmcompat.knowledge.diagnoses import diagnose  # failures only: a passing session never compiles it

    found = diagnose(text)
    if found is not None:
        _prop(item, report, PROP_SIGNATURE, found.id)
        _prop(item, report, PROP_DIAGNOSIS, found.property_value())
        report.sections.append(
            (
                "rocmcompat",
                f"diagnosis {found.id}: likely cause: {found.cause}; usual fix: {found.fix}; see {found.link}",
            )
        )
    return found


def mark_worker_crash(report: pytest.TestReport) -> None:
    """Label xdist's "worker crashed while running" report as ``crashed`` (worker died)."""
    report.user_properties.append((PROP_OUTCOME, Outcome.CRASHED.value))
    from pytest_rocmcompat.knowledge.diagnoses import diagnose

    found = diagnose(report.longreprtext or "")
    if found is not None:
        report.user_properties.append((PROP_SIGNATURE, found.id))
        report.user_properties.append((PROP_DIAGNOSIS, found.property_value()))


def _prop(item: pytest.Item, report: pytest.TestReport | None, name: str, value: str) -> None:
    """Record on the item (reaches JUnit via the teardown report) and on this report."""
    if (name, value) not in item.user_properties:
        item.user_properties.append((name, value))
    if report is not None and (name, value) not in report.user_properties:
        report.user_properties.append((name, value))


def _props(report: pytest.TestReport) -> dict[str, str]:
    return {k: str(v) for k, v in report.user_properties if isinstance(k, str) and k.startswith(PROP_NAMESPACE)}


def from_report(report: pytest.TestReport) -> tuple[Outcome | None, str | None, str | None, str]:
    """``(outcome, rule id, signature, message)`` of one phase's report; ``None`` if it says nothing."""
    if report.when != "call" and report.passed:
        return None, None, None, ""
    props = _props(report)
    explicit = props.get(PROP_OUTCOME)
    rule, signature = props.get(PROP_RULE), props.get(PROP_SIGNATURE)
    if explicit in _OUTCOMES and report.when in ("call", "???"):  # "???": xdist's crashed-worker report
        message = _short(report) if report.failed or report.skipped else ""
        if report.failed:
            message = _diagnosed(report, message)
        note = props.get(PROP_NOTE)
        return _OUTCOMES[explicit], rule, signature, f"{message} ({note})" if note else message
    if report.failed:
        return Outcome.FAIL, rule, signature, _diagnosed(report, _short(report))
    if report.skipped:
        if hasattr(report, "wasxfail"):  # the test's own pytest xfail (a rule's carries rocm_outcome)
            return Outcome.XFAIL, rule, signature, str(report.wasxfail)
        return Outcome.SKIPPED, rule, signature, _skip_reason(report)
    return Outcome.PASS, rule, signature, ""  # includes the test's own non-strict xpass


def teststatus(report: pytest.TestReport) -> tuple[str, str, tuple[str, dict[str, bool]]] | None:
    """Terminal words for the outcomes pytest has no name for, and a failure's diagnosis."""
    if report.when not in ("call", "???") or not report.user_properties:
        return None
    props = _props(report)
    outcome = props.get(PROP_OUTCOME)
    if report.failed and PROP_DIAGNOSIS in props and outcome != Outcome.STALE_RULE.value:
        word = outcome.upper() if outcome in (Outcome.CRASHED.value, Outcome.HANG.value) else "FAILED"
        letter = word[0] if word != "FAILED" else "F"
        diagnosis = props[PROP_DIAGNOSIS].split(":", 1)[0]  # the id names the cause; the section has the rest
        return "failed", letter, (f"{word} [diagnosis: {diagnosis}]", {"red": True})
    if outcome in (Outcome.CRASHED.value, Outcome.HANG.value) and report.failed:
        return "failed", outcome[0].upper(), (outcome.upper(), {"red": True})
    if outcome == Outcome.KNOWN_BAD.value:
        return "xfailed", "x", ("KNOWN-BAD", {"yellow": True})
    if outcome == Outcome.STALE_RULE.value:
        if report.failed:
            return "failed", "F", ("STALE-RULE", {"red": True})
        return "xpassed", "X", ("STALE-RULE", {"yellow": True})
    return None


def _diagnosed(report: pytest.TestReport, message: str) -> str:
    """``message`` with the failure's diagnosis in front, if it has one (failures only)."""
    for name, value in report.user_properties:
        if name == PROP_DIAGNOSIS:
            from pytest_rocmcompat.knowledge.diagnoses import annotate, headline_of

            return annotate(message, headline_of(str(value)))
    return message


def _short(report: pytest.TestReport) -> str:
    if isinstance(report.longrepr, tuple):
        return str(report.longrepr[2])
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return str(crash.message)
    text = (report.longreprtext or "").strip().splitlines()
    return text[-1] if text else ""


def _skip_reason(report: pytest.TestReport) -> str:
    if isinstance(report.longrepr, tuple):
        reason = str(report.longrepr[2])
        return reason[len("Skipped: ") :] if reason.startswith("Skipped: ") else reason
    return _short(report)
