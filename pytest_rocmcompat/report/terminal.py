"""The terminal summary: outcome counts, known issues hit, stale rules, where the run stands."""

from __future__ import annotations

from collections import Counter

from ..outcomes import Outcome
from ..session import CompatState


def write_summary(tr, state: CompatState) -> None:
    counts = state.outcome_totals()
    if not counts:
        return
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
