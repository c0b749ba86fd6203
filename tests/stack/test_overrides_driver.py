"""``--rocm-set driver=`` takes what the probe records: a version, or a kernel release for an in-kernel amdgpu."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import rocm_driver
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import OverrideError, apply_overrides

BASE = Environment(platform="cpu", python="3.12.3", os="Linux")


@pytest.mark.parametrize(
    "release", ["6.5.0-14-generic", "5.15.0-91-generic", "6.11.0-arch1-1", "6.8.9-301.fc40.x86_64", "6.1.0-18-amd64"]
)
def test_a_kernel_release_is_taken_as_the_driver(release: str) -> None:
    env = apply_overrides(BASE, ["platform=rocm", "arch=gfx90a", f"driver={release}", "torch=2.5.1+rocm6.2"])
    assert env.driver == release
    assert rocm_driver.kernel_release(release) is not None  # the check reads it as the in-kernel driver
    # not against AMD's DKMS matrix; only by whether its amdkfd knows the GPU (gfx90a: every one of these)
    assert [f for f in evaluate(env) if f.check == rocm_driver.ID] == []


def test_an_in_kernel_driver_without_compute_for_the_gpu_is_judged() -> None:
    env = apply_overrides(BASE, ["platform=rocm", "arch=gfx1100", "driver=5.15.0-91-generic", "torch=2.5.1+rocm6.2"])
    (finding,) = [f for f in evaluate(env) if f.check == rocm_driver.ID]
    assert "5.15" in finding.reason and not finding.uncertain


def test_a_dkms_version_is_still_judged() -> None:
    env = apply_overrides(BASE, ["platform=rocm", "arch=gfx90a", "driver=5.18.13", "torch=2.5.1+rocm6.2"])
    assert [f.check for f in evaluate(env) if f.check == rocm_driver.ID] == [rocm_driver.ID]


@pytest.mark.parametrize("value", ["not a version", "6.5.0 -generic", "generic-6.5.0", "6.5.0-" + "x" * 200])
def test_anything_else_is_refused_with_the_assignment_named(value: str) -> None:
    with pytest.raises(OverrideError, match=r"--rocm-set 'driver="):
        apply_overrides(BASE, [f"driver={value}"])


# The ROCm 6.0 DKMS driver (kernel base 6.3.6, AMD's matrix: ROCm 5.6-6.2 user space) as users paste the line
# that shows it; under a ROCm 6.4 torch each must be judged as that driver.
QUOTED_ROCM_60_DRIVER = [
    "ROCk module version 6.3.6 is loaded",  # rocminfo
    "version:        6.3.6",  # modinfo amdgpu
    "amdgpu/6.3.6-1697589.22.04, 6.5.0-14-generic, x86_64: installed",  # dkms status (the kernel after it is not it)
    "amdgpu/6.3.6-1697589.22.04: added",
    "amdgpu-dkms/jammy,now 1:6.3.6.60000-1697589.22.04 all [installed]",  # apt list --installed
    "ii  amdgpu-dkms  1:6.3.6.60000-1697589.22.04  all  amdgpu driver in DKMS format.",  # dpkg -l
    "amdgpu-dkms-6.3.6.60000-1697589.el9.noarch",  # rpm -qa
    "1:6.3.6.60000-1697589.22.04",  # the package version with its Debian epoch
    "6.3.6.60000-1697589.22.04",
]


@pytest.mark.parametrize("quoted", QUOTED_ROCM_60_DRIVER)
def test_a_pasted_driver_line_is_read_as_its_version(quoted: str) -> None:
    env = apply_overrides(BASE, ["platform=rocm", "arch=gfx90a", f"driver={quoted}", "torch=2.7.1+rocm6.4"])
    assert env.driver is not None and env.driver.startswith("6.3.6") and " " not in env.driver
    assert rocm_driver.kmd_release(quoted) == "6.0"  # the check reads the line itself the same way
    (finding,) = [f for f in evaluate(env) if f.check == rocm_driver.ID]
    assert "the ROCm 6.0 kernel driver" in finding.reason and "which supports ROCm 5.6-6.2" in finding.reason


@pytest.mark.parametrize("quoted", ["ROCk module version 6.8.5 is loaded", "version: 6.8.5"])
def test_a_pasted_line_of_a_supported_driver_says_nothing(quoted: str) -> None:
    env = apply_overrides(BASE, ["platform=rocm", "arch=gfx90a", f"driver={quoted}", "torch=2.5.1+rocm6.2"])
    assert env.driver == "6.8.5"
    assert [f for f in evaluate(env) if f.check == rocm_driver.ID] == []


@pytest.mark.parametrize("numbering", ["22.40.5", "23.20"])
def test_radeon_software_numbering_is_no_kernel_release(numbering: str) -> None:
    # Radeon Software for Linux's 22.40/23.20 are driver bundles, not Linux 22.x/23.x kernels
    assert rocm_driver.kernel_release(numbering) is None
    assert rocm_driver.kernel_release("7.0.0-1-generic") == "7.0.0"  # Linux 7 (2026) still is one
