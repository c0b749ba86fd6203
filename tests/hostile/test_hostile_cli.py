"""Every ``rocmcompat`` subcommand's terminal output and files under hostile input.

Real subprocesses on real files: matrices, recorded environments, JUnit file names, command-line
arguments and environment values that hold URL credentials, token shapes, a secret variable's
value and terminal control bytes (ESC sequences, a carriage return that would overwrite a line,
BEL, NEL). Whatever a command quotes must come out redacted, with no raw control byte and no
line it did not mean to write.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CPU_ENV

TOKEN = "ghp_" + "Q7wE" * 9  # a GitHub token's shape
URL = "https://alice:hunter2pw@mirror.example/simple"  # URL credentials
ENV_NAME, ENV_SECRET = "MY_API_TOKEN", "s3cr3tlocal9"  # a secret variable's value, quoted raw somewhere
SET_SECRET = "s0cketSecret99"  # --rocm-set env.NCCL_SOCKET_PASSWORD=...
KEY_SECRET = "wandbkeyvalue7"  # WANDB_KEY=...: a *_KEY name whose value has no secret shape
OSC = "\x1b]8;;https://evil.example\x07"  # a terminal hyperlink
CSI = "\x1b[2J"  # clear the screen
FORBIDDEN = (TOKEN, "Q7wEQ7wE", "hunter2pw", ENV_SECRET, SET_SECRET, KEY_SECRET)
RAW_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f\u2028\u2029]")  # newline alone is structure


def rocmcompat(
    *args: str, cwd: Path, env: dict[str, str] | None = None, module: str = "pytest_rocmcompat", timeout: int = 300
) -> subprocess.CompletedProcess:
    child_env = dict(os.environ, ROCMCOMPAT_CACHE_DIR="off", COLUMNS="250", **{ENV_NAME: ENV_SECRET})
    child_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=cwd,
        env=child_env,
        capture_output=True,
        text=True,
        errors="surrogateescape",
        timeout=timeout,
    )


def assert_safe(text: str, what: str = "") -> None:
    """No planted secret, no raw control byte (a carriage return included), valid UTF-8."""
    for secret in FORBIDDEN:
        assert secret not in text, f"{secret!r} in {what}:\n{text}"
    found = RAW_CONTROL.search(text)
    assert found is None, f"raw control character {found.group()!r} in {what}:\n{text!r}"
    text.encode("utf-8")  # no lone surrogate
    assert "Traceback" not in text, text


def assert_outputs_safe(proc: subprocess.CompletedProcess) -> None:
    assert_safe(proc.stdout, "stdout")
    assert_safe(proc.stderr, "stderr")


# ---- expand ------------------------------------------------------------------------------------
HOSTILE_MATRIX = f"""
name: "N {URL} {TOKEN} {ENV_SECRET} \\e[31mred\\rFAKE"
platform: rocm
arch: [gfx942]
axes:
  torch: ['2.10', '2.9+{ENV_SECRET}']
  libraries:
    "lib_{ENV_SECRET}": ['1.10']
"""
# Library names that cannot be distribution names: refused by the loader, each named safely.
BAD_LIBRARY_NAMES = f"""
name: m
platform: rocm
axes:
  torch: ['2.10']
  libraries:
    "{URL}": ['1.0']
    "tok\\e]8;;https://evil\\apkg\\rFAKE\\x85": ['1.10']
    "{TOKEN}": ['1.0']
"""


@pytest.fixture
def hostile_matrix(tmp_path: Path) -> Path:
    (tmp_path / "m.yaml").write_text(HOSTILE_MATRIX, encoding="utf-8")
    return tmp_path


def test_expand_table_is_redacted_one_line_per_cell_and_keeps_versions(hostile_matrix: Path) -> None:
    proc = rocmcompat("expand", "m.yaml", cwd=hostile_matrix)
    assert proc.returncode == 0, proc.stderr
    assert_outputs_safe(proc)
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 4, lines  # header, rule, two cells: no line injected by a name
    assert "lib.lib-[redacted]" in lines[0]
    assert lines[2].split()[:2] == ["gfx942", "2.10"]  # a version, not the number 2.1
    assert "1.10" in lines[2] and "2.9+[redacted]" in lines[3]


@pytest.mark.parametrize("fmt", ["json", "github"])
def test_expand_json_and_github_are_redacted_before_serialisation(hostile_matrix: Path, fmt: str) -> None:
    proc = rocmcompat("expand", "m.yaml", "--format", fmt, cwd=hostile_matrix)
    assert proc.returncode == 0, proc.stderr
    assert_outputs_safe(proc)
    data = json.loads(proc.stdout)
    cells = data["include"] if fmt == "github" else data
    assert len(cells) == 2
    for cell in cells:  # escaped control characters (\u001b) would come back raw from the JSON
        for key, value in cell.items():
            assert_safe(key, "a key")
            assert_safe(value, "a value")
    assert cells[1]["torch"] == "2.9+[redacted]" and cells[0]["lib.lib-[redacted]"] == "1.10"
    if fmt == "github":
        assert cells[0]["matrix"] == "N https://[redacted]@mirror.example/simple [redacted] [redacted] [31mred\\rFAKE"


@pytest.mark.parametrize("command", ["expand", "lint"])
def test_library_names_that_are_urls_tokens_or_control_bytes_are_refused_safely(tmp_path: Path, command: str) -> None:
    """A token normalised as a library name (``ghp_`` -> ``ghp-``) would lose the shape redaction knows."""
    (tmp_path / "m.yaml").write_text(BAD_LIBRARY_NAMES, encoding="utf-8")
    proc = rocmcompat(command, "m.yaml", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert_outputs_safe(proc)
    out = proc.stdout + proc.stderr
    assert "m.yaml:7: axes.libraries.https://[redacted]@mirror.example/simple" in out
    assert "m.yaml:8: axes.libraries.tok" in out and "is not a distribution name" in out
    assert "m.yaml:9: axes.libraries.[redacted]: is shaped like a secret" in out


def test_rule_library_name_shaped_like_a_token_is_refused(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text(
        "name: m\nknown_bad:\n  - id: r1\n    reason: x\n    action: skip\n    when:\n"
        f"      libraries: {{{TOKEN}: '*'}}\n    applies_to: {{all: true}}\n",
        encoding="utf-8",
    )
    proc = rocmcompat("lint", "m.yaml", cwd=tmp_path)
    assert proc.returncode == 1
    assert_outputs_safe(proc)
    assert "m.yaml:7: known_bad[0].when.libraries.[redacted]: is shaped like a secret" in proc.stdout + proc.stderr


# ---- lint --------------------------------------------------------------------------------------
def test_lint_ok_line_and_problems_stay_one_safe_line(tmp_path: Path) -> None:
    name = f"m{CSI}\rFAKE {ENV_SECRET}.yaml"
    (tmp_path / name).write_text(HOSTILE_MATRIX, encoding="utf-8")
    (tmp_path / f"bad{CSI}\x07.yaml").write_text("name: [\n", encoding="utf-8")
    proc = rocmcompat("lint", name, f"bad{CSI}\x07.yaml", cwd=tmp_path)
    assert proc.returncode == 1
    assert_outputs_safe(proc)
    assert proc.stdout.count("\n") == 1 and ": ok: " in proc.stdout and "\\rFAKE [redacted].yaml" in proc.stdout
    assert "not valid YAML" in proc.stderr


def test_lint_against_warnings_and_collection_errors_are_redacted(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text(
        "name: m\nknown_bad:\n  - id: r1\n    reason: x\n    action: xfail\n"
        f"    applies_to: {{nodeids: ['test_a.py::test_{TOKEN}_{ENV_SECRET}']}}\n",
        encoding="utf-8",
    )
    (tmp_path / "test_a.py").write_text("def test_a():\n    pass\n", encoding="utf-8")
    proc = rocmcompat("lint", "m.yaml", "--against", "test_a.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert_outputs_safe(proc)
    assert (
        "warning: m.yaml:3: rule r1: applies_to.nodeids pattern 'test_a.py::test_[redacted]_[redacted]'" in proc.stdout
    )
    # a conftest that cannot be imported: pytest's output, quoted in the error, holds what it printed
    (tmp_path / "conftest.py").write_text(
        f"import os\nraise RuntimeError('{CSI}mirror {URL} {TOKEN}\\rFAKE ' + os.environ['{ENV_NAME}'])\n",
        encoding="utf-8",
    )
    proc = rocmcompat("lint", "m.yaml", "--against", "test_a.py", cwd=tmp_path)
    assert proc.returncode == 1
    assert_outputs_safe(proc)
    assert "error: pytest --collect-only test_a.py exited with" in proc.stderr


# ---- probe -------------------------------------------------------------------------------------
def test_probe_text_of_a_hostile_replay_is_one_safe_line_per_fact(tmp_path: Path) -> None:
    env = json.loads(CPU_ENV.to_json())
    env["gpus"] = [
        {"index": 0, "name": f"GPU\rFAKE LINE {TOKEN}", "arch": "gfx942", "memory_bytes": 0, "vendor": "amd"}
    ]
    env["notes"] = [f"note {CSI}{URL}\nsecond line {ENV_SECRET}"]
    env["env"] = {"VLLM_INDEX_URL": f"https://idx.example/{ENV_SECRET}/simple{OSC}"}
    (tmp_path / "env.json").write_text(json.dumps(env), encoding="utf-8")
    proc = rocmcompat("probe", "--env", "env.json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert_outputs_safe(proc)
    lines = proc.stdout.splitlines()
    assert any(line.startswith("  gpu 0: GPU\\rFAKE LINE [redacted]") for line in lines), lines
    assert any(
        line.startswith("  note: note ") and line.endswith("@mirror.example/simple\\nsecond line [redacted]")
        for line in lines
    ), lines
    json_proc = rocmcompat("probe", "--env", "env.json", "--json", cwd=tmp_path)
    assert json_proc.returncode == 0 and "[redacted]" in json_proc.stdout
    for value in json.loads(json_proc.stdout)["notes"]:
        assert_safe(value.replace("\n", " "), "a note")


@pytest.mark.parametrize(
    "setting",
    [f"torch={TOKEN}{CSI}", f"torch_archs=gfx942{OSC}{ENV_SECRET}", f"bogus.{TOKEN}=1", f"requires.x=>=1 {URL}"],
)
def test_probe_set_errors_quote_the_value_safely(tmp_path: Path, setting: str) -> None:
    (tmp_path / "env.json").write_text(CPU_ENV.to_json(), encoding="utf-8")
    proc = rocmcompat("probe", "--env", "env.json", "--set", setting, cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.startswith("rocmcompat: --rocm-set "), proc.stderr
    assert_outputs_safe(proc)


def test_probe_with_a_bad_matrix_is_exit_1_without_a_traceback(tmp_path: Path) -> None:
    (tmp_path / f"bad{CSI}.yaml").write_text("name: [\n", encoding="utf-8")
    proc = rocmcompat("probe", "--matrix", f"bad{CSI}.yaml", cwd=tmp_path)
    assert proc.returncode == 1 and "not valid YAML" in proc.stderr, proc.stderr
    assert_outputs_safe(proc)


# ---- run ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "args",
    [
        [f"gpu{CSI}{TOKEN}"],
        ["--matrix", f"x{OSC}{URL}"],
        ["--results", f"/proc/no{CSI}{ENV_SECRET}"],
    ],
    ids=["unknown-suite", "unknown-matrix", "results-folder"],
)
def test_run_usage_errors_quote_arguments_safely(tmp_path: Path, args: list[str]) -> None:
    proc = rocmcompat("run", *args, cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.startswith("rocmcompat run: "), proc.stderr
    assert_outputs_safe(proc)


def test_run_prints_its_command_redacted_and_writes_a_redacted_probe(tmp_path: Path) -> None:
    env = {
        "VLLM_INDEX_URL": f"https://idx.example/{ENV_SECRET}/simple",  # allow-listed, a secret inside
        "HIP_VISIBLE_DEVICES": f"0{OSC}",
    }
    proc = rocmcompat(
        "run",
        "preflight",
        "--results",
        "R",
        "--collect-only",
        "-q",
        "--rocm-set",
        f"env.NCCL_SOCKET_PASSWORD={SET_SECRET}",
        f"--rocm-set=env.WANDB_KEY={KEY_SECRET}",
        "-o",
        f"junit_suite_name={URL}",
        cwd=tmp_path,
        env=env,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    ours = [line for line in proc.stdout.splitlines() if line.startswith("rocmcompat run: ")]
    assert len(ours) == 2, proc.stdout
    assert_safe("\n".join(ours), "rocmcompat run's own lines")
    assert (
        "--rocm-set env.NCCL_SOCKET_PASSWORD=[redacted] --rocm-set=env.WANDB_KEY=[redacted] "
        "-o junit_suite_name=https://[redacted]@mirror.example/simple"
    ) in ours[0]
    probe = (tmp_path / "R" / "probe.json").read_text(encoding="utf-8")
    assert "[redacted]" in probe
    data = json.loads(probe)
    assert data["env"]["VLLM_INDEX_URL"] == "https://idx.example/[redacted]/simple"
    for value in data["env"].values():  # escaped in the JSON text, raw once read back: dropped
        assert_safe(value, "a probed variable")


# ---- recommend ---------------------------------------------------------------------------------
def test_recommend_quotes_arch_and_matrix_names_safely(tmp_path: Path) -> None:
    proc = rocmcompat("recommend", "--arch", f"gfx1{CSI}{TOKEN}", cwd=tmp_path)
    assert proc.returncode == 2 and "no matrix covers --arch" in proc.stderr
    assert_outputs_safe(proc)
    (tmp_path / "m.yaml").write_text(
        f'name: "M {URL} {ENV_SECRET} [x](https://evil.example) \\e[31m"\nplatform: rocm\narch: [gfx942]\n'
        "axes:\n  rocm: ['6.2']\n  torch: ['2.5']\n  python: ['3.11']\n",
        encoding="utf-8",
    )
    proc = rocmcompat("recommend", "--arch", "gfx942", "--matrix", "m.yaml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert_outputs_safe(proc)
    assert "](https://evil" not in proc.stdout and "From the matrices M https://[redacted]@" in proc.stdout


# ---- report ------------------------------------------------------------------------------------
def test_report_messages_quote_file_names_and_arguments_safely(tmp_path: Path) -> None:
    bad = f"bad{CSI}{TOKEN}\rFAKE.xml"
    (tmp_path / bad).write_text("<testsuites><testcase", encoding="utf-8")
    (tmp_path / "ok.xml").write_text(
        '<testsuites><testsuite name="pytest" tests="1"><testcase classname="t" name="test_a"/></testsuite>'
        "</testsuites>",
        encoding="utf-8",
    )
    arch = f"gfx9{OSC}{ENV_SECRET}"
    proc = rocmcompat("report", "ok.xml", bad, "-o", f"out{CSI}.md", "--recommend", arch, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert_outputs_safe(proc)
    assert "rocmcompat report: warning: skipped bad[2J[redacted]\\rFAKE.xml" in proc.stderr
    written = (tmp_path / f"out{CSI}.md").read_text(encoding="utf-8")
    assert_safe(written.replace("\n", " "), "the report")
    assert "## Recommendations for gfx9]8;;https://evil.example[redacted]" in written
    proc = rocmcompat("report", f"none{CSI}{URL}*.xml", cwd=tmp_path)
    assert proc.returncode == 2 and "no JUnit file matched" in proc.stderr
    assert_outputs_safe(proc)


# ---- the plugin, as `rocmcompat run` drives it ---------------------------------------------------
def test_plugin_usage_error_and_unwritable_report_paths_are_quoted_safely(tmp_path: Path) -> None:
    (tmp_path / "test_a.py").write_text("def test_a():\n    pass\n", encoding="utf-8")
    (tmp_path / "env.json").write_text(CPU_ENV.to_json(), encoding="utf-8")
    (tmp_path / "afile").write_text("", encoding="utf-8")  # a file where a folder should be: writes fail
    base = ["-p", "no:cacheprovider", "test_a.py", "--rocm-env", "env.json"]
    proc = rocmcompat(*base, "--rocm-set", f"torch_archs=gfx942{OSC}{TOKEN}", module="pytest", cwd=tmp_path)
    assert proc.returncode == 4 and "is not a GPU code target" in proc.stderr, proc.stderr
    assert_outputs_safe(proc)
    target = f"afile/{CSI}{TOKEN}\rFAKE"
    proc = rocmcompat(
        *base,
        f"--rocm-report={target}/r.md",
        module="pytest",
        cwd=tmp_path,
        env={"GITHUB_STEP_SUMMARY": str(tmp_path / target / "summary.md")},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout + proc.stderr
    assert "could not write the report to " in out and "afile/[2J[redacted]\\rFAKE/r.md" in out, out
    assert "could not append the report to $GITHUB_STEP_SUMMARY" in out, out
    assert_safe(out, "the session's output")
