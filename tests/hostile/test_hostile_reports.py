"""Hostile test output and planted secrets through every writer of a real run and a merge.

One real pytest run (a subprocess, the plugin loaded by its entry point) whose tests print
lone surrogates, ESC/NUL bytes, live Markdown images and links, URL credentials, token
shapes and a secret environment value holding ``& < > "``; then ``rocmcompat report`` over
its JUnit file beside a corrupt and a foreign file. Every output is checked for what must
never be in it.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import CPU_ENV

ENV_SECRET = 'p&ss<w>"rd!42'  # MY_API_TOKEN: named secret, with every XML special character
SET_SECRET = "s0cketSecret99"  # --rocm-set env.NCCL_SOCKET_PASSWORD=...
PLANTED = [
    ENV_SECRET,
    "p&amp;ss",
    "&lt;w&gt;",
    SET_SECRET,
    "pa55w0rd",
    "ghp_" + "A1b2" * 9,
    "hf_" + "Zz9" * 10,
    "AKIA" + "ABCDEFGHIJ234567",
    "xoxb-1234567890-abcdefghij",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlc2lnbmF0dXJl",
    "Bearer abcdEFGH1234ijkl",
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
]
TESTS = r"""
import os

def test_surrogate(rocm_measure):
    rocm_measure("gemm_bf16_tflops", 1.0, unit="TF\udcff", detail="x\udcffy")
    assert False, "x\udcffy"

def test_controls_and_links():
    print("ESC \x1b[31m red NUL \x00 end")
    assert False, "image ![i](https://evil.example/i.png) link [c](https://evil.example/c) \x1b[2J"

def test_secrets():
    key = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----"
    assert False, ("pip: https://user:pa55w0rd@mirror.example/simple " + "ghp_" + "A1b2" * 9 + " "
                   + "hf_" + "Zz9" * 10 + " AKIA" + "ABCDEFGHIJ234567 xoxb-1234567890-abcdefghij "
                   + "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlc2lnbmF0dXJl "
                   + "Authorization: Bearer abcdEFGH1234ijkl " + key + " " + os.environ["MY_API_TOKEN"])

def test_ok():
    pass
"""
LIVE_MD = re.compile(r"(?<!\\)!\[[^\]]*\]\(|(?<!\\)\]\(https?:")


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("hostile")
    (work / "pytest.ini").write_text("[pytest]\n")
    (work / "test_hostile.py").write_text(TESTS)
    env_file = work / "env.json"
    env = json.loads(CPU_ENV.to_json())
    env["env"] = {"VLLM_INDEX_URL": "https://user:pa55w0rd@mirror.example/simple"}
    env_file.write_text(json.dumps(env))
    child_env = dict(
        os.environ,
        MY_API_TOKEN=ENV_SECRET,
        GITHUB_STEP_SUMMARY=str(work / "summary.md"),
        ROCMCOMPAT_CACHE_DIR="off",
        COLUMNS="250",
    )  # CI's width: pytest quotes more
    old = os.umask(0o022)
    try:
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-p",
                "no:cacheprovider",
                "--rocm-env",
                str(env_file),
                "--rocm-set",
                f"env.NCCL_SOCKET_PASSWORD={SET_SECRET}",
                "--junitxml",
                "junit.xml",
                "--rocm-report",
                "COMPAT.md",
            ],
            cwd=work,
            env=child_env,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=240,
        )
        (work / "terminal.txt").write_text(run.stdout + run.stderr, errors="replace")
        (work / "bad.xml").write_bytes(b"<testsuites><testsuite name='x'>\xff\xfe<testcase")
        (work / "foreign.xml").write_text("<html><body>not junit</body></html>")
        (work / "empty.xml").write_text("")
        merge = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest_rocmcompat",
                "report",
                "junit.xml",
                "bad.xml",
                "foreign.xml",
                "empty.xml",
                "-o",
                "merged.md",
                "--html",
                "merged.html",
                "--json",
                "merged.json",
            ],
            cwd=work,
            env=child_env,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=240,
        )
    finally:
        os.umask(old)
    (work / "merge.txt").write_text(f"rc={merge.returncode}\n{merge.stdout}{merge.stderr}")
    assert run.returncode == 1, run.stdout[-3000:] + run.stderr[-3000:]
    return work


OUTPUTS = ["junit.xml", "COMPAT.md", "summary.md", "merged.md", "merged.html", "merged.json"]


def test_every_output_is_written(hostile_run: Path) -> None:
    merge = (hostile_run / "merge.txt").read_text()
    assert merge.startswith("rc=0"), merge
    for name in OUTPUTS:
        assert (hostile_run / name).stat().st_size > 0, name
    assert "Traceback" not in merge and "Traceback" not in (hostile_run / "terminal.txt").read_text()
    for bad in ("bad.xml", "foreign.xml", "empty.xml"):  # each named, none fatal
        assert f"skipped {bad}" in merge, merge


@pytest.mark.parametrize("name", OUTPUTS)
def test_no_planted_secret_in_any_output(hostile_run: Path, name: str) -> None:
    text = (hostile_run / name).read_text(encoding="utf-8")
    for secret in PLANTED:
        assert secret not in text, f"{secret!r} in {name}"
    if name not in ("summary.md",):  # the run's failures reach every report but the merged JSON's cells
        assert "[redacted]" in text or name == "merged.json", name


@pytest.mark.parametrize("name", OUTPUTS)
def test_no_raw_control_bytes_or_surrogates(hostile_run: Path, name: str) -> None:
    data = (hostile_run / name).read_bytes()
    text = data.decode("utf-8")  # valid UTF-8: no lone surrogate could be written
    assert not re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", text), f"control byte in {name}"


@pytest.mark.parametrize("name", ["COMPAT.md", "summary.md", "merged.md"])
def test_no_live_markdown_links_from_test_output(hostile_run: Path, name: str) -> None:
    text = (hostile_run / name).read_text(encoding="utf-8")
    assert "evil.example" in text  # quoted ...
    assert not LIVE_MD.search(text), LIVE_MD.search(text)  # ... but not live


def test_no_live_html_from_test_output(hostile_run: Path) -> None:
    text = (hostile_run / "merged.html").read_text(encoding="utf-8")
    assert "<img" not in text and 'href="https://evil' not in text


def test_surrogates_become_replacement_characters(hostile_run: Path) -> None:
    assert "x\ufffdy" in (hostile_run / "COMPAT.md").read_text(encoding="utf-8")
    assert "TF\ufffd" in (hostile_run / "merged.md").read_text(encoding="utf-8")


def test_terminal_summary_and_header_carry_no_secret(hostile_run: Path) -> None:
    lines = (hostile_run / "terminal.txt").read_text().splitlines()
    ours = [line for line in lines if line.startswith("rocmcompat:")]
    start = next(i for i, line in enumerate(lines) if "rocmcompat summary" in line)
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("=="))
    ours += lines[start:end]  # our section only: pytest's own short summary quotes the raw assertion
    assert any("overridden" in line for line in ours), ours
    for secret in PLANTED:
        assert not any(secret in line for line in ours), secret


def test_outputs_get_the_mode_pytest_gives_its_files(hostile_run: Path) -> None:
    """0666 & ~umask (0644 under umask 022), like pytest's own files; not mkstemp's 0600."""
    for name in ("junit.xml", "COMPAT.md", "merged.md", "merged.html", "merged.json"):
        assert stat.S_IMODE((hostile_run / name).stat().st_mode) == 0o644, name


def test_a_lone_surrogate_in_a_measurement_reaches_no_traceback(tmp_path: Path) -> None:
    """JUnit holding an escaped lone surrogate in a measurement: the merge still writes everything."""
    xml = textwrap.dedent("""\
        <?xml version="1.0" encoding="utf-8"?>
        <testsuites><testsuite name="pytest" tests="1"><testcase classname="t" name="test_m">
        <properties><property name="rocm_metric.gemm_bf16_tflops"
          value="{&quot;value&quot;: 1.0, &quot;unit&quot;: &quot;TF\\udcff&quot;, &quot;detail&quot;: &quot;x\\udcffy&quot;}"/>
        </properties></testcase></testsuite></testsuites>
        """)
    (tmp_path / "m.xml").write_text(xml)
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest_rocmcompat",
            "report",
            "m.xml",
            "-o",
            "out.md",
            "--html",
            "out.html",
            "--json",
            "out.json",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    for name in ("out.md", "out.html", "out.json"):
        text = (tmp_path / name).read_bytes().decode("utf-8")
        assert "\ufffd" in text or "\\ufffd" in text, name


def test_read_run_refuses_what_is_not_a_regular_file(tmp_path: Path) -> None:
    """A FIFO or device named as a JUnit file is a warning at once, never a block or a read forever."""
    import threading

    from pytest_rocmcompat.report.junit_read import JUnitReadError, read_run

    os.mkfifo(tmp_path / "pipe.xml")
    errors: list[str] = []

    def read_all() -> None:
        for path in (str(tmp_path / "pipe.xml"), "/dev/zero", str(tmp_path)):
            try:
                read_run(path)
            except JUnitReadError as exc:
                errors.append(str(exc))

    worker = threading.Thread(target=read_all, daemon=True)
    worker.start()
    worker.join(20)
    if worker.is_alive():
        with open(tmp_path / "pipe.xml", "w"):
            pass
        pytest.fail("read_run blocked on a FIFO or read a device without end")
    assert len(errors) == 3 and all("not a regular file" in e for e in errors), errors


def test_a_token_with_dots_in_a_classname_is_redacted_before_it_becomes_a_path(tmp_path: Path) -> None:
    """Found by the merged-writers fuzz test: a JWT in a JUnit classname was split at its dots
    into path parts (node ids), so its last part reached the Markdown report."""
    from pytest_rocmcompat.report.merge import read_runs

    jwt = "eyJmdXp6IjoiMSJ9abcdef.eyJzdWIiOiJmdXp6In0abcdef.c2lnZnV6emZ1enpmdXp6"
    xml = (
        f'<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" tests="1">'
        f'<testcase classname="suites.gpu.test_{jwt}" name="test_0"><failure message="x"/></testcase>'
        f"</testsuite></testsuites>"
    )
    path = tmp_path / "r.xml"
    path.write_text(xml, encoding="utf-8")
    runs, warnings = read_runs([str(path)], warn=lambda message: None)
    assert not warnings and runs
    tests = [c.test for run in runs for c in run.cases]
    assert tests and not any(part in t for t in tests for part in ("c2lnZnV6emZ1", "eyJzdWIi"))
