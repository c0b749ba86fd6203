"""``rocmcompat run`` and bundled matrices by name: from a built wheel in a fresh venv, outside
the checkout, and on pytest's own command line."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import site
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from junitparser import JUnitXml

from pytest_rocmcompat.cli.run import RunUsageError, parse_run_args
from pytest_rocmcompat.matrix.loader import bundled_matrices_dir, resolve_matrix_name
from tests.conftest import REPO

SUITES = ["collectives", "gpu", "libs", "ppo", "preflight"]


def _can_build_wheels() -> bool:
    import setuptools
    from packaging.version import Version

    return Version(setuptools.__version__) >= Version("70.1") or importlib.util.find_spec("wheel") is not None


def _site_dirs() -> list[str]:
    """The running interpreter's site-packages folders (not the checkout, not the cwd)."""
    dirs = [*site.getsitepackages(), sysconfig.get_paths()["purelib"]]
    dirs += [p for p in sys.path if p.rstrip("/").endswith(("site-packages", "dist-packages"))]
    return list(dict.fromkeys(d for d in dirs if os.path.isdir(d)))


@pytest.fixture(scope="module")
def installed_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel built from this checkout; dependencies seen through a .pth."""
    if not _can_build_wheels():
        pytest.skip("building a wheel needs setuptools>=70.1 or the 'wheel' package (the test extra)")
    work = tmp_path_factory.mktemp("wheel")
    source = work / "src"  # a copy: building in the checkout would leave build/ and egg-info there
    source.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in ("pytest_rocmcompat", "suites", "matrices"):
        shutil.copytree(REPO / name, source / name, ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-q",
            "-w",
            str(work / "dist"),
            str(source),
        ],
        check=True,
        timeout=300,
    )
    wheel = next((work / "dist").glob("pytest_rocmcompat-*.whl"))
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(purelib, "_base.pth").write_text("\n".join(_site_dirs()) + "\n", encoding="utf-8")
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q", str(wheel)],
        check=True,
        timeout=300,
    )
    return venv


def _run(venv: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTEST_ADDOPTS")}
    return subprocess.run(
        [str(venv / "bin" / "rocmcompat"), "run", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )


def test_run_from_installed_wheel_outside_checkout(installed_venv: Path, tmp_path: Path) -> None:
    result = _run(installed_venv, tmp_path, "--matrix", "cpu", "preflight", "-q")
    assert result.returncode == 0, result.stdout + result.stderr
    # the installed copy ran (not the checkout), under the bundled cpu matrix
    assert str(installed_venv) in result.stdout and str(REPO) not in result.stdout
    results = tmp_path / "rocmcompat-results"
    platform = json.loads((results / "probe.json").read_text(encoding="utf-8"))["platform"]
    assert f"platform={platform}" in result.stdout  # the header and probe.json describe one machine
    if platform == "cpu":  # a GPU host runs this suite too: its stack is no cell of the cpu matrix
        assert "matrix 'CPU' cell" in result.stdout
    cases = [case for suite in JUnitXml.fromfile(str(results / "junit.xml")) for case in suite]
    assert len(cases) >= 5 and all("preflight" in case.classname for case in cases)
    assert "CPU" in (results / "COMPAT.md").read_text(encoding="utf-8")
    # every suite (helpers beside them included) imports from the wheel: collect them all
    result = _run(installed_venv, tmp_path, "--matrix=cpu", "--results", "collected", "--collect-only", "-q")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr
    for suite in SUITES:
        assert f"suites/{suite}/" in result.stdout
    assert "error" not in result.stdout.lower().split("rocmcompat summary")[0]


def test_run_rejects_unknown_suite_and_matrix(tmp_path: Path) -> None:
    for args, words in ((["nosuch"], "unknown suite 'nosuch'"), (["--matrix", "mi999"], "bundled: cpu")):
        proc = subprocess.run(
            [sys.executable, "-m", "pytest_rocmcompat", "run", *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 2 and words in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "rocmcompat-results").exists()


def test_parse_run_args_splits_suites_options_and_pytest_args() -> None:
    args = parse_run_args(["gpu", "ppo/test_ppo_losses.py", "--matrix", "mi300", "-k", "gpu", "--results=out"], SUITES)
    assert args.suites == ["gpu", "ppo/test_ppo_losses.py"] and args.matrix == "mi300"
    assert args.results == "out" and args.pytest_args == ["-k", "gpu"]
    with pytest.raises(RunUsageError, match="--matrix needs a value"):
        parse_run_args(["--matrix"], SUITES)


def test_matrix_name_resolution_prefers_existing_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert resolve_matrix_name("mi300") == str(bundled_matrices_dir() / "mi300.yaml")
    assert resolve_matrix_name("cpu.yaml") == str(bundled_matrices_dir() / "cpu.yaml")
    (tmp_path / "cpu.yaml").write_text("name: mine\n", encoding="utf-8")
    assert resolve_matrix_name("cpu.yaml") == "cpu.yaml"  # an existing path first
    assert resolve_matrix_name("nosuch") == "nosuch"
    assert resolve_matrix_name("sub/mi300") == "sub/mi300"  # a path is never a bundled name


@pytest.mark.parametrize("argv", [["--rocm-matrix", "cpu"], ["--rocm-matrix=cpu.yaml"]])
def test_rocm_matrix_accepts_bundled_name(pytester: pytest.Pytester, argv: list[str]) -> None:
    pytester.makepyfile("def test_ok():\n    pass\n")
    result = pytester.runpytest(*argv, "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*matrix 'CPU'*"])
    assert result.ret == 0


def test_rocm_matrix_unknown_name_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_ok():\n    pass\n")
    result = pytester.runpytest("--rocm-matrix=nosuch", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "nosuch" in result.stderr.str() and "Traceback" not in result.stderr.str()


def test_terminal_names_the_final_junit_file(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_ok():\n    pass\n")
    result = pytester.runpytest("--junitxml=out/junit.xml", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*generated xml file: *out/junit.xml -*"])
    assert ".rocmcompat-" not in result.stdout.str() and (pytester.path / "out" / "junit.xml").is_file()
