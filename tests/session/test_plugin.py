"""The plugin end to end through pytester: options, markers, outcomes, header, report, errors."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from pytest_rocmcompat.stack.environment import Environment
from tests.conftest import CPU_ENV, MI50_ENV, MI300_ENV


@pytest.fixture
def env_file(pytester: pytest.Pytester):
    """Replay files inside the pytester directory (an outside path would move pytest's rootdir)."""

    def make(env: Environment = CPU_ENV, name: str = "env.json"):
        path = pytester.path / name
        path.write_text(env.to_json(), encoding="utf-8")
        return path

    return make


MATRIX = """
name: TestMatrix
platform: rocm
arch: [gfx906, gfx942]
axes:
  torch: ["2.4", "2.5"]
  python: ["3.12"]
known_bad:
  - id: gfx906-fault
    when: {arch: gfx906, torch: "==2.5.1", torch_rocm: "==6.2.*"}
    applies_to: {markers: [gpus]}
    action: skip
    reason: memory access fault on any GPU op
    links: [https://example.invalid/fault]
  - id: int1
    when: {libraries: {torchao: ">=0.7"}}
    applies_to: {uses: [torchao]}
    action: xfail
    signature: "module 'torch' has no attribute 'int1'"
    reason: torchao needs torch.int1
    links: [https://example.invalid/int1]
  - id: flaky-any
    when: {platform: rocm}
    applies_to: {nodeids: ["test_nodeid.py::test_glob*"]}
    action: xfail
    reason: any failure of these is known
"""

TESTS = """
import pytest

@pytest.mark.gpus(1)
def test_gpu_op():
    pass

@pytest.mark.uses("torchao")
def test_int1_error():
    raise AttributeError("module 'torch' has no attribute 'int1'")

@pytest.mark.uses("torchao")
def test_other_error():
    raise RuntimeError("something else entirely")

@pytest.mark.uses("torchao")
def test_passes_now():
    pass

def test_plain():
    pass
"""


@pytest.fixture
def setup(pytester: pytest.Pytester, env_file):
    pytester.makefile(".yaml", matrix=MATRIX)
    pytester.makepyfile(test_suite=TESTS)

    def run(env=MI50_ENV, *args: str, subprocess: bool = False) -> pytest.RunResult:
        path = env_file(env)
        argv = ("--rocm-matrix", "matrix.yaml", "--rocm-env", str(path), "-p", "no:cacheprovider", *args)
        return pytester.runpytest_subprocess(*argv) if subprocess else pytester.runpytest(*argv)

    return run


def test_mi50_gets_memory_fault_skip_with_reason(setup) -> None:
    result = setup(MI50_ENV, "--rocm-set", "lib.torchao=0.7.0", "-rs")
    result.stdout.fnmatch_lines(
        [
            "*SKIPPED*[gfx906-fault] memory access fault on any GPU op (https://example.invalid/fault)",
        ]
    )
    outcomes = result.parseoutcomes()
    assert outcomes["skipped"] == 1


def test_mi300_with_same_torch_is_not_skipped(setup) -> None:
    result = setup(MI300_ENV, "--rocm-set", "lib.torchao=0.7.0", "-rs")
    assert "gfx906-fault" not in result.stdout.str()
    assert result.parseoutcomes().get("skipped", 0) == 0


def test_signature_decides_known_bad_versus_fail(setup) -> None:
    result = setup(MI300_ENV, "--rocm-set", "lib.torchao=0.7.0", "-v")
    result.stdout.fnmatch_lines(
        [
            "*test_int1_error KNOWN-BAD*",
            "*test_other_error FAILED*",
            "*test_passes_now STALE-RULE*",
            "*known-bad rule(s) int1 apply to this test, but the failure text does not match*",
        ]
    )
    outcomes = result.parseoutcomes()
    assert outcomes["failed"] == 1 and outcomes["xfailed"] == 1 and outcomes["xpassed"] == 1
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_rule_inactive_without_library(setup) -> None:
    result = setup(MI300_ENV, "-v")  # torchao not installed: rule int1 does not hold
    result.stdout.fnmatch_lines(["*test_int1_error FAILED*", "*test_passes_now PASSED*"])


def test_strict_turns_stale_rule_into_failure(setup) -> None:
    result = setup(MI300_ENV, "--rocm-set", "lib.torchao=0.7.0", "--rocm-strict", "-v")
    result.stdout.fnmatch_lines(["*test_passes_now STALE-RULE*", "*[[]stale-rule[]] [[]int1[]]*"])
    assert result.parseoutcomes()["failed"] == 2


def test_exitfirst_sees_classified_outcomes(setup) -> None:
    """pytest's -x counts the classified report: a known-bad failure does not stop the run."""
    result = setup(MI300_ENV, "--rocm-set", "lib.torchao=0.7.0", "-x", "-v", "-k", "int1_error or plain")
    result.stdout.fnmatch_lines(["*test_int1_error KNOWN-BAD*", "*test_plain PASSED*"])
    assert result.ret == pytest.ExitCode.OK


def test_exitfirst_stops_at_strict_stale_rule(setup, pytester: pytest.Pytester) -> None:
    """...and a pass that --rocm-strict turns into a failure does stop it; the rest is "not run"."""
    result = setup(
        MI300_ENV,
        "--rocm-set",
        "lib.torchao=0.7.0",
        "--rocm-strict",
        "-x",
        "-v",
        "-k",
        "passes_now or plain",
        "--rocm-report",
        "r.md",
    )
    result.stdout.fnmatch_lines(["*test_passes_now STALE-RULE*"])
    assert "test_plain PASSED" not in result.stdout.str()
    assert result.parseoutcomes() == {"failed": 1, "deselected": 3}
    report = (pytester.path / "r.md").read_text()
    assert "Not run" in report and "test_suite.py::test_plain" in report


def test_quiet_run_letters_and_summary_words(setup) -> None:
    """Without -v the letters are pytest's (x, X); the short summary still names the outcomes."""
    result = setup(MI300_ENV, "--rocm-set", "lib.torchao=0.7.0", "-q", "-rxX", "-k", "int1_error or passes_now")
    result.stdout.fnmatch_lines(
        ["xX*", "*KNOWN-BAD test_suite.py::test_int1_error*", "*STALE-RULE test_suite.py::test_passes_now*"]
    )


def test_words_and_classification_under_xdist(setup) -> None:
    """Workers classify (once); the controller prints the words and counts the outcomes."""
    pytest.importorskip("xdist")
    result = setup(MI300_ENV, "--rocm-set", "lib.torchao=0.7.0", "-n", "2", "-v", subprocess=True)
    result.stdout.fnmatch_lines_random(
        ["*KNOWN-BAD*test_int1_error*", "*STALE-RULE*test_passes_now*", "*FAILED*test_other_error*"]
    )
    assert result.stdout.str().count("but the failure text does not match") == 1
    assert result.parseoutcomes() == {"failed": 1, "passed": 2, "xfailed": 1, "xpassed": 1}


def test_strict_from_ini(setup, pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nrocm_strict = true\n")
    result = setup(MI300_ENV, "--rocm-set", "lib.torchao=0.7.0")
    assert result.parseoutcomes()["failed"] == 2


def test_rule_without_signature_matches_any_failure(pytester: pytest.Pytester, env_file) -> None:
    pytester.makefile(".yaml", matrix=MATRIX)
    pytester.makepyfile(test_nodeid="def test_glob_a():\n    assert 0\n\ndef test_other():\n    assert 0\n")
    result = pytester.runpytest("--rocm-matrix", "matrix.yaml", "--rocm-env", str(env_file(MI300_ENV)), "-v")
    result.stdout.fnmatch_lines(["*test_glob_a KNOWN-BAD*", "*test_other FAILED*"])


def test_collect_only_lists_affected_tests(setup) -> None:
    result = setup(MI50_ENV, "--rocm-set", "lib.torchao=0.7.0", "--collect-only", "-q")
    result.stdout.fnmatch_lines(
        [
            "*rocmcompat: known-bad rules that apply*",
            "test_suite.py::test_gpu_op: SKIP [[]gfx906-fault[]] memory access fault on any GPU op*",
            "test_suite.py::test_int1_error: XFAIL [[]int1[]] torchao needs torch.int1*",
        ]
    )
    assert "test_plain:" not in result.stdout.str()


def test_header_shows_environment_and_cell(setup) -> None:
    result = setup(MI50_ENV)
    result.stdout.fnmatch_lines(
        [
            "rocmcompat: platform=rocm arch=gfx906 x1 rocm=6.2.4 * torch=2.5.1+rocm6.2 python=3.12.3 [[]replay: *env.json[]]",
            "rocmcompat: matrix 'TestMatrix' cell arch=gfx906 torch=2.5 python=3.12",
            # the matrix's two rules of three, and four built-in checks for what gfx906 lacks
            # (fp8, libraries' minimum arch, bitsandbytes' ROCm builds, hipBLASLt's targets): each
            # reaches only the tests that use what it names; flash-attn's, vLLM's and AITER's certain findings
            # and xformers' uncertain one (an unnamed release) are two rules of library-min-arch
            # and the fixture's peft 0.13.2 beside transformers 4.57.1: prefix tuning failed when run (a risk)
            "rocmcompat: 8 of 9 known-bad rules active (matrix.yaml)",
            "rocmcompat:   active: gfx906-fault, flaky-any, fp8-format-arch, library-min-arch, library-min-arch:at-risk, "
            "bitsandbytes-rocm-build, hipblaslt-arch-unsupported, pair-failed-when-run",
            "rocmcompat: checks: 6 finding(s) for tests that use what they name:",
            "rocmcompat:   [[]library-min-arch[]] vllm has no kernels for gfx906 *",
            "rocmcompat:   [[]library-min-arch[]] aiter has no kernels for gfx906 *",
        ]
    )


def test_header_outside_matrix(setup) -> None:
    result = setup(CPU_ENV)
    result.stdout.fnmatch_lines(
        [
            "rocmcompat: OUTSIDE matrix 'TestMatrix': platform is cpu, the matrix is for rocm; "
            "arch not detected (the matrix lists gfx906, gfx942); torch 2.13.0+cpu is not on the torch axis (2.4, 2.5)*",
        ]
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # the tests still ran


def test_overridden_run_is_labelled(setup) -> None:
    result = setup(
        CPU_ENV,
        "--rocm-set",
        "platform=rocm",
        "--rocm-set",
        "arch=gfx906",
        "--rocm-set",
        "torch=2.5.1+rocm6.2",
        "--rocm-set",
        "python=3.12.0",
    )
    result.stdout.fnmatch_lines(
        ["*[[]overridden: *env.json + platform=rocm; arch=gfx906; *[]]", "*cell arch=gfx906 torch=2.5 python=3.12"]
    )


def test_gpus_marker_skips_when_too_few(pytester: pytest.Pytester, env_file) -> None:
    pytester.makepyfile("""
        import pytest
        @pytest.mark.gpus(2)
        def test_two(): pass
        @pytest.mark.gpus(n=8)
        def test_eight(): pass
        @pytest.mark.gpus
        def test_one(): pass
    """)
    result = pytester.runpytest("--rocm-env", str(env_file(MI50_ENV)), "-rs", "--rocm-no-bundled")
    result.stdout.fnmatch_lines(["*needs 2 GPU(s), this environment has 1*", "*needs 8 GPU(s)*"])
    assert result.parseoutcomes() == {"passed": 1, "skipped": 2}
    result = pytester.runpytest("--rocm-env", str(env_file(MI300_ENV, "e8.json")), "--rocm-no-bundled")
    assert result.parseoutcomes() == {"passed": 3}


def test_gpus_marker_bad_count_is_usage_error(pytester: pytest.Pytester, env_file) -> None:
    pytester.makepyfile("import pytest\n@pytest.mark.gpus('two')\ndef test_x(): pass\n")
    result = pytester.runpytest_subprocess("--rocm-env", str(env_file()))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*test_x: gpus('two'): the GPU count must be a whole number >= 0"])


def test_markers_registered_under_strict_markers(pytester: pytest.Pytester, env_file) -> None:
    pytester.makepyfile("""
        import pytest
        @pytest.mark.uses("vllm", "ray")
        @pytest.mark.gpus(0)
        @pytest.mark.isolated(timeout=5)
        def test_x(): pass
    """)
    result = pytester.runpytest("--strict-markers", "--rocm-env", str(env_file()))
    assert result.ret == 0
    result = pytester.runpytest("--markers", "--rocm-env", str(env_file()))
    result.stdout.fnmatch_lines(
        [
            "@pytest.mark.uses(*libraries)*",
            "@pytest.mark.gpus(n=1)*",
            "@pytest.mark.isolated(timeout=None, reuse=None, fresh=True)*",
            "@pytest.mark.known_issue(rule_id)*",
        ]
    )


def test_known_issue_marker(pytester: pytest.Pytester, env_file) -> None:
    pytester.makefile(".yaml", matrix=MATRIX)
    pytester.makepyfile("""
        import pytest
        @pytest.mark.known_issue("int1")
        def test_declared():
            raise AttributeError("module 'torch' has no attribute 'int1'")
    """)
    args = ("--rocm-matrix", "matrix.yaml", "--rocm-env", str(env_file(MI300_ENV)))
    result = pytester.runpytest(*args, "--rocm-set", "lib.torchao=0.9.0")
    assert result.parseoutcomes() == {"xfailed": 1}
    result = pytester.runpytest(*args)  # rule's condition does not hold: a real failure
    assert result.parseoutcomes() == {"failed": 1}


def test_known_issue_unknown_rule_is_usage_error(pytester: pytest.Pytester, env_file) -> None:
    pytester.makefile(".yaml", matrix=MATRIX)
    pytester.makepyfile("""
        import pytest
        @pytest.mark.known_issue("int2")
        def test_declared(): pass
    """)
    result = pytester.runpytest_subprocess("--rocm-matrix", "matrix.yaml", "--rocm-env", str(env_file()))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*known_issue('int2') names no rule of matrix.yaml; did you mean 'int1'?*"])
    assert "Traceback" not in result.stderr.str() + result.stdout.str()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("--rocm-matrix", "bad.yaml"),
            "ERROR: rocmcompat: bad.yaml:2: known_bad[[]0[]].when.torch: '>=2.x' is not a valid version specifier*",
        ),
        (("--rocm-matrix", "missing.yaml"), "ERROR: rocmcompat: missing.yaml: file not found"),
        (("--rocm-env", "missing.json"), "ERROR: rocmcompat: missing.json: cannot read the recorded environment*"),
        (("--rocm-env", "bad.yaml"), "ERROR: rocmcompat: bad.yaml:1: not valid JSON*"),
        (("--rocm-set", "arch=mi300"), "ERROR: rocmcompat: --rocm-set 'arch=mi300': mi300 is not a GPU architecture*"),
        (("--rocm-set", "colour=blue"), "ERROR: rocmcompat: --rocm-set 'colour=blue': unknown key 'colour'*"),
    ],
)
def test_usage_errors_exit_4_without_traceback(pytester: pytest.Pytester, env_file, args, message) -> None:
    pytester.makefile(".yaml", bad="known_bad:\n  - {id: a, reason: r, when: {torch: '>=2.x'}}\n")
    pytester.makepyfile("def test_x(): pass\n")
    if "--rocm-env" not in args:
        args = (*args, "--rocm-env", str(env_file()))
    result = pytester.runpytest_subprocess(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert "Traceback" not in result.stderr.str() + result.stdout.str()


def test_matrix_from_ini(pytester: pytest.Pytester, env_file) -> None:
    pytester.makefile(".yaml", matrix=MATRIX)
    pytester.makeini("[pytest]\nrocm_matrix = matrix.yaml\n")
    pytester.makepyfile(test_suite=TESTS)
    result = pytester.runpytest("--rocm-env", str(env_file(MI50_ENV)), "-rs")
    result.stdout.fnmatch_lines(["*[[]gfx906-fault[]]*"])


def test_bundled_database_applies_without_matrix(pytester: pytest.Pytester, env_file) -> None:
    pytester.makepyfile("import pytest\n@pytest.mark.gpus(1)\ndef test_gpu(): pass\n")
    result = pytester.runpytest("--rocm-env", str(env_file(MI50_ENV)), "--collect-only")
    # the MI50 rule is contested (pytorch/pytorch#147626): it isolates the test, it does not skip it
    result.stdout.fnmatch_lines(
        ["*(bundled known_bad.yaml)", "*: ISOLATE [[]torch-2.5.1-rocm6.2-gfx906-memory-fault[]]*"]
    )
    result = pytester.runpytest("--rocm-env", str(env_file(MI50_ENV)), "--rocm-no-bundled")
    # no bundled rule; only the built-in checks' findings for what gfx906 lacks: fp8 and flash-attn kernels,
    # which reach only tests that use those, and say so, and the Triton torch 2.5.1 pins (3.1), which refuses
    # gfx906 (a problem with the stack for torch.compile/Triton tests, not for this one)
    out = result.stdout.str()
    result.stdout.fnmatch_lines(["*known-bad rules active (none (--rocm-no-bundled))*"])
    assert "torch-2.5.1-rocm6.2-gfx906-memory-fault" not in out
    result.stdout.fnmatch_lines(
        ["*checks: 1 problem(s) with this stack:*", "*[[]library-min-arch[]] triton 3.1.0 has no kernels for gfx906*"]
    )
    result.stdout.fnmatch_lines(["rocmcompat: checks: * finding(s) for tests that use what they name:"])
    assert result.parseoutcomes() == {"passed": 1}


def test_junit_properties_and_markdown_report(setup, pytester: pytest.Pytester) -> None:
    result = setup(
        MI300_ENV, "--rocm-set", "lib.torchao=0.7.0", "--junitxml", "out.xml", "--rocm-report", "reports/COMPAT.md"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    root = ET.parse(pytester.path / "out.xml").getroot()
    props = {}
    for case in root.iter("testcase"):
        props[case.get("name")] = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert props["test_int1_error"] == {
        "rocm_outcome": "known-bad",
        "rocm_rule": "int1",
        "rocm_uses": "torchao",
        "rocm_signature": "module 'torch' has no attribute 'int1'",
    }
    assert props["test_passes_now"]["rocm_outcome"] == "stale-rule"
    assert props["test_other_error"]["rocm_outcome"] == "fail"
    report = (pytester.path / "reports" / "COMPAT.md").read_text()
    assert "**OVERRIDDEN**" in report and "matrix 'TestMatrix' cell arch=gfx942 torch=2.5 python=3.12" in report
    assert "| int1 " in report and "1 known-bad" in report and "1 stale-rule" in report
    assert "test_suite.py::test_other_error" in report and "something else entirely" in report


def test_report_escapes_and_redacts(pytester: pytest.Pytester, env_file, monkeypatch) -> None:
    monkeypatch.setenv("HF_TOKEN", "hf_SuperSecretValue1234567890abcdef")
    pytester.makepyfile("""
        import os, pytest
        @pytest.mark.parametrize("x", ["a|b<c>&d"])
        def test_bad(x):
            raise ValueError("token " + os.environ["HF_TOKEN"] + " pipe | and <tag>\\nnext line")
    """)
    pytester.runpytest("--rocm-env", str(env_file()), "--rocm-report", "r.md")
    report = (pytester.path / "r.md").read_text()
    assert "hf_SuperSecretValue" not in report and "[redacted]" in report
    row = next(line for line in report.splitlines() if "test_bad" in line)
    assert "a&#124;b&lt;c&gt;&amp;d" in row and "<tag>" not in row and "&lt;tag&gt;" in row
    assert row.count("|") == 5  # 4 columns: no cell broke the table


def test_report_write_failure_is_an_error_line_not_a_traceback(pytester: pytest.Pytester, env_file) -> None:
    pytester.makepyfile("def test_x(): pass\n")
    target = pytester.path / "taken"
    target.mkdir()
    (target / "keep.txt").write_text("earlier results")
    result = pytester.runpytest_subprocess("--rocm-env", str(env_file()), "--rocm-report", str(target))
    result.stdout.fnmatch_lines(["*rocmcompat: could not write the report to *taken*", "*1 passed*"])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    assert (target / "keep.txt").read_text() == "earlier results"
    assert [p.name for p in pytester.path.iterdir() if p.name.startswith(".tmp-")] == []


def test_xdist_workers_get_the_controller_environment(pytester: pytest.Pytester, env_file) -> None:
    pytest.importorskip("xdist")
    pytester.makeconftest("""
        import json
        def pytest_configure(config):
            wi = getattr(config, "workerinput", None)
            if wi is not None:
                from pytest_rocmcompat.session.state import WORKER_ENV_KEY
                with open("worker-%s.json" % wi["workerid"], "w") as fh:
                    fh.write(wi[WORKER_ENV_KEY])
    """)
    pytester.makefile(".yaml", matrix=MATRIX)
    pytester.makepyfile(test_suite=TESTS)
    result = pytester.runpytest_subprocess(
        "-n",
        "2",
        "--rocm-matrix",
        "matrix.yaml",
        "--rocm-env",
        str(env_file(MI50_ENV)),
        "--rocm-set",
        "lib.torchao=0.7.0",
        "--rocm-report",
        "r.md",
        "-rs",
    )
    result.stdout.fnmatch_lines(["*[[]gfx906-fault[]]*"])
    assert result.parseoutcomes() == {"failed": 1, "passed": 1, "skipped": 1, "xfailed": 1, "xpassed": 1}
    import json

    for worker in ("gw0", "gw1"):
        data = json.loads((pytester.path / f"worker-{worker}.json").read_text())
        assert data["source"] == "overridden" and data["libraries"]["torchao"] == "0.7.0"
    report = (pytester.path / "r.md").read_text()
    assert "1 known-bad" in report and "1 stale-rule" in report


def test_report_path_from_ini(pytester: pytest.Pytester, env_file) -> None:
    pytester.makeini("[pytest]\nrocm_report = out/COMPAT.md\n")
    pytester.makepyfile("def test_x(): pass\n")
    pytester.runpytest("--rocm-env", str(env_file()))
    import re

    assert re.search(r"\| \*\*total\*\* +\| 1 ", (pytester.path / "out" / "COMPAT.md").read_text())


def test_matrix_suites_select_bundled_suite_directories(pytester: pytest.Pytester, env_file) -> None:
    for suite in ("gpu", "ppo", "libs"):
        pytester.makepyfile(**{f"suites/{suite}/test_{suite}": "def test_x(): pass\n"})
    pytester.makefile(".yaml", matrix="name: m\nsuites: [gpu, libs]\n")
    result = pytester.runpytest(
        "--rocm-matrix", "matrix.yaml", "--rocm-env", str(env_file()), "suites", "--collect-only", "-q"
    )
    result.stdout.fnmatch_lines(["suites/gpu/test_gpu.py::test_x", "suites/libs/test_libs.py::test_x"])
    assert "test_ppo" not in result.stdout.str()
    result = pytester.runpytest("--rocm-env", str(env_file()), "suites", "--collect-only", "-q")
    assert "suites/ppo/test_ppo.py::test_x" in result.stdout.str()  # no matrix: everything


def test_planted_secrets_reach_no_output_file(pytester: pytest.Pytester, env_file, monkeypatch) -> None:
    secrets = {
        "HF_TOKEN": "hf_PlantedTokenValue0123456789abcdefXYZ",
        "WANDB_API_KEY": "0123456789abcdef0123456789abcdef01234567",
        "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "GITHUB_TOKEN": "ghp_PlantedGithubToken0123456789abcdefgh",
    }
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    pytester.makepyfile("""
        import os, sys
        def test_prints_and_fails():
            for name in ("HF_TOKEN", "WANDB_API_KEY", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN"):
                print(name, os.environ[name])
                sys.stderr.write(os.environ[name] + "\\n")
            assert os.environ["HF_TOKEN"] == "wrong", os.environ["GITHUB_TOKEN"]
    """)
    result = pytester.runpytest_subprocess(
        "--rocm-env", str(env_file()), "--junitxml", "out.xml", "--rocm-report", "r.md", "-o", "junit_logging=all"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    junit, report = (pytester.path / "out.xml").read_text(), (pytester.path / "r.md").read_text()
    assert "[redacted]" in junit
    for value in secrets.values():
        assert value not in junit and value not in report
    ET.fromstring(junit)  # still well-formed XML
