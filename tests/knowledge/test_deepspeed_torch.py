"""``requirement-not-met`` on DeepSpeed beside a torch it cannot run with (``RUNTIME_MINIMUMS["deepspeed"]``).

DeepSpeed declares ``torch`` with no bound (``torch>=2.0.0`` from 0.19.1), so these pairs come from the
sourced rows: stacks stated as users state them (``lib.deepspeed=`` beside a ``+rocm`` torch, an untagged
torch, a ``2.4.0a0+git`` development build) are found with the row's requirement and fix; the boundary
releases on either side are not. The messages users met are predicted, and unrelated ones are not.
"""

from __future__ import annotations

import re

import pytest

from pytest_rocmcompat.knowledge.checks import requirements
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.knowledge.rules.signature import Signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated

_PR = "https://github.com/deepspeedai/DeepSpeed/pull/"


def reasons_of(*stack: str, python: str = "3.11.7") -> list[str]:
    """The requirement-not-met reasons of ``stack`` stated over a neutral CPU machine with ``python``."""
    env = apply_overrides(Environment(platform="cpu", python=python, os="Linux"), list(stack))
    return [f.reason for f in evaluate(env) if f.check == requirements.ID]


def assert_reported(reasons: list[str], deepspeed: str, torch: str, found: tuple[str, str] | None) -> None:
    """No reason when ``found`` is None; else one, naming DeepSpeed once, with ``found``'s (requirement, source)."""
    assert bool(reasons) is (found is not None), reasons
    if found is not None:
        (reason,) = reasons
        requirement, source = found
        assert f"deepspeed {deepspeed} requires {requirement}, installed torch {torch} ({source})" in reason
        assert reason.count("deepspeed ") == 1


# (deepspeed, torch, the requirement reported and its fix PR, or None)
CASES = [
    # torch.distributed.elastic.agent.server.api: ``log`` renamed ``logger`` and ``_get_socket_with_port``
    # removed in torch 2.4; DeepSpeed 0.10.1 to 0.14.3 import them on ``import deepspeed``
    ("0.10.1", "2.4.0a0+git1234abc", ("torch<2.4", "5346")),  # ROCm's development build of 2.4
    ("0.14.0", "2.4.0a0+07cecf4168.nv24.05", ("torch<2.4", "5346")),  # NGC 24.05 (hiyouga/LlamaFactory#4271)
    ("0.12.6", "2.6.0", ("torch<2.4", "5346")),  # the import fails before checkpoint loading could
    ("0.14.0", "2.3.1", None),
    ("0.10.0", "2.4.0a0+git1234abc", None),  # the elastic agent is imported on torch 1.11+ only (#4010)
    ("0.14.1", "2.4.0+rocm6.1", ("torch<2.4", "5654")),
    ("0.14.3", "2.5.1", ("torch<2.4", "5654")),
    ("0.14.3", "2.3.1+rocm6.0", None),
    # ops built with -std=c++14 before 0.9.3, which torch 2.1's headers refuse
    ("0.9.2", "2.1.0+rocm5.6", ("torch<2.1", "3596")),
    ("0.8.3", "2.1.2", ("torch<2.1", "3596")),
    ("0.9.2", "2.0.1+rocm5.4.2", None),
    ("0.9.5", "2.1.0+rocm5.6", None),  # -std=c++17 from 0.9.3; no import or build bound verified here
    # torch.load without weights_only before 0.16.0 (torch 2.6 defaults it to True): only resuming a
    # checkpoint fails, and TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1 avoids it: no finding for the stack
    ("0.9.5", "2.6.0", None),
    ("0.15.4", "2.6.0", None),
    ("0.14.4", "2.6.0+rocm6.2.4", None),
    ("0.16.0", "2.6.0", None),
    # AutoSP's torch.library.custom_op (torch 2.4) at import from 0.18.9
    ("0.18.9", "2.3.1", ("torch>=2.4.0a0", "7860")),
    ("0.19.5", "2.1.2+rocm5.6", ("torch>=2.4.0a0", "7860")),
    ("0.19.5", "2.4.0", None),
    ("0.18.9", "2.4.0a0+git1234abc", None),  # a 2.4 development build has torch.library.custom_op
]


@pytest.mark.parametrize(("deepspeed", "torch", "found"), CASES)
def test_deepspeed_beside_torch_both_ways(deepspeed: str, torch: str, found: tuple[str, str] | None) -> None:
    reported = None if found is None else (found[0], f"{_PR}{found[1]}")
    assert_reported(reasons_of(f"lib.deepspeed={deepspeed}", f"torch={torch}"), deepspeed, torch, reported)


def test_a_recorded_rocm_torch_is_judged_too() -> None:
    """A recorded ROCm torch (``2.4.0a0+git…``) beside a replayed ``lib.deepspeed=0.12.6`` reaches the same row."""
    env = Environment(platform="rocm", python="3.10.14", os="Linux", torch="2.4.0a0+gitd990dad")
    env = apply_overrides(env, ["lib.deepspeed=0.12.6"])
    (finding,) = [f for f in evaluate(env) if f.check == requirements.ID]
    assert finding.link == f"{_PR}5346" and set(finding.uses) == {"deepspeed", "torch"}


@pytest.mark.parametrize(
    ("accelerate", "deepspeed", "found"),
    [
        ("0.21.0", "0.9.2", True),  # Accelerator(deepspeed_plugin=...): "DeepSpeed version must be >= 0.9.3"
        ("1.10.0", "0.8.3", True),
        ("0.21.0", "0.9.3", False),
        ("0.20.3", "0.9.2", False),  # 0.20.x checks >= 0.6.5, not tabled
    ],
)
def test_accelerate_deepspeed_floor_both_ways(accelerate: str, deepspeed: str, found: bool) -> None:
    reasons = reasons_of(f"lib.accelerate={accelerate}", f"lib.deepspeed={deepspeed}")
    assert bool(reasons) is found, reasons
    if found:
        assert f"accelerate {accelerate} requires deepspeed>=0.9.3, installed deepspeed {deepspeed} " in reasons[0]
        assert "/accelerate/blob/v0.21.0/src/accelerate/accelerator.py#L289)" in reasons[0]


def _predicted(message: str) -> bool:
    """The check's signature with what the broken DeepSpeed/torch pair itself adds (as the registry joins them)."""
    pattern = f"{requirements.PREDICTS}|{requirements.pair_predicts(['deepspeed', 'torch'])}"
    return Signature(pattern).search(message) is not None


# What users met, verbatim, with a torch their DeepSpeed does not fit
VERBATIM = [
    # torch 2.4 (development builds) beside DeepSpeed < 0.14.1, the reporter an AMD engineer
    (
        "ImportError: cannot import name 'log' from 'torch.distributed.elastic.agent.server.api' "
        "(/root/miniconda3/lib/python3.11/site-packages/torch/distributed/elastic/agent/server/api.py)",
        "https://github.com/deepspeedai/DeepSpeed/issues/5337",
    ),
    (
        "Exception: cannot import name 'log' from 'torch.distributed.elastic.agent.server.api'",
        "https://github.com/huggingface/alignment-handbook/issues/180",
    ),
    (
        "cannot import name 'log' from 'torch.distributed.elastic.agent.server.api'",
        "https://github.com/hiyouga/LlamaFactory/issues/5153",
    ),
    # torch 2.4 beside DeepSpeed 0.14.1 to 0.14.3
    (
        "[BUG] cannot import name '_get_socket_with_port' from 'torch.distributed.elastic.agent.server.api'",
        "https://github.com/deepspeedai/DeepSpeed/issues/5603",
    ),
    # torch 2.1.0.dev20230519 building DeepSpeed's ops with -std=c++14
    (
        "/usr/local/lib/python3.8/dist-packages/torch/include/torch/csrc/api/include/torch/all.h:4:2: "
        "error: #error C++17 or later compatible compiler is required to use PyTorch.",
        "https://github.com/pytorch/pytorch/issues/102082",
    ),
    # torch 2.0 beside DeepSpeed < 0.8.2 (UPPER_BOUNDS)
    ("ModuleNotFoundError: No module named 'torch._six'", "https://github.com/rmihaylov/falcontune/issues/21"),
    # the rows RUNTIME_MINIMUMS already held: 0.15.3, 0.17.5, 0.18.7/0.18.8 and torch 2.12's headers
    ("module 'torch.compiler' has no attribute 'is_compiling'", "https://github.com/deepspeedai/DeepSpeed/issues/6656"),
    (
        "[WARNING] ZenFlow disabled: torch internal optimizer symbols could not be imported: cannot import name "
        "'_disable_dynamo_if_unsupported' from 'torch.optim.optimizer'",
        "https://github.com/deepspeedai/DeepSpeed/pull/7544",
    ),
    (
        "[rank0]:     5 | #error C++20 or later compatible compiler is required to use PyTorch.",
        "https://github.com/deepspeedai/DeepSpeed/issues/8235",
    ),
    # torch.library.custom_op before torch 2.4 (the form AutoSP's all_to_all.py meets)
    ("AttributeError: module 'torch.library' has no attribute 'custom_op'", "https://github.com/dropbox/hqq/issues/92"),
    (
        "module 'torch.library' has no attribute 'custom_op'",
        "https://github.com/shawntan/scattermoe/issues/16",
    ),
    (
        "AttributeError: module 'torch.amp' has no attribute 'custom_fwd'",
        "https://github.com/kijai/ComfyUI-GIMM-VFI/issues/2",
    ),
]


@pytest.mark.parametrize(("message", "source"), VERBATIM)
def test_what_users_met_is_predicted(message: str, source: str) -> None:
    assert re.match(r"https://github\.com/[\w.-]+/[\w.-]+/(?:issues|pull)/\d+$", source)
    assert _predicted(message)


@pytest.mark.parametrize(
    "message",
    [
        "Segmentation fault (core dumped)",
        "RuntimeError: HIP error: invalid device function",
        # the ninja wrapper's line: every op build failure ends with it, whatever the cause
        "RuntimeError: Error building extension 'fused_adam'",
        "AttributeError: 'DeepSpeedCPUAdam' object has no attribute 'ds_opt_adam'",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
    ],
)
def test_the_signature_is_narrow(message: str) -> None:
    assert not _predicted(message)


def test_through_pytest_predicted_is_known_bad_and_unrelated_fails(pytester: pytest.Pytester) -> None:
    """DeepSpeed 0.12.6 beside ROCm's torch 2.4 development build, the import failure #5337 quotes."""
    env = Environment(platform="rocm", python="3.10.14", os="Linux")
    stack = ("lib.deepspeed=0.12.6", "torch=2.4.0a0+git1234abc")
    predicted, unrelated = predicted_and_unrelated(
        pytester, VERBATIM[0][0], stack, uses="deepspeed", env=env, error="ImportError"
    )
    assert predicted["rocm_rule"] == requirements.ID
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated
    assert unrelated["rocm_diagnosis"].startswith(f"{requirements.ID}: deepspeed 0.12.6 requires torch<2.4")


# Messages the new rows meet that only the lines added with them match (requirements.PREDICTS'
# torch header line, requirements.OWN_MESSAGES' DeepSpeed lines): narrow, each names DeepSpeed or torch's own header.
PENDING = [
    (
        "WeightsUnpickler error: Unsupported global: GLOBAL deepspeed.runtime.fp16.loss_scaler.LossScaler was not "
        "an allowed global by default. Please use `torch.serialization.add_safe_globals([LossScaler])` or the "
        "`torch.serialization.safe_globals([LossScaler])` context manager to allowlist this global if you trust "
        "this class/function.",
        "https://github.com/modelscope/ms-swift/issues/5808",
    ),
    (
        "DeepSpeed version must be >= 0.9.3. Please update DeepSpeed.",
        "https://github.com/huggingface/accelerate/blob/v0.21.0/src/accelerate/accelerator.py#L290",
    ),
    ("#error You need C++17 to compile PyTorch", "https://github.com/pytorch/pytorch/blob/v2.1.0/c10/util/C++17.h"),
]


@pytest.mark.parametrize(("message", "source"), PENDING)
def test_the_new_rows_messages_are_real(message: str, source: str) -> None:
    assert source.startswith("https://github.com/")
    assert _predicted(message)


@pytest.mark.parametrize(
    "message",
    [
        "WeightsUnpickler error: Unsupported global: GLOBAL numpy.core.multiarray._reconstruct was not an allowed "
        "global by default.",
        "DeepSpeed C++/CUDA extension op report",
        "error: #error You need C++14 to compile PyTorch",  # an old compiler, not a torch/DeepSpeed mismatch
    ],
)
def test_the_new_rows_messages_are_narrow(message: str) -> None:
    assert not _predicted(message)


@pytest.mark.parametrize(("message", "source"), PENDING)
def test_the_new_rows_messages_are_predicted(message: str, source: str) -> None:
    assert source and _predicted(message)
