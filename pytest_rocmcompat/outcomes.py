"""The outcome vocabulary shared by terminal, JUnit, Markdown and HTML output, and its wire
format: every JUnit property name the plugin writes and reads is spelled here, once.
"""

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
# The JUnit wire format. Every name starts with PROP_NAMESPACE; readers of old files rely on
# these spellings, so they never change.
PROP_NAMESPACE = "rocm_"
# Testcase properties, written on test reports (and so into JUnit).
PROP_OUTCOME = "rocm_outcome"
PROP_RULE = "rocm_rule"
PROP_SIGNATURE = "rocm_signature"
PROP_DIAGNOSIS = "rocm_diagnosis"  # a failure's likely cause (knowledge/diagnoses.py)
PROP_NOTE = "rocm_note"  # e.g. a rule reached the test but its signature did not match the failure
PROP_USES = "rocm_uses"  # the libraries a test declares with @pytest.mark.uses
PROP_ISOLATION = "rocm_isolation"  # an isolated test's process: forked | spawned: <why> | reused
PROP_NOT_RUN = "rocm_not_run"  # collected, never finished (an interrupted or stopped session)
PROP_METRIC_PREFIX = "rocm_metric."  # + a measurement's name; the value is JSON
# Testsuite properties: the run's environment and matrix cell (report/junit_props.py writes them).
PROP_SCHEMA = "rocm_schema"
PROP_MATRIX = "rocm_matrix"
PROP_LOCATION = "rocm_location"
PROP_CELL = "rocm_cell"  # the cell's key; PROP_CELL_PREFIX + axis holds each axis value
PROP_CELL_PREFIX = "rocm_cell."
PROP_RULES = "rocm_rules"
PROP_RULE_INFO_PREFIX = "rocm_rule_info."  # + rule id; the value is JSON (reason, action, links, fixed_in)
PROP_PROBLEMS = "rocm_problems"
PROP_STRICT = "rocm_strict"
PROP_ENV_PREFIX = "rocm_env."  # + source, origin, platform, arch, gpu, gpus, rocm, hip, cuda, torch, python, ...
PROP_LIB_PREFIX = "rocm_lib."  # + library name
PROP_VAR_PREFIX = "rocm_var."  # + environment variable name (redacted)


def worst(a: Outcome | None, b: Outcome) -> Outcome:
    """The more severe of two outcomes (``a`` may be unset)."""
    return b if a is None or SEVERITY[b] >= SEVERITY[a] else a
