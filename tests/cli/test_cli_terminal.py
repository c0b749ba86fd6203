"""What the ``rocmcompat`` commands print (issue 27), in real subprocesses: the real results folder
(a path is not a secret; a password still is), ``--version``, bundled matrix names for every
command taking a matrix, and terminal text without HTML entities."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_rocmcompat.safe_io.package_files import VERSION
from tests.conftest import REPO

ENTITY = re.compile(r"&(?:[a-z]+|#\d+|#x[0-9a-f]+);", re.IGNORECASE)


def rocmcompat(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest_rocmcompat", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=dict(os.environ, ROCMCOMPAT_CACHE_DIR="off", COLUMNS="250", **(env or {})),
        timeout=300,
    )


def test_run_prints_the_real_results_folder_and_still_redacts_passwords(tmp_path: Path) -> None:
    # a shell sets PWD (and OLDPWD) to paths; MYSQL_PWD / DB_PWD are passwords
    secret = "res-s3cr3t-value"
    env = {"PWD": str(tmp_path), "OLDPWD": str(tmp_path.parent), "DB_PWD": secret}
    proc = rocmcompat("run", "--results", secret, "preflight", "-q", "-k", "no_such_test_here", cwd=tmp_path, env=env)
    assert proc.returncode in (0, 5), proc.stdout + proc.stderr
    assert f"rocmcompat run: results in {tmp_path}/[redacted]: " in proc.stdout, proc.stdout
    assert secret not in proc.stdout and secret not in proc.stderr
    proc = rocmcompat("run", "preflight", "-q", "-k", "no_such_test_here", cwd=tmp_path, env=env)
    assert f"rocmcompat run: results in {tmp_path}/rocmcompat-results: " in proc.stdout, proc.stdout
    assert f"--junitxml={tmp_path}/rocmcompat-results/junit.xml" in proc.stdout


def test_version(tmp_path: Path) -> None:
    proc = rocmcompat("--version", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == f"rocmcompat {VERSION}\n", proc.stdout + proc.stderr


def test_every_command_taking_a_matrix_accepts_a_bundled_name(tmp_path: Path) -> None:
    proc = rocmcompat("probe", "--matrix", "mi300", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.startswith("platform="), proc.stderr
    proc = rocmcompat("lint", "mi300", "cpu.yaml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("mi300: ok: 'MI300X'") and "cpu.yaml: ok:" in proc.stdout
    proc = rocmcompat("expand", "mi300", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 0 and '"arch": "gfx942"' in proc.stdout, proc.stderr
    junit = str(REPO / "reports" / "cpu" / "junit.xml")
    proc = rocmcompat("report", junit, "--matrix", "mi300", "-o", "out.md", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "gfx942" in (tmp_path / "out.md").read_text(encoding="utf-8")  # the planned cells, not run
    proc = rocmcompat("recommend", "--arch", "gfx942", "--matrix", "mi300", cwd=tmp_path)
    assert proc.returncode == 0 and "From the matrices MI300X" in proc.stdout, proc.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("probe", "--matrix", "mi3000"),
        ("lint", "mi3000"),
        ("expand", "mi3000"),
        ("report", "{junit}", "--matrix", "mi3000", "-o", "out.md"),
    ],
)
def test_an_unknown_matrix_name_lists_the_bundled_ones(tmp_path: Path, args: tuple[str, ...]) -> None:
    junit = str(REPO / "reports" / "cpu" / "junit.xml")
    proc = rocmcompat(*(a.format(junit=junit) for a in args), cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "mi3000: file not found" in proc.stderr
    assert re.search(r"bundled matrices, by name: .*\bmi300\b", proc.stderr), proc.stderr


def test_recommend_prints_no_html_entities_in_the_terminal(tmp_path: Path) -> None:
    proc = rocmcompat("recommend", "--arch", "gfx906", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "arch gfx906 · torch_rocm >=6.4" in proc.stdout and "ROCm <=6.3" in proc.stdout, proc.stdout
    assert not ENTITY.search(proc.stdout), ENTITY.search(proc.stdout)
    # Markdown written to a file stays escaped as before
    junit = str(REPO / "reports" / "cpu" / "junit.xml")
    proc = rocmcompat("report", junit, "--recommend", "gfx906", "-o", "out.md", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    written = (tmp_path / "out.md").read_text(encoding="utf-8")
    assert "arch gfx906 · torch_rocm &gt;=6.4" in written and "ROCm &lt;=6.3" in written


def test_recommend_terminal_text_is_quoted_safely(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text(
        'name: "M a|b <i> [x](https://evil.example) line\\nFAKE"\nplatform: rocm\narch: [gfx942]\n'
        "axes:\n  rocm: ['6.2']\n  torch: ['2.5']\n  python: ['3.11']\n",
        encoding="utf-8",
    )
    proc = rocmcompat("recommend", "--arch", "gfx942", "--matrix", "m.yaml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "From the matrices M a\\|b <i> [x]\\(https://evil.example) line\\nFAKE and" in proc.stdout, proc.stdout
    assert "\nFAKE" not in proc.stdout and not ENTITY.search(proc.stdout)
