"""``stack.visibility.visible_gpus``: the devices the visibility variables leave, and when it says nothing."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.stack.environment import GPU, Environment
from pytest_rocmcompat.stack.visibility import visible_gpus

# a Ryzen 7000 desktop: a Radeon RX 7900 XTX and the CPU's integrated Radeon (gfx1036)
APU_DESKTOP = (GPU(0, "Radeon RX 7900 XTX", "gfx1100"), GPU(1, "AMD Radeon Graphics", "gfx1036"))
FOUR_AMD = tuple(GPU(i, f"MI{i}", arch) for i, arch in enumerate(["gfx90a", "gfx90a", "gfx942", "gfx942"]))
TWO_NVIDIA = (GPU(0, "H100", "sm_90"), GPU(1, "RTX 4090", "sm_89"))


def _env(gpus: tuple[GPU, ...], **variables: str) -> Environment:
    return Environment(platform="rocm", gpus=gpus, env=dict(variables))


def _indices(env: Environment) -> list[int] | None:
    found = visible_gpus(env)
    return None if found is None else [gpu.index for gpu in found[0]]


@pytest.mark.parametrize(
    ("gpus", "variables", "seen"),
    [
        (APU_DESKTOP, {"HIP_VISIBLE_DEVICES": "0"}, [0]),
        (APU_DESKTOP, {"ROCR_VISIBLE_DEVICES": "0"}, [0]),
        (APU_DESKTOP, {"CUDA_VISIBLE_DEVICES": "0"}, [0]),  # HIP reads it where HIP_VISIBLE_DEVICES is unset
        (APU_DESKTOP, {"HIP_VISIBLE_DEVICES": "1"}, [1]),
        # HIP counts within what ROCR left: ROCR keeps devices 2 and 3, HIP's 1 is device 3
        (FOUR_AMD, {"ROCR_VISIBLE_DEVICES": "2,3", "HIP_VISIBLE_DEVICES": "1"}, [3]),
        (FOUR_AMD, {"ROCR_VISIBLE_DEVICES": " 3 , 0 "}, [3, 0]),
        # HIP_VISIBLE_DEVICES wins over CUDA_VISIBLE_DEVICES
        (FOUR_AMD, {"HIP_VISIBLE_DEVICES": "1", "CUDA_VISIBLE_DEVICES": "2"}, [1]),
        (TWO_NVIDIA, {"CUDA_VISIBLE_DEVICES": "1"}, [1]),
        (TWO_NVIDIA, {"HIP_VISIBLE_DEVICES": "1"}, None),  # CUDA reads only its own variable
        # nothing narrowed, or nothing known
        (APU_DESKTOP, {}, None),
        (APU_DESKTOP, {"HIP_VISIBLE_DEVICES": "0,1"}, None),
        (APU_DESKTOP, {"HIP_VISIBLE_DEVICES": ""}, None),
        (APU_DESKTOP, {"HIP_VISIBLE_DEVICES": "GPU-3c8f0e3a1b2d4e5f"}, None),  # a UUID
        (APU_DESKTOP, {"HIP_VISIBLE_DEVICES": "GPU-3c8f", "CUDA_VISIBLE_DEVICES": "0"}, None),
        (APU_DESKTOP, {"HIP_VISIBLE_DEVICES": "2"}, None),  # past the devices: refused by the runtime
        (APU_DESKTOP, {"HIP_VISIBLE_DEVICES": "0,0"}, None),
        (TWO_NVIDIA, {"CUDA_VISIBLE_DEVICES": "-1"}, None),
        ((GPU(0, "RX 7900 XTX", "gfx1100"),), {"HIP_VISIBLE_DEVICES": "0"}, None),  # one device
        ((APU_DESKTOP[0], TWO_NVIDIA[0]), {"CUDA_VISIBLE_DEVICES": "0"}, None),  # mixed vendors
    ],
)
def test_visible_gpus(gpus: tuple[GPU, ...], variables: dict[str, str], seen: list[int] | None) -> None:
    assert _indices(_env(gpus, **variables)) == seen


def test_the_reason_names_the_variables_and_devices() -> None:
    found = visible_gpus(_env(FOUR_AMD, ROCR_VISIBLE_DEVICES="2,3", HIP_VISIBLE_DEVICES="1"))
    assert found is not None
    assert found[1] == "ROCR_VISIBLE_DEVICES=2,3 then HIP_VISIBLE_DEVICES=1 leaves gpu3 gfx942 of 4 devices"
