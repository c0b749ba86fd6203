"""Shared fixtures of the bundled suites (each suite may add its own conftest.py).

The plugin itself provides ``rocm_env``, ``rocm_matrix`` and ``rocm_measure``. The suites'
pure helpers sit beside them (``peaks.py`` here, ``gpu/gpubench.py``, ``gpu/gpunumerics.py``,
``preflight/preflight_checks.py``) and are imported by module name: this folder and each suite's
folder are put on ``sys.path`` (pytest's default import mode does the same for test folders),
in a checkout and in the installed wheel alike.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

_HERE = Path(__file__).resolve().parent
for _folder in (_HERE / "gpu", _HERE / "preflight", _HERE):
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))


@pytest.fixture(scope="session")
def torch():
    """The torch module, or a skip naming it when it is not installed."""
    return pytest.importorskip("torch", reason="torch is not installed (pip install 'pytest-rocmcompat[gpu]')")


@pytest.fixture(scope="session")
def gpu_device(torch):
    """The first visible GPU (ROCm builds also answer through ``torch.cuda``), or a clear skip."""
    if not torch.cuda.is_available():
        pytest.skip("no GPU visible to torch (torch.cuda.is_available() is False)")
    return torch.device("cuda", 0)


@pytest.fixture(scope="session")
def runtime_name(torch) -> str:
    """``hip``, ``cuda`` or ``cpu``: the runtime torch was built for."""
    if getattr(torch.version, "hip", None):
        return "hip"
    return "cuda" if torch.version.cuda else "cpu"


# Fixtures that start a multi-process launch (a collectives world, the two-rank PPO runs): the
# longest tests of the suites, mostly waiting on processes rather than on this worker's CPU.
LAUNCHING_FIXTURES = frozenset({"launched", "gloo_runs", "nccl_runs"})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist, the tests that launch processes go first (in their order; everything
    else keeps its order). xdist hands tests out in collection order, so a launch collected last
    ran alone at the end of the session; started first, it runs beside the short tests.
    """
    if not (getattr(config.option, "numprocesses", None) or hasattr(config, "workerinput")):
        return
    items.sort(key=lambda item: LAUNCHING_FIXTURES.isdisjoint(getattr(item, "fixturenames", ())))
