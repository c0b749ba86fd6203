"""Fixtures of the GPU suite: the live device's architecture, name and datasheet peak."""

from __future__ import annotations

import pytest
from peaks import Peak, peak_for

from pytest_rocmcompat.stack.arch import normalize_arch, nvidia_arch


@pytest.fixture(scope="session")
def gpu_props(torch, gpu_device):
    return torch.cuda.get_device_properties(gpu_device)


@pytest.fixture(scope="session")
def gpu_arch(gpu_props, runtime_name) -> str:
    """``gfx942`` (from gcnArchName on ROCm) or ``sm_90`` (from the compute capability)."""
    if runtime_name == "hip":
        return normalize_arch(getattr(gpu_props, "gcnArchName", "") or "")
    return nvidia_arch(gpu_props.major, gpu_props.minor)


@pytest.fixture(scope="session")
def gpu_peak(gpu_props, gpu_arch) -> Peak | None:
    """The datasheet entry for this device, or None when the table does not know it."""
    return peak_for(gpu_props.name, gpu_arch)
