"""deepspeed: import, and its accelerator abstraction naming the device under test."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.uses("deepspeed")


def test_import_deepspeed(library) -> None:
    version = library("deepspeed")
    import deepspeed

    assert deepspeed.__version__.split("+")[0] == version.split("+")[0]


def test_accelerator_matches_device(library, torch, device) -> None:
    library("deepspeed")
    from deepspeed.accelerator import get_accelerator

    accelerator = get_accelerator()
    assert accelerator.device_name() == device.type, (
        f"deepspeed chose accelerator {accelerator.device_name()!r}, torch's device is {device}"
    )
    x = torch.ones(4, device=accelerator.device_name())
    assert float((x * 2).sum()) == 8.0
    if device.type == "cuda":
        assert accelerator.device_count() == torch.cuda.device_count()
