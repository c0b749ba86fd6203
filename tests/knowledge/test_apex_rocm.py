"""``apex-rocm-build``: apex on a ROCm stack is a source build (ROCm/apex, one branch per torch release)."""

from __future__ import annotations

import re

import pytest

from pytest_rocmcompat.knowledge.checks import apex_rocm
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.registry import evaluate, evaluate_risks
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated

NEUTRAL = Environment(platform="cpu", python="3.11.7", os="Linux")
# NVIDIA/apex#499 (2019-09-20): apex installed without its extensions, FusedLayerNorm's import_module
MISSING = "ModuleNotFoundError: No module named 'fused_layer_norm_cuda'"
# NVIDIA/apex setup.py raise_if_cuda_home_none (apex_rocm.NVIDIA_SETUP): a ROCm torch has no CUDA_HOME
NO_NVCC = (
    "RuntimeError: --cuda_ext was requested, but nvcc was not found.  Are you sure your environment has nvcc "
    "available?  If you're installing within a container from https://hub.docker.com/r/pytorch/pytorch, only "
    "images whose names contain 'devel' will provide nvcc."
)
# torch.utils.cpp_extension's JIT build failure (_run_ninja_build: "Error building extension '{name}'"), as
# ROCm/apex 1.x's loader meets it when an op does not compile
JIT = "RuntimeError: Error building extension 'fused_layer_norm_cuda'"


def _found(*stack: str, base: Environment = NEUTRAL) -> list[Finding]:
    env = apply_overrides(base, list(stack)) if stack else base
    return [f for f in (*evaluate(env), *evaluate_risks(env)) if f.check == apex_rocm.ID]


def test_sources_are_pinned() -> None:
    assert "/blob/daed8525" in apex_rocm.ROCM_README and "/blob/6424da3b" in apex_rocm.NVIDIA_SETUP


def test_a_rocm_stack_naming_no_apex_is_a_risk_for_apex_tests_only() -> None:
    (finding,) = _found("platform=rocm", "arch=gfx90a", "rocm=6.2.4")
    assert finding.uncertain and finding.signature_only and finding.conditional
    assert finding.uses == ("apex",) and not finding.everything
    assert "does not say which apex" in finding.reason and "release/1.N.0" in finding.fix


def test_naming_no_apex_is_a_risk_only_of_a_stated_stack() -> None:
    """A probed or recorded machine lists what it has: no apex there is no apex, not an unknown one."""
    (risk,) = _found("platform=rocm", "arch=gfx90a")
    assert risk.uncertain and "does not say which apex" in risk.reason
    assert [
        f for f in evaluate(apply_overrides(NEUTRAL, ["platform=rocm", "arch=gfx90a"])) if f.check == apex_rocm.ID
    ] == []
    recorded = Environment(platform="rocm", python="3.11.7", os="Linux", source="recorded")
    assert _found(base=recorded) == []


def test_nvidia_apex_on_rocm() -> None:
    (finding,) = _found("platform=rocm", "torch=2.4.1+rocm6.1", "lib.apex=0.1")
    assert "NVIDIA's" in finding.reason and "no ROCm branch" in finding.reason


@pytest.mark.parametrize(
    ("apex", "torch", "wanted"),
    [("1.5.0", "2.4.1+rocm6.1", "1.4.0"), ("1.0.0", "2.3.0+rocm6.0", "1.3.0"), ("1.2.0", "2.0.1+rocm5.4.2", "1.0.0")],
)
def test_a_rocm_apex_of_another_torch_release(apex: str, torch: str, wanted: str) -> None:
    (finding,) = _found("platform=rocm", f"torch={torch}", f"lib.apex={apex}")
    assert f"ROCm/apex {wanted} is" in finding.reason and finding.uncertain


@pytest.mark.parametrize(
    "stack",
    [
        ("platform=rocm", "torch=2.4.1+rocm6.1", "lib.apex=1.4.0"),  # its own branch
        ("platform=rocm", "torch=2.0.1+rocm5.4.2", "lib.apex=1.0.0"),  # "2.0 and older"
        ("platform=rocm", "torch=1.13.1+rocm5.2", "lib.apex=1.0.0"),
        ("platform=rocm", "lib.apex=0.9.10.dev0"),  # PyPI's Pyramid toolkit: pypi-namesake's
        ("platform=cuda", "arch=sm_90"),  # NVIDIA's apex builds there
        ("arch=sm_90",),
    ],
)
def test_not_judged(stack: tuple[str, ...]) -> None:
    assert _found(*stack) == []


@pytest.mark.parametrize("text", [MISSING, NO_NVCC, JIT, "ImportError: No module named 'amp_C'"])
def test_predicts_apex_s_compiled_part_missing_or_not_building(text: str) -> None:
    assert re.search(apex_rocm.PREDICTS, text)


@pytest.mark.parametrize(
    "text",
    [
        "No module named 'apex'",  # apex absent: the test's own setup
        "RuntimeError: Error building extension 'flash_attn_2_cuda'",  # another library's op
        "HIP error: invalid device function",
    ],
)
def test_other_failures_are_not_its(text: str) -> None:
    assert re.search(apex_rocm.PREDICTS, text) is None


def test_through_pytest_both_ways(pytester: pytest.Pytester) -> None:
    predicted, unrelated = predicted_and_unrelated(
        pytester, MISSING, ("platform=rocm", "arch=gfx942", "rocm=6.3.1"), uses="apex", env=NEUTRAL,
        error="ModuleNotFoundError",
    )  # fmt: skip
    assert predicted["rocm_rule"] == apex_rocm.ID
    assert unrelated.get("rocm_outcome", "fail") == "fail" and "rocm_rule" not in unrelated
