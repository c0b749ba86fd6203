"""Inside another project's suite the plugin changes nothing it means (issue 18: 3, 4, 5, 7, 8)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from tests.conftest import CPU_ENV

MATRIX = """
name: Host
known_bad:
  - id: sig-rule
    applies_to: {nodeids: ["test_m.py::test_other_failure"]}
    action: xfail
    signature: "the known text"
    reason: fails with the known text
  - id: ours
    applies_to: {nodeids: ["test_m.py::test_ours"]}
    action: xfail
    reason: our rule says so
"""

TESTS = """
import pytest

@pytest.mark.xfail(reason="the project's own")
def test_own_xfail():
    assert 0

def test_ours():
    assert 0

def test_other_failure():
    raise ValueError("something else")

def test_plain():
    pass
"""


@pytest.fixture
def host(pytester: pytest.Pytester):
    pytester.makefile(".yaml", matrix=MATRIX)
    pytester.makepyfile(test_m=TESTS)
    (pytester.path / "env.json").write_text(CPU_ENV.to_json())

    def run(*args: str) -> pytest.RunResult:
        return pytester.runpytest("--rocm-matrix=matrix.yaml", "--rocm-env=env.json", "-p", "no:cacheprovider", *args)

    return run


def _cases(path) -> dict[str, dict[str, str]]:
    out = {}
    for case in ET.parse(path).iter("testcase"):
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        result = next((c.tag + ":" + (c.get("type") or "") for c in case if c.tag in ("skipped", "failure")), "")
        out[case.get("name")] = {"result": result, **props}
    return out


def test_own_xfail_stays_pytest_xfail_and_notes_reach_junit_and_report(host, pytester: pytest.Pytester) -> None:
    result = host("--junitxml=j.xml", "--rocm-report=r.md", "-rA")
    result.assert_outcomes(passed=1, failed=1, xfailed=2)
    result.stdout.fnmatch_lines(["outcomes: 1 pass, 1 fail, 1 known-bad, 1 xfail"])
    cases = _cases(pytester.path / "j.xml")
    assert cases["test_own_xfail"] == {"result": "skipped:pytest.xfail"}  # no rocm_outcome property
    assert cases["test_ours"]["rocm_outcome"] == "known-bad" and cases["test_ours"]["rocm_rule"] == "ours"
    assert cases["test_other_failure"]["rocm_note"] == "rule sig-rule applies but its signature did not match"
    report = (pytester.path / "r.md").read_text()
    assert "rule sig-rule applies but its signature did not match" in report
    totals = next(line for line in report.splitlines() if line.startswith("| **total**"))
    cells = [c.strip() for c in totals.strip("|").split("|")]
    header = next(line for line in report.splitlines() if "known-bad" in line and line.startswith("| suite"))
    names = [c.strip().split(" ", 1)[-1] for c in header.strip("|").split("|")]
    assert dict(zip(names, cells))["known-bad"] == "1" and dict(zip(names, cells))["xfail"] == "1"

    from pytest_rocmcompat.report.junit_read import read_run

    outcomes = {c.test.rpartition("::")[2]: c.outcome.value for c in read_run(str(pytester.path / "j.xml")).cases}
    assert outcomes == {
        "test_own_xfail": "xfail",
        "test_ours": "known-bad",
        "test_other_failure": "fail",
        "test_plain": "pass",
    }
    other = next(c for c in read_run(str(pytester.path / "j.xml")).cases if c.test.endswith("test_other_failure"))
    assert other.message.endswith("(rule sig-rule applies but its signature did not match)")  # merged reports


def test_collect_only_lists_selected_tests_only(host) -> None:
    result = host("--collect-only", "-q", "-k", "plain or ours")
    out = result.stdout.str()
    assert "test_m.py::test_ours: XFAIL" in out
    assert "test_other_failure" not in out  # deselected: neither listed nor given an XFAIL line


@pytest.mark.skipif(
    int(pytest.__version__.split(".")[0]) < 9, reason="[tool.pytest] with native TOML types is pytest 9"
)
def test_native_toml_types_accepted(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml(
        "[tool.pytest]\nrocm_isolate_timeout = 60\nrocm_strict = false\nrocm_gc_freeze = false\n"
    )
    pytester.makepyfile(test_a="def test_a():\n    pass\n")
    (pytester.path / "env.json").write_text(CPU_ENV.to_json())
    result = pytester.runpytest("--rocm-env=env.json", "-W", "error")
    assert result.ret == 0, result.stdout.str() + result.stderr.str()


@pytest.mark.parametrize("value", ["0", "soon"])
def test_bad_ini_value_is_a_usage_error_before_collection(pytester: pytest.Pytester, value: str) -> None:
    pytester.makeini(f"[pytest]\nrocm_isolate_timeout = {value}\n")
    pytester.makepyfile(test_a="def test_a():\n    pass\n")
    (pytester.path / "env.json").write_text(CPU_ENV.to_json())
    result = pytester.runpytest_subprocess("--rocm-env=env.json", "--junitxml=j.xml", "--rocm-report=r.md")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert "rocm_isolate_timeout" in err and value in err
    assert "Traceback" not in err and "collected" not in result.stdout.str()
    assert not (pytester.path / "r.md").exists() or "not run:" not in (pytester.path / "r.md").read_text()


def test_usage_error_during_collection_lists_nothing_as_not_run(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_a="import pytest\n\ndef test_a():\n    pass\n\n"
        "@pytest.mark.known_issue('no-such-rule')\ndef test_b():\n    pass\n"
    )
    (pytester.path / "env.json").write_text(CPU_ENV.to_json())
    result = pytester.runpytest_subprocess("--rocm-env=env.json", "--junitxml=j.xml", "--rocm-report=r.md")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "known_issue('no-such-rule') names no rule" in result.stderr.str()
    for name in ("r.md", "j.xml"):
        path = pytester.path / name
        assert not path.exists() or "not run:" not in path.read_text(), name


CONFIG_OF_A_HOST = """
[pytest]
rocm_strict = true
rocm_isolate_timeout = 60
rocm_matrix = matrix.yaml
"""

MARKED = """
import pytest

@pytest.mark.uses("torchao")
@pytest.mark.gpus(0)
@pytest.mark.isolated(timeout=5)
@pytest.mark.known_issue("x")
def test_marked():
    pass
"""


@pytest.mark.parametrize(
    "how",
    [
        ("-p", "no:rocmcompat"),
        ("-p", "no:rocmcompat", "-p", "no:rocmcompat_markers", "-p", "pytest_rocmcompat.markers"),
    ],
)
def test_disabled_plugin_keeps_markers_and_ini_keys(pytester: pytest.Pytester, how: tuple[str, ...]) -> None:
    pytester.makeini(CONFIG_OF_A_HOST)
    pytester.makepyfile(test_a=MARKED)
    result = pytester.runpytest_subprocess(*how, "--strict-markers", "--strict-config", "-W", "error", "-q")
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    result.stdout.fnmatch_lines(["1 passed*"])
    out = result.stdout.str() + result.stderr.str()
    assert "Unknown config option" not in out and "INTERNALERROR" not in out and "rocmcompat" not in out


def test_without_the_markers_too_pytest_complains_as_before(pytester: pytest.Pytester) -> None:
    """The control: blocking both entry points is plain pytest, which rejects the unknown marks."""
    pytester.makeini(CONFIG_OF_A_HOST)
    pytester.makepyfile(test_a=MARKED)
    result = pytester.runpytest_subprocess("-p", "no:rocmcompat", "-p", "no:rocmcompat_markers", "--strict-markers")
    assert result.ret != 0
    assert "'uses' not found in `markers` configuration option" in result.stdout.str()


LINT_MATRIX = """name: Lint
known_bad:
  - id: exact-param
    applies_to: {nodeids: ["tests/test_a.py::test_p[Conv2d 1 LoRA]"]}
    action: skip
    reason: r
  - id: typo
    applies_to: {nodeids: ["tests/test_a.py::test_q", "tests/test_a.py::test_p[*]"]}
    action: skip
    reason: r
  - id: class-glob
    applies_to: {nodeids: ["tests/test_a.py::Test*"]}
    action: skip
    reason: r
"""


def test_lint_against_warns_on_node_id_patterns_matching_no_test(tmp_path) -> None:
    import subprocess
    import sys

    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text(
        "import pytest\n\n@pytest.mark.parametrize('m', ['Conv2d 1 LoRA', 'x'])\ndef test_p(m):\n    pass\n\n"
        "class TestK:\n    def test_k(self):\n        pass\n"
    )
    (tmp_path / "m.yaml").write_text(LINT_MATRIX)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest_rocmcompat", "lint", "m.yaml", "--against", "tests"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    warnings = [line for line in proc.stdout.splitlines() if line.startswith("warning:")]
    assert warnings == [
        "warning: m.yaml:7: rule typo: applies_to.nodeids pattern 'tests/test_a.py::test_q' "
        "matches none of the 3 collected tests"
    ]
    bad = subprocess.run(
        [sys.executable, "-m", "pytest_rocmcompat", "lint", "m.yaml", "--against", "nowhere"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert bad.returncode == 1 and "exited with 4" in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.parametrize(
    ("pattern", "nodeid", "matches"),
    [
        ("t.py::test_p[Conv2d 1 LoRA]", "t.py::test_p[Conv2d 1 LoRA]", True),  # exact id, spaces inside
        ("t.py::test_p[Conv2d 1 LoRA]", "t.py::test_pC", False),  # not a glob class
        ("t.py::test_p[ab]", "t.py::test_pa", False),
        ("t.py::test_p[*]", "t.py::test_p[x-1]", True),  # a wildcard inside the parameter part
        ("t.py::test_p[*]", "t.py::test_px", False),
        ("t.py::test_p[x ?]", "t.py::test_p[x 9]", True),
        ("t.py::T::test_p[a[b]", "t.py::T::test_p[a[b]", True),  # a [ inside the parameter id
        ("t_[ab]*.py::*", "t_a1.py::test", True),  # a class before the parameter part stays a glob class
        ("t_[ab]*.py::*", "t_c1.py::test", False),
        ("t.py::TestA", "t.py::TestA::test_x[1]", True),  # a plain id covers the tests below it
        ("*float8*", "s/test_x.py::test_float8[bf16]", True),
    ],
)
def test_node_id_patterns_literal_parameters_globs_elsewhere(pattern: str, nodeid: str, matches: bool) -> None:
    from pytest_rocmcompat.knowledge.rules.engine import ActiveRules, ItemFacts
    from pytest_rocmcompat.knowledge.rules.model import AppliesTo, Rule

    rule = Rule("r", "reason", applies_to=AppliesTo(everything=False, nodeids=(pattern,)))
    rules = ActiveRules([rule], CPU_ENV)
    assert bool(rules.match(ItemFacts(nodeid, frozenset(), frozenset()))) is matches


FREED_AT_RUNTIME = """
import gc, weakref

class Cycle:
    pass

obj = Cycle()
obj.self = obj  # a reference cycle created at import
ref = weakref.ref(obj)

def test_import_time_cycle_is_collected():
    global obj
    del obj
    gc.collect()
    assert ref() is None
"""


def test_gc_freeze_is_off_by_default_because_it_changes_meaning(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_gc=FREED_AT_RUNTIME)
    (pytester.path / "env.json").write_text(CPU_ENV.to_json())
    plain = pytester.runpytest_subprocess("-p", "no:rocmcompat")
    default = pytester.runpytest_subprocess("--rocm-env=env.json")
    frozen = pytester.runpytest_subprocess("--rocm-env=env.json", "-o", "rocm_gc_freeze=true")
    assert plain.ret == default.ret == 0
    assert frozen.ret == 1  # the documented trade-off of turning it on
