"""``stack.visibility.visible_gpus``: the devices the visibility variables leave, and when it says nothing."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pytest_rocmcompat.stack.environment import GPU, Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from pytest_rocmcompat.stack.visibility import visible_gpus

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
APU_DESKTOP = "gfx1100,gfx1036"  # a Ryzen 7000 desktop: a Radeon RX 7900 XTX and the CPU's integrated Radeon
FOUR_AMD = "gfx90a,gfx90a,gfx942,gfx942"
TWO_NVIDIA = "sm_90,sm_89"


def _stated(archs: str, **variables: str) -> Environment:
    """A stated stack: its devices and its variables assigned as ``--rocm-set`` does."""
    platform = "cuda" if archs.startswith("sm_") else "rocm"
    return apply_overrides(
        BASE, [f"platform={platform}", f"arch={archs}", *(f"env.{k}={v}" for k, v in variables.items())]
    )


def _indices(env: Environment) -> list[int] | None:
    found = visible_gpus(env)
    return None if found is None else [gpu.index for gpu in found[0]]


@pytest.mark.parametrize(
    ("archs", "variables", "seen"),
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
        # CUDA numbers devices fastest first unless told PCI order: mixed archs only in PCI order
        (TWO_NVIDIA, {"CUDA_VISIBLE_DEVICES": "1", "CUDA_DEVICE_ORDER": "PCI_BUS_ID"}, [1]),
        (TWO_NVIDIA, {"CUDA_VISIBLE_DEVICES": "1"}, None),
        ("sm_90,sm_90", {"CUDA_VISIBLE_DEVICES": "1"}, [1]),  # one arch: the order does not matter
        (TWO_NVIDIA, {"HIP_VISIBLE_DEVICES": "1", "CUDA_DEVICE_ORDER": "PCI_BUS_ID"}, None),  # CUDA reads its own
        # nothing narrowed, or nothing known
        (APU_DESKTOP, {}, None),
        (APU_DESKTOP, {"HIP_VISIBLE_DEVICES": "0,1"}, None),
        (APU_DESKTOP, {"HIP_VISIBLE_DEVICES": ""}, None),
        (APU_DESKTOP, {"HIP_VISIBLE_DEVICES": "GPU-3c8f0e3a1b2d4e5f"}, None),  # a UUID
        (APU_DESKTOP, {"HIP_VISIBLE_DEVICES": "GPU-3c8f", "CUDA_VISIBLE_DEVICES": "0"}, None),
        (APU_DESKTOP, {"HIP_VISIBLE_DEVICES": "2"}, None),  # past the devices: refused by the runtime
        (APU_DESKTOP, {"HIP_VISIBLE_DEVICES": "0,0"}, None),
        (TWO_NVIDIA, {"CUDA_VISIBLE_DEVICES": "-1", "CUDA_DEVICE_ORDER": "PCI_BUS_ID"}, None),
        ("gfx1100", {"HIP_VISIBLE_DEVICES": "0"}, None),  # one device
        ("gfx1100,sm_90", {"CUDA_VISIBLE_DEVICES": "0"}, None),  # mixed vendors
    ],
)
def test_visible_gpus(archs: str, variables: dict[str, str], seen: list[int] | None) -> None:
    assert _indices(_stated(archs, **variables)) == seen


def test_only_what_the_stack_states() -> None:
    """The machine's devices, or the machine's variable beside stated devices, are not narrowed."""
    stated = _stated(APU_DESKTOP, HIP_VISIBLE_DEVICES="0")
    assert _indices(stated) == [0]
    live = replace(stated, source="live", origin="")  # a live probe: amdsmi's order need not be HIP's
    assert visible_gpus(live) is None
    machine_variable = apply_overrides(
        replace(BASE, env={"HIP_VISIBLE_DEVICES": "0"}), ["platform=rocm", f"arch={APU_DESKTOP}"]
    )
    assert visible_gpus(machine_variable) is None
    gpus = (GPU(1, "a", "gfx1100"), GPU(0, "b", "gfx1036"))  # indices that are not the places
    assert visible_gpus(replace(stated, gpus=gpus)) is None


def test_the_reason_names_the_variables_and_devices() -> None:
    found = visible_gpus(_stated(FOUR_AMD, ROCR_VISIBLE_DEVICES="2,3", HIP_VISIBLE_DEVICES="1"))
    assert found is not None
    assert found[1] == "ROCR_VISIBLE_DEVICES=2,3 then HIP_VISIBLE_DEVICES=1 leaves gpu3 gfx942 of 4 devices"
