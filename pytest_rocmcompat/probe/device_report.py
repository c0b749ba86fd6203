"""What one probe source reports about the devices: the common result of every parser."""

from __future__ import annotations

from dataclasses import dataclass

from pytest_rocmcompat.stack.environment import GPU


@dataclass(frozen=True)
class DeviceReport:
    """Devices and versions read from one source (rocminfo, amd-smi, nvidia-smi, NVML...).

    Every field is optional: a parser fills what its source states and leaves the
    rest ``None``; ``source`` names the tool for notes and reports.
    """

    source: str
    gpus: tuple[GPU, ...] = ()
    driver: str | None = None
    rocm: str | None = None
    cuda: str | None = None
