"""How an isolated test's death reads (issue 27): its stack once in the terminal, and a rule's
signature matched against the signal it died from (``SIGABRT``), not only its last output."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from tests.conftest import CPU_ENV

ABORTS = """
import os, sys
import pytest

@pytest.mark.isolated(timeout=60)
def test_abort_known():
    sys.stderr.write("native-stack-frame-7f3a in libfake.so\\n")
    sys.stderr.flush()
    os.abort()

@pytest.mark.isolated(timeout=60)
def test_abort_other():
    os.abort()
"""

MATRIX = """
known_bad:
  - id: abort-known
    when: {platform: cpu}
    applies_to: {nodeids: ["test_aborts.py::test_abort_known"]}
    action: xfail
    signature: SIGABRT
    reason: aborts in the fake library
  - id: segv-other
    when: {platform: cpu}
    applies_to: {nodeids: ["test_aborts.py::test_abort_other"]}
    action: xfail
    signature: SIGSEGV
    reason: a different crash
"""


@pytest.fixture
def env_file(pytester: pytest.Pytester):
    path = pytester.path / "env.json"
    path.write_text(CPU_ENV.to_json(), encoding="utf-8")
    return path


def _props(xml) -> dict[str, dict[str, str]]:
    return {
        case.get("name"): {p.get("name"): p.get("value") for p in case.iter("property")}
        for case in ET.parse(xml).getroot().iter("testcase")
    }


@pytest.mark.parametrize("ci", ["", "1"], ids=["local", "CI=1"])
def test_a_crash_stack_is_printed_once(
    pytester: pytest.Pytester, env_file, monkeypatch: pytest.MonkeyPatch, ci: str
) -> None:
    # with CI set, pytest prints a string failure whole in its short summary: both ways are checked
    if ci:
        monkeypatch.setenv("CI", ci)
    else:
        monkeypatch.delenv("CI", raising=False)
        monkeypatch.delenv("BUILD_NUMBER", raising=False)
    pytester.makepyfile(test_aborts=ABORTS)
    result = pytester.runpytest_subprocess(
        "--rocm-env", str(env_file), "-p", "no:cacheprovider", "-k", "abort_known", "--junitxml=out.xml", timeout=120
    )
    result.stdout.fnmatch_lines(["*died from SIGABRT*"])
    out = result.stdout.str()
    # the process's last output (the line it printed, faulthandler's stack) appears once, not
    # once in the failure and again as a captured-output section
    assert out.count("native-stack-frame-7f3a in libfake.so") == 1, out
    assert out.count("Fatal Python error: Aborted") == 1, out
    assert "Captured output (isolated process)" not in out, out
    # JUnit still carries it (in the failure text)
    failure = ET.parse(pytester.path / "out.xml").getroot().find(".//failure")
    assert failure is not None and "native-stack-frame-7f3a in libfake.so" in (failure.text or "")


def test_a_rule_signature_matches_the_signal_a_test_died_from(pytester: pytest.Pytester, env_file) -> None:
    pytester.makepyfile(test_aborts=ABORTS)
    pytester.makefile(".yaml", matrix=MATRIX)
    result = pytester.runpytest_subprocess(
        "--rocm-env",
        str(env_file),
        "--rocm-matrix",
        "matrix.yaml",
        "-p",
        "no:cacheprovider",
        "-v",
        "--junitxml=out.xml",
        timeout=120,
    )
    result.stdout.fnmatch_lines_random(["*test_abort_known KNOWN-BAD*", "*test_abort_other CRASHED*"])
    props = _props(pytester.path / "out.xml")
    assert props["test_abort_known"]["rocm_outcome"] == "known-bad"
    assert props["test_abort_known"]["rocm_rule"] == "abort-known"
    assert props["test_abort_known"]["rocm_signature"] == "SIGABRT"
    assert props["test_abort_other"]["rocm_outcome"] == "crashed"
    assert "rocm_rule" not in props["test_abort_other"] or props["test_abort_other"]["rocm_rule"] != "segv-other"
