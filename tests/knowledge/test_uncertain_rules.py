"""A matrix rule marked ``uncertain: true`` through pytest: its named failure is known-bad, raised or in an
isolated test's crash; another failure stays itself with no cause named; a pass stands, also under
``--rocm-strict``. The bundled vLLM sleep-mode rule is one (only code enabling sleep mode meets it).
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.matrix.loader import bundled_known_bad, load_matrix
from tests.knowledge.two_ways import junit_properties

MATRIX = """
name: uncertain
known_bad:
  - id: maybe-capture
    applies_to: {nodeids: ["*graph*"]}
    action: isolate
    signature: "the named failure"
    uncertain: true
    reason: its source says the stack may fail this way
"""

TESTS = """
import os, sys

def test_graph_raises_named():
    raise RuntimeError("the named failure")

def test_graph_crashes_named():
    sys.stderr.write("the named failure\\n")
    sys.stderr.flush()
    os.abort()

def test_graph_crashes_otherwise():
    os.abort()

def test_graph_other_failure():
    raise ValueError("a genuinely different regression")

def test_graph_passes():
    pass
"""


def test_an_uncertain_rule_claims_its_failure_raised_or_crashing_and_a_pass_stands(pytester: pytest.Pytester) -> None:
    """The rule holds on any machine (no ``when``): its tests run isolated wherever the suite runs."""
    pytester.makefile(".yaml", matrix=MATRIX)
    pytester.makepyfile(test_graph=TESTS)
    result = pytester.runpytest_subprocess(
        "--rocm-matrix", "matrix.yaml", "--rocm-no-bundled", "-p", "no:cacheprovider", "--junitxml", "junit.xml",
        "--rocm-strict", timeout=300,
    )  # fmt: skip
    cases = junit_properties(pytester.path / "junit.xml")
    for name in ("test_graph_raises_named", "test_graph_crashes_named"):
        assert cases[name]["rocm_outcome"] == "known-bad" and cases[name]["rocm_rule"] == "maybe-capture", cases[name]
    assert cases["test_graph_crashes_otherwise"]["rocm_outcome"] == "crashed"
    assert cases["test_graph_other_failure"].get("rocm_outcome", "fail") == "fail"
    assert (
        cases["test_graph_other_failure"].get("rocm_note", "").startswith("risk ")
        and "likely cause" not in cases["test_graph_other_failure"]["rocm_note"]
    )  # an unconfirmed risk names no cause
    assert cases["test_graph_passes"].get("rocm_outcome", "pass") == "pass"
    result.assert_outcomes(failed=2, passed=1, xfailed=2)  # --rocm-strict: the pass is no stale rule


def test_the_bundled_sleep_mode_rule_is_uncertain() -> None:
    (rule,) = [r for r in load_matrix(str(bundled_known_bad())).rules if r.id == "vllm-sleep-mode-not-on-rocm"]
    assert rule.at_risk and rule.signature is not None
    assert rule.signature_matches("ValueError: Sleep mode is only supported on CUDA devices.")
    assert not rule.signature_matches("RuntimeError: HIP error: out of memory")
