"""``rocm-driver-unsupported``'s PCIe-atomics risk: a stated GFX8 GPU, which amdkfd drives only on a host with atomics."""

from __future__ import annotations

import re

import pytest

from pytest_rocmcompat.knowledge.checks import rocm_driver, rocm_kernel, rocm_pcie_atomics
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.stack.environment import GPU, Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated, run_cases

NEUTRAL = Environment(platform="cpu", python="3.11.7", os="Linux")
# ROCm/ROCm#653 (2019-01-06; RX 560, gfx803, on an i5-3570K, Ivy Bridge): rocminfo's failure and the kernel log
ROCMINFO_653 = (
    "hsa api call failure at line 900, file: /home/jenkins/jenkins-root/workspace/compute-rocm-rel-2.0/rocminfo/"
    "rocminfo.cc. Call returned 4104"
)
DMESG_653 = "[    1.114805] kfd kfd: skipped device 1002:67ef, PCI rejects atomics"
# kfd_device.c's format from Linux 5.x on ("skipped device %x:%x, PCI rejects atomics %d<%d")
DMESG_VERSIONED = "kfd kfd: amdgpu: skipped device 1002:67df, PCI rejects atomics 730<0"
FAULT = "Memory access fault by GPU node-1 (Agent handle: 0x55d0c4a0b2a0) on address 0x7f1d00000000. Reason: Page not present or supervisor privilege."


def _atomics(*stack: str, base: Environment = NEUTRAL) -> list[Finding]:
    env = apply_overrides(base, ["platform=rocm", *stack])
    return [f for f in evaluate(env) if f.check == rocm_driver.ID and "PCIe atomics" in f.reason]


@pytest.mark.parametrize("arch", ["gfx803", "gfx802", "gfx805"])
def test_a_stated_gfx8_gpu_is_a_risk_claiming_only_a_gpu_not_brought_up(arch: str) -> None:
    (finding,) = _atomics(f"arch={arch}", "rocm=5.7.1")
    assert finding.uncertain and finding.signature_only and finding.everything
    assert finding.predicts == rocm_kernel.UNSTATED_PREDICTS
    assert arch in finding.reason and "PCI rejects atomics" in finding.reason
    assert finding.link == rocm_pcie_atomics.KFD_SOURCE and "Haswell" in finding.fix
    for text in (ROCMINFO_653, DMESG_653, DMESG_VERSIONED, "RuntimeError: No HIP GPUs are available"):
        assert re.search(finding.predicts, text), text
    assert re.search(finding.predicts, FAULT) is None  # a fault in running code: the GPU was brought up


def test_a_stated_kernel_driver_does_not_remove_the_risk() -> None:
    """The host's PCIe path decides, not the driver: a stated kernel or DKMS driver leaves the risk."""
    assert len(_atomics("arch=gfx803", "driver=6.8.0-45-generic")) == 1
    assert len(_atomics("arch=gfx803", "driver=6.8.5")) == 1


def test_beside_a_gfx9_gpu_only_gpu_tests_are_reached() -> None:
    (finding,) = _atomics("arch=gfx803,gfx906")
    assert not finding.everything and finding.markers == ("gpus",) and "gfx906" not in finding.reason


@pytest.mark.parametrize(
    "stack",
    [
        ("arch=gfx900",),  # Vega 10 (GFX9): atomics optional since 2018
        ("arch=gfx906",),
        ("arch=gfx1030",),  # GFX10.3: lifted by its MEC firmware
        ("arch=gfx701",),  # Hawaii: exempt
        ("arch=gfx801",),  # Carrizo APU: its atomics do not cross PCIe
        ("arch=gfx803", "os=Windows"),  # AMD's Windows driver
        ("arch=gfx803", "os=Linux 5.15.153.1-microsoft-standard-WSL2"),  # WSL: no KFD at all (rocm_kernel's)
    ],
)
def test_no_risk_without_a_stated_discrete_gfx8_gpu_on_linux(stack: tuple[str, ...]) -> None:
    assert _atomics(*stack) == []


def test_a_gpu_the_probe_enumerated_was_brought_up() -> None:
    """A GFX8 GPU found on the machine (rocminfo, torch) went through amdkfd: its host completes atomics."""
    probed = Environment(
        platform="rocm", python="3.11.7", os="Linux", gpus=[GPU(index=0, name="Radeon RX 580", arch="gfx803")]
    )
    assert _atomics(base=probed) == []


def test_through_pytest_the_predicted_failure_is_known_bad_and_another_stays_a_failure(
    pytester: pytest.Pytester,
) -> None:
    predicted, unrelated = predicted_and_unrelated(
        pytester, ROCMINFO_653, ("platform=rocm", "arch=gfx803"), env=NEUTRAL
    )
    assert predicted["rocm_rule"] == rocm_driver.ID
    assert "rocm_rule" not in unrelated and unrelated.get("rocm_outcome", "fail") == "fail"


def test_through_pytest_a_fault_is_not_claimed(pytester: pytest.Pytester) -> None:
    cases = run_cases(pytester, FAULT, ("platform=rocm", "arch=gfx803"), env=NEUTRAL)
    assert cases["test_predicted"].get("rocm_rule") != rocm_driver.ID
