"""Checks and rules judge the GPUs a process sees (derived_facts, ``stack.visibility``).

An APU's integrated GPU beside a Radeon card is the common case: AMD advises hiding it
(``HIP_VISIBLE_DEVICES``/``ROCR_VISIBLE_DEVICES``); hidden, no check claims a failure for it;
visible, the checks judge it as before.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge import derived_facts
from pytest_rocmcompat.knowledge.checks import arch
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import run_cases

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
STACK = ("platform=rocm", "arch=gfx1100,gfx1036", "torch=2.5.1+rocm6.2")
# a ROCm torch on a GPU its build has no code for, verbatim from https://github.com/ROCm/legacy-rocm-build/issues/5668
INVALID_DEVICE_FUNCTION = "RuntimeError: HIP error: invalid device function"


def _checks(*stack: str) -> set[str]:
    return {f.check for f in evaluate(apply_overrides(BASE, list(stack)))}


@pytest.mark.parametrize(
    "hidden", ["env.HIP_VISIBLE_DEVICES=0", "env.ROCR_VISIBLE_DEVICES=0", "env.CUDA_VISIBLE_DEVICES=0"]
)
def test_a_hidden_integrated_gpu_is_not_judged(hidden: str) -> None:
    assert arch.ID in _checks(*STACK)  # visible: torch 2.5.1+rocm6.2 has no gfx1036 code
    assert arch.ID not in _checks(*STACK, hidden)


def test_the_visible_one_is_still_judged() -> None:
    assert arch.ID in _checks(*STACK, "env.HIP_VISIBLE_DEVICES=1")


def test_the_derived_environment_says_why() -> None:
    env = derived_facts.derive(apply_overrides(BASE, [*STACK, "env.HIP_VISIBLE_DEVICES=0"]))
    assert env.archs == ("gfx1100",)
    assert "derived: the GPUs a process sees: HIP_VISIBLE_DEVICES=0 leaves gpu0 gfx1100 of 2 devices" in env.notes


def test_through_pytest_hidden_is_a_plain_failure_visible_is_known_bad(pytester: pytest.Pytester) -> None:
    visible = run_cases(pytester, INVALID_DEVICE_FUNCTION, STACK, env=BASE)
    assert visible["test_predicted"].get("rocm_outcome") == "known-bad"
    for path in pytester.path.iterdir():
        if path.name != "env.json" and path.is_file():
            path.unlink()
    hidden = run_cases(pytester, INVALID_DEVICE_FUNCTION, (*STACK, "env.HIP_VISIBLE_DEVICES=0"), env=BASE)
    assert "rocm_rule" not in hidden["test_predicted"]


def test_a_per_node_override_keeps_naming_its_node_after_narrowing() -> None:
    """HSA_OVERRIDE_GFX_VERSION_<n> counts every node, hidden or not: narrowing must not move it onto another GPU."""
    # _1 is the hidden APU's (node 1); the visible gfx1100 (node 2) runs its own code
    stack = ("platform=rocm", "arch=gfx1036,gfx1100", "torch=2.5.1+rocm6.2", "env.HSA_OVERRIDE_GFX_VERSION_1=10.3.0")
    assert "hsa-override-invalid" not in _checks(*stack)
    assert "hsa-override-invalid" not in _checks(*stack, "env.ROCR_VISIBLE_DEVICES=1")
    # _2 maps the visible gfx1031 (node 2) onto gfx1030, which the build carries
    card = ("platform=rocm", "arch=gfx1036,gfx1031", "torch=2.3.1+rocm6.0", "env.HSA_OVERRIDE_GFX_VERSION_2=10.3.0")
    assert arch.ID not in _checks(*card, "env.HIP_VISIBLE_DEVICES=1")
    assert arch.ID in _checks(*card)  # the visible APU has no code in the build
