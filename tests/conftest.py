"""Shared helpers for the plugin's own tests."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from pytest_rocmcompat.stack.environment import GPU, Environment

pytest_plugins = ["pytester"]

try:  # CI replays a fixed set of examples (a red CI blocks landing); locally hypothesis explores
    from hypothesis import settings

    settings.register_profile("ci", derandomize=True, deadline=None)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
except ImportError:  # hypothesis is a test extra
    pass

# Plugins of the host that warn in every pytest-xdist session (pytest-benchmark: "Benchmarks are
# automatically disabled because xdist plugin is active") turn this suite's '-W error' sessions
# into INTERNALERRORs on hosts that have them (the GPU hosts do). The inner sessions here never
# use them; subprocesses inherit the variable, and pytester's sessions get it below.
HOST_PLUGINS_OFF = " ".join(f"-p no:{name}" for name in ("benchmark",))
os.environ["PYTEST_ADDOPTS"] = f"{os.environ.get('PYTEST_ADDOPTS', '')} {HOST_PLUGINS_OFF}".strip()


@pytest.fixture
def pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """pytest's own pytester (which clears PYTEST_ADDOPTS), with the host's noisy plugins off."""
    monkeypatch.setenv("PYTEST_ADDOPTS", HOST_PLUGINS_OFF)
    return pytester


DATA = Path(__file__).parent / "data"
REPO = Path(__file__).resolve().parents[1]
SUITES = REPO / "suites"
# The suites' pure helpers live beside the suites (peaks.py, gpu/gpubench.py, gpu/gpunumerics.py,
# preflight/preflight_checks.py) and are imported by module name, as suites/conftest.py arranges.
for _folder in (SUITES / "gpu", SUITES / "preflight", SUITES):
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def env_json(env: Environment) -> str:
    return env.to_json()


CPU_ENV = Environment(platform="cpu", python="3.11.7", torch="2.13.0+cpu", os="Linux 6.1")
MI50_ENV = Environment(
    platform="rocm",
    python="3.12.3",
    torch="2.5.1+rocm6.2",
    hip="6.2.41133-dd7f95766",
    rocm="6.2.4",
    gpus=(GPU(0, "AMD Instinct MI50", "gfx906:sramecc+:xnack-", 34342961152, "amd"),),
    libraries={"torch": "2.5.1+rocm6.2", "transformers": "4.57.1", "peft": "0.13.2"},
)
MI300_ENV = Environment(
    platform="rocm",
    python="3.12.3",
    torch="2.5.1+rocm6.2",
    hip="6.2.41133-dd7f95766",
    rocm="6.2.4",
    gpus=tuple(GPU(i, "AMD Instinct MI300X", "gfx942:sramecc+:xnack-", 206141652992, "amd") for i in range(8)),
    libraries={"torch": "2.5.1+rocm6.2"},
)


@pytest.fixture
def env_file(tmp_path: Path):
    """Write an Environment as a replay file; returns its path."""

    def make(env: Environment = CPU_ENV, name: str = "env.json") -> Path:
        path = tmp_path / name
        path.write_text(env.to_json(), encoding="utf-8")
        return path

    return make


@pytest.fixture
def matrix_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Write a matrix YAML file (dedented) in the working directory; returns its path."""
    monkeypatch.chdir(tmp_path)

    def make(text: str, name: str = "m.yaml") -> Path:
        return write(tmp_path / name, text)

    return make


def load_json(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="session", autouse=True)
def _private_matrix_cache(tmp_path_factory: pytest.TempPathFactory):
    """The tests' pytest runs (inline and subprocess) share one checked-matrix cache of their own."""
    from pytest_rocmcompat.safe_io.cache_store import CACHE_DIR_VAR

    old = os.environ.get(CACHE_DIR_VAR)
    os.environ[CACHE_DIR_VAR] = str(tmp_path_factory.mktemp("matrix-cache"))
    yield
    if old is None:
        os.environ.pop(CACHE_DIR_VAR, None)
    else:
        os.environ[CACHE_DIR_VAR] = old


def process_running(pid: int) -> bool:
    """Whether ``pid`` is a live process: kill(0), then /proc for zombies (dead, only not yet
    reaped). Read here, not with the package's own process helpers, so tests check those."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/status") as fh:
            return "\nState:\tZ" not in fh.read()
    except FileNotFoundError:
        return False
