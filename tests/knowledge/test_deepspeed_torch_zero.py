"""``requirement-not-met`` on DeepSpeed's ZeRO stages beside a torch they cannot run with.

Two ``RUNTIME_MINIMUMS["deepspeed"]`` rows where ``import deepspeed`` works but every run of a ZeRO stage
fails, each read at DeepSpeed's tags and in torch's wheels:

- from 0.16.6 ZeRO-3's module hooks are decorated with ``torch.compiler.disable`` unguarded
  (``runtime/zero/parameter_offload.py``), and torch 2.0 has no ``torch.compiler`` (first in 2.1,
  deepspeedai/DeepSpeed#5096): torch >= 2.1;
- 0.18.3 to 0.18.6 count the parameters in backward from ZeRO 1-3's gradient hooks with torch's
  ``_get_grad_fn_or_grad_acc``, which on torch 2.3 and 2.4 needs grad mode the hooks run without
  (deepspeedai/DeepSpeed#7830, fixed by #7841 in 0.18.7; torch 2.5 enables it itself).

And three where ``import deepspeed`` itself fails: from 0.18.3 Muon's ``@compiler.compile()``
(``runtime/zero/muon/original_muon.py``) applies ``torch.compile`` at import, which torch refuses on a
Python its Dynamo lacks (2.0 on 3.11, 2.1 to 2.3 on 3.12, 2.4 and 2.5 on 3.13).
"""

from __future__ import annotations

import re

import pytest

from pytest_rocmcompat.knowledge.checks import requirements
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.knowledge.checks.requirement_tables import RUNTIME_MINIMUMS
from pytest_rocmcompat.knowledge.rules.signature import Signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.test_deepspeed_torch import assert_reported, reasons_of
from tests.knowledge.two_ways import predicted_and_unrelated, run_cases

_DS = "https://github.com/deepspeedai/DeepSpeed/"
_COMPILER = f"{_DS}blob/v0.16.6/deepspeed/runtime/zero/parameter_offload.py#L295"
_GRAD_FN = f"{_DS}pull/7841"
_MUON = f"{_DS}blob/v0.18.3/deepspeed/runtime/zero/muon/original_muon.py#L35"


# (deepspeed, torch, (the requirement reported, its source) or None)
CASES = [
    # ZeRO-3's torch.compiler.disable from 0.16.6 (#7154): torch 2.0 has no torch.compiler
    ("0.16.6", "2.0.1", ("torch>=2.1.0a0", _COMPILER)),  # run here: ZeRO-3 fails, ZeRO-2 trains
    ("0.17.0", "2.0.1+rocm5.4.2", ("torch>=2.1.0a0", _COMPILER)),
    ("0.18.2", "2.0.0", ("torch>=2.1.0a0", _COMPILER)),
    ("0.16.5", "2.0.1", None),  # before DeepCompile's hooks
    ("0.16.6", "2.1.0", None),
    ("0.17.0", "2.1.0a0+fe05266", None),  # a 2.1 development build may have torch.compiler
    # 0.18.9 on: AutoSP's import-time custom_op (torch 2.4) is the row reported, once
    ("0.19.5", "2.0.1", ("torch>=2.4.0a0", f"{_DS}pull/7860")),
    # count_used_parameters_in_backward (0.18.3 to 0.18.6) on torch 2.3 and 2.4
    ("0.18.5", "2.3.0+cu121", ("torch!=2.3.*,!=2.4.*", _GRAD_FN)),  # #7830
    ("0.18.6", "2.4.0+cu124", ("torch!=2.3.*,!=2.4.*", _GRAD_FN)),  # dexmal/dexbotic#66
    ("0.18.3", "2.3.1+rocm6.0", ("torch!=2.3.*,!=2.4.*", _GRAD_FN)),
    ("0.18.6", "2.4.0a0+git1234abc", ("torch!=2.3.*,!=2.4.*", _GRAD_FN)),  # ROCm's 2.4 development build
    ("0.18.6", "2.5.0", None),  # torch 2.5 enables grad mode itself
    ("0.18.2", "2.4.0", None),  # before #7665's counting
    ("0.18.7", "2.4.1+rocm6.1", None),  # #7841's fix; 2.4 has torch.amp.custom_fwd
]


@pytest.mark.parametrize(("deepspeed", "torch", "found"), CASES)
def test_zero_beside_torch_both_ways(deepspeed: str, torch: str, found: tuple[str, str] | None) -> None:
    assert_reported(reasons_of(f"lib.deepspeed={deepspeed}", f"torch={torch}"), deepspeed, torch, found)


# (Python, deepspeed, torch, found): Muon's torch.compile at import from 0.18.3 (each run here but the
# development builds: 0.18.5 on 2.0.1/3.11 and 2.3.0/3.12, 0.18.9 and 0.19.5 on 2.5.1/3.13 fail to import)
IMPORT_CASES = [
    (
        "3.11.7",
        "0.18.5",
        "2.0.1",
        ("torch>=2.1.0a0 on Python >= 3.11", _MUON),
    ),  # before the ZeRO-3 row: import fails first
    ("3.10.14", "0.18.5", "2.0.1", ("torch>=2.1.0a0", _COMPILER)),  # torch 2.0 compiles on 3.10
    ("3.11.7", "0.18.2", "2.0.1", ("torch>=2.1.0a0", _COMPILER)),  # before Muon (#7648)
    ("3.12.1", "0.18.5", "2.3.0", ("torch>=2.4.0a0 on Python >= 3.12", _MUON)),
    ("3.12.1", "0.18.3", "2.2.2+rocm5.7", ("torch>=2.4.0a0 on Python >= 3.12", _MUON)),
    ("3.12.3", "0.18.6", "2.3.1", ("torch>=2.4.0a0 on Python >= 3.12", f"{_DS}pull/7875")),  # its own row, first
    ("3.12.1", "0.18.2", "2.3.0", None),
    ("3.13.0", "0.19.5", "2.5.1", ("torch>=2.6.0a0 on Python >= 3.13", _MUON)),
    ("3.13.0", "0.18.9", "2.5.1+rocm6.2", ("torch>=2.6.0a0 on Python >= 3.13", _MUON)),
    ("3.13.0", "0.19.5", "2.6.0", None),
    ("3.12.1", "0.19.5", "2.5.1", None),
    ("3.13.0", "0.18.2", "2.5.1", None),
]


@pytest.mark.parametrize(("python", "deepspeed", "torch", "found"), IMPORT_CASES)
def test_import_on_a_python_torch_compile_refuses(
    python: str, deepspeed: str, torch: str, found: tuple[str, str] | None
) -> None:
    reasons = reasons_of(f"lib.deepspeed={deepspeed}", f"torch={torch}", python=python)
    assert_reported(reasons, deepspeed, torch, found)


def _row(since: str) -> list[str]:
    return [r.message for r in RUNTIME_MINIMUMS["deepspeed"] if r.since == since and r.message]


# What users met, verbatim: (the row's first release, the message, its source)
VERBATIM = [
    (
        "0.16.6",
        "AttributeError: module 'torch' has no attribute 'compiler'",
        "https://github.com/bmaltais/kohya_ss/issues/2071",
    ),
    (
        "0.16.6",
        "module 'torch' has no attribute 'compiler'",
        "https://github.com/open-edge-platform/anomalib/issues/2728",
    ),
    (
        "0.18.3",
        "[BUG]AttributeError in ZeRO-3 with gradient_checkpointing: 'NoneType' object has no attribute "
        "'next_functions' (DeepSpeed 0.18.5)",
        "https://github.com/deepspeedai/DeepSpeed/issues/7830",
    ),
    (
        "0.18.3",
        "AttributeError in DeepSpeed ZeRO-3 backward: 'NoneType' object has no attribute 'next_functions'",
        "https://github.com/dexmal/dexbotic/issues/66",
    ),
    # torch 2.4's torch/autograd/graph.py, the line that raises it
    (
        "0.18.3",
        "[rank1]:     return t.view_as(t).grad_fn.next_functions[0][0]\n"
        "[rank1]: AttributeError: 'NoneType' object has no attribute 'next_functions'",
        "https://github.com/meta-llama/llama-cookbook/issues/642",
    ),
    # torch.compile refusing the Python: 2.0.1 on 3.11, 2.3 on 3.12 (torch/__init__.py line 1866), 2.5 on 3.13
    (
        "0.18.3",
        "RuntimeError: Python 3.11+ not yet supported for torch.compile",
        "https://github.com/pytorch/pytorch/issues/104918",
    ),
    (
        "0.18.3",
        "RuntimeError: Dynamo is not supported on Python 3.12+",
        "https://github.com/jianchang512/ChatTTS-ui/issues/36",
    ),
    (
        "0.18.3",
        "RuntimeError: Dynamo is not supported on Python 3.13+",
        "https://github.com/pytorch/pytorch/blob/v2.5.1/torch/__init__.py",  # torch.compile's own check
    ),
]


@pytest.mark.parametrize(("since", "message", "source"), VERBATIM)
def test_each_quote_matches_its_row(since: str, message: str, source: str) -> None:
    # a public report, or the raising source file at a release tag
    assert re.match(r"https://github\.com/[\w.-]+/[\w.-]+/(?:(?:issues|pull)/\d+|blob/v[\d.]+/[\w./]+\.py)$", source)
    assert any(re.search(m, message) for m in _row(since))


@pytest.mark.parametrize(
    "message",
    [
        "Segmentation fault (core dumped)",
        "RuntimeError: HIP error: invalid device function",
        "AttributeError: 'NoneType' object has no attribute 'grad_fn'",
        "AttributeError: module 'torch.compiler' has no attribute 'is_compiling'",  # the 0.15.3 row's
        "RuntimeError: Error building extension 'fused_adam'",
        "torch.compile is not supported on Python 3.14+",  # torch 2.6 to 2.9: no DeepSpeed row claims it
    ],
)
def test_the_rows_messages_are_narrow(message: str) -> None:
    assert not any(re.search(m, message) for m in _row("0.16.6") + _row("0.18.3"))


def test_the_compiler_message_is_what_the_pair_predicts() -> None:
    """DeepSpeed beside torch predicts any ``module 'torch…' has no attribute`` (requirements.pair_predicts)."""
    pattern = f"{requirements.PREDICTS}|{requirements.pair_predicts(['deepspeed', 'torch'])}"
    assert Signature(pattern).search(VERBATIM[0][1]) is not None


def test_through_pytest_zero3_on_torch_20(pytester: pytest.Pytester) -> None:
    """DeepSpeed 0.17.0 beside ROCm's torch 2.0.1: ZeRO-3's missing torch.compiler ends known-bad, another failure fails."""
    env = Environment(platform="rocm", python="3.10.14", os="Linux")
    stack = ("lib.deepspeed=0.17.0", "torch=2.0.1+rocm5.4.2")
    predicted, unrelated = predicted_and_unrelated(
        pytester, VERBATIM[0][1].split(": ", 1)[1], stack, uses="deepspeed", env=env, error="AttributeError"
    )
    assert predicted["rocm_rule"] == requirements.ID
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated
    assert unrelated["rocm_diagnosis"].startswith(f"{requirements.ID}: deepspeed 0.17.0 requires torch>=2.1.0a0")


def test_through_pytest_the_fixed_release_is_not_diagnosed(pytester: pytest.Pytester) -> None:
    """DeepSpeed 0.18.7 beside torch 2.4.1: no row applies, so the same failure is an ordinary failure."""
    env = Environment(platform="rocm", python="3.10.14", os="Linux")
    stack = ("lib.deepspeed=0.18.7", "torch=2.4.1+rocm6.1")
    cases = run_cases(pytester, "'NoneType' object has no attribute 'next_functions'", stack, uses="deepspeed", env=env)
    predicted = cases["test_predicted"]
    assert predicted.get("rocm_outcome") != "known-bad", predicted
    assert "rocm_rule" not in predicted and "rocm_diagnosis" not in predicted, predicted


def test_through_pytest_the_counting_row_is_diagnosed(pytester: pytest.Pytester) -> None:
    """DeepSpeed 0.18.6 beside torch 2.4.0: the failure carries the row's diagnosis and fix."""
    env = Environment(platform="rocm", python="3.10.14", os="Linux")
    stack = ("lib.deepspeed=0.18.6", "torch=2.4.0+rocm6.1")
    cases = run_cases(pytester, "a genuinely different regression", stack, uses="deepspeed", env=env)
    diagnosis = cases["test_unrelated"]["rocm_diagnosis"]
    assert diagnosis.startswith(f"{requirements.ID}: deepspeed 0.18.6 requires torch!=2.3.*,!=2.4.*")
    assert cases["test_unrelated"]["rocm_outcome"] == "fail"


def test_through_pytest_the_import_row_is_diagnosed(pytester: pytest.Pytester) -> None:
    """DeepSpeed 0.19.5 beside torch 2.5.1 on Python 3.13: the failure carries the Muon row's diagnosis."""
    env = Environment(platform="rocm", python="3.13.0", os="Linux")
    stack = ("lib.deepspeed=0.19.5", "torch=2.5.1+rocm6.2")
    cases = run_cases(pytester, "a genuinely different regression", stack, uses="deepspeed", env=env)
    diagnosis = cases["test_unrelated"]["rocm_diagnosis"]
    assert diagnosis.startswith(f"{requirements.ID}: deepspeed 0.19.5 requires torch>=2.6.0a0") and _MUON in diagnosis
    assert cases["test_unrelated"]["rocm_outcome"] == "fail"


@pytest.mark.parametrize(
    ("stack", "python", "message"),
    [
        (
            ("lib.deepspeed=0.18.6", "torch=2.4.0+rocm6.1"),
            "3.10.14",
            "'NoneType' object has no attribute 'next_functions'",
        ),
        (("lib.deepspeed=0.19.5", "torch=2.5.1+rocm6.2"), "3.13.0", "Dynamo is not supported on Python 3.13+"),
    ],
)
def test_through_pytest_a_named_pairs_row_message_is_known_bad(
    pytester: pytest.Pytester, stack: tuple[str, ...], python: str, message: str
) -> None:
    """The row's own message (not an import error naming either package) ends known-bad for the named pair."""
    env = Environment(platform="rocm", python=python, os="Linux")
    cases = run_cases(pytester, message, stack, uses="deepspeed", env=env, error="AttributeError")
    assert cases["test_predicted"]["rocm_rule"] == requirements.ID
    assert cases["test_predicted"]["rocm_outcome"] == "known-bad"
    assert cases["test_unrelated"]["rocm_outcome"] == "fail" and "rocm_rule" not in cases["test_unrelated"]


def test_a_python_conditioned_row_needs_the_stacks_python() -> None:
    """Without a stated Python the row is not judged (the Python running the check would decide it)."""
    unstated = apply_overrides(Environment(platform="cuda", python=""), ["lib.deepspeed=0.19.5", "torch=2.5.1+cu124"])
    assert [f for f in evaluate(unstated) if f.check == requirements.ID] == []
    stated = apply_overrides(unstated, ["python=3.13.0"])
    (finding,) = [f for f in evaluate(stated) if f.check == requirements.ID]
    assert "torch>=2.6.0a0 on Python >= 3.13" in finding.reason
