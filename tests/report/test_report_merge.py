"""``rocmcompat report``: many real JUnit files -> one table (Markdown, HTML, JSON), not-run cells, baselines."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from pytest_rocmcompat.cli.main import main
from tests.conftest import REPO

from .conftest import make_project, run_cell

REAL = [str(REPO / "reports/h100/junit.xml"), str(REPO / "reports/h200x2-pinning/junit_pin_n2.xml")]


def report(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "pytest_rocmcompat", "report", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def tables(markdown: str) -> list[list[str]]:
    """The GitHub tables of a document, as lists of lines."""
    found, current = [], []
    for line in markdown.splitlines():
        if line.startswith("|"):
            current.append(line)
        elif current:
            found.append(current)
            current = []
    return found + ([current] if current else [])


def grid_rows(markdown: str) -> dict[str, dict[str, str]]:
    """Compatibility grid: first header cell 'arch'; rows keyed by 'arch / runtime' (or their libraries)."""
    grid = next(t for t in tables(markdown) if t[0].split("|")[1].strip() == "arch")
    header = [c.strip() for c in grid[0].strip("|").split("|")]
    rows = {}
    for line in grid[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        key = f"{cells[0]} / {cells[1]}" if cells[0] != "?" else cells[3]
        rows[key] = dict(zip(header, cells))
    return rows


def test_merge_cells_into_one_table(cell_runs: Path, tmp_path: Path) -> None:
    out = tmp_path / "COMPAT.md"
    assert main(["report", str(cell_runs / "*.xml"), *REAL, "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    rows = grid_rows(text)
    mi300 = rows["gfx942 (AMD Instinct MI300X x8) / ROCm 6.2.4"]
    assert mi300["source"] == "override"
    assert mi300["gpu"] == "✅ 2 pass"
    assert mi300["libs"] == "❌ 1 fail · ♻️ 1 stale-rule · ⚠️ 1 known-bad · ➖ 1 xfail"  # worst first; own xfail ➖
    assert mi300["tests/test_misc.py"] == "💥 1 crashed · ✅ 2 pass"
    assert mi300["torch · python"] == "2.5.1+rocm6.2 · py 3.12.3"
    assert "torchao 0.7.0" in mi300["libraries"] and not any(k.startswith("lib ") for k in mi300)
    mi50 = rows["gfx906 (AMD Instinct MI50 x1) / ROCm 6.2.4"]
    assert mi50["gpu"] == "❌ 1 fail · ⏭️ 1 skipped"  # gemm under its floor; the fault rule's skip
    cpu = rows["no GPU / CPU"]
    assert cpu["source"] == "replay (cpu.json)"
    assert cpu["torch · python"].startswith("2.13.0+cpu")
    unknown = [r for k, r in rows.items() if r["source"] == "unknown"]
    assert len(unknown) == 2  # the committed real runs, written without the plugin's properties
    assert {r["gpu"] for r in unknown} == {"✅ 2 pass", ""}
    assert any(r["test_pin.py"] == "✅ 6 pass · ⏭️ 1 skipped" for r in unknown)
    assert len(next(t for t in tables(text) if "arch" in t[0])[0].strip("|").split("|")) <= 12
    # sections in reading order: grid, what is broken, skip reasons, headline figures, details
    order = [
        text.index(h)
        for h in (
            "## Compatibility",
            "## What is broken",
            "## Skip reasons",
            "## Headline figures",
            "## Details",
            "## Legend",
        )
    ]
    assert order == sorted(order)
    broken = text.split("## What is broken", 1)[1].split("\n## ", 1)[0]
    assert re.search(
        r"\| int1 +\| xfail +\| torchao needs torch.int1 +\| https://example.invalid/int1 +\| gfx906 .*: "
        r"1 stale-rule, 1 known-bad; gfx942",
        broken,
    )
    assert "gfx906-fault" in broken and "memory access fault on any GPU op" in broken
    assert "### Stale rules" in broken
    assert re.search(
        r"\| crashed, no known signature +\| 1 +\| 1 crashed +\| gfx942 .*\(1\) +\| "
        r"tests/test_misc.py::test_crash +\|",
        broken,
    )
    # two distinct tests (test_gemm below its floor on two stacks, test_other_error on three): 2 tests,
    # 5 results, each example named once
    assert re.search(
        r"\| fail, no known signature +\| 2 +\| 5 fail +\| gfx906 .*\(2\); gfx942 .*\(1\); .*\| "
        r"suites/gpu/test_gpu.py::test_gemm suites/libs/test_torchao.py::test_other_error +\|",
        broken,
    )
    assert broken.count("suites/libs/test_torchao.py::test_other_error") == 1
    skips = text.split("## Skip reasons", 1)[1].split("\n## ", 1)[0]
    assert re.search(
        r"\| \[gfx906-fault\] memory access fault on any GPU op \(https://example.invalid/fault\) +\| 1 +\| "
        r"gfx906 .*\(1\) +\|",
        skips,
    )
    heads = text.split("## Headline figures", 1)[1].split("\n## ", 1)[0]
    assert re.search(
        r"gfx942 .*\| GEMM bf16 +\| 650 TFLOP/s +\| 300 ✅ met +\| 50% +\| suites/gpu/test_gpu.py::test_gemm", heads
    )
    assert re.search(r"gfx906 .*\| GEMM bf16 +\| 120 TFLOP/s +\| 300 ❌ below +\| 9%", heads)
    assert re.search(r"gfx942 .*\| all_reduce bus bandwidth, largest size +\| 300 GB/s", heads)
    details = text.split("## Details", 1)[1]
    assert re.search(r"gemm_bf16_tflops +\| 4096\^3 +\| 120 TFLOP/s +\| 300 +\| 9% +\| ❌ below floor", details)
    per_size = details.split("#### allreduce_busbw_gbps by size (GB/s)", 1)[1].split("\n#", 1)[0]
    assert re.search(r"\| cell +\| test +\| 1 MiB +\| 64 MiB +\|", per_size)
    assert re.search(r"gfx942 .*\| suites/collectives/test_coll.py::test_allreduce_sizes +\| 40 +\| 300 +\|", per_size)
    assert re.search(r"\| cell +\| test +\| 1MiB +\| 64MiB +\|", details.split("#### allgather_busbw_gbps by size")[1])
    # a failure message with | < > & is escaped, every table keeps its column count
    assert "something else &#124; &lt;entirely&gt; &amp; more" in text
    for table in tables(text):
        assert len({line.count("|") for line in table}) == 1, table


def test_corrupt_and_truncated_files_are_named_and_the_rest_merged(cell_runs: Path, tmp_path: Path) -> None:
    good = tmp_path / "good.xml"
    shutil.copy(cell_runs / "cpu.xml", good)
    truncated = tmp_path / "truncated.xml"
    truncated.write_text((cell_runs / "mi50.xml").read_text(encoding="utf-8")[:700], encoding="utf-8")
    foreign = tmp_path / "foreign.xml"
    foreign.write_text("<project><name>not junit</name></project>", encoding="utf-8")
    result = report(str(tmp_path / "*.xml"), "-o", str(tmp_path / "out.md"))
    assert result.returncode == 0, result.stderr
    assert f"warning: skipped {truncated}:1:" in result.stderr and "not well-formed XML" in result.stderr
    assert f"warning: skipped {foreign}: root element <project>" in result.stderr
    assert "Traceback" not in result.stderr
    text = (tmp_path / "out.md").read_text(encoding="utf-8")
    assert "1 cell(s) from 1 JUnit file(s)" in text
    assert "truncated.xml" in text and "> **Inputs left out**" in text


def test_no_input_is_a_clear_error(tmp_path: Path) -> None:
    result = report(str(tmp_path / "missing/*.xml"), "-o", str(tmp_path / "out.md"))
    assert result.returncode == 2
    assert result.stderr.startswith("rocmcompat report: no JUnit file matched")
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert not (tmp_path / "out.md").exists()


def test_only_unreadable_files_exit_1(tmp_path: Path) -> None:
    (tmp_path / "a.xml").write_text("<testsuites><testsuite>", encoding="utf-8")
    result = report(str(tmp_path / "a.xml"))
    assert result.returncode == 1
    assert "none of the 1 file(s) could be read" in result.stderr and "Traceback" not in result.stderr


def test_matrix_lists_planned_cells_not_run(cell_runs: Path, tmp_path: Path) -> None:
    """Planned cells without results are one line of the grid (not a row each), listed below it."""
    out = tmp_path / "c.md"
    assert main(["report", str(cell_runs), "--matrix", str(cell_runs / "matrix.yaml"), "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "3 cell(s) from 3 JUnit file(s); 2 planned cell(s) not run." in text
    planned = [r for r in grid_rows(text).values() if r["source"].startswith("not run")]
    assert [(r["arch"], r["runtime"], r["torch · python"], r["source"]) for r in planned] == [
        ("gfx906, gfx942", "ROCm", "2.4 · py 3.12", "not run (2 planned cells)")
    ]
    assert planned[0]["gpu"] == "⬜ not run"
    listed = text.split("<details><summary>2 planned cells of the matrix without results</summary>", 1)[1]
    listed = listed.split("</details>", 1)[0]
    assert re.search(r"\| gfx906 +\| ROCm +\| 2.4 +\| 3.12 +\| +\| arch=gfx906 torch=2.4 python=3.12 +\|", listed)
    assert re.search(r"\| gfx942 +\| ROCm +\| 2.4 +\| 3.12 +\| +\| arch=gfx942 torch=2.4 python=3.12 +\|", listed)


def test_the_h100_matrix_collapses_its_planned_cells_to_one_line(tmp_path: Path) -> None:
    """report --matrix matrices/h100.yaml over the committed runs: 72 planned cells were 72 grid rows."""
    out = tmp_path / "c.md"
    # the committed runs only: CI's main job writes reports/ci/ (gitignored, as reports/local/) first
    runs = REPO / "reports"
    committed = [str(p) for p in sorted(runs.rglob("*.xml")) if p.relative_to(runs).parts[0] not in ("ci", "local")]
    args = ["report", *committed, "--matrix", "h100", "-o", str(out), "--html", str(tmp_path / "c.html")]
    assert main([*args, "--site", str(tmp_path / "site")]) == 0
    grid = grid_rows(out.read_text(encoding="utf-8"))
    assert len(grid) == 6  # five stacks, one line of planned cells
    assert [r["source"] for r in grid.values()].count("not run (72 planned cells)") == 1
    for page in (tmp_path / "c.html", tmp_path / "site" / "index.html"):
        grid_html = page.read_text(encoding="utf-8").split('<table id="grid">', 1)[1].split("</table>", 1)[0]
        assert grid_html.count("<tr id=") == 6 and grid_html.count('id="s-planned"') == 1, page
        assert "<summary>72 planned cells of the matrix without results</summary>" in page.read_text("utf-8")


def test_bad_matrix_or_baseline_is_one_paragraph(cell_runs: Path, tmp_path: Path) -> None:
    (tmp_path / "old.json").write_text("{not json", encoding="utf-8")
    result = report(str(cell_runs / "cpu.xml"), "--baseline", str(tmp_path / "old.json"))
    assert result.returncode == 1
    assert f"{tmp_path / 'old.json'}:1: the baseline is not valid JSON" in result.stderr
    assert "Traceback" not in result.stderr


def test_baseline_flags_pass_to_fail_and_dropped_measurements(cell_runs: Path, tmp_path: Path) -> None:
    old = tmp_path / "old.json"
    assert main(["report", str(cell_runs), "-o", str(tmp_path / "a.md"), "--json", str(old)]) == 0
    data = json.loads(old.read_text(encoding="utf-8"))
    mi300 = next(c for c in data["cells"] if "MI300X" in c["key"])
    assert mi300["tests"]["suites/libs/test_torchao.py::test_other_error"] == "fail"
    mi300["tests"]["suites/libs/test_torchao.py::test_other_error"] = "pass"  # it passed last time
    for m in mi300["measurements"]:
        if m["name"] == "gemm_bf16_tflops":
            m["value"] = 800.0  # 650 now: -18.75%
        if m["detail"] == "1 MiB":
            m["value"] = 42.0  # 40 now: -4.8%, inside the threshold
    old.write_text(json.dumps(data), encoding="utf-8")
    out = tmp_path / "b.md"
    args = ["report", str(cell_runs), "-o", str(out), "--baseline", str(old)]
    assert main(args) == 0
    text = out.read_text(encoding="utf-8")
    section = text.split("## Regressions against the baseline", 1)[1].split("\n## ", 1)[0]
    assert "suites/libs/test_torchao.py::test_other_error | pass -&gt; fail" in section
    assert "gemm_bf16_tflops 800 -&gt; 650 TFLOP/s (-18.8%) [4096^3]" in section
    assert "allreduce" not in section
    assert main([*args, "--fail-on-regression"]) == 1
    assert main([*args, "--threshold", "25"]) == 0
    assert "gemm_bf16_tflops" not in out.read_text(encoding="utf-8").split("## Regressions", 1)[1].split("\n## ")[0]


def test_html_is_self_contained_and_colour_coded(cell_runs: Path, tmp_path: Path) -> None:
    page = tmp_path / "c.html"
    assert main(["report", str(cell_runs), "-o", str(tmp_path / "c.md"), "--html", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"<script|<link|<img|url\(|@import", text)  # no network, nothing external
    assert 'class="o pass" data-outcome="pass"' in text
    assert 'class="o fail" data-outcome="fail"' in text
    assert "something else | &lt;entirely&gt; &amp; more" in text


def test_step_summary_appends_the_run_report(tmp_path: Path) -> None:
    make_project(tmp_path)
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    environ = {**os.environ, "GITHUB_STEP_SUMMARY": str(summary)}
    run_cell(tmp_path, "mi300", "suites/collectives", "suites/gpu", environ=environ)
    run_cell(tmp_path, "cpu", "suites/gpu", environ=environ)
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n")
    assert text.count("# rocmcompat run report") == 2
    assert "### allreduce_busbw_gbps by size (suites/collectives/test_coll.py::test_allreduce_sizes)" in text
    assert re.search(r"\| 64 MiB +\| 300 GB/s", text)
    assert "gemm_bf16_tflops" in text
    assert re.search(
        r"### allgather_busbw_gbps by size .*\n\n\| size +\| value .*\n.*\n\| 1MiB +\| 20 GB/s "
        r".*\| 1 MiB bf16 +\|",
        text,
    )


def test_split_sized_groups_size_suffixed_and_multi_detail_figures() -> None:
    from pytest_rocmcompat.report.sizes import split_sized
    from pytest_rocmcompat.session.measurements import Measurement

    t = "suites/collectives/test_collectives.py::test_bandwidth[nccl-8-all_reduce]"
    figures = [
        (t, Measurement(f"allreduce_busbw_gbps[nccl-8]@{s}", v, "GB/s")) for s, v in (("4KiB", 1.0), ("1GiB", 350.0))
    ]
    figures.append((t, Measurement("allreduce_busbw_gbps[nccl-8]", 350.0, "GB/s", floor=250.0)))  # the headline figure
    figures += [
        ("t2", Measurement("copy_d2d_gbps", v, "GB/s", detail=d)) for d, v in (("1 MiB", 10.0), ("1 GiB", 900.0))
    ]
    figures.append(("t3", Measurement("gemm_bf16_tflops", 600.0, "TFLOP/s")))
    flat, sized = split_sized(figures)
    assert [(t_, m.name) for t_, m in flat] == [(t, "allreduce_busbw_gbps[nccl-8]"), ("t3", "gemm_bf16_tflops")]
    assert [(t_, name, [(s, m.value) for s, m in found]) for t_, name, found in sized] == [
        (t, "allreduce_busbw_gbps[nccl-8]", [("4KiB", 1.0), ("1GiB", 350.0)]),
        ("t2", "copy_d2d_gbps", [("1 MiB", 10.0), ("1 GiB", 900.0)]),
    ]


def test_markdown_keeps_each_emoji_beside_its_word(cell_runs: Path, tmp_path: Path) -> None:
    """GitHub renders the emoji; a viewer without an emoji font still reads the word beside each."""
    from pytest_rocmcompat.outcomes import SYMBOL, Outcome

    out = tmp_path / "COMPAT.md"
    assert main(["report", str(cell_runs), "--matrix", str(cell_runs / "matrix.yaml"), "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    words = {o: o.value for o in Outcome}
    symbols = {**{SYMBOL[o]: [w] for o, w in words.items()}, "⬜": ["not run"], "⁉️": ["conflict"]}
    symbols[SYMBOL[Outcome.PASS]] += ["met"]
    symbols[SYMBOL[Outcome.FAIL]] += ["below"]
    seen = 0
    for symbol, allowed in symbols.items():
        for match in re.finditer(re.escape(symbol), text):
            after = text[match.end() : match.end() + 40]
            ok = re.match(r"(?: \d+)? (?P<w>[\w -]+?)(?: ·| \||,|\.|$| floor)", after) or re.match(
                r" *\| (?P<w>[\w -]+?) +\|", after
            )  # the legend: symbol, then its word in the next column
            assert ok and ok.group("w").strip() in allowed, (symbol, after)
            seen += 1
    assert seen > 10
    grid = grid_rows(text)
    entries = [v for row in grid.values() for k, v in row.items() if k in ("gpu", "libs") and v]
    assert entries and all(re.fullmatch(r"(\S+ \d+ [a-z-]+)( · \S+ \d+ [a-z-]+)*|⬜ not run", e) for e in entries)


def test_a_failures_likely_cause_is_shown_in_cells_and_the_failure_lists(cell_runs: Path, tmp_path: Path) -> None:
    """The CPU stack's test_int1_error carries classify.py's diagnosis (rocm_diagnosis): the grid
    cell names it (HTML and the site's stack page), the Markdown failure lists have it in a column."""
    cause = "torch-missing-dtype: a library needs torch dtypes this torch release does not have"
    args = ["report", str(cell_runs), "-o", str(tmp_path / "c.md"), "--html", str(tmp_path / "c.html")]
    assert main([*args, "--site", str(tmp_path / "site")]) == 0
    text = (tmp_path / "c.md").read_text(encoding="utf-8")
    broken = text.split("### Failures (by diagnosis)", 1)[1].split("\n## ", 1)[0]
    header = [c.strip() for c in broken.strip().splitlines()[0].strip("|").split("|")]
    assert "likely cause" in header
    rows = [
        dict(zip(header, (c.strip() for c in line.strip("|").split("|")))) for line in broken.strip().splitlines()[2:]
    ]
    (row,) = [r for r in rows if r["diagnosis"] == "torch-missing-dtype"]
    assert row["likely cause"].startswith(cause)
    assert row["message"] == "AttributeError: module 'torch' has no attribute 'int1'"  # the tag is its column now
    every = text.split("### Every failure", 1)[1]
    assert re.search(r"test_int1_error +\| fail +\| torch-missing-dtype +\| " + re.escape(cause), every)
    pages = [tmp_path / "c.html", tmp_path / "site" / "index.html", *(tmp_path / "site" / "stacks").iterdir()]
    found = 0
    for page in pages:
        for row in page.read_text(encoding="utf-8").split("<tr")[1:]:
            cells = re.findall(r'<td class="o fail"[^>]*aria-label="libs: ([^"]*)"[^>]*>(.*?)</td>', row)
            causes = [c for c in cells if cause in c[0]]
            if "no GPU" in row or "h1>no GPU" in page.read_text(encoding="utf-8"):
                for label, shown in causes:
                    assert f"likely cause: {cause}" in label and f"likely cause: {cause}" in shown
                found += len(causes)
            else:
                assert not causes, (page, row)  # the other stacks' failures carry no cause
    assert found == 3  # the report's grid, the site's grid and the CPU stack's page
