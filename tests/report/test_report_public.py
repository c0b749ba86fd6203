"""Nothing local in published output (issue 27 item 4): file names relative to the argument's
root, rootdir, home and working directories dropped from messages, no host names, collection-level
skips named by their module, history kept across the key change."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pytest_rocmcompat.cli.main import main
from pytest_rocmcompat.report.local_paths import Scrubber, glob_root, rootdir_in, shown_names
from pytest_rocmcompat.report.merge import expand_inputs, merge, read_runs
from tests.conftest import REPO


def local_markers(*extra: Path) -> list[str]:
    """What no published file may contain: this machine's and the usual absolute roots."""
    found = ["/work/", "/home/", "/root/", "/tmp/", "/Users/", str(REPO), os.getcwd() + "/"]
    found += [str(p) for p in extra] + [os.path.expanduser("~") + "/"]
    return [m for m in dict.fromkeys(found) if m not in ("/", "//")]


def test_site_from_the_committed_reports_has_no_absolute_path(tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ["report", f"{REPO}/reports/**/*.xml", "-o", str(out / "COMPAT.md"), "--html", str(out / "COMPAT.html")]
    out.mkdir()
    assert main([*args, "--json", str(out / "COMPAT.json"), "--site", str(out / "site")]) == 0
    written = [p for p in out.rglob("*") if p.is_file()]
    assert len(written) >= 9  # md, html, json; index, report, history, badge and one page per stack
    for path in written:
        text = path.read_text(encoding="utf-8")
        for marker in local_markers(tmp_path):
            assert marker not in text, f"{path.relative_to(out)} contains {marker!r}"
        assert "(host " not in text and "(no classname)" not in text, path
    index = (out / "site" / "index.html").read_text(encoding="utf-8")
    # the files without plugin properties are named relative to the glob's root, and explained
    assert ">h100/junit.xml<" in index and ">h200x2-pinning/junit_pin_n2.xml<" in index
    assert "without rocmcompat&#x27;s properties" in index or "without rocmcompat's properties" in index
    unknown_pages = [
        p for p in (out / "site" / "stacks").iterdir() if "h100/junit.xml" in p.read_text(encoding="utf-8")
    ]
    assert len(unknown_pages) == 1
    assert "pytest ran without the plugin" in unknown_pages[0].read_text(encoding="utf-8")


PROJECT = {
    "pytest.ini": "[pytest]\n",
    "tests/test_skipped_module.py": """
        import pytest
        pytest.skip("needs the data in /home/alice/data and HOME_DIR", allow_module_level=True)
        """,
    "suites/libs/test_lib_module.py": """
        import pytest
        pytest.skip("library zzz is not installed", allow_module_level=True)
        """,
    "tests/test_fails.py": """
        import os

        def test_reads_a_file():
            path = os.path.join(os.path.dirname(__file__), "data", "missing.txt")
            assert os.path.exists(path), f"no file {path}"
        """,
}


@pytest.fixture(scope="module")
def plain_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real pytest run without the plugin: collection-level skips, a failure quoting its path."""
    root = tmp_path_factory.mktemp("plain")
    for name, text in PROJECT.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:rocmcompat", "-p", "no:cacheprovider", "--junitxml=out/j.xml"],
        cwd=root,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert (root / "out" / "j.xml").is_file()
    assert str(root) in (root / "out" / "j.xml").read_text(encoding="utf-8")  # pytest writes absolute paths
    return root


def test_collection_skips_are_named_by_their_module_and_messages_lose_the_rootdir(plain_run: Path) -> None:
    runs, warnings = read_runs(expand_inputs([str(plain_run / "out")]))
    assert not warnings
    (run,) = runs
    assert run.name == "j.xml"
    cases = {c.test: c for c in run.cases}
    skipped = cases["tests/test_skipped_module.py"]
    assert skipped.suite == "tests/test_skipped_module.py"
    assert skipped.message == "Skipped: needs the data in ~/data and HOME_DIR"
    assert cases["suites/libs/test_lib_module.py"].suite == "libs"
    assert cases["suites/libs/test_lib_module.py"].message == "Skipped: library zzz is not installed"
    failed = cases["tests/test_fails.py::test_reads_a_file"]
    assert "no file tests/data/missing.txt" in failed.message and str(plain_run) not in failed.message
    merged = merge(runs)
    assert "(no classname)" not in merged.columns and "libs" in merged.columns
    (row,) = merged.rows
    assert row.label["libraries"] == "j.xml" and row.files == ["j.xml"]


def test_host_names_only_when_asked(plain_run: Path) -> None:
    runs, _ = read_runs(expand_inputs([str(plain_run / "out" / "j.xml")]))
    assert "(host" not in merge(runs).rows[0].label["libraries"]
    assert "(host " in merge(runs, hosts=True).rows[0].label["libraries"]


def test_unreadable_input_is_named_relative_in_the_report(tmp_path: Path) -> None:
    (tmp_path / "ci" / "a").mkdir(parents=True)
    (tmp_path / "ci" / "a" / "bad.xml").write_text("<testsuites><testsuite>", encoding="utf-8")
    (tmp_path / "ci" / "b.xml").write_text('<testsuite><testcase classname="t" name="x"/></testsuite>', "utf-8")
    seen: list[str] = []
    runs, warnings = read_runs(expand_inputs([str(tmp_path / "ci" / "**" / "*.xml")]), warn=seen.append)
    assert str(tmp_path) in seen[0]  # the local terminal names the real file ...
    assert warnings[0].startswith("skipped a/bad.xml:") and str(tmp_path) not in warnings[0]  # ... the report not
    assert [r.name for r in runs] == ["b.xml"]


def test_names_relative_to_each_arguments_root(tmp_path: Path) -> None:
    assert glob_root("reports/**/*.xml") == "reports"
    assert glob_root("/abs/r[0-9]/x/*.xml") == "/abs"
    assert glob_root("*.xml") == "."
    names = shown_names([(f"{tmp_path}/a/junit.xml", f"{tmp_path}/a"), (f"{tmp_path}/b/junit.xml", f"{tmp_path}/b")])
    assert [n.shown for n in names] == ["a/junit.xml", "b/junit.xml"]  # a clash falls back to the common folder
    (tmp_path / "r" / "h100").mkdir(parents=True)
    (tmp_path / "r" / "h100" / "junit.xml").write_text("<testsuite/>", encoding="utf-8")
    (tmp_path / "one.xml").write_text("<testsuite/>", encoding="utf-8")
    found = expand_inputs([str(tmp_path / "r"), str(tmp_path / "one.xml")])
    assert [getattr(p, "shown", None) for p in found] == ["h100/junit.xml", "one.xml"]


def test_scrubber_keeps_what_is_not_local() -> None:
    scrub = Scrubber(["/srv/ci/checkout"])
    assert scrub("/srv/ci/checkout/tests/x.py:3: boom") == "tests/x.py:3: boom"
    assert scrub("in /srv/ci/checkout2/x") == "in /srv/ci/checkout2/x"  # a sibling folder is not the rootdir
    assert scrub("at /home/bob/.cache/x and /Users/ann/y") == "at ~/.cache/x and ~/y"
    assert scrub("/opt/venv/lib/python3.12/site-packages/torch/x.py") == "site-packages/torch/x.py"
    assert scrub("see https://github.com/ROCm/x and /dev/kfd") == "see https://github.com/ROCm/x and /dev/kfd"
    assert rootdir_in("/a/b/suites/libs/conftest.py:44: skip", "suites/libs/test_x.py") == "/a/b"
    assert rootdir_in("('/a/b/test_m.py', 2, 'x')", "test_m.py") == "/a/b"
    assert rootdir_in("nothing here", "test_m.py") is None


def test_history_of_an_unknown_stack_continues_under_its_relative_name(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    old_name = f"unknown ({REPO}/reports/h100/junit.xml (host vm))"
    old = {"date": "2026-01-01T00:00:00Z", "stacks": {"0123456789ab": {"name": old_name, "figures": {}, "notable": {}}}}
    (site / "history.json").write_text(json.dumps({"schema": 1, "runs": [old]}), encoding="utf-8")
    arg = str(REPO / "reports" / "h100" / "junit.xml")
    assert main(["report", arg, "-o", str(tmp_path / "c.md"), "--site", str(site)]) == 0
    runs = json.loads((site / "history.json").read_text(encoding="utf-8"))["runs"]
    assert len(runs) == 2 and list(runs[0]["stacks"]) == list(runs[1]["stacks"])  # one line, not two
    assert all(s["name"] == "unknown (junit.xml)" for r in runs for s in r["stacks"].values())
    assert str(REPO) not in (site / "history.json").read_text(encoding="utf-8")
