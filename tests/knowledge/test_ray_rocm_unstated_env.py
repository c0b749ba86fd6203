"""``rocm-visible-devices``: Ray on a stated ROCm stack that says nothing of the visibility variables.

Each range read in Ray's own ``python/ray/_private/accelerators/amd_gpu.py`` (PyPI wheels 2.10.0-2.60.0);
torch's check in ``torch/cuda/__init__.py`` (wheels 2.0.0-2.6.0: first in 2.6.0).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_rocmcompat.cli.check import stack_environment
from pytest_rocmcompat.knowledge.checks import rocm_visibility
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.registry import compile_rules, evaluate
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated, run_cases

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
ROCM = ("platform=rocm", "arch=gfx942", "torch=2.6.0+rocm6.2.4", "torch_archs=gfx942", "lib.amdsmi=6.2.0")
RAY_SOURCE = "https://github.com/ray-project/ray/blob/ray-{}/python/ray/_private/accelerators/amd_gpu.py"
UNSTATED = "the stack states none of"
TORCH_SOURCE = "https://github.com/pytorch/pytorch/blob/v2.6.0/torch/cuda/__init__.py"


def _risks(*stack: str, platform: str = "rocm") -> list[Finding]:
    """The check's Ray risks of unstated variables (not the amdsmi one) for ``stack`` (``--rocm-set`` values)."""
    head = ROCM if platform == "rocm" else (f"platform={platform}", "arch=sm_90", "torch=2.6.0+cu124")
    env = apply_overrides(BASE, [*head, *stack])
    return [f for f in evaluate(env) if f.check == rocm_visibility.ID and f.uncertain and UNSTATED in f.reason]


# ---------------------------------------------------------------- the variables unstated
@pytest.mark.parametrize(
    ("stack", "unstated"),
    [
        (("lib.ray=2.52.0",), True),
        (("lib.ray=2.52.0", "env.PYTORCH_HIP_ALLOC_CONF=expandable_segments:True"), True),  # not a visibility one
        (("lib.ray=2.52.0", "env.ROCR_VISIBLE_DEVICES=0"), False),
        (("lib.ray=2.52.0", "env.HIP_VISIBLE_DEVICES="), False),  # stated unset
        (("lib.ray=2.52.0", "env.CUDA_VISIBLE_DEVICES=0"), False),
        (("lib.ray=2.52.0", "env.RAY_EXPERIMENTAL_NOSET_HIP_VISIBLE_DEVICES=1"), False),
    ],
)
def test_a_stated_stack_is_unstated_until_it_names_a_visibility_variable(
    stack: tuple[str, ...], unstated: bool
) -> None:
    assert rocm_visibility.visibility_unstated(apply_overrides(BASE, [*ROCM, *stack])) is unstated


def test_a_live_probe_or_a_recording_with_variables_is_not_unstated() -> None:
    live = Environment(platform="rocm", torch="2.6.0+rocm6.2.4", libraries={"ray": "2.52.0"})
    assert not rocm_visibility.visibility_unstated(live)
    # a recording's variables are its machine's: any of them present makes the environment known, even beside
    # a stated key (one with none carries nothing to tell it from a stack file: unstated)
    machine = Environment(platform="rocm", env={"ROCM_PATH": "/opt/rocm"}, source="replay", origin="env.json")
    assert not rocm_visibility.visibility_unstated(apply_overrides(machine, ["lib.ray=2.52.0"]))


def test_a_live_probe_gets_no_risk() -> None:
    live = Environment(
        platform="rocm", torch="2.6.0+rocm6.2.4", libraries={"ray": "2.52.0", "amdsmi": "6.2.0"}, os="Linux"
    )
    assert [f for f in rocm_visibility.check(live) if f.uncertain] == []


# ---------------------------------------------------------------- one risk per release range
@pytest.mark.parametrize(
    ("ray", "tag", "said", "predicts"),
    [
        ("2.10.0", "2.44.1", "Ray sets ROCR_VISIBLE_DEVICES to each GPU task's", rocm_visibility.TORCH_ROCR_PREDICTS),
        ("2.44.1", "2.44.1", "makes torch (2.6+) raise", rocm_visibility.TORCH_ROCR_PREDICTS),
        ("2.45.0", "2.47.1", "raises RuntimeError whenever ROCR_VISIBLE_DEVICES is set", "Inconsistant"),
        ("2.47.1", "2.47.1", "asserts HIP_VISIBLE_DEVICES equals a non-empty", "Inconsistant"),
        ("2.48.0", "2.48.0", "(any such pair, equal or not)", "Inconsistant"),
        ("2.51.2", "2.51.2", "(a pair that differs)", "Inconsistant"),
        ("2.52.0", "2.56.0", "set without HIP_VISIBLE_DEVICES", "Inconsistent"),
        ("2.56.1", "2.56.0", "(a pair that differs)", "Inconsistent"),
        ("2.57.0", "2.60.0", "2.57+ reads only HIP_VISIBLE_DEVICES", rocm_visibility.RAY_ROCR_PREDICTS),
        ("2.60.0", "2.60.0", "set without HIP_VISIBLE_DEVICES", rocm_visibility.RAY_ROCR_PREDICTS),
    ],
)
def test_each_range_is_a_risk_of_its_own_texts(ray: str, tag: str, said: str, predicts: str) -> None:
    (risk,) = _risks(f"lib.ray={ray}")
    assert said in risk.reason and f"ray {ray} on ROCm" in risk.reason and "the stack states none of" in risk.reason
    assert risk.link == RAY_SOURCE.format(tag) and predicts in risk.predicts
    assert risk.uncertain and risk.signature_only and risk.uses == ("ray",)
    assert not risk.markers and not risk.everything and not risk.nodeids


@pytest.mark.parametrize(
    "stack",
    [
        ("lib.ray=2.9.3",),  # before the releases read
        ("lib.ray=2.61.0",),  # after them
        ("lib.ray=2.44.1", "torch=2.5.1+rocm6.2"),  # torch before 2.6 has no check of its own
        ("lib.ray=2.56.0", "lib.amdsmi="),  # no amdsmi: Ray never reads the AMD variables (the amdsmi risk)
        ("lib.ray=2.44.1", "torch="),  # no torch stated: before 2.45 only torch's check raises
        ("lib.ray=2.52.0", "env.ROCR_VISIBLE_DEVICES=", "env.HIP_VISIBLE_DEVICES=0"),  # stated
        ("env.HIP_VISIBLE_DEVICES=",),  # no ray
        (),
    ],
)
def test_outside_the_read_ranges_or_stated_there_is_no_risk(stack: tuple[str, ...]) -> None:
    assert _risks(*stack) == []


def test_without_amdsmi_only_the_amdsmi_risk_stays() -> None:
    env = apply_overrides(BASE, [*ROCM, "lib.amdsmi=", "lib.ray=2.56.0"])
    (finding,) = [f for f in evaluate(env) if f.check == rocm_visibility.ID]
    assert finding.predicts == rocm_visibility.RAY_NO_GPU_PREDICTS


def test_a_cuda_stack_gets_nothing() -> None:
    assert len(_risks("lib.ray=2.52.0")) == 1  # the same stack on ROCm
    assert _risks("lib.ray=2.52.0", platform="cuda") == []


def test_stated_variables_keep_the_existing_findings_not_the_risk() -> None:
    env = apply_overrides(BASE, [*ROCM, "lib.ray=2.52.0", "env.HIP_VISIBLE_DEVICES=0", "env.CUDA_VISIBLE_DEVICES=1"])
    (finding,) = [f for f in evaluate(env) if f.check == rocm_visibility.ID]
    assert not finding.uncertain and finding.predicts == rocm_visibility.RAY_PAIR_PREDICTS


def test_the_risk_is_an_at_risk_rule_of_its_own_messages() -> None:
    env = apply_overrides(BASE, [*ROCM, "lib.ray=2.57.0"])
    (rule,) = [r for r in compile_rules(evaluate(env)) if r.id.startswith(rocm_visibility.ID)]
    assert rule.at_risk and rule.applies_to.uses == ("ray",) and not rule.applies_to.markers
    assert rule.signature is not None and rule.signature.pattern == rocm_visibility.RAY_ROCR_PREDICTS


# ---------------------------------------------------------------- the messages
# (Ray release whose risk predicts it, message as the library raises it, source)
MESSAGES = [
    (
        "2.47.1",
        "RuntimeError: Please use HIP_VISIBLE_DEVICES instead of ROCR_VISIBLE_DEVICES",
        RAY_SOURCE.format("2.47.1"),
    ),
    (
        "2.47.1",
        "AssertionError: Inconsistant values found. Please use either HIP_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES.",
        RAY_SOURCE.format("2.47.1"),
    ),
    (
        "2.51.2",
        "ValueError: Inconsistant values found. Please use either HIP_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES.",
        RAY_SOURCE.format("2.51.2"),
    ),
    (
        "2.56.0",
        "ValueError: Inconsistent values found. Please use either HIP_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES.",
        RAY_SOURCE.format("2.56.0"),
    ),
    (
        "2.60.0",
        "RuntimeError: Please use HIP_VISIBLE_DEVICES instead of ROCR_VISIBLE_DEVICES",
        RAY_SOURCE.format("2.60.0"),
    ),
    ("2.44.1", "RuntimeError: HIP_VISIBLE_DEVICES contains more devices than ROCR_VISIBLE_DEVICES", TORCH_SOURCE),
]


def _predicts(ray: str) -> str:
    (risk,) = _risks(f"lib.ray={ray}")
    return risk.predicts


@pytest.mark.parametrize(("ray", "message", "source"), MESSAGES)
def test_the_range_claims_its_libraries_message(ray: str, message: str, source: str) -> None:
    assert compile_signature(_predicts(ray)).search(message) is not None, source


@pytest.mark.parametrize(
    ("ray", "message"),
    [
        # another range's text: each range claims only what its release raises
        ("2.44.1", "RuntimeError: Please use HIP_VISIBLE_DEVICES instead of ROCR_VISIBLE_DEVICES"),
        (
            "2.47.1",
            "ValueError: Inconsistent values found. Please use either HIP_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES",
        ),
        (
            "2.56.0",
            "ValueError: Inconsistant values found. Please use either HIP_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES",
        ),
        (
            "2.57.0",
            "ValueError: Inconsistent values found. Please use either HIP_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES",
        ),
        ("2.57.0", "RuntimeError: HIP_VISIBLE_DEVICES contains more devices than ROCR_VISIBLE_DEVICES"),
        # generic HIP errors a wrong selection may also give: never claimed
        ("2.44.1", "RuntimeError: HIP error: invalid device ordinal"),
        ("2.52.0", "hipErrorInvalidDevice"),
        ("2.52.0", "RuntimeError: No HIP GPUs are available"),
        ("2.60.0", "ValueError: a genuinely different regression"),
    ],
)
def test_the_range_claims_no_other_failure(ray: str, message: str) -> None:
    assert compile_signature(_predicts(ray)).search(message) is None


# ---------------------------------------------------------------- both ways, through pytest
BARE = Environment(platform="cpu", python="3.11.7", os="Linux")  # a replayed machine without variables


@pytest.mark.parametrize(
    ("ray", "message", "error"),
    [
        ("2.52.0", MESSAGES[0][1].removeprefix("RuntimeError: "), "RuntimeError"),
        ("2.44.1", MESSAGES[5][1].removeprefix("RuntimeError: "), "RuntimeError"),
    ],
)
def test_a_refusal_is_known_bad_and_an_unrelated_failure_stays_fail(
    pytester: pytest.Pytester, ray: str, message: str, error: str
) -> None:
    predicted, unrelated = predicted_and_unrelated(
        pytester, message, (*ROCM, f"lib.ray={ray}"), uses="ray", env=BARE, error=error
    )
    assert predicted["rocm_rule"] == rocm_visibility.ID
    # an unconfirmed risk is no cause of another failure: a plain fail, no rule, no diagnosis
    assert unrelated.get("rocm_outcome", "fail") == "fail" and "rocm_rule" not in unrelated
    assert "rocm_diagnosis" not in unrelated


def test_a_recorded_machines_variables_leave_the_refusal_a_plain_fail(pytester: pytest.Pytester) -> None:
    # the recorded H100's variables are its machine's: no visibility variable is set there, nothing is at risk
    cases = run_cases(pytester, MESSAGES[0][1].removeprefix("RuntimeError: "), (*ROCM, "lib.ray=2.52.0"), uses="ray")
    assert cases["test_predicted"].get("rocm_outcome", "fail") == "fail"
    assert "rocm_rule" not in cases["test_predicted"]


# ---------------------------------------------------------------- rocmcompat check on a requirements file
def test_rocmcompat_check_lists_the_risk(tmp_path: Path) -> None:
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("torch==2.6.0+rocm6.2.4\nray==2.52.0\namdsmi==6.2.0\n", encoding="utf-8")
    _, env = stack_environment(str(requirements), ["arch=gfx942"])
    (risk,) = [f for f in evaluate(env) if f.check == rocm_visibility.ID]
    assert risk.uncertain and UNSTATED in risk.reason and "/blob/ray-2.56.0/" in risk.link
    # nothing --set: the stack file alone states no variable either (no live probe: the same risk)
    _, env = stack_environment(str(requirements), [])
    (alone,) = [f for f in evaluate(env) if f.check == rocm_visibility.ID]
    assert alone.uncertain and UNSTATED in alone.reason


def test_from_2_45_rays_own_refusal_needs_no_torch() -> None:
    """Ray 2.45+ refuses ROCR_VISIBLE_DEVICES on ``import ray`` whatever runs on its GPUs."""
    (finding,) = _risks("lib.ray=2.52.0", "torch=")
    assert re.search(finding.predicts, "RuntimeError: Please use HIP_VISIBLE_DEVICES instead of ROCR_VISIBLE_DEVICES")
