"""Shared fixtures of the bundled suites (each suite may add its own conftest.py).

The plugin itself provides ``rocm_env``, ``rocm_matrix`` and ``rocm_measure``.
"""

from __future__ import annotations

import pytest


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
