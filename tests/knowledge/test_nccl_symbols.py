"""``nccl-lacks-symbol``: an NCCL older than the API functions a build against a newer release links."""

from __future__ import annotations

import re

import pytest
from packaging.version import Version

from pytest_rocmcompat.knowledge.checks import nccl_symbols
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.registry import evaluate
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import run_cases

NEUTRAL = Environment(platform="cpu", python="3.11.7", os="Linux")
# Real texts (verbatim): torch 2.2's wheels beside an older NCCL, and an nccl-tests build against 2.27
# resolving the system's libnccl.so.2 -> 2.23.4
REGISTER = (  # https://github.com/THU-MIG/yolov10/issues/306 (title)
    "ImportError: /root/.local/conda/envs/yolov10/lib/python3.9/site-packages/torch/lib/libtorch_cuda.so: "
    "undefined symbol: ncclCommRegister"
)
REGISTER_SHORT = "torch/lib/libtorch_cuda.so: undefined symbol: ncclCommRegister"  # pytorch/pytorch#120186 (title)
MEM_FREE = "libtorch_cuda.so: undefined symbol: ncclMemFree"  # rwth-i6/returnn#1802, with NCCL 2.14.3 loaded
WINDOW = '[BUG]: undefined symbol: "ncclCommWindowRegister"'  # NVIDIA/nccl#1784 (title)


def _found(*stack: str) -> list[Finding]:
    return [f for f in evaluate(apply_overrides(NEUTRAL, list(stack))) if f.check == nccl_symbols.ID]


def _claims(finding: Finding, text: str) -> bool:
    return re.search(finding.predicts, text) is not None


def test_the_table_is_ordered_by_release_and_read_to_the_newest_tag() -> None:
    releases = [Version(v) for v in nccl_symbols.SINCE.values()]
    assert releases == sorted(releases)
    assert max(releases) <= nccl_symbols.NEWEST
    assert nccl_symbols.SINCE["ncclCommRegister"] == "2.19.1" and nccl_symbols.SINCE["ncclCommSplit"] == "2.18.1"
    assert "ncclAllReduce" not in nccl_symbols.SINCE  # in the oldest tag read: its first release is not known


@pytest.mark.parametrize(
    ("nccl", "lacks", "has"),
    [
        ("2.18.3", "ncclCommRegister", "ncclCommSplit"),
        ("2.14.3", "ncclMemFree", "ncclCommInitRankConfig"),
        ("2.23.4", "ncclCommWindowRegister", "ncclCommInitRankScalable"),
        ("2.19.3", "ncclGroupSimulateEnd", "ncclCommRegister"),
        ("2.27.0a0", "ncclCommShrink", "ncclResetDebugInit"),  # a snapshot before 2.27.0 lacks 2.27.3's functions
    ],
)
def test_a_stated_nccl_claims_only_the_functions_it_lacks(nccl: str, lacks: str, has: str) -> None:
    (finding,) = _found("platform=cuda", f"nccl={nccl}")
    assert finding.uncertain and finding.conditional and finding.signature_only and finding.everything
    assert _claims(finding, f"undefined symbol: {lacks}") and _claims(finding, f"undefined symbol: p{lacks}")
    assert not _claims(finding, f"undefined symbol: {has}")  # this NCCL has it: something else is wrong
    assert not _claims(finding, "undefined symbol: _ZN5torch4cuda4nccl6detail16throw_nccl_errorE12ncclResult_t")
    assert not _claims(finding, f"undefined symbol: {lacks}Foo")  # whole names only


def test_the_real_texts_are_claimed_for_the_nccl_that_lacks_them() -> None:
    (old,) = _found("platform=cuda", "nccl=2.18.3")
    assert _claims(old, REGISTER) and _claims(old, REGISTER_SHORT)
    (older,) = _found("platform=cuda", "lib.nvidia-nccl-cu12=2.14.3")  # the wheel names the NCCL
    assert _claims(older, MEM_FREE) and "NCCL 2.14.3 lacks ncclCommSplit" in older.reason
    (system,) = _found("platform=cuda", "nccl=2.23.4")
    assert _claims(system, WINDOW) and not _claims(system, REGISTER)


@pytest.mark.parametrize(
    "stack",
    [
        ("platform=cuda", "torch=2.2.0"),  # NCCL only from torch's own pin: torch and its NCCL agree
        ("platform=cuda", "torch=2.1.0", "nccl=2.18.1"),  # torch 2.1's own NCCL (its wheel pins 2.18.1)
        ("platform=cuda", "torch=2.1.0+cu118", "nccl=2.19.3"),  # newer than torch 2.1 was built against
        ("platform=cuda", "nccl=2.30.7"),  # the newest release read lacks nothing tabled
        ("platform=cuda", "nccl=2.31.0"),  # newer than read: not judged
        ("platform=rocm", "nccl=2.18.3"),  # RCCL's numbering, not NCCL's API
        ("platform=cuda",),
    ],
)
def test_nothing_is_said_without_a_stated_older_nccl(stack: tuple[str, ...]) -> None:
    assert _found(*stack) == []


def test_a_named_torch_bounds_the_functions_by_the_nccl_it_was_built_against() -> None:
    # torch 2.1's wheels pin NCCL 2.18.1: they may link ncclCommSplit, nothing of 2.19
    (finding,) = _found("platform=cuda", "torch=2.1.0", "nccl=2.14.3")
    assert _claims(finding, "undefined symbol: ncclCommSplit") and not _claims(finding, REGISTER)
    assert finding.reason.startswith("NCCL 2.14.3 lacks ncclCommSplit (NCCL 2.18.1+)")
    (later,) = _found("platform=cuda", "torch=2.2.0+cu121", "nccl=2.18.3")  # 2.2 pins 2.19.3: registration API
    assert _claims(later, REGISTER) and not _claims(later, "undefined symbol: ncclCommInitRankScalable")


def test_predicted_is_known_bad_an_unrelated_failure_and_a_present_function_stay_failures(
    pytester: pytest.Pytester,
) -> None:
    cases = run_cases(pytester, REGISTER, ("nccl=2.18.3",))
    predicted, unrelated = cases["test_predicted"], cases["test_unrelated"]
    assert predicted["rocm_outcome"] == "known-bad" and predicted["rocm_rule"] == nccl_symbols.ID
    assert cases["test_elsewhere"]["rocm_outcome"] == "known-bad"  # NCCL runs under any test
    assert unrelated.get("rocm_outcome", "fail") == "fail" and "rocm_rule" not in unrelated
    assert unrelated["rocm_note"] == "risk nccl-lacks-symbol reaches this test but its signature did not match"
    newer = run_cases(pytester, REGISTER, ("nccl=2.19.3",))["test_predicted"]  # 2.19.3 has ncclCommRegister
    assert newer.get("rocm_outcome", "fail") == "fail" and newer.get("rocm_rule") != nccl_symbols.ID
