"""What a reader of the merged report wants first, computed once for Markdown, HTML and the site.

Pure functions over :class:`~.merge.Merged`: the compact grid entries, what is broken (known
issues by rule, failures by diagnosis, conflicts), skip reasons with counts, and the headline
figures of each stack (GEMM, copies, all_reduce bus bandwidth at the largest size, mini-PPO
throughput and MFU) against floor and datasheet peak.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from pytest_rocmcompat.knowledge.metrics import METRICS
from pytest_rocmcompat.outcomes import BROKEN, SEVERITY, SYMBOL, Outcome
from pytest_rocmcompat.report.merge import LIB_PREFIX, Merged, Row
from pytest_rocmcompat.report.sizes import SIZE_SEP
from pytest_rocmcompat.session.measurements import Measurement

CONFLICT_SYMBOL = "⁉️"
NO_SIGNATURE = "no known signature"
# (metric, label): the figures a stack is judged by, in this order.
HEADLINE_METRICS: tuple[tuple[str, str], ...] = (
    ("gemm_bf16_tflops", "GEMM bf16"),
    ("gemm_fp16_tflops", "GEMM fp16"),
    ("gemm_fp8_tflops", "GEMM fp8"),
    ("gemm_fp32_tflops", "GEMM fp32"),
    ("copy_d2d_gbps", "copy device-device"),
    ("copy_h2d_gbps", "copy host-device"),
    ("copy_d2h_gbps", "copy device-host"),
    ("allreduce_busbw_gbps", "all_reduce bus bandwidth, largest size"),
    ("ppo_rollout_tokens_per_s", "mini-PPO rollout"),
    ("ppo_inference_tokens_per_s", "mini-PPO inference"),
    ("ppo_train_tokens_per_s", "mini-PPO training"),
    ("ppo_train_mfu", "mini-PPO training MFU"),
)
_UNITS = {
    "": 1,
    "b": 1,
    "k": 2**10,
    "kb": 10**3,
    "kib": 2**10,
    "m": 2**20,
    "mb": 10**6,
    "mib": 2**20,
    "g": 2**30,
    "gb": 10**9,
    "gib": 2**30,
}
_SIZE = re.compile(r"^\s*([0-9.]+)\s*([a-zA-Z]*)\s*$")


def compact_entry(counts: Counter | None, conflicts: int = 0) -> str:
    """One Markdown grid entry: symbol, count and word per outcome present, worst first (the
    verdict leads): ``❌ 1 fail · ✅ 2 pass``. GitHub renders the emoji; the word carries the
    meaning where no emoji font does.
    """
    if not counts:
        return ""
    present = sorted((o for o in Outcome if counts.get(o)), key=lambda o: -SEVERITY[o])
    entries = [f"{SYMBOL[o]} {counts[o]} {o.value}" for o in present]
    return " · ".join(entries + ([f"{CONFLICT_SYMBOL} {conflicts} conflict"] if conflicts else []))


def conflicts_by_column(row: Row) -> Counter:
    return Counter(row.tests[t].suite for t in row.conflicts if t in row.tests)


def causes_by_column(row: Row) -> dict[str, list[str]]:
    """Column -> the distinct likely causes its failed, crashed or hung tests carry (first seen first)."""
    out: dict[str, dict[str, None]] = {}
    for case in row.tests.values():
        if case.cause and case.outcome in BROKEN:
            out.setdefault(case.suite, {})[case.cause] = None
            for lib in case.uses:
                out.setdefault(LIB_PREFIX + lib, {})[case.cause] = None
    return {k: list(v) for k, v in out.items()}


@dataclass
class RuleGroup:
    rule: str
    action: str
    reason: str
    links: tuple[str, ...]
    stacks: list[tuple[str, Counter]]  # (stack name, outcomes of the tests it reached)


@dataclass
class Group:
    """Tests sharing a diagnosis (failures) or a reason (skips)."""

    key: str
    tests: dict[str, None] = field(default_factory=dict)  # distinct test ids, in first-seen order
    outcomes: Counter = field(default_factory=Counter)  # per result: a test in one stack
    stacks: Counter = field(default_factory=Counter)  # stack name -> its tests in the group
    message: str = ""
    causes: Counter = field(default_factory=Counter)  # likely causes the failures carry
    first_cause: str = ""  # the cause of the failure whose message is shown

    @property
    def count(self) -> int:
        """Distinct tests: one test failing on three stacks is one test (three results)."""
        return len(self.tests)

    @property
    def results(self) -> int:
        return sum(self.outcomes.values())

    @property
    def examples(self) -> list[str]:
        return list(self.tests)[:3]


@dataclass
class Headline:
    stack: str
    label: str
    test: str
    figure: Measurement
    size: str = ""


def rule_groups(merged: Merged, name_of: Callable[[Row], str]) -> list[RuleGroup]:
    out = []
    names = {r.key: name_of(r) for r in merged.rows}
    for rule_id, per_row in sorted(merged.hits().items()):
        info = merged.rules.get(rule_id)
        out.append(
            RuleGroup(
                rule_id,
                info.action if info else "",
                info.reason if info else "",
                info.links if info else (),
                [(names.get(k, k), c) for k, c in per_row.items()],
            )
        )
    return out


def failure_groups(merged: Merged, name_of: Callable[[Row], str]) -> list[Group]:
    """Failures, crashes and hangs grouped by diagnosis (the matched signature), largest first."""
    groups: dict[str, Group] = {}
    for row in merged.rows:
        for case in row.tests.values():
            if case.outcome in BROKEN:
                _add(
                    groups,
                    case.signature or f"{case.outcome.value}, {NO_SIGNATURE}",
                    row,
                    name_of,
                    case.test,
                    case.outcome,
                    case.message,
                    case.cause,
                )
    return sorted(groups.values(), key=lambda g: (-g.count, g.key))


FAILURE_HEADERS = (
    "diagnosis",
    "tests",
    "results (a test on a stack)",
    "stacks",
    "for example",
    "likely cause",
    "message",
)


def without_cause(message: str, cause: str) -> str:
    """A failure message without the ``[diagnosis: <cause>]`` tag, where the cause has its own column."""
    tag = f"[diagnosis: {cause}] "
    return message[len(tag) :] if cause and message.startswith(tag) else message


def causes_text(causes: Counter) -> str:
    return "; ".join(c for c, _ in causes.most_common())


def failure_rows(groups: list[Group]) -> list[tuple[object, ...]]:
    """The cells of the failures-by-diagnosis table (FAILURE_HEADERS), for every writer: distinct
    tests, then their results over the stacks (one test failing on three stacks: 1 test, 3 fail).
    """
    return [
        (
            g.key,
            g.count,
            outcome_counts_text(g.outcomes),
            "; ".join(f"{s} ({n})" for s, n in g.stacks.items()),
            " ".join(g.examples),
            causes_text(g.causes),
            without_cause(g.message, g.first_cause),
        )
        for g in groups
    ]


def skip_groups(merged: Merged, name_of: Callable[[Row], str]) -> list[Group]:
    """Skipped tests grouped by their reason, most frequent first."""
    groups: dict[str, Group] = {}
    for row in merged.rows:
        for case in row.tests.values():
            if case.outcome is Outcome.SKIPPED:
                _add(groups, skip_reason(case.message), row, name_of, case.test, case.outcome, "")
    return sorted(groups.values(), key=lambda g: (-g.count, g.key))


def skip_reason(message: str) -> str:
    """Pytest's ``file.py:12: reason`` loses its place, so one reason groups across tests."""
    text = (message or "no reason given").strip()
    text = re.sub(r"^(Skipped: )", "", text)
    text = re.sub(r"^\S+\.py:\d+: ", "", text)
    return text[:300]


def _add(
    groups: dict[str, Group],
    key: str,
    row: Row,
    name_of: Callable[[Row], str],
    test: str,
    outcome: Outcome,
    message: str,
    cause: str = "",
) -> None:
    group = groups.setdefault(key, Group(key, message=message, first_cause=cause))
    group.tests.setdefault(test)
    if cause:
        group.causes[cause] += 1
    group.outcomes[outcome] += 1
    group.stacks[name_of(row)] += 1


def conflicts(merged: Merged, name_of: Callable[[Row], str]) -> list[tuple[str, str, list[Outcome]]]:
    return [
        (name_of(row), test, sorted(found, key=lambda o: -SEVERITY[o]))
        for row in merged.rows
        for test, found in sorted(row.conflicts.items())
    ]


def size_bytes(size: str) -> float:
    match = _SIZE.match(size.replace("_", ""))
    if not match:
        return -1.0
    return float(match.group(1)) * _UNITS.get(match.group(2).lower(), -1)


def headlines(merged: Merged, name_of: Callable[[Row], str]) -> list[Headline]:
    """Per stack, each headline metric once: a plain figure (the best one), else the largest size.

    The bundled ones first (:data:`HEADLINE_METRICS`), then a project's own declared as headline
    figures (their property says so), named by their label, in the order they were recorded.
    """
    out = []
    for row in merged.rows:
        best: dict[str, tuple[tuple, Headline]] = {}
        for test, m in row.measurements:
            base, sep, size = m.name.partition(SIZE_SEP)
            base, _, qualifier = base.partition("[")  # allreduce_busbw_gbps[gloo-2]: backend, ranks
            rank = (0 if sep else 1, size_bytes(size) if sep else 0.0, m.value if m.higher_is_better else -m.value)
            if rank > best.get(base, ((-1,), None))[0]:
                best[base] = (
                    rank,
                    Headline(name_of(row), "", test, m, " ".join(filter(None, (qualifier.rstrip("]"), size)))),
                )
        own = [(base, _declared_label(h.figure)) for base, (_, h) in best.items() if _declared_headline(base, h.figure)]
        for metric, label in (*HEADLINE_METRICS, *own):
            if metric in best:
                found = best[metric][1]
                found.label = label + (f" ({found.size})" if found.size else "")
                out.append(found)
    return out


_BUNDLED_LABELS = frozenset(label for _, label in HEADLINE_METRICS)


def _declared_headline(base: str, m: Measurement) -> bool:
    return m.headline and base not in METRICS


def _declared_label(m: Measurement) -> str:
    """A declared metric's label, never one of a bundled figure's (its line would join theirs)."""
    base = m.name.partition(SIZE_SEP)[0].partition("[")[0]
    return m.label if m.label and m.label not in _BUNDLED_LABELS else base


def figure_text(m: Measurement) -> str:
    return f"{m.value:.4g} {m.unit}".strip()


def floor_text(m: Measurement) -> str:
    if m.floor is None:
        return ""
    if not m.higher_is_better:  # a ceiling: lower is better
        return f"ceiling {m.floor:g} " + ("❌ above" if m.below_floor else "✅ met")
    return f"{m.floor:g} " + ("❌ below" if m.below_floor else "✅ met")


def peak_text(m: Measurement) -> str:
    return "" if m.fraction_of_peak is None else f"{m.fraction_of_peak:.0%}"


def outcome_counts_text(counts: Counter) -> str:
    return ", ".join(f"{n} {o.value}" for o, n in sorted(counts.items(), key=lambda kv: -SEVERITY[kv[0]]))
