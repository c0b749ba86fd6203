"""Failures (by diagnosis) count distinct tests (issue 27 item 6): one test failing on three stacks
is one test with three results, and each example is named once. Before 1e5743b the report tests'
real runs read "5 tests" for 2 and listed ``test_other_error`` twice.

The truth is read from the JUnit files the three cells wrote, not from the report.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

from pytest_rocmcompat.cli.main import main

HEADING = "Failures (by diagnosis)"
NOT_FAILURES = {"known-bad", "stale-rule"}  # rocm_outcome values a <failure> element may carry


def failing_results(runs: Path) -> Counter:
    """(test, stack file) pairs that failed, crashed or hung: test name -> number of stacks."""
    found: Counter = Counter()
    for xml in sorted(runs.glob("*.xml")):
        for case in ET.parse(xml).getroot().iter("testcase"):
            props = {p.get("name"): p.get("value") for p in case.iter("property")}
            failed = case.find("failure") is not None or case.find("error") is not None
            if failed and props.get("rocm_outcome") not in NOT_FAILURES:
                found[case.get("name")] += 1
    return found


def markdown_rows(text: str) -> list[dict[str, str]]:
    section = text.split(f"### {HEADING}", 1)[1]
    lines = [line for line in section.split("\n## ", 1)[0].split("\n### ", 1)[0].splitlines() if line.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    return [dict(zip(header, (c.strip() for c in line.strip("|").split("|")), strict=True)) for line in lines[2:]]


def html_rows(text: str) -> list[dict[str, str]]:
    table = text.split(f"<h3>{HEADING}</h3>", 1)[1].split("</table>", 1)[0]
    header = re.findall(r"<th>(.*?)</th>", table)
    return [dict(zip(header, re.findall(r"<td>(.*?)</td>", row), strict=True)) for row in table.split("<tr>")[2:]]


def test_failures_by_diagnosis_count_distinct_tests_and_name_each_once(cell_runs: Path, tmp_path: Path) -> None:
    truth = failing_results(cell_runs)
    assert truth["test_other_error"] == 3 and truth["test_gemm"] == 2  # one test on three stacks, one on two
    out, page = tmp_path / "c.md", tmp_path / "c.html"
    assert main(["report", str(cell_runs / "*.xml"), "-o", str(out), "--html", str(page)]) == 0
    for rows in (markdown_rows(out.read_text(encoding="utf-8")), html_rows(page.read_text(encoding="utf-8"))):
        assert sum(int(r["tests"]) for r in rows) == len(truth), rows  # each failing test in one group here
        results = [r[next(k for k in r if k.startswith("results") or k == "outcomes")] for r in rows]
        assert sum(int(n) for cell in results for n in re.findall(r"(\d+) \w+", cell)) == sum(truth.values())
        for row in rows:
            examples = row["for example"].split()
            assert len(examples) == len(set(examples)), row  # each example named once
        plain = next(r for r in rows if r["diagnosis"] == "fail, no known signature")
        assert plain["tests"] == "2", plain
        assert sorted(e.rsplit("::", 1)[1] for e in plain["for example"].split()) == ["test_gemm", "test_other_error"]
