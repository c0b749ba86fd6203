"""The terminal summary: outcome counts, known issues hit, stale rules, where the run stands."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from pytest_rocmcompat.outcomes import Outcome
from pytest_rocmcompat.session.state import CompatState

if TYPE_CHECKING:
    from _pytest.terminal import TerminalReporter

    from pytest_rocmcompat.knowledge.rules.model import Rule


def header_lines(state: CompatState, *, cached: bool, verbose: bool) -> list[str]:
    """``pytest_report_header``: the stack, the matrix cell, the rules and the checks' findings."""
    from pytest_rocmcompat.safe_io.escape import safe_text

    cached_note = " (probe cached: --rocm-probe=fresh probes again)" if cached else ""
    lines = [f"rocmcompat: {state.env.summary()}{cached_note}"]
    if state.location is not None:
        lines.append(f"rocmcompat: {state.location.describe()}")
    elif state.matrix is not None and state.matrix.axis_names == ():
        lines.append(f"rocmcompat: rules from {state.rules_source} (no axes: no cell to locate)")
    lines.append(
        f"rocmcompat: {len(state.rules.active)} of {len(state.rules.all_rules)} known-bad rules "
        f"active ({state.rules_source})"
    )
    lines.extend(active_rule_lines(state.rules.active, verbose=verbose))
    uncertain = [p for p in state.problems if getattr(p, "uncertain", False)]
    conditional = [p for p in state.problems if getattr(p, "conditional", False) and p not in uncertain]
    broken = [p for p in state.problems if p not in conditional and p not in uncertain]
    if broken:
        lines.append(f"rocmcompat: checks: {len(broken)} problem(s) with this stack:")
        lines.extend(f"rocmcompat:   {p.describe()}" for p in broken)
    if conditional:  # (a library the stack does not list, a format: only tests that use it meet these)
        lines.append(f"rocmcompat: checks: {len(conditional)} finding(s) for tests that use what they name:")
        lines.extend(f"rocmcompat:   {p.describe()}" for p in conditional)
    if uncertain:  # (the stack does not say which build: a failure the check predicts confirms it)
        lines.append(f"rocmcompat: checks: {len(uncertain)} risk(s) the stack does not settle:")
        lines.extend(f"rocmcompat:   {p.describe()}" for p in uncertain)
    if verbose:
        lines.extend(f"rocmcompat: probe note: {note}" for note in state.env.notes)
    return [safe_text(line) for line in lines]


SHOWN_RULES = 10  # the header names this many active rules, then "+N more"
_REASON_CHARS = 160


def active_rule_lines(active: Sequence[Rule], *, verbose: bool) -> list[str]:
    """The active rules named: their ids on one line (the first :data:`SHOWN_RULES`, then
    ``+N more``); under ``-v`` one line each with the action and the reason's first line.
    """
    if not active:
        return []
    shown, rest = active[:SHOWN_RULES], len(active) - SHOWN_RULES
    more = f" +{rest} more" if rest > 0 else ""
    if not verbose:
        return [f"rocmcompat:   active: {', '.join(r.id for r in shown)}{more}"]
    lines = [f"rocmcompat:   {r.id} ({r.action}): {_one_line_reason(r.reason)}" for r in shown]
    if more:
        lines.append(f"rocmcompat:  {more}")
    return lines


def _one_line_reason(reason: str) -> str:
    text = " ".join(reason.split())
    return text if len(text) <= _REASON_CHARS else text[: _REASON_CHARS - 1] + "…"


def write_summary(tr: TerminalReporter, state: CompatState) -> None:
    from pytest_rocmcompat.safe_io.escape import one_environment_scan, safe_text

    counts = state.outcome_totals()
    if not counts:
        return
    with one_environment_scan():
        _write(_SafeLines(tr, safe_text), state, counts)


class _SafeLines:
    """The terminal writer, every line made safe (secrets, control characters) first."""

    def __init__(self, tr: TerminalReporter, safe: Callable[[object], str]) -> None:
        self.tr, self.safe = tr, safe

    def write_sep(self, sep: str, title: str) -> None:
        self.tr.write_sep(sep, title)

    def write_line(self, line: str) -> None:
        self.tr.write_line(self.safe(line))


def _write(tr: _SafeLines, state: CompatState, counts: Counter[Outcome]) -> None:
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


def write_applied_rules(tr: TerminalReporter, state: CompatState, selected: set[str]) -> None:
    """``--collect-only``: each selected test with the known-bad rules that reach it."""
    from pytest_rocmcompat.safe_io.escape import safe_text

    tr.write_sep("-", "rocmcompat: known-bad rules that apply")
    for nodeid, rule_ids in state.applied.items():
        if nodeid not in selected:  # deselected after the rules were matched (a later plugin)
            continue
        through = state.through.get(nodeid, {})
        for rule_id in rule_ids:
            rule = state.rules.by_id[rule_id]
            via = f" (reached because {through[rule_id]}: a risk for this test)" if through.get(rule_id) else ""
            tr.write_line(safe_text(f"{nodeid}: {rule.action.upper()} {rule.describe()}{via}"))
