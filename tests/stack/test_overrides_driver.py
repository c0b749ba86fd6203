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
