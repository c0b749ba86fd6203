"""The outcome vocabulary shared by terminal, JUnit, Markdown and HTML output."""

from __future__ import annotations

from enum import Enum


class Outcome(str, Enum):
    """What happened to one test (see DESIGN.md)."""

    PASS = "pass"
    FAIL = "fail"
    KNOWN_BAD = "known-bad"
    XFAIL = "xfail"
    STALE_RULE = "stale-rule"
    SKIPPED = "skipped"
    CRASHED = "crashed"
    HANG = "hang"

    def __str__(self) -> str:
        return self.value

    # Hash as the string it equals (Enum's default hashes the member *name*, in Python code):
    # consistent with ``Outcome.PASS == "pass"`` and a C-level hash on the per-test hot path.
    __hash__ = str.__hash__


MEANING: dict[Outcome, str] = {
    Outcome.PASS: "ran and passed",
    Outcome.FAIL: "ran and failed, no known issue matches: a real regression",
    Outcome.KNOWN_BAD: "failed the way a known-bad rule says it fails",
    Outcome.XFAIL: "the test's own pytest xfail (expected failure), as pytest counts it",
    Outcome.STALE_RULE: "a known-bad rule's test passed: the rule may be obsolete",
    Outcome.SKIPPED: "not run, with the reason",
    Outcome.CRASHED: "the process died (signal, abort, fatal HIP/CUDA error)",
    Outcome.HANG: "killed by the time limit",
}
# The outcome's symbol in Markdown (GitHub renders these emoji).
SYMBOL: dict[Outcome, str] = {
    Outcome.PASS: "✅",
    Outcome.FAIL: "❌",
    Outcome.KNOWN_BAD: "⚠️",
    Outcome.XFAIL: "➖",
    Outcome.STALE_RULE: "♻️",
    Outcome.SKIPPED: "⏭️",
    Outcome.CRASHED: "💥",
    Outcome.HANG: "⏳",
}
# Precedence when a test has several reports (setup, call, teardown): the worst wins.
SEVERITY: dict[Outcome, int] = {
    Outcome.SKIPPED: 0,
    Outcome.PASS: 1,
    Outcome.XFAIL: 2,
    Outcome.KNOWN_BAD: 3,
    Outcome.STALE_RULE: 4,
    Outcome.FAIL: 5,
    Outcome.HANG: 6,
    Outcome.CRASHED: 7,
}
# A test that ran and broke: what "failures" sections, regressions and badges count.
BROKEN: frozenset[Outcome] = frozenset({Outcome.FAIL, Outcome.CRASHED, Outcome.HANG})
# Property names written on test reports (and so into JUnit).
PROP_OUTCOME = "rocm_outcome"
PROP_RULE = "rocm_rule"
PROP_SIGNATURE = "rocm_signature"
PROP_DIAGNOSIS = "rocm_diagnosis"  # a failure's likely cause (diagnoses.py)
PROP_NOTE = "rocm_note"  # e.g. a rule reached the test but its signature did not match the failure


def worst(a: Outcome | None, b: Outcome) -> Outcome:
    """The more severe of two outcomes (``a`` may be unset)."""
    return b if a is None or SEVERITY[b] >= SEVERITY[a] else a
