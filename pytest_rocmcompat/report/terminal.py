"""The terminal summary: outcome counts, known issues hit, stale rules, where the run stands."""

from __future__ import annotations

from collections import Counter

from pytest_rocmcompat.outcomes import Outcome
from pytest_rocmcompat.session.state import CompatState


def write_summary(tr, state: CompatState) -> None:
    from pytest_rocmcompat.safe_io.escape import one_environment_scan, safe_text

    counts = state.outcome_totals()
    if not counts:
        return
    with one_environment_scan():
        _write(_SafeLines(tr, safe_text), state, counts)


class _SafeLines:
    """The terminal writer, every line made safe (secrets, control characters) first."""

    def __init__(self, tr, safe) -> None:
        self.tr, self.safe = tr, safe

    def write_sep(self, sep: str, title: str) -> None:
        self.tr.write_sep(sep, title)

    def write_line(self, line: str) -> None:
        self.tr.write_line(self.safe(line))


def _write(tr, state: CompatState, counts) -> None:
    tr.write_sep("=", "rocmcompat summary")
    tr.write_line(f"environment: {state.env.summary()}")
    if state.location is not None:
        tr.write_line(state.location.describe())
    tr.write_line("outcomes: " + ", ".join(f"{counts[o]} {o.value}" for o in Outcome if counts[o]))
    by_rule: dict[tuple[str, Outcome], int] = Counter(
        (r.rule, r.outcome) for r in state.notable.values() if r.rule and r.outcome is not None
    )
    for (rule_id, outcome), n in sorted(by_rule.items(), key=lambda kv: (kv[0][0], kv[0][1].value)):
        rule = state.rules.by_id.get(rule_id)
        reason = rule.describe() if rule else rule_id
        tr.write_line(f"  {outcome.value:10} x{n}  {reason}")
