"""The ``rocmcompat`` command as users run it: real subprocesses, real files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_rocmcompat.stack.environment import Environment
from tests.conftest import REPO


def rocmcompat(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest_rocmcompat", *args], capture_output=True, text=True, cwd=cwd, timeout=300
    )


def test_probe_json_describes_this_machine(tmp_path: Path) -> None:
    proc = rocmcompat("probe", "--json")
    assert proc.returncode == 0, proc.stderr
    env = Environment.from_json(proc.stdout)
    assert env.source == "live" and env.python == ".".join(map(str, sys.version_info[:3]))
    assert env.platform in ("cpu", "cuda", "rocm")
    try:
        import torch
    except ImportError:
        assert env.torch is None
    else:
        assert env.torch == torch.__version__
        # The distribution's metadata may drop the local tag (2.11.0 for 2.11.0+cu130).
        assert env.libraries["torch"] in (torch.__version__, torch.__version__.split("+")[0])
        if not torch.cuda.is_available():
            assert env.platform == "cpu" and env.gpus == ()
    # The JSON replays: write it and use it as --rocm-env.
    (tmp_path / "env.json").write_text(proc.stdout)
    assert Environment.load(str(tmp_path / "env.json")).source == "replay"


def test_probe_redacts_secret_variables() -> None:
    import os

    env = dict(
        os.environ,
        NCCL_IB_AUTH_TOKEN="s3cr3t-value-123",
        HIP_VISIBLE_DEVICES="0,1",
        HSA_OVERRIDE_GFX_VERSION="9.0.6",
        UNRELATED_VAR="nope",
    )
    proc = subprocess.run(
        [sys.executable, "-m", "pytest_rocmcompat", "probe", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    data = json.loads(proc.stdout)
    assert data["env"]["HIP_VISIBLE_DEVICES"] == "0,1" and data["env"]["HSA_OVERRIDE_GFX_VERSION"] == "9.0.6"
    assert data["env"]["NCCL_IB_AUTH_TOKEN"] == "[redacted]" and "s3cr3t-value-123" not in proc.stdout
    assert "UNRELATED_VAR" not in data["env"]


def test_probe_text() -> None:
    proc = rocmcompat("probe")
    assert proc.returncode == 0 and proc.stdout.startswith("platform=")


def test_lint_bundled_matrices_ok() -> None:
    files = sorted(str(p) for p in (REPO / "matrices").glob("*.yaml"))
    proc = rocmcompat("lint", *files)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count(": ok:") == len(files)


def test_lint_reports_every_bad_file_and_exits_1(tmp_path: Path) -> None:
    (tmp_path / "good.yaml").write_text("name: g\naxes: {torch: ['2.5']}\n")
    (tmp_path / "bad.yaml").write_text("name: b\naxes: {torch: [2.5]}\n")
    (tmp_path / "worse.yaml").write_text("name: [\n")
    proc = rocmcompat("lint", "good.yaml", "bad.yaml", "worse.yaml", "missing.yaml", cwd=tmp_path)
    assert proc.returncode == 1
    assert "good.yaml: ok: 'g', 1 cells (0 excluded), 0 rules from 1 file(s)" in proc.stdout
    assert "bad.yaml:2: axes.torch[0]: 2.5 is a number" in proc.stderr
    assert "worse.yaml:2: not valid YAML" in proc.stderr
    assert "missing.yaml: file not found" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_expand_formats(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text(
        "name: M\nplatform: rocm\narch: [gfx942]\naxes:\n  rocm: ['6.2', '6.3']\n  torch: ['2.5', '2.6']\n"
        "  libraries: {vllm: ['0.9']}\nexclude:\n  - {rocm: '6.2', torch: '2.6'}\n"
    )
    proc = rocmcompat("expand", "m.yaml", "--format", "github", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["include"] == [
        {"arch": "gfx942", "rocm": "6.2", "torch": "2.5", "lib.vllm": "0.9", "matrix": "M", "platform": "rocm"},
        {"arch": "gfx942", "rocm": "6.3", "torch": "2.5", "lib.vllm": "0.9", "matrix": "M", "platform": "rocm"},
        {"arch": "gfx942", "rocm": "6.3", "torch": "2.6", "lib.vllm": "0.9", "matrix": "M", "platform": "rocm"},
    ]
    cells = json.loads(rocmcompat("expand", "m.yaml", "--format", "json", cwd=tmp_path).stdout)
    assert len(cells) == 3 and cells[0] == {"arch": "gfx942", "rocm": "6.2", "torch": "2.5", "lib.vllm": "0.9"}
    table = rocmcompat("expand", "m.yaml", cwd=tmp_path).stdout
    assert "lib.vllm" in table.splitlines()[0] and len(table.strip().splitlines()) == 5


def test_expand_bad_matrix_exits_1(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text("name: M\nplatfrom: rocm\n")
    proc = rocmcompat("expand", "m.yaml", cwd=tmp_path)
    assert proc.returncode == 1 and "did you mean 'platform'?" in proc.stderr


def test_usage_errors_exit_2() -> None:
    assert rocmcompat().returncode == 2
    assert rocmcompat("expand").returncode == 2
    assert rocmcompat("frobnicate").returncode == 2


def test_console_script_installed() -> None:
    import shutil

    exe = shutil.which("rocmcompat", path=str(Path(sys.executable).parent))
    if exe is None:
        pytest.skip("console script not on this interpreter's bin directory")
    proc = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "probe" in proc.stdout and "lint" in proc.stdout


def test_replay_override_collect_only_on_bundled_suites(tmp_path: Path) -> None:
    """The issue's acceptance scenario: probe, replay as an MI50 with torch 2.5.1+rocm6.2, list skips."""
    probe = rocmcompat("probe", "--json")
    env_json = tmp_path / "env.json"
    env_json.write_text(probe.stdout)
    argv = [
        sys.executable,
        "-m",
        "pytest",
        "--rocm-env",
        str(env_json),
        "--rocm-set",
        "platform=rocm",
        "--rocm-set",
        "arch=gfx906",
        "--rocm-set",
        "torch=2.5.1+rocm6.2",
        "--rocm-matrix",
        "matrices/mi50.yaml",
        "--collect-only",
        "-q",
        "-p",
        "no:cacheprovider",
    ]
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=REPO, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    start = lines.index(next(line for line in lines if "rocmcompat: known-bad rules that apply" in line))
    # contested evidence (pytorch/pytorch#147626): the rule isolates with its signature, it does not skip
    listed = [line for line in lines[start + 1 :] if ": ISOLATE [torch-2.5.1-rocm6.2-gfx906-memory-fault]" in line]
    gpu_tests = [line for line in lines[:start] if line.startswith("suites/") and "::" in line and "/gpu/" in line]
    assert gpu_tests and len(listed) >= len(gpu_tests)
    assert all("Memory access fault" in line for line in listed)
    # The same stack on an MI300X (gfx942) is not skipped by that rule.
    argv[argv.index("arch=gfx906")] = "arch=gfx942"
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=REPO, timeout=300)
    assert "gfx906-memory-fault" not in proc.stdout
