"""``rocm-sdk-family-lacks-arch``: TheRock's per-family ROCm packages against the stack's GPU."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import rocm_sdk_family
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.12.3", os="Linux")
VERSION = "7.9.0rc20251008"  # a TheRock release candidate's version, as its packages carry it


def _found(*stack: str) -> list[str]:
    env = apply_overrides(BASE, ["platform=rocm", *stack])
    return [f.reason for f in evaluate(env) if f.check == rocm_sdk_family.ID]


@pytest.mark.parametrize(
    ("arch", "package"),
    [
        ("gfx1151", "rocm-sdk-libraries-gfx110X-dgpu"),  # Strix Halo beside the RDNA3 dGPU family
        ("gfx1103", "rocm-sdk-libraries-gfx110X-dgpu"),  # the 780M iGPU is gfx110X-igpu's, not -dgpu's
        ("gfx942", "rocm-sdk-libraries-gfx950-dcgpu"),
        ("gfx1030", "rocm-sdk-device-gfx120X-all"),
        ("gfx1100", "rocm-sdk-libraries-gfx1151"),  # a target's own family holds that target only
        ("gfx1151", "amd-torch-device-gfx1100"),  # the multi-arch torch's device code for another GPU
    ],
)
def test_a_gpu_outside_the_installed_family_is_found(arch: str, package: str) -> None:
    found = _found(f"arch={arch}", f"lib.{package}={VERSION}")
    assert len(found) == 1 and found[0].startswith(f"{arch} is not among the GPU targets")


@pytest.mark.parametrize(
    ("arch", "packages"),
    [
        ("gfx1100", ("rocm-sdk-libraries-gfx110X-dgpu",)),
        ("gfx1103", ("rocm-sdk-libraries-gfx110X-all",)),
        ("gfx1151", ("rocm-sdk-libraries-gfx1151",)),
        ("gfx1151", ("rocm-sdk-device-gfx110X-dgpu", "rocm-sdk-device-gfx115X-igpu")),  # several families
        ("gfx942", ("rocm-sdk-libraries-gfx94X-dcgpu",)),
        ("gfx90a:sramecc+:xnack-", ("rocm-sdk-libraries-gfx90a-dcgpu",)),
        ("gfx1151", ("rocm-sdk-libraries-gfx999X-future",)),  # a family the table does not know
        ("gfx1151", ("rocm-sdk-core",)),  # no family package at all
        ("gfx1151", ("amd-torch-device-gfx1151", "amd-torchvision-device-gfx1151")),
    ],
)
def test_a_gpu_inside_the_installed_families_or_an_unknown_family_finds_nothing(
    arch: str, packages: tuple[str, ...]
) -> None:
    assert _found(f"arch={arch}", *(f"lib.{p}={VERSION}" for p in packages)) == []


def test_the_override_is_the_arch_the_runtime_loads() -> None:
    stack = ("arch=gfx1103", f"lib.rocm-sdk-libraries-gfx110X-dgpu={VERSION}")
    assert _found(*stack)
    assert _found(*stack, "env.HSA_OVERRIDE_GFX_VERSION=11.0.0") == []  # gfx1100's kernels, which -dgpu has
    assert _found(*stack, "env.HSA_OVERRIDE_GFX_VERSION=11.5.1")  # gfx1151's, which it has not


def test_nvidia_gpus_are_not_judged() -> None:
    env = apply_overrides(BASE, ["platform=cuda", "arch=sm_90", f"lib.rocm-sdk-libraries-gfx110X-dgpu={VERSION}"])
    assert [f for f in evaluate(env) if f.check == rocm_sdk_family.ID] == []


def test_every_family_lists_gfx_targets_only() -> None:
    for family, targets in rocm_sdk_family.FAMILIES.items():
        assert family == family.lower() and targets
        assert all(t.startswith("gfx") for t in targets)


def test_predicted_failure_is_known_bad_and_an_unrelated_one_stays_fail(pytester: pytest.Pytester) -> None:
    # TheRock's torch for the RDNA3 dGPU family; the stack's other checks are uncertain (no ROCm release
    # they know): the certain finding is the one named, both as the known-bad rule and as the likely cause
    stack = (
        "platform=rocm",
        "arch=gfx1151",
        f"torch=2.7.1+rocm{VERSION}",
        f"lib.rocm-sdk-libraries-gfx110X-dgpu={VERSION}",
    )
    predicted, unrelated = predicted_and_unrelated(pytester, "HIP error: invalid device function", stack)
    assert predicted["rocm_outcome"] == "known-bad" and predicted["rocm_rule"] == rocm_sdk_family.ID
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated
    assert unrelated["rocm_diagnosis"].startswith(f"{rocm_sdk_family.ID}: gfx1151 is not among")


# What users met, verbatim: TheRock's pip ROCm for gfx110X-dgpu ("rocm-sdk targets" printed
# gfx1100;gfx1101;gfx1102) on a gfx1103; the multi-arch packages without the GPU's device wheel.
VERBATIM = (
    ("RuntimeError: HIP error: invalid device function", "https://github.com/ROCm/TheRock/issues/1184"),
    (
        "Windows/gfx1151: every kernel launch fails with hipErrorInvalidImage unless the exact-arch device wheel "
        "is installed",
        "https://github.com/ROCm/TheRock/issues/7839",
    ),
    ("CUDA error: device kernel image is invalid", "https://github.com/ROCm/TheRock/issues/6869"),
)


@pytest.mark.parametrize(("message", "source"), VERBATIM)
def test_the_signature_matches_what_users_met(message: str, source: str) -> None:
    assert source.startswith("https://github.com/ROCm/TheRock/issues/")
    assert compile_signature(rocm_sdk_family.PREDICTS).search(message)


@pytest.mark.parametrize(
    "message", ["Segmentation fault (core dumped)", "HIP error: out of memory", "a genuinely different regression"]
)
def test_the_signature_is_narrow(message: str) -> None:
    assert not compile_signature(rocm_sdk_family.PREDICTS).search(message)


def test_a_torch_that_brings_its_own_libraries_is_not_judged_by_leftover_packages() -> None:
    leftover = f"lib.rocm-sdk-libraries-gfx110X-dgpu={VERSION}"
    assert _found("arch=gfx942", "torch=2.5.1+rocm6.2", leftover) == []  # pytorch.org's wheel: torch/lib
    assert _found("arch=gfx942", "torch=2.5.1", leftover) == []  # not a ROCm label at all
    assert _found("arch=gfx942", f"torch=2.7.1+rocm{VERSION}", leftover)  # TheRock's torch of that release


def test_a_replay_judges_only_the_packages_it_named() -> None:
    machine = Environment(
        platform="rocm", python="3.12.3", os="Linux", libraries={"rocm-sdk-libraries-gfx110x-dgpu": VERSION}
    )
    replay = ["arch=gfx942", f"torch=2.7.1+rocm{VERSION}"]  # names torch: the machine's other packages are not its
    assert [f for f in evaluate(apply_overrides(machine, replay)) if f.check == rocm_sdk_family.ID] == []
    named = apply_overrides(machine, [*replay, f"lib.rocm-sdk-libraries-gfx110X-dgpu={VERSION}"])
    assert [f.check for f in evaluate(named) if f.check == rocm_sdk_family.ID] == [rocm_sdk_family.ID]


def test_it_reaches_gpu_tests_only_and_claims_no_gpu_crash() -> None:
    env = apply_overrides(BASE, ["platform=rocm", "arch=gfx1151", f"lib.rocm-sdk-libraries-gfx110X-dgpu={VERSION}"])
    (finding,) = [f for f in evaluate(env) if f.check == rocm_sdk_family.ID]
    assert not finding.everything and finding.markers == ("gpus",)
    assert not compile_signature(rocm_sdk_family.PREDICTS).search(
        "Memory access fault by GPU node-1 (Agent handle: 0x5de975b3cc80) on address 0x799bfc063000"
    )
