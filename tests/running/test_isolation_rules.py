"""Isolated tests keep their meaning: the session's options, plugins, ini and addopts, subtests and
warnings; isolate rules with a signature judge raised failures and passes; crashes name the rule."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pytest_rocmcompat.knowledge.diagnoses import diagnose
from tests.conftest import CPU_ENV

SUITE = """
import os, warnings, pytest

def test_project_option(request):
    assert request.config.getoption("--flavour") == "mint"

def test_plugin_from_the_command_line(request):
    assert request.config.pluginmanager.has_plugin("myplugin")

def test_plugin_from_ini_addopts(request):
    assert request.config.pluginmanager.has_plugin("addoptsplugin")

def test_ini_override(request):
    assert request.config.getini("flavour_ini") == "from-o"

def test_warning_is_an_error_under_W_error():
    warnings.warn("deprecated thing", DeprecationWarning)

def test_warns_a_user_warning():
    warnings.warn("look here", UserWarning)

def test_subtests(subtests):
    for i in range(4):
        with subtests.test(i=i):
            assert i < 10

@pytest.mark.parametrize("name", ["a b", "c[d]"])
def test_param_with_spaces(name):
    assert name

class _PrivateHelpers:
    pass

class TestPublic:
    def test_method(self):
        assert os.environ.get("ROCMCOMPAT_ISOLATED") == os.environ.get("EXPECT_ISOLATED")
"""

CONFTEST = """
def pytest_addoption(parser):
    parser.addoption("--flavour", default="vanilla")
    parser.addini("flavour_ini", "test ini key", default="default")
"""

INI = """
[pytest]
addopts = -p addoptsplugin
filterwarnings =
    error::DeprecationWarning
"""

ISOLATE_ALL = """
known_bad:
  - id: isolate-everything
    when: {platform: cpu}
    applies_to: {nodeids: ["test_suite.py::*"]}
    action: isolate
    reason: every test in a fresh process
"""


def _outcomes(xml: Path) -> dict[str, tuple[str, dict[str, str]]]:
    root = ET.parse(xml).getroot()
    found = {}
    for case in root.iter("testcase"):
        kinds = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        found[f"{case.get('classname')}::{case.get('name')}"] = (kinds[0] if kinds else "passed", props)
    return found


def _summary(result: pytest.RunResult) -> list[str]:
    lines = result.stdout.str().split("short test summary info", 1)[1].splitlines()[1:-1]
    return sorted(line.split(" - ")[0] for line in lines)


def _run(pytester: pytest.Pytester, env_file: Path, *extra: str, isolated: bool):
    args = [
        "-p",
        "myplugin",
        "--flavour",
        "mint",
        "-o",
        "flavour_ini=from-o",
        "-W",
        "error::DeprecationWarning",
        "--rocm-env",
        str(env_file),
        "-p",
        "no:cacheprovider",
        "--junitxml",
        "out.xml",
        "-rA",
        *extra,
    ]
    if isolated:
        args += ["--rocm-matrix", "isolate.yaml"]
    result = pytester.runpytest_subprocess(*args, timeout=300)
    return result, _outcomes(pytester.path / "out.xml")


@pytest.mark.parametrize("xdist", [False, True], ids=["serial", "-n 2"])
def test_isolated_tests_run_under_the_session_options(
    pytester: pytest.Pytester, xdist: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if xdist:
        pytest.importorskip("xdist")
    env_file = pytester.path / "env.json"
    env_file.write_text(CPU_ENV.to_json(), encoding="utf-8")
    pytester.makepyfile(test_suite=SUITE, myplugin="", addoptsplugin="")
    pytester.makeconftest(CONFTEST)
    pytester.makeini(INI)
    pytester.makefile(".yaml", isolate=ISOLATE_ALL)
    extra = ("-n", "2") if xdist else ()
    monkeypatch.setenv("EXPECT_ISOLATED", "")
    monkeypatch.delenv("EXPECT_ISOLATED")
    plain, plain_junit = _run(pytester, env_file, *extra, isolated=False)
    monkeypatch.setenv("EXPECT_ISOLATED", "1")
    isolated, isolated_junit = _run(pytester, env_file, *extra, isolated=True)
    assert plain.parseoutcomes() == {"passed": 9, "failed": 1, "warnings": 1}, plain.stdout.str()
    assert isolated.parseoutcomes() == plain.parseoutcomes(), isolated.stdout.str()
    assert _summary(isolated) == _summary(plain)  # -rA: every test's line, subtests' included
    assert {k: v[0] for k, v in plain_junit.items()} == {k: v[0] for k, v in isolated_junit.items()}
    assert isolated_junit["test_suite::test_warning_is_an_error_under_W_error"][0] == "failure"
    assert "test_suite.TestPublic::test_method" in isolated_junit  # the class's node id, unchanged
    for result in (plain, isolated):  # the sandbox's warning reaches the parent's summary
        result.stdout.fnmatch_lines(["*warnings summary*", "*UserWarning: look here*"])


SIGNATURE_RULE = """
known_bad:
  - id: contested-fault
    when: {platform: cpu}
    applies_to: {nodeids: ["test_rule.py::*"]}
    action: isolate
    signature: "Memory access fault by GPU"
    reason: recorded fault, contested
"""

RULE_SUITE = """
import os, sys, pytest

@pytest.mark.uses("torch")
def test_raises_matching():
    raise RuntimeError("HIP error: Memory access fault by GPU node-2 on address 0x0")

def test_raises_other():
    raise ValueError("something else")

def test_passes():
    pass

def test_crashes_other():
    import ctypes
    ctypes.string_at(0)

def test_crashes_matching():
    sys.stderr.write("Memory access fault by GPU node-10 (Agent handle: 0x1)\\n")
    sys.stderr.flush()
    os.abort()
"""


def test_isolate_rule_with_signature_judges_raised_failures_passes_and_crashes(pytester: pytest.Pytester) -> None:
    env_file = pytester.path / "env.json"
    env_file.write_text(CPU_ENV.to_json(), encoding="utf-8")
    pytester.makepyfile(test_rule=RULE_SUITE)
    pytester.makefile(".yaml", matrix=SIGNATURE_RULE)
    result = pytester.runpytest_subprocess(
        "--rocm-env",
        str(env_file),
        "--rocm-matrix",
        "matrix.yaml",
        "-v",
        "-p",
        "no:cacheprovider",
        "--junitxml",
        "out.xml",
        "--rocm-report",
        "r.md",
        timeout=300,
    )
    result.stdout.fnmatch_lines_random(
        [
            "*test_raises_matching KNOWN-BAD*",
            "*test_raises_other FAILED*",
            "*test_passes STALE-RULE*",
            "*test_crashes_other CRASHED*",
            "*test_crashes_matching KNOWN-BAD*",
        ]
    )
    junit = _outcomes(pytester.path / "out.xml")
    matching = junit["test_rule::test_raises_matching"][1]
    assert matching["rocm_outcome"] == "known-bad" and matching["rocm_rule"] == "contested-fault"
    assert matching["rocm_uses"] == "torch"  # what the parent attached at collection is kept
    assert junit["test_rule::test_passes"][1] == {
        "rocm_outcome": "stale-rule",
        "rocm_rule": "contested-fault",
        "rocm_isolation": "forked",
    }
    assert junit["test_rule::test_raises_other"][1].get("rocm_outcome", "fail") == "fail"
    crash = junit["test_rule::test_crashes_other"][1]
    # judged as the raised failure beside it is: the rule's note, the built-in diagnosis
    assert crash == {
        "rocm_outcome": "crashed",
        "rocm_rule": "contested-fault",
        "rocm_signature": "segmentation-fault",
        "rocm_diagnosis": diagnose("SIGSEGV").property_value(),
        "rocm_note": "rule contested-fault applies but its signature did not match",
        "rocm_isolation": "forked",
    }
    assert junit["test_rule::test_crashes_matching"][1]["rocm_outcome"] == "known-bad"
    out = result.stdout.str()
    assert "CRASHED [diagnosis: segmentation-fault] test_rule.py::test_crashes_other - " in out
    report = (pytester.path / "r.md").read_text()
    known = report.split("## Known issues hit", 1)[1].split("\n## ", 1)[0]
    assert "contested-fault" in known
    failures = report.split("## Failures", 1)[1].split("\n## ", 1)[0]
    assert ("[diagnosis: segmentation-fault: the process crashed (SIGSEGV)") in failures
    assert (
        "[crashed] died from SIGSEGV (signal 11) (rule contested-fault applies but its signature did not match)"
        in failures
    ), failures


FRESH_RULES = """
known_bad:
  - id: fresh-one
    when: {platform: cpu}
    applies_to: {nodeids: ["test_fresh.py::test_b*"]}
    action: isolate
    fresh: true
    reason: needs a process of its own
  - id: reused
    when: {platform: cpu}
    applies_to: {nodeids: ["test_fresh.py::test_a*", "test_fresh.py::test_c*"]}
    action: isolate
    reason: isolated, sandbox reused
"""


def test_an_isolate_rule_can_ask_for_a_fresh_process(pytester: pytest.Pytester) -> None:
    env_file = pytester.path / "env.json"
    env_file.write_text(CPU_ENV.to_json(), encoding="utf-8")
    pytester.makepyfile(
        test_fresh="""
        import os
        def _pid(name):
            open(name, "w").write(str(os.getpid()))
        def test_a(): _pid("a")
        def test_b(): _pid("b")
        def test_c(): _pid("c")
    """
    )
    pytester.makefile(".yaml", matrix=FRESH_RULES)
    result = pytester.runpytest_subprocess(
        "--rocm-env", str(env_file), "--rocm-matrix", "matrix.yaml", "-p", "no:cacheprovider", timeout=300
    )
    assert result.parseoutcomes() == {"passed": 3}
    pids = {name: (pytester.path / name).read_text() for name in "abc"}
    assert len(set(pids.values())) == 3, pids  # b ran alone, and c did not reuse b's sandbox


def test_fresh_must_be_a_boolean_on_an_isolate_rule(pytester: pytest.Pytester) -> None:
    env_file = pytester.path / "env.json"
    env_file.write_text(CPU_ENV.to_json(), encoding="utf-8")
    pytester.makepyfile(test_x="def test_x(): pass\n")
    pytester.makefile(
        ".yaml",
        matrix="""
        known_bad:
          - {id: a, reason: r, action: skip, fresh: true}
          - {id: b, reason: r, action: isolate, fresh: "yes"}
    """,
    )
    result = pytester.runpytest_subprocess(
        "--rocm-env", str(env_file), "--rocm-matrix", "matrix.yaml", "-p", "no:cacheprovider", timeout=120
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str() + result.stdout.str()
    assert "matrix.yaml:2: known_bad[0].fresh: only an isolate rule" in err, err
    assert "matrix.yaml:3: known_bad[1].fresh: 'yes' is not true or false" in err, err
    assert "Traceback" not in err
