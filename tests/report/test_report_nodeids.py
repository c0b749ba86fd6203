"""Merged reports as a CI maintainer pastes from them: node ids pytest accepts, private base
classes that stay in their file, replayed rows labelled by their cell, conflicts shown."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from pytest_rocmcompat.cli.main import main
from pytest_rocmcompat.report.html import render_html
from pytest_rocmcompat.report.junit_read import node_id, read_run, split_classname, suite_of_classname
from pytest_rocmcompat.report.merge import merge, read_runs
from tests.conftest import CPU_ENV

THIRD_PARTY = """
    import os
    import pytest

    class _BaseCls:
        def test_base(self):
            pass

    class TestPeftConfig:
        @pytest.mark.parametrize("name", ["Conv2d 1 LoRA", "a-b"])
        def test_x(self, name):
            pass

        class TestInner:
            def test_deep(self):
                pass

    def test_flaky():
        assert os.environ.get("FLAKY_FAILS") != "1", "shard two saw it fail"
    """


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\npython_classes = Test _Base*\n")
    path = pytester.path / "tests" / "test_config.py"
    path.parent.mkdir()
    path.write_text(textwrap.dedent(THIRD_PARTY), encoding="utf-8")
    (pytester.path / "cpu.json").write_text(CPU_ENV.to_json(), encoding="utf-8")
    return pytester


def _junit(project: pytest.Pytester, name: str, *extra: str) -> Path:
    project.runpytest("-p", "no:cacheprovider", "--rocm-env", "cpu.json", f"--junitxml={name}", *extra)
    return project.path / name


def test_merged_names_are_pasteable_node_ids(project: pytest.Pytester) -> None:
    cases = read_run(str(_junit(project, "a.xml"))).cases
    ids = sorted(c.test for c in cases)
    assert ids == sorted(
        [
            "tests/test_config.py::_BaseCls::test_base",
            "tests/test_config.py::TestPeftConfig::test_x[Conv2d 1 LoRA]",
            "tests/test_config.py::TestPeftConfig::test_x[a-b]",
            "tests/test_config.py::TestPeftConfig::TestInner::test_deep",
            "tests/test_config.py::test_flaky",
        ]
    )
    assert {c.suite for c in cases} == {"tests/test_config.py"}  # no bogus tests/test_config/_BaseCls.py
    # pasted back into pytest, each id selects exactly its test
    result = project.runpytest("-p", "no:cacheprovider", "--collect-only", "-q", *ids)
    collected = sorted(line for line in result.outlines if "::" in line)
    assert collected == ids


def test_split_classname_keeps_modules_and_classes_apart() -> None:
    assert split_classname("tests.test_utils._BaseCls") == ("tests/test_utils.py", ("_BaseCls",))
    assert split_classname("tests.test_x.TestA.TestB") == ("tests/test_x.py", ("TestA", "TestB"))
    assert split_classname("TestOnly") == ("TestOnly.py", ())  # a module keeps at least one name
    assert suite_of_classname("tests.test_utils._BaseCls") == "tests/test_utils.py"
    assert suite_of_classname("suites.libs.test_peft.TestLora") == "libs"
    # xunit1's file attribute, when written, gives the path exactly (dots in folder names included)
    assert node_id("pkg.v1.test_a.TestC", "test_y", "pkg.v1/test_a.py") == "pkg.v1/test_a.py::TestC::test_y"


def test_two_outcomes_of_one_test_in_one_cell_are_a_conflict(
    project: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _junit(project, "shard1.xml")
    monkeypatch.setenv("FLAKY_FAILS", "1")
    second = _junit(project, "shard2.xml")
    runs, _ = read_runs([str(first), str(second)])
    merged = merge(runs)
    (row,) = merged.rows  # one environment: one row
    assert {o.value for o in row.conflicts["tests/test_config.py::test_flaky"]} == {"pass", "fail"}
    out = tmp_path / "c.md"
    assert main(["report", str(first), str(second), "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    section = text.split("### Conflicts", 1)[1].split("\n## ", 1)[0]
    assert re.search(r"\| tests/test_config.py::test_flaky +\| fail, pass +\|", section)
    assert "⁉️ 1 conflict" in text.split("## What is broken")[0]  # the grid entry flags it, in words


def test_overridden_row_is_labelled_by_its_cell(project: pytest.Pytester, tmp_path: Path) -> None:
    (project.path / "m.yaml").write_text(
        "name: M\nplatform: rocm\naxes:\n  rocm: ['6.2']\n  torch: ['2.5']\n  python: ['3.12']\n", encoding="utf-8"
    )
    xml = _junit(
        project,
        "o.xml",
        "--rocm-matrix=m.yaml",
        "--rocm-set",
        "platform=rocm",
        "--rocm-set",
        "arch=gfx906",
        "--rocm-set",
        "torch=2.5.1+rocm6.2",
        "--rocm-set",
        "python=3.12.3",
    )
    props = read_run(str(xml)).props
    assert props.get("rocm_cell.rocm") == "6.2" and not props.get("rocm_env.rocm")
    runs, _ = read_runs([str(xml)])
    (row,) = merge(runs).rows
    assert row.label["arch"] == "gfx906" and row.label["runtime"] == "ROCm 6.2"
    assert "overridden" not in row.label["arch"]


def test_html_class_names_are_valid_css(project: pytest.Pytester) -> None:
    runs, _ = read_runs([str(_junit(project, "h.xml"))])
    page = render_html(merge(runs))
    style = page.split("<style>", 1)[1].split("</style>", 1)[0]
    for selector in re.findall(r"^([^{}]+)\{", style, flags=re.M):
        for part in selector.split(","):  # element, then .class names without spaces
            assert re.fullmatch(r"([a-z]+)?(\.[a-z][a-z0-9-]*)*", part.strip()), part
    assert "td.o.not run" not in style and "td.o.not-run{background" in style


def test_run_report_groups_skip_reasons_with_counts(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_s="""
        import pytest

        @pytest.mark.parametrize("i", range(3))
        def test_needs_lib(i):
            pytest.skip("library foo is not installed")

        def test_other():
            pytest.skip("only matters on ROCm | (platform is cpu)")
        """
    )
    (pytester.path / "cpu.json").write_text(CPU_ENV.to_json(), encoding="utf-8")
    pytester.runpytest("-p", "no:cacheprovider", "--rocm-env", "cpu.json", "--rocm-report=r.md")
    text = (pytester.path / "r.md").read_text(encoding="utf-8")
    section = text.split("## Skip reasons", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("| ") and "reason" not in line]
    assert re.match(r"\| library foo is not installed +\| 3 +\|", lines[0])
    assert re.match(r"\| only matters on ROCm &#124; \(platform is cpu\) +\| 1 +\|", lines[1])


def test_baseline_with_old_style_names_still_finds_regressions(
    project: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    before = _junit(project, "before.xml")
    assert main(["report", str(before), "-o", str(tmp_path / "b.md"), "--json", str(tmp_path / "b.json")]) == 0
    data = json.loads((tmp_path / "b.json").read_text(encoding="utf-8"))
    for cell in data["cells"]:  # as an earlier release wrote it: classname::name
        cell["tests"] = {
            t.replace(".py::", "::", 1)
            .replace("/", ".")
            .replace("::_BaseCls::", "._BaseCls::")
            .replace("::TestPeftConfig::TestInner::", ".TestPeftConfig.TestInner::")
            .replace("::TestPeftConfig::", ".TestPeftConfig::"): o
            for t, o in cell["tests"].items()
        }
    assert "tests.test_config::test_flaky" in data["cells"][0]["tests"]
    (tmp_path / "b.json").write_text(json.dumps(data), encoding="utf-8")
    monkeypatch.setenv("FLAKY_FAILS", "1")
    after = _junit(project, "after.xml")
    out = tmp_path / "a.md"
    assert main(["report", str(after), "-o", str(out), "--baseline", str(tmp_path / "b.json")]) == 0
    section = out.read_text(encoding="utf-8").split("## Regressions against the baseline", 1)[1].split("\n## ")[0]
    assert re.search(r"\| tests/test_config.py::test_flaky +\| pass -&gt; fail +\|", section)
