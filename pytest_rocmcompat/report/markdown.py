"""The Markdown report of one run (``--rocm-report``)."""

from __future__ import annotations

import os
from collections import Counter

from pytest_rocmcompat.outcomes import BROKEN, MEANING, SYMBOL, Outcome
from pytest_rocmcompat.report.digest import skip_reason
from pytest_rocmcompat.report.local_paths import public_matrix_path
from pytest_rocmcompat.report.md_table import md_table
from pytest_rocmcompat.report.sizes import split_sized
from pytest_rocmcompat.safe_io.atomic import write_atomic
from pytest_rocmcompat.safe_io.escape import md_cell, one_environment_scan
from pytest_rocmcompat.session.measurements import Measurement
from pytest_rocmcompat.session.state import CompatState


def render_run_report(state: CompatState, exitstatus: int) -> str:
    with one_environment_scan():
        return _render(state, exitstatus)


def _render(state: CompatState, exitstatus: int) -> str:
    env = state.env
    lines = ["# rocmcompat run report", ""]
    if env.source != "live":
        what = "replayed from a recording" if env.source == "replay" else "overridden by hand"
        lines += [
            f"> **{env.source.upper()}**: these results are for an environment {what} "
            f"({md_cell(env.origin)}), not for the hardware this ran on.",
            "",
        ]
    lines += ["## Environment", ""]
    rows = [("platform", env.platform), ("source", env.source)]
    rows += [(f"gpu {g.index}", f"{g.name} ({g.arch}, {_gib(g.memory_bytes)})") for g in env.gpus]
    rows += [
        (k, getattr(env, k))
        for k in ("rocm", "hip", "cuda", "driver", "driver_cuda", "nccl", "torch")
        if getattr(env, k)
    ]
    if env.torch_archs:
        rows.append(("torch targets", " ".join(env.torch_archs)))
    rows += [("python", env.python), ("os", env.os)]
    rows += [(f"lib {k}", v) for k, v in env.libraries.items()]
    rows += [(f"env {k}", v) for k, v in env.env.items()]
    lines += [md_table(("field", "value"), rows), ""]
    lines += ["## Matrix", ""]
    if state.location is not None:
        lines.append(md_cell(state.location.describe()))
    else:
        lines.append(f"Rules from {md_cell(public_matrix_path(state.rules_source))}; no matrix cell located.")
    lines += ["", f"{len(state.rules.active)} of {len(state.rules.all_rules)} known-bad rules active.", ""]
    if state.rules.active:  # named, so a reader sees which known issues this stack is judged against
        lines += [
            md_table(
                ("active rule", "action", "reason", "links"),
                [(r.id, r.action, r.reason, " ".join(r.links)) for r in state.rules.active],
            ),
            "",
        ]
    if state.problems:  # the built-in checks (docs/checks.md)
        lines += [
            "## Stack problems",
            "",
            md_table(
                ("check", "problem", "fix", "source"), [(p.check, p.reason, p.fix, p.link) for p in state.problems]
            ),
            "",
        ]
    lines += _outcomes_section(state)
    lines += _rules_section(state)
    lines += _measurements_section(state)
    lines += _failures_section(state)
    lines += _skips_section(state)
    lines += _not_run_section(state)
    lines += [
        "## Legend",
        "",
        md_table(("", "outcome", "meaning"), [(SYMBOL[o], o.value, MEANING[o]) for o in Outcome]),
        "",
    ]
    lines.append(f"pytest exit status: {exitstatus}")
    return "\n".join(lines) + "\n"


def write_run_report(state: CompatState, path: str, exitstatus: int) -> None:
    write_atomic(os.fspath(path), render_run_report(state, exitstatus))


def _outcomes_section(state: CompatState) -> list[str]:
    per_suite: dict[str, Counter] = {}
    for (suite, outcome), n in state.counts.items():
        per_suite.setdefault(suite, Counter())[outcome] += n
    rows = [(s, *(c[o] or "" for o in Outcome)) for s, c in sorted(per_suite.items())]
    total: Counter[Outcome] = Counter()
    for c in per_suite.values():
        total.update(c)
    rows.append(("**total**", *(total[o] for o in Outcome)))
    return ["## Outcomes", "", md_table(("suite", *(f"{SYMBOL[o]} {o.value}" for o in Outcome)), rows), ""]


def _rules_section(state: CompatState) -> list[str]:
    hits: dict[str, Counter] = {}
    for result in state.notable.values():
        if result.rule and result.outcome is not None:
            hits.setdefault(result.rule, Counter())[result.outcome] += 1
    if not hits:
        return []
    rows = []
    for rule_id, counts in sorted(hits.items()):
        rule = state.rules.by_id.get(rule_id)
        rows.append(
            (
                rule_id,
                ", ".join(f"{n} {o.value}" for o, n in counts.items()),
                rule.reason if rule else "",
                rule.links[0] if rule and rule.links else "",
            )
        )
    out = ["## Known issues hit", "", md_table(("rule", "outcomes", "reason", "link"), rows), ""]
    stale = sorted(r for r, c in hits.items() if c.get(Outcome.STALE_RULE))
    if stale:
        out += [
            "### Stale rules",
            "",
            "These known-bad rules' tests passed: the rules may be obsolete.",
            "",
            md_table(
                ("rule", "defined at"),
                [(r, state.rules.by_id[r].location if r in state.rules.by_id else "") for r in stale],
            ),
            "",
        ]
    return out


def _measurements_section(state: CompatState) -> list[str]:
    """Figures against floors; figures a test took at several sizes get a per-size table."""
    if not state.measurements:
        return []
    flat, sized = split_sized(state.measurements)
    lines = ["## Measurements", ""]
    if flat:
        lines += [
            md_table(
                ("test", "metric", "detail", "value", "floor", "of peak", "status"),
                [(n, m.name, m.detail, f"{m.value:.4g} {m.unit}", _floor(m), _peak(m), _status(m)) for n, m in flat],
            ),
            "",
        ]
    for nodeid, name, found in sized:
        lines += [
            f"### {md_cell(name)} by size ({md_cell(nodeid)})",
            "",
            md_table(
                ("size", "value", "floor", "of peak", "status", "detail"),
                [
                    (
                        size,
                        f"{m.value:.4g} {m.unit}",
                        _floor(m),
                        _peak(m),
                        _status(m),
                        "" if m.detail == size else m.detail,
                    )
                    for size, m in found
                ],
            ),
            "",
        ]
    return lines


def _floor(m: Measurement) -> str:
    return "" if m.floor is None else f"{m.floor:g}"


def _peak(m: Measurement) -> str:
    return "" if m.fraction_of_peak is None else f"{m.fraction_of_peak:.0%}"


def _status(m: Measurement) -> str:
    return f"❌ {m.miss_text}" if m.below_floor else ("✅ met" if m.floor is not None else "")


def _failures_section(state: CompatState) -> list[str]:
    rows = [
        (r.nodeid, r.outcome.value, r.signature or "", r.message[:300])
        for r in state.notable.values()
        if r.outcome is not None and r.outcome in BROKEN
    ]
    if not rows:
        return []
    return ["## Failures", "", md_table(("test", "outcome", "signature", "message"), rows), ""]


def _skips_section(state: CompatState) -> list[str]:
    """Skipped tests grouped by reason, most frequent first (never-run tests are listed below)."""
    not_run = set(state.not_run)
    reasons = Counter(
        skip_reason(r.message)
        for r in state.notable.values()
        if r.outcome is Outcome.SKIPPED and r.nodeid not in not_run
    )
    if not reasons:
        return []
    rows = [(reason, n) for reason, n in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))]
    return ["## Skip reasons", "", md_table(("reason", "tests"), rows), ""]


def _gib(n: int | None) -> str:
    return f"{n / 2**30:.0f} GiB" if n else "memory unknown"


def _not_run_section(state: CompatState) -> list[str]:
    """Tests collected but never finished (interrupted session, -x): counted as skipped, named here."""
    if not state.not_run:
        return []
    reason = state.notable[state.not_run[0]].message
    lines = ["## Not run", "", f"{len(state.not_run)} test(s) never ran: {md_cell(reason)}.", ""]
    shown = state.not_run[:200]
    lines += [f"- {md_cell(n)}" for n in shown]
    if len(state.not_run) > len(shown):
        lines.append(f"- ... and {len(state.not_run) - len(shown)} more")
    return [*lines, ""]
