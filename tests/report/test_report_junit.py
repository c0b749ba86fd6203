"""JUnit written by real plugin runs: testsuite properties, testcase properties, read back as outcomes."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pytest_rocmcompat.outcomes import Outcome
from pytest_rocmcompat.report.junit_read import JUnitReadError, read_run, suite_of_classname
from tests.conftest import REPO

from .conftest import SECRET, make_project, run_cell


def suite_props(path: Path) -> dict[str, str]:
    root = ET.parse(path).getroot()
    return {p.get("name"): p.get("value") for p in root.find("testsuite").find("properties")}


def test_testsuite_properties_describe_environment_and_cell(cell_runs: Path) -> None:
    props = suite_props(cell_runs / "mi300.xml")
    assert props["rocm_env.source"] == "overridden"
    assert props["rocm_env.platform"] == "rocm"
    assert props["rocm_env.arch"] == "gfx942"
    assert props["rocm_env.gpus"] == "8"
    assert props["rocm_env.torch"] == "2.5.1+rocm6.2"
    assert props["rocm_lib.torchao"] == "0.7.0"  # --rocm-set: an overridden replay
    assert props["rocm_matrix"] == "ReportMatrix"
    assert props["rocm_cell"] == "arch=gfx942 torch=2.5 python=3.12"
    assert props["rocm_cell.arch"] == "gfx942"
    assert '"reason": "torchao needs torch.int1"' in props["rocm_rule_info.int1"]
    assert props["rocm_var.HIP_VISIBLE_DEVICES"] == "0"


def test_replay_and_override_are_labelled(cell_runs: Path) -> None:
    assert suite_props(cell_runs / "cpu.xml")["rocm_env.source"] == "replay"
    assert suite_props(cell_runs / "cpu.xml")["rocm_env.origin"] == "cpu.json"
    assert suite_props(cell_runs / "mi300.xml")["rocm_env.origin"] == "mi300.json + lib.torchao=0.7.0"


def test_secrets_are_redacted_from_properties(cell_runs: Path) -> None:
    text = (cell_runs / "mi50.xml").read_text(encoding="utf-8")
    assert SECRET not in text
    assert suite_props(cell_runs / "mi50.xml")["rocm_var.MY_TOKEN"] == "[redacted]"


def test_every_testcase_is_classified_on_reading(cell_runs: Path) -> None:
    run = read_run(str(cell_runs / "mi300.xml"))
    got = {c.test: c.outcome for c in run.cases}
    assert got == {
        "suites/gpu/test_gpu.py::test_gpu_op": Outcome.PASS,
        "suites/gpu/test_gpu.py::test_gemm": Outcome.PASS,
        "suites/collectives/test_coll.py::test_allreduce_sizes": Outcome.PASS,
        "suites/libs/test_torchao.py::test_int1_error": Outcome.KNOWN_BAD,
        "suites/libs/test_torchao.py::test_other_error": Outcome.FAIL,
        "suites/libs/test_torchao.py::test_passes_now": Outcome.STALE_RULE,
        "suites/libs/test_torchao.py::test_own_xfail": Outcome.XFAIL,  # the test's own xfail is not ours
        "tests/test_misc.py::test_plain": Outcome.PASS,
        "tests/test_misc.py::TestGroup::test_in_class": Outcome.PASS,
        "tests/test_misc.py::test_crash": Outcome.CRASHED,
    }
    by_test = {c.test: c for c in run.cases}
    assert by_test["suites/libs/test_torchao.py::test_int1_error"].rule == "int1"
    assert by_test["suites/libs/test_torchao.py::test_passes_now"].rule == "int1"
    assert by_test["suites/libs/test_torchao.py::test_other_error"].uses == ("torchao",)
    assert by_test["tests/test_misc.py::test_crash"].message  # what the isolation runner saw


def test_skip_by_rule_and_floor_failure_read_back(cell_runs: Path) -> None:
    by_test = {c.test: c for c in read_run(str(cell_runs / "mi50.xml")).cases}
    skip = by_test["suites/gpu/test_gpu.py::test_gpu_op"]
    assert (skip.outcome, skip.rule) == (Outcome.SKIPPED, "gfx906-fault")
    gemm = by_test["suites/gpu/test_gpu.py::test_gemm"]
    assert gemm.outcome is Outcome.FAIL  # 120 TFLOP/s under its 300 floor
    (m,) = gemm.measurements
    assert (m.name, m.value, m.floor, m.peak, m.unit) == ("gemm_bf16_tflops", 120.0, 300.0, 1307.0, "TFLOP/s")
    sizes = by_test["suites/collectives/test_coll.py::test_allreduce_sizes"].measurements
    assert [(m.name, m.detail, m.value) for m in sizes] == [
        ("allreduce_busbw_gbps", "1 MiB", 20.0),
        ("allgather_busbw_gbps@1MiB", "1 MiB bf16", 10.0),
        ("allreduce_busbw_gbps", "64 MiB", 150.0),
        ("allgather_busbw_gbps@64MiB", "64 MiB bf16", 75.0),
    ]


def test_suite_of_classname() -> None:
    assert suite_of_classname("suites.gpu.test_smoke") == "gpu"
    assert suite_of_classname("suites.gpu.test_smoke.TestA") == "gpu"
    assert suite_of_classname("tests.test_misc.TestGroup") == "tests/test_misc.py"
    assert suite_of_classname("test_pin") == "test_pin.py"
    assert suite_of_classname("") == "(no classname)"


def test_committed_real_runs_read(tmp_path: Path) -> None:
    h100 = read_run(str(REPO / "reports/h100/junit.xml"))
    assert [c.outcome for c in h100.cases] == [Outcome.PASS, Outcome.PASS]
    assert {c.suite for c in h100.cases} == {"gpu"}
    pin = read_run(str(REPO / "reports/h200x2-pinning/junit_pin_n2.xml"))
    assert sorted(c.outcome.value for c in pin.cases) == ["pass"] * 6 + ["skipped"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('<?xml version="1.0"?><testsuites><testsuite name="x"><testcase', "not well-formed XML"),
        ("", "not well-formed XML"),
        ("<html><body/></html>", "root element <html> is not <testsuites> or <testsuite>"),
    ],
)
def test_corrupt_files_raise_a_clear_error(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "bad.xml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(JUnitReadError, match=expected) as info:
        read_run(str(path))
    assert str(path) in str(info.value)


def test_bare_testsuite_root_reads(tmp_path: Path) -> None:
    path = tmp_path / "one.xml"
    path.write_text(
        '<testsuite name="s"><testcase classname="a" name="b"><error message="boom"/></testcase>'
        '<testcase classname="a" name="c"><skipped message="no"/></testcase></testsuite>'
    )
    cases = read_run(str(path)).cases
    assert [(c.outcome, c.message) for c in cases] == [(Outcome.FAIL, "boom"), (Outcome.SKIPPED, "no")]


def test_xdist_controller_writes_the_properties(tmp_path: Path) -> None:
    pytest.importorskip("xdist")
    make_project(tmp_path)
    run_cell(tmp_path, "mi300", "-n", "2", "--rocm-set", "lib.torchao=0.7.0", "suites")
    text = (tmp_path / "mi300.xml").read_text(encoding="utf-8")
    assert text.count('name="rocm_env.platform"') == 1  # one testsuite property block, from the controller
    run = read_run(str(tmp_path / "mi300.xml"))
    assert run.props["rocm_cell"] == "arch=gfx942 torch=2.5 python=3.12"
    got = {c.test.split("::")[1]: c.outcome.value for c in run.cases}
    assert got == {
        "test_gpu_op": "pass",
        "test_gemm": "pass",
        "test_allreduce_sizes": "pass",
        "test_int1_error": "known-bad",
        "test_other_error": "fail",
        "test_passes_now": "stale-rule",
        "test_own_xfail": "xfail",
    }
    assert {c.test.split("::")[1] for c in run.cases if c.uses == ("torchao",)} == {
        "test_int1_error",
        "test_other_error",
        "test_passes_now",
    }


def test_run_report_names_the_active_rules(pytester: pytest.Pytester) -> None:
    """The run report says which known-bad rules this stack is judged against, not only how many."""
    pytester.makefile(
        ".yaml",
        m="name: m\nknown_bad:\n"
        "  - id: always-on\n    reason: 'judged here <b>'\n    links: ['https://example.invalid/a']\n    action: xfail\n"
        "  - id: never-on\n    reason: r\n    when: {platform: rocm}\n    action: skip\n",
    )
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest_subprocess("--rocm-matrix", "m.yaml", "--rocm-report", "r.md", "-p", "no:cacheprovider")
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    report = (pytester.path / "r.md").read_text()
    assert "1 of 2 known-bad rules active." in report
    row = next(line for line in report.splitlines() if "always-on" in line)
    assert "xfail" in row and "judged here &lt;b&gt;" in row and "https://example.invalid/a" in row
    assert "never-on" not in report


def test_rules_file_is_named_without_a_local_path(tmp_path: Path) -> None:
    """An absolute --rocm-matrix is written relative to the rootdir; a bundled one by its bundled name."""
    make_project(tmp_path)
    result = run_cell(tmp_path, "cpu", "--rocm-matrix", str(tmp_path / "matrix.yaml"), junit="own.xml")
    assert (tmp_path / "own.xml").is_file(), result.stdout + result.stderr
    assert suite_props(tmp_path / "own.xml")["rocm_rules"].endswith("active (matrix.yaml)")
    result = run_cell(tmp_path, "cpu", "--rocm-matrix", "cpu", junit="bundled.xml")
    assert (tmp_path / "bundled.xml").is_file(), result.stdout + result.stderr
    assert suite_props(tmp_path / "bundled.xml")["rocm_rules"].endswith("active (bundled cpu.yaml)")
    for name in ("own.xml", "bundled.xml"):
        assert str(tmp_path) not in (tmp_path / name).read_text(encoding="utf-8").split("<testcase")[0]


def test_rules_file_written_as_an_absolute_path_is_read_back_without_it() -> None:
    """reports/h100-wheel/junit.xml was written by an installed wheel with the absolute path of
    its bundled matrix: the reader publishes the bundled name only."""
    path = REPO / "reports" / "h100-wheel" / "junit.xml"
    assert "/site-packages/pytest_rocmcompat/bundled_matrices/h100.yaml" in path.read_text(encoding="utf-8")
    assert read_run(str(path)).props["rocm_rules"] == "0 of 49 active (bundled h100.yaml)"
    for other in sorted((REPO / "reports").rglob("*.xml")):
        value = read_run(str(other)).props.get("rocm_rules", "")
        assert "(/" not in value and "/tmp" not in value and "/work" not in value, (other, value)
