"""``rocm-visible-devices`` for Ray on ROCm: the HIP/CUDA pair ``import ray`` refuses, and Ray >=2.56 without amdsmi.

Bounds read in each release's ``ray/_private/accelerators/amd_gpu.py`` (PyPI wheels 2.45.0-2.60.0).
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import rocm_visibility
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.registry import compile_rules, evaluate
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
ROCM = ("platform=rocm", "arch=gfx942", "torch=2.5.1+rocm6.2", "torch_archs=gfx942", "lib.amdsmi=6.2.0")
PAIR = "Inconsistent values found"


def _ray(*stack: str, platform: str = "rocm") -> list[Finding]:
    """The check's Ray findings (those that reach ``uses("ray")``) for ``stack`` on ``platform``."""
    base = ROCM if platform == "rocm" else (f"platform={platform}", "arch=sm_90")
    env = apply_overrides(BASE, [*base, *stack])
    return [f for f in evaluate(env) if f.check == rocm_visibility.ID and f.uses == ("ray",)]


def _reasons(*stack: str, platform: str = "rocm") -> list[str]:
    return [f.reason for f in _ray(*stack, platform=platform)]


# ---------------------------------------------------------------- the HIP/CUDA pair
@pytest.mark.parametrize(
    ("ray", "hip", "cuda", "said"),
    [
        ("2.45.0", "0", "1", "asserts they are equal"),  # first release with the assert
        ("2.47.1", "0,1", "0", "asserts they are equal"),  # last release with it
        ("2.48.0", "0", "0", "raises ValueError for any such pair, equal or not"),  # the walrus bug
        ("2.49.0", "0", "1", "differ, and 'import ray' raises ValueError"),  # the bug fixed
        ("2.56.0", "1", "0", "differ, and 'import ray' raises ValueError"),  # last release reading CUDA's
    ],
)
def test_a_pair_ray_refuses_is_found(ray: str, hip: str, cuda: str, said: str) -> None:
    (finding,) = _ray(f"lib.ray={ray}", f"env.HIP_VISIBLE_DEVICES={hip}", f"env.CUDA_VISIBLE_DEVICES={cuda}")
    assert said in finding.reason and f"ray {ray} on ROCm" in finding.reason
    assert finding.predicts == rocm_visibility.RAY_PAIR_PREDICTS and finding.signature_only
    assert not finding.uncertain and not finding.markers and not finding.everything


@pytest.mark.parametrize(
    "stack",
    [
        ("lib.ray=2.44.1", "env.HIP_VISIBLE_DEVICES=0", "env.CUDA_VISIBLE_DEVICES=1"),  # before the check
        ("lib.ray=2.57.0", "env.HIP_VISIBLE_DEVICES=0", "env.CUDA_VISIBLE_DEVICES=1"),  # reads only HIP's
        ("lib.ray=2.47.1", "env.HIP_VISIBLE_DEVICES=0", "env.CUDA_VISIBLE_DEVICES=0"),  # equal: fine
        ("lib.ray=2.49.0", "env.HIP_VISIBLE_DEVICES=0,1", "env.CUDA_VISIBLE_DEVICES=0,1"),  # equal: fine
        ("lib.ray=2.48.0", "env.HIP_VISIBLE_DEVICES=0"),  # one of the two
        ("lib.ray=2.48.0", "env.CUDA_VISIBLE_DEVICES=0"),
        ("lib.ray=2.52.0", "env.CUDA_VISIBLE_DEVICES=3"),
        # 2.45-2.47.1 raise on ROCR before the pair: matrices/known_bad.yaml's rules, not this check
        ("lib.ray=2.46.0", "env.ROCR_VISIBLE_DEVICES=0", "env.HIP_VISIBLE_DEVICES=0", "env.CUDA_VISIBLE_DEVICES=1"),
        ("env.HIP_VISIBLE_DEVICES=0", "env.CUDA_VISIBLE_DEVICES=1"),  # no ray
    ],
)
def test_a_pair_ray_accepts_or_that_is_a_rule_elsewhere_is_silent(stack: tuple[str, ...]) -> None:
    assert _reasons(*stack) == []


@pytest.mark.parametrize(
    ("ray", "hip", "cuda", "found"),
    [
        ("2.46.0", "", "0", True),  # an empty HIP list is set, and differs
        ("2.46.0", "0", "", False),  # an empty CUDA list is falsy: 2.45-2.47.1 do not assert
        ("2.48.0", "0", "", True),  # 2.48.0 asks only whether CUDA's is set
        ("2.49.0", "", "", False),  # both empty: equal
    ],
)
def test_empty_lists_count_as_ray_reads_them(ray: str, hip: str, cuda: str, found: bool) -> None:
    # ``--rocm-set env.NAME=`` unsets a variable; a probed environment may hold it empty
    env = Environment(
        platform="rocm", libraries={"ray": ray}, env={"HIP_VISIBLE_DEVICES": hip, "CUDA_VISIBLE_DEVICES": cuda}
    )
    assert bool(rocm_visibility.check(env)) is found


def test_from_2_48_rocr_beside_hip_no_longer_stops_the_pair_check() -> None:
    stack = ("lib.ray=2.50.0", "env.ROCR_VISIBLE_DEVICES=0", "env.HIP_VISIBLE_DEVICES=0", "env.CUDA_VISIBLE_DEVICES=1")
    (reason,) = _reasons(*stack)
    assert "differ" in reason


def test_a_cuda_stack_is_not_judged() -> None:
    stack = ("lib.ray=2.48.0", "env.HIP_VISIBLE_DEVICES=0", "env.CUDA_VISIBLE_DEVICES=1")
    assert _reasons(*stack, platform="cuda") == []


def test_the_pair_finding_links_the_release_source_that_shows_it() -> None:
    def link(ray: str) -> str:
        (finding,) = _ray(f"lib.ray={ray}", "env.HIP_VISIBLE_DEVICES=0", "env.CUDA_VISIBLE_DEVICES=1")
        return finding.link

    assert link("2.46.0").endswith("/blob/ray-2.47.1/python/ray/_private/accelerators/amd_gpu.py")
    assert "/blob/ray-2.48.0/" in link("2.48.0") and "/blob/ray-2.56.0/" in link("2.53.0")


# ---------------------------------------------------------------- Ray >= 2.56 without amdsmi
def test_ray_2_56_without_amdsmi_is_a_risk_for_ray_tests() -> None:
    env = apply_overrides(BASE, ["platform=rocm", "arch=gfx942", "lib.ray=2.56.0"])
    (finding,) = [f for f in evaluate(env) if f.check == rocm_visibility.ID]
    assert "counts AMD GPUs only through the amdsmi Python package" in finding.reason
    assert finding.uncertain and finding.signature_only and finding.uses == ("ray",)
    assert finding.predicts == rocm_visibility.RAY_NO_GPU_PREDICTS and "/blob/ray-2.56.0/" in finding.link


def test_without_amdsmi_ray_reads_no_amd_variables_so_no_pair_is_refused() -> None:
    env = apply_overrides(
        BASE,
        ["platform=rocm", "lib.ray=2.56.0", "env.HIP_VISIBLE_DEVICES=0", "env.CUDA_VISIBLE_DEVICES=1"],
    )
    (finding,) = [f for f in evaluate(env) if f.check == rocm_visibility.ID]
    assert finding.predicts == rocm_visibility.RAY_NO_GPU_PREDICTS


@pytest.mark.parametrize(
    "stack",
    [
        ("platform=rocm", "lib.ray=2.55.0"),  # the ctypes rocm-smi binding: no package needed
        ("platform=rocm", "lib.ray=2.60.0", "lib.amdsmi=7.0.2"),
        ("platform=cuda", "lib.ray=2.60.0"),  # NVIDIA GPUs are counted through NVML
        ("platform=rocm",),
    ],
)
def test_amdsmi_installed_or_not_needed_is_silent(stack: tuple[str, ...]) -> None:
    # the visibility variables stated unset (unstated, Ray >= 2.45's refusals are a risk: test_ray_rocm_unstated_env)
    unset = ["env.ROCR_VISIBLE_DEVICES=", "env.HIP_VISIBLE_DEVICES=", "env.CUDA_VISIBLE_DEVICES="]
    env = apply_overrides(BASE, ["arch=gfx942", *stack, *unset])
    assert [f for f in evaluate(env) if f.check == rocm_visibility.ID] == []


def test_the_ray_findings_are_rules_of_their_own_messages() -> None:
    env = apply_overrides(
        BASE,
        ["platform=rocm", "lib.ray=2.49.0", "env.HIP_VISIBLE_DEVICES=0", "env.CUDA_VISIBLE_DEVICES=1"],
    )
    (rule,) = [r for r in compile_rules(evaluate(env)) if r.id.startswith(rocm_visibility.ID)]
    assert rule.applies_to.uses == ("ray",) and rule.signature is not None
    assert rule.signature.pattern == rocm_visibility.RAY_PAIR_PREDICTS  # not the torch/HIP messages


# ---------------------------------------------------------------- the messages
# (message, source): Ray's texts as its releases print them; the autoscaler's as users posted them
PAIR_MESSAGES = [
    (
        "AssertionError: Inconsistant values found. Please use either HIP_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES.",
        "https://github.com/ray-project/ray/blob/ray-2.47.1/python/ray/_private/accelerators/amd_gpu.py",
    ),
    (
        "ValueError: Inconsistant values found. Please use either HIP_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES.",
        "https://github.com/ray-project/ray/blob/ray-2.48.0/python/ray/_private/accelerators/amd_gpu.py",
    ),
    (
        "ValueError: Inconsistent values found. Please use either HIP_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES.",
        "https://github.com/ray-project/ray/blob/ray-2.56.0/python/ray/_private/accelerators/amd_gpu.py",
    ),
]
NO_GPU_MESSAGES = [
    (
        "(autoscaler +32s) Error: No available node types can fulfill resource request {'CPU': 1.0, 'GPU': 1.0}. "
        "Add suitable node types to this cluster to resolve this issue.",
        "https://github.com/real-stanford/scalingup/issues/6",
    ),
    (
        "(autoscaler +34s) Error: No available node types can fulfill resource request defaultdict(<class "
        "'float'>, {'CPU': 8.0, 'GPU': 8.0}). Add suitable node types to this cluster to resolve this issue.",
        "https://github.com/rllm-org/rllm/issues/35",
    ),
    (  # autoscaler v2's log line, as its format string builds it
        "No available node types can fulfill resource requests {'GPU': 1.0, 'CPU': 1.0}*1. "
        "Add suitable node types to this cluster to resolve this issue.",
        "https://github.com/ray-project/ray/blob/ray-2.56.0/python/ray/autoscaler/v2/event_logger.py",
    ),
    # twenty-third round: the autoscaler's pending warning, the raylet's, vLLM's Ray executor
    (
        "(scheduler +2m13s) Warning: The following resource request cannot be scheduled right now: {'GPU': 0.125, "
        "'CPU': 0.5}. This is likely due to all cluster resources being claimed by actors.",
        "https://github.com/YeWR/EfficientZero/issues/44",
    ),
    (
        "Warning: The following resource request cannot be scheduled right now: {'GPU': 1.0, 'CPU': 1.0}. This is "
        "likely due to all cluster resources being claimed by actors.",
        "https://github.com/OpenRLHF/OpenRLHF/issues/516",
    ),
    (
        "  | Required resources for this actor or task: {GPU: 1.000000}",
        "https://github.com/ray-project/ray/issues/21097",
    ),
    (  # the raylet's 2.x format (strings of the ray-2.9.3 wheel's raylet), a CPU and a GPU asked for
        "The actor or task with ID ffffffffffffffff9c08bcf94d34ab010a5c459102000000 cannot be scheduled right now. "
        "It requires {CPU: 1.000000}, {GPU: 1.000000} for placement, however the cluster currently cannot provide "
        "the requested resources.",
        "https://pypi.org/project/ray/2.9.3/",
    ),
    (
        "ValueError: The number of required GPUs exceeds the total number of available GPUs in the placement group.",
        "https://github.com/VITA-MLLM/VITA/issues/42",
    ),
    (
        "(EngineCore_DP0 pid=504) ValueError: Current node has no GPU available. current_node_resource="
        "{'accelerator_type:T4': 1.0, 'CPU': 112.0}. vLLM engine cannot start without GPU.",
        "https://github.com/vllm-project/vllm/issues/29265",
    ),
    (
        "ERROR 02-09 02:31:11 engine.py:389] Ray does not allocate any GPUs on the driver node. Consider adjusting "
        "the Ray placement group or running the driver on a GPU node.",
        "https://github.com/vllm-project/vllm/issues/12983",
    ),
    (  # gpustack/gpustack#4028's warning (vLLM's ray_utils.py) with a GPU count of 0
        "WARNING 12-25 11:51:11 [ray_utils.py:331] Tensor parallel size (16) exceeds available GPUs (0). This may "
        "result in Ray placement group allocation failures.",
        "https://github.com/gpustack/gpustack/issues/4028",
    ),
]


@pytest.mark.parametrize(("message", "source"), PAIR_MESSAGES)
def test_the_pair_signature_matches_rays_message(message: str, source: str) -> None:
    assert compile_signature(rocm_visibility.RAY_PAIR_PREDICTS).search(message) is not None, source


@pytest.mark.parametrize(("message", "source"), NO_GPU_MESSAGES)
def test_the_no_gpu_signature_matches_the_autoscaler_message(message: str, source: str) -> None:
    assert compile_signature(rocm_visibility.RAY_NO_GPU_PREDICTS).search(message) is not None, source


@pytest.mark.parametrize(
    "message",
    [
        # Ray's ROCR refusal: matrices/known_bad.yaml's rules
        "RuntimeError: Please use HIP_VISIBLE_DEVICES instead of ROCR_VISIBLE_DEVICES",
        # verl's own check (verl-project/verl#2876), not Ray's
        "AssertionError: Please use the same HIP_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES, inconsistant values "
        "found: 0,1,2,3 and 0",
        "HIP_VISIBLE_DEVICES contains more devices than ROCR_VISIBLE_DEVICES",
        "HIP error: invalid device ordinal",
        "ValueError: a genuinely different regression",
    ],
)
def test_the_pair_signature_claims_no_other_failure(message: str) -> None:
    assert compile_signature(rocm_visibility.RAY_PAIR_PREDICTS).search(message) is None


@pytest.mark.parametrize(
    "message",
    [
        # a request for no GPU (xgboost_ray#222, verbatim): not a GPU count of 0
        "Error: No available node types can fulfill resource request {'node:************': 0.01}. Add suitable "
        "node types to this cluster to resolve this issue.",
        "(autoscaler +2s) Warning: The following resource request cannot be scheduled right now: {'CPU': 1.0}.",
        "RuntimeError: No HIP GPUs are available",
        "ValueError: a genuinely different regression",
        # vLLM's warning where Ray counts GPUs, too few of them (gpustack/gpustack#4028, verbatim)
        "WARNING 12-25 11:51:11 [ray_utils.py:331] Tensor parallel size (16) exceeds available GPUs (8).",
        # the raylet asking for a custom resource (ray-project/ray#19919's shape), not a GPU
        "The actor or task with ID cb23 cannot be scheduled right now. It requires {CPU: 1.000000}, "
        "{CustomResource1: 2.000000} for placement",
    ],
)
def test_the_no_gpu_signature_claims_no_other_failure(message: str) -> None:
    assert compile_signature(rocm_visibility.RAY_NO_GPU_PREDICTS).search(message) is None


# ---------------------------------------------------------------- Ray before 2.10: no AMD manager
@pytest.mark.parametrize("ray", ["2.9.3", "2.5.0", "1.13.0"])
def test_ray_before_its_amd_support_is_a_risk_for_ray_tests(ray: str) -> None:
    env = apply_overrides(BASE, ["platform=rocm", "arch=gfx90a", f"lib.ray={ray}"])
    (finding,) = [f for f in evaluate(env) if f.check == rocm_visibility.ID]
    assert f"ray {ray} predates Ray's AMD GPU support (2.10.0)" in finding.reason
    assert finding.uncertain and finding.signature_only and finding.uses == ("ray",)
    assert finding.predicts == rocm_visibility.RAY_NO_GPU_PREDICTS
    assert finding.link == rocm_visibility.RAY_BEFORE_AMD_SOURCE


def test_before_amd_support_ray_reads_no_amd_variables_so_no_pair_is_refused() -> None:
    stack = ["platform=rocm", "lib.ray=2.9.3", "env.HIP_VISIBLE_DEVICES=0", "env.CUDA_VISIBLE_DEVICES=1"]
    (finding,) = [f for f in evaluate(apply_overrides(BASE, stack)) if f.check == rocm_visibility.ID]
    assert "predates Ray's AMD GPU support" in finding.reason


@pytest.mark.parametrize(
    "stack",
    [
        ("platform=rocm", "lib.ray=2.10.0"),  # the first release with AMDGPUAcceleratorManager
        ("platform=rocm", "lib.ray=2.10.0rc1"),  # its release candidate has that code too
        ("platform=cuda", "lib.ray=2.9.3"),  # NVIDIA GPUs are counted through NVML
    ],
)
def test_ray_with_amd_support_or_on_cuda_is_not_that_risk(stack: tuple[str, ...]) -> None:
    unset = ["env.ROCR_VISIBLE_DEVICES=", "env.HIP_VISIBLE_DEVICES=", "env.CUDA_VISIBLE_DEVICES="]
    env = apply_overrides(BASE, ["arch=gfx942", *stack, *unset])
    assert [f.reason for f in evaluate(env) if f.check == rocm_visibility.ID] == []


# ---------------------------------------------------------------- both ways, through pytest
def test_rays_refusal_is_known_bad_and_an_unrelated_failure_stays_fail(pytester: pytest.Pytester) -> None:
    stack = (*ROCM, "lib.ray=2.52.0", "env.HIP_VISIBLE_DEVICES=0", "env.CUDA_VISIBLE_DEVICES=1")
    predicted, unrelated = predicted_and_unrelated(
        pytester, PAIR_MESSAGES[2][0].removeprefix("ValueError: "), stack, uses="ray", error="ValueError"
    )
    assert predicted["rocm_rule"] == rocm_visibility.ID
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated
    assert unrelated["rocm_diagnosis"].startswith(f"{rocm_visibility.ID}: ray 2.52.0 on ROCm")


def test_no_amdsmi_is_known_bad_only_with_the_autoscaler_message(pytester: pytest.Pytester) -> None:
    stack = ("platform=rocm", "arch=gfx942", "torch=2.5.1+rocm6.2", "torch_archs=gfx942", "lib.ray=2.56.0")
    predicted, unrelated = predicted_and_unrelated(pytester, NO_GPU_MESSAGES[0][0], stack, uses="ray")
    assert predicted["rocm_rule"] == rocm_visibility.ID
    # an unconfirmed risk is no cause of another failure: a plain fail, no rule, no diagnosis
    assert unrelated.get("rocm_outcome", "fail") == "fail" and "rocm_rule" not in unrelated
    assert "rocm_diagnosis" not in unrelated and unrelated["rocm_note"].startswith("risk ")
    assert "likely cause" not in unrelated["rocm_note"]


def test_ray_before_amd_support_is_known_bad_only_with_a_no_gpu_message(pytester: pytest.Pytester) -> None:
    stack = ("platform=rocm", "arch=gfx90a", "torch=2.1.2+rocm5.6", "torch_archs=gfx90a", "lib.ray=2.9.3")
    message = NO_GPU_MESSAGES[8][0].split("ValueError: ", 1)[1]
    predicted, unrelated = predicted_and_unrelated(pytester, message, stack, uses="ray", error="ValueError")
    assert predicted["rocm_rule"] == rocm_visibility.ID
    assert unrelated.get("rocm_outcome", "fail") == "fail" and "rocm_rule" not in unrelated
