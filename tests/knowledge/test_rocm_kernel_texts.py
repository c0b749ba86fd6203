"""The kernel driver's own texts that ``rocm-driver-unsupported``'s recent-kernel risk claims (DRIVER_TEXTS).

Each message is printed by the source named beside it (a format string filled as the kernel, kmod,
dpkg, dkms or ROCm's SMI tools print it); the negatives are other drivers' twins, faults and hangs.
"""

from __future__ import annotations

import re

import pytest

from pytest_rocmcompat.knowledge import driver_texts
from pytest_rocmcompat.knowledge.checks import rocm_driver, rocm_kernel
from pytest_rocmcompat.knowledge.diagnoses import diagnose
from pytest_rocmcompat.stack.environment import Environment
from tests.knowledge.two_ways import predicted_and_unrelated, run_cases

DRIVER_LEVEL = [
    # kfd_device.c kgd2kfd_device_init: "skipped device %x:%x, PCI rejects atomics %d<%d" (dev_info on the
    # kfd device, printed "kfd kfd: amdgpu: ..."); before the firmware-version check it printed no numbers
    ("kfd kfd: amdgpu: skipped device 1002:67e3, PCI rejects atomics 730<0", driver_texts.KFD_ATOMICS_SOURCE),
    ("kfd kfd: skipped device 1002:67ef, PCI rejects atomics", driver_texts.KFD_ATOMICS_SOURCE),
    # amdgpu_kms.c amdgpu_driver_load_kms: dev_err(..., "Fatal error during GPU init\n")
    ("amdgpu 0000:03:00.0: Fatal error during GPU init", driver_texts.AMDGPU_INIT_SOURCE),
    # dd.c call_driver_probe: "%s: probe of %s failed with error %d\n" (driver name, device, errno)
    ("amdgpu: probe of 0000:03:00.0 failed with error -22", driver_texts.DRIVER_CORE_SOURCE),
    # from Linux 6.18 dev_err(dev, "probe with driver %s failed with error %d\n", ...)
    ("amdgpu 0000:03:00.0: probe with driver amdgpu failed with error -22", driver_texts.DRIVER_CORE_618_SOURCE),
    # firmware_loader/main.c: "Direct firmware load for %s failed with error %d\n" (amdgpu's files: amdgpu/...)
    ("Direct firmware load for amdgpu/gc_11_0_0_mes_2.bin failed with error -2", driver_texts.FIRMWARE_SOURCE),
    # kmod's modprobe: "could not insert '%s': %s\n" with strerror(EKEYREJECTED) (Secure Boot, unsigned DKMS module)
    ("modprobe: ERROR: could not insert 'amdgpu': Key was rejected by service", driver_texts.KMOD_SOURCE),
    # dpkg's "error processing package %s (--%s):" for AMD's DKMS package, and dkms' pointer to its build log
    (
        "dpkg: error processing package amdgpu-dkms (--configure):",
        "https://git.dpkg.org/cgit/dpkg/dpkg.git/tree/src/main/errors.c",
    ),
    (
        "Consult /var/lib/dkms/amdgpu/6.7.0-1787201.22.04/build/make.log for more information.",
        "https://github.com/dell/dkms/blob/v3.0.11/dkms.in",
    ),
    # rocm_smi.py: logging.error('Driver not initialized (amdgpu not found in modules)'); amd-smi's helpers:
    # "Unable to get devices, driver not initialized (amdgpu not found in modules)"
    ("ERROR:root:Driver not initialized (amdgpu not found in modules)", driver_texts.ROCM_SMI_SOURCE),
    (
        "ERROR:root:Unable to get devices, driver not initialized (amdgpu not found in modules)",
        driver_texts.AMDSMI_SOURCE,
    ),
]

NOT_DRIVER_LEVEL = [
    # another driver's firmware, module and DKMS package
    "Direct firmware load for iwlwifi-ty-a0-gf-a0-72.ucode failed with error -2",
    "modprobe: ERROR: could not insert 'nvidia': Key was rejected by service",
    "dpkg: error processing package nvidia-dkms-535 (--configure):",
    "Consult /var/lib/dkms/nvidia/535.183.01/build/make.log for more information.",
    # dkms add's success output names the same tree
    "Creating symlink /var/lib/dkms/amdgpu/6.7.0-1787201.22.04/source -> /usr/src/amdgpu-6.7.0-1787201.22.04",
    # a fault or a hang in running code (rocm_driver's certain finding claims those, never the risk)
    "amdgpu 0000:03:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32769)",
    "Memory access fault by GPU node-1 (Agent handle: 0x55d0c0c0) on address 0x7f1c. Reason: Page not present",
    "[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 timeout, signaled seq=1, emitted seq=3",
    "MES ring buffer is full.",
    # the MES scheduler firmware not answering: a hang in running work (rocm_driver's certain finding claims it)
    "amdgpu 0000:c5:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE",
    "amdgpu 0000:c1:00.0: amdgpu: MES failed to respond to msg=MISC (WAIT_REG_MEM)",
    "[drm:mes_v11_0_submit_pkt_and_poll_completion [amdgpu]] *ERROR* MES failed to response msg=3",
    "RuntimeError: a genuinely different regression",
]


@pytest.mark.parametrize(("message", "source"), DRIVER_LEVEL, ids=[f"text-{i}" for i in range(len(DRIVER_LEVEL))])
def test_the_kernel_drivers_own_texts_are_predicted(message: str, source: str) -> None:
    assert source.startswith("https://")
    assert re.search(driver_texts.DRIVER_TEXTS, message)
    assert re.search(rocm_kernel.UNSTATED_PREDICTS, message)


# rocminfo.cc CheckInitialState (ROCMINFO_SOURCE): "Unable to open /dev/kfd read-write: %s" with strerror
ROCMINFO_DENIED = "Unable to open /dev/kfd read-write: Permission denied"
ROCMINFO_HSA = (
    "hsa api call failure at: /src/rocminfo/rocminfo.cc:1306\n"
    "Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources."
)


def test_a_device_closed_to_the_user_is_no_evidence_about_the_driver() -> None:
    assert rocm_kernel.ROCMINFO_SOURCE.startswith("https://github.com/ROCm/rocminfo/")
    assert re.search(rocm_kernel.UNSTATED_PREDICTS, ROCMINFO_DENIED) is None
    # other errno of the same open are driver-level (rocminfo#41's ENOMEM)
    assert re.search(rocm_kernel.UNSTATED_PREDICTS, "Unable to open /dev/kfd read-write: Cannot allocate memory")
    # the HSA failure rocminfo reports next is still claimed: the signature reads each text, not the whole
    # failure (a look at the whole text made it 3-4x slower and ran out of its budget on large logs)
    assert re.search(rocm_kernel.UNSTATED_PREDICTS, f"{ROCMINFO_DENIED}\n{ROCMINFO_HSA}")


@pytest.mark.parametrize("message", NOT_DRIVER_LEVEL)
def test_other_drivers_faults_and_hangs_are_not(message: str) -> None:
    assert re.search(rocm_kernel.UNSTATED_PREDICTS, message) is None


def test_on_a_gpu_that_needs_a_recent_kernel_a_driver_text_is_known_bad_and_an_unrelated_failure_fails(
    pytester: pytest.Pytester,
) -> None:
    """A stated gfx1151 (Strix Halo) stack naming no kernel driver: amdgpu's init failure ends known-bad (the
    no-driver risk), an unrelated failure stays fail; the same text on a GPU every kernel serves stays fail."""
    base = Environment(platform="cpu", python="3.11.7", os="Linux")
    predicted, unrelated = predicted_and_unrelated(
        pytester,
        "amdgpu 0000:03:00.0: Fatal error during GPU init",
        ("platform=rocm", "arch=gfx1151", "rocm=6.4.1"),
        env=base,
    )
    assert predicted["rocm_rule"] == rocm_driver.ID
    assert "rocm_rule" not in unrelated and unrelated.get("rocm_outcome", "fail") == "fail"
    served = run_cases(
        pytester, "amdgpu 0000:03:00.0: Fatal error during GPU init", ("platform=rocm", "arch=gfx90a"), env=base
    )["test_predicted"]
    assert "rocm_rule" not in served and served["rocm_diagnosis"].startswith("amdgpu-driver-init: ")


# mes_v11_0.c submit_pkt_and_poll_completion: "MES failed to respond to msg=%s\n" (and "... msg=%s (%s)\n" for
# MISC ops); before 6.9 DRM_ERROR("MES failed to response msg=%d\n", opcode)
MES_TEXTS = [
    "amdgpu 0000:c5:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE",
    "[drm:mes_v11_0_submit_pkt_and_poll_completion [amdgpu]] *ERROR* MES failed to response msg=3",
]


@pytest.mark.parametrize("message", MES_TEXTS)
def test_a_mes_hang_is_the_certain_driver_findings_never_a_risks(message: str) -> None:
    assert driver_texts.MES_SOURCE.startswith("https://github.com/torvalds/linux/")
    assert re.search(r"MES failed to respon(?:d to|se) msg=", message)
    assert re.search(rocm_driver.PREDICTS, message)  # a user space the driver does not support: claimed
    assert re.search(rocm_kernel.UNSTATED_PREDICTS, message) is None


@pytest.mark.parametrize(("message", "source"), DRIVER_LEVEL, ids=[f"diag-{i}" for i in range(len(DRIVER_LEVEL))])
def test_a_plain_failure_with_a_driver_text_is_diagnosed(message: str, source: str) -> None:
    found = diagnose(message)
    assert found is not None and found.id == "amdgpu-driver-init"


@pytest.mark.parametrize("message", NOT_DRIVER_LEVEL)
def test_other_texts_are_not_diagnosed_as_the_driver(message: str) -> None:
    found = diagnose(message)
    assert found is None or found.id != "amdgpu-driver-init"
