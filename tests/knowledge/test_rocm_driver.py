"""``rocm-driver-unsupported``: ROCm user space against the amdgpu kernel driver's support matrix."""

from __future__ import annotations

import dataclasses
import re

import pytest

from pytest_rocmcompat.knowledge.checks import rocm_driver
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")


def _found(*stack: str) -> list[str]:
    env = apply_overrides(BASE, list(stack))
    return [f.reason for f in evaluate(env) if f.check == rocm_driver.ID]


@pytest.mark.parametrize(
    ("driver", "release"),
    [
        ("6.8.5", "6.2"),  # rocminfo's "ROCk module version 6.8.5 is loaded" (ROCm 6.2 DKMS)
        ("6.12.12", "6.4"),
        ("6.8.5.60204", "6.2"),  # the full amdgpu-dkms package version: its ROCm build
        ("6.12.12.60401", "6.4"),
        ("30.10.1", "30.10"),  # the AMD GPU Driver's own numbering
        ("30.30.3", "30.30"),
        ("6.8.0", None),  # an in-kernel driver (a kernel release): unknown, no finding
        ("30.20.0", None),  # no published list for it here
        ("6.16.6", None),  # ROCm 7.1.1's DKMS base (the AMD GPU Driver 30.20): no list either
        ("garbage", None),
        # ROCm 7.0's DKMS package amdgpu-dkms_6.14.14.30100000 (rocm_driver.SOURCE_DKMS_30): AMD GPU Driver 30.10
        ("6.14.14", "30.10"),
        ("6.14.14.30100000", "30.10"),
        ("6.10.5.30100200", "30.10"),  # AMD's own example of the 8-digit field (30.10.2)
        ("5.18.2.22.40.50300", "5.3"),  # ROCm 5.3's amdgpu-dkms_5.18.2.22.40.50300
        ("6.12.12-2133686.22.04", "6.4"),  # dkms status' module version: base and build number
        # kernel releases, even where the head is a tabled DKMS base: the in-kernel driver
        ("6.8.5-301.fc40.x86_64", None),
        ("6.10.5-arch1-1", None),
        ("5.15.0-91-generic", None),
    ],
)
def test_kmd_release(driver: str, release: str | None) -> None:
    assert rocm_driver.kmd_release(driver) == release


@pytest.mark.parametrize(
    ("driver", "kernel"),
    [
        ("6.5.0-14-generic", "6.5.0"),  # Ubuntu
        ("5.15.0-91-generic", "5.15.0"),
        ("6.11.0-arch1-1", "6.11.0"),  # Arch
        ("6.8.5-301.fc40.x86_64", "6.8.5"),  # Fedora: a distribution suffix, not a build number
        ("6.10.5-arch1-1", "6.10.5"),  # a DKMS base as a kernel head: the suffix decides
        ("Linux 6.5.0-14-generic", "6.5.0"),  # env.os' form
        ("Linuxversion6.14.0-24-generic(buildd@lcy02-amd64-012)", "6.14.0"),  # amd-smi's banner, spaces removed
        ("6.8.0", "6.8.0"),  # bare, no tabled DKMS base
        ("6.16.6", None),  # ROCm 7.1.1's DKMS base, not Linux 6.16.6 (legacy-rocm-build#5624's dkms status)
        ("6.16.6-2255209.24.04", None),
        ("[drm] amdgpu version: 6.16.6", None),  # the kernel log's line
        ("6.16.6-arch1-1", "6.16.6"),  # a distribution suffix: the kernel
        # AMD's drivers and anything else
        ("6.8.5", None),  # bare tabled base: both a DKMS base and a kernel, stays the DKMS driver
        ("6.12.12-2133686.22.04", None),  # tabled base and AMD's build number
        ("6.8.5.60204", None),  # package version
        ("30.10.1", None),
        ("2.6.32", None),
        ("garbage", None),
        ("", None),
        (None, None),
    ],
)
def test_kernel_release(driver: str | None, kernel: str | None) -> None:
    assert rocm_driver.kernel_release(driver) == kernel


@pytest.mark.parametrize(
    ("stack", "problem"),
    [
        # ROCm 6.2 user space (torch's wheel) on the ROCm 5.4 DKMS driver (supports 5.2-5.6)
        (("driver=5.18.13", "torch=2.5.1+rocm6.2"), "torch 2.5.1+rocm6.2 (ROCm 6.2) on amdgpu 5.18.13"),
        # the system ROCm, no torch: 6.2 on the ROCm 5.7 driver (5.5-6.1)
        (("driver=6.2.4", "rocm=6.2.0"), "ROCm 6.2.0 on amdgpu 6.2.4 (the ROCm 5.7 kernel driver)"),
        # older than the driver supports: ROCm 5.7 torch on the 30.10 driver (6.2-7.0)
        (("driver=30.10.1", "torch=2.3.0+rocm5.7"), "on AMD GPU Driver 30.10.1, which supports ROCm 6.2-7.0"),
        # the same driver by its DKMS kernel base (ROCm 7.0's amdgpu-dkms_6.14.14.30100000)
        (("driver=6.14.14", "torch=2.3.0+rocm5.7"), "on amdgpu 6.14.14 (the AMD GPU Driver 30.10), which supports"),
    ],
)
def test_unsupported_pairs_are_found(stack: tuple[str, ...], problem: str) -> None:
    (reason,) = _found("platform=rocm", "arch=gfx90a", *stack)
    assert problem in reason


@pytest.mark.parametrize(
    "stack",
    [
        ("driver=6.8.5", "torch=2.5.1+rocm6.2"),  # the driver of the same release
        ("driver=6.3.6", "torch=2.6.0+rocm6.2.4"),  # ROCm 6.0 driver, 6.2 user space: within +/- 2
        ("driver=6.8.5", "rocm=7.0.2"),  # listed for the 6.2 driver
        ("driver=6.12.12", "torch=2.9.0+rocm7.1"),  # newer than the table lists (6.4+: a year apart): unknown
        ("driver=6.8.0", "torch=2.9.0+rocm7.1"),  # an in-kernel driver: not judged
        ("driver=6.14.14.30100000", "torch=2.9.0+rocm7.0"),  # 30.10 with a user space it lists
        ("torch=2.5.1+rocm6.2",),  # no driver recorded
    ],
)
def test_supported_or_unknown_pairs_say_nothing(stack: tuple[str, ...]) -> None:
    assert _found("platform=rocm", "arch=gfx90a", *stack) == []


def _probed(driver: str, *stack: str) -> list[str]:
    """Findings for ``driver`` as the probe records it (``--rocm-set`` takes PEP 440 versions only)."""
    env = dataclasses.replace(apply_overrides(BASE, ["platform=rocm", "arch=gfx1100", *stack]), driver=driver)
    return [f.reason for f in evaluate(env) if f.check == rocm_driver.ID]


def test_dkms_status_form_is_judged_as_its_base() -> None:
    # dkms status' module version of the ROCm 5.4 driver (supports 5.2-5.6) under ROCm 6.2
    (reason,) = _probed("5.18.13-1580598.22.04", "rocm=6.2.0")
    assert "ROCm 6.2.0 on amdgpu 5.18.13-1580598.22.04 (the ROCm 5.4 kernel driver)" in reason


@pytest.mark.parametrize(
    "driver",
    [
        "6.10.5-arch1-1",  # a kernel whose head is ROCm 6.3's DKMS base
        "5.18.13-200.fc36.x86_64",  # ROCm 5.4's base, as a Fedora kernel
        "5.15.0-91-generic",
        "Linux 6.5.0-14-generic",
    ],
)
def test_in_kernel_drivers_are_not_judged_by_the_dkms_matrix(driver: str) -> None:
    assert rocm_driver.kernel_release(driver) is not None
    found = _probed(driver, "torch=2.3.0+rocm5.7", "rocm=5.7.1")  # older than any tabled row lists
    assert not [r for r in found if "which supports ROCm" in r]  # rocm_kernel may judge its amdkfd (5.15 on gfx1100)


def test_a_dkms_base_with_a_distribution_suffix_is_not_its_dkms_driver() -> None:
    assert _probed("5.18.13", "torch=2.5.1+rocm6.2") != []  # the ROCm 5.4 DKMS driver: a finding
    fedora = _probed("5.18.13-200.fc36.x86_64", "torch=2.5.1+rocm6.2")  # a Fedora kernel: not the matrix's
    assert not [r for r in fedora if "which supports ROCm" in r]


def test_cuda_driver_is_not_judged() -> None:
    assert _found("platform=cuda", "arch=sm_90", "driver=5.18.13", "torch=2.5.1+cu124") == []


def test_finding_reaches_every_test_with_the_matrix_source() -> None:
    env = apply_overrides(BASE, ["platform=rocm", "driver=5.18.13", "rocm=6.2"])
    (finding,) = [f for f in evaluate(env) if f.check == rocm_driver.ID]
    assert finding.everything and finding.link == rocm_driver.SOURCE
    assert "amdgpu-install" in finding.fix


# Failures of an arch, not of the driver: HIP's hipErrorInvalidDeviceFunction text
# (https://github.com/ROCm/clr/blob/0bf2a9834c56f4f1bb3641f5558045225b2c95bf/hipamd/src/hip_error.cpp),
# and rocBLAS without a Tensile library for the GPU (rocblas-arch-not-in-release's, verbatim from
# https://github.com/brknsoul/ROCmLibs/issues/4 and
# https://github.com/likelovewant/ROCmLibs-for-gfx1103-AMD780M-APU/issues/12).
NOT_THE_DRIVER = (
    "RuntimeError: HIP error: invalid device function",
    "rocBLAS error: Cannot read C:\\Program Files\\AMD\\ROCm\\6.1\\bin\\/rocblas/library/TensileLibrary.dat: "
    "No such file or directory for GPU arch : gfx1103",
    "rocBLAS error: Could not initialize Tensile library",
)


@pytest.mark.parametrize("message", NOT_THE_DRIVER)
def test_signature_leaves_arch_and_rocblas_failures_alone(message: str) -> None:
    assert re.search(rocm_driver.PREDICTS, message) is None
