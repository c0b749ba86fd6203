"""``integration-extra-pin``: a listed package outside what another listed release's extra named after it pins (``pip install trl[vllm]``), read from PyPI's metadata (knowledge/data/declared.json).

TRL 0.26.0 declares ``vllm<0.12.0,>=0.10.2; extra == "vllm"`` and its maintainer: "TRL supports 0.10.2 - 0.11.2, but
not 0.12" (https://github.com/huggingface/trl/pull/4117); vLLM 0.12 removed ``GuidedDecodingParams``, which TRL's
trainers imported (https://github.com/vllm-project/vllm/pull/29326). A stack with both may not use the integration,
so it is a risk: only the pair's own texts confirm it.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge import declared_data
from pytest_rocmcompat.knowledge.checks import integration_extras
from pytest_rocmcompat.knowledge.checks.registry import compile_rules, evaluate
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.12.3", os="Linux")
STACK = (
    "platform=cuda",
    "arch=sm_90",
    "torch=2.9.0+cu128",
    "lib.trl=0.26.0",
    "lib.vllm=0.12.0",
)  # vLLM 0.12.0 pins torch 2.9.0
# the same vLLM API removal met by another script importing it (davanstrien/uv-scripts-for-ai#14)
IMPORT_TEXT = "ImportError: cannot import name 'GuidedDecodingParams' from 'vllm.sampling_params'"


def _integration(*stack: str) -> list:
    return integration_extras.check(apply_overrides(BASE, list(stack)))


def test_the_extras_pin_is_read_from_what_the_release_declared() -> None:
    release = declared_data.release("trl", "0.26.0")
    assert release is not None
    assert [str(r) for r in declared_data.integration_requirements(release)] == [
        "deepspeed>=0.14.4",
        "peft>=0.8.0",
        "vllm<0.12.0,>=0.10.2",
    ]
    assert all("extra" not in str(r) for r in declared_data.requirements(release))  # other readers: unchanged


def test_a_vllm_outside_trls_vllm_extra_is_a_risk() -> None:
    (finding,) = _integration(*STACK)
    assert "trl 0.26.0 requires vllm<0.12.0,>=0.10.2 (its vllm extra), installed vllm 0.12.0" in finding.reason
    assert finding.uncertain and finding.signature_only
    assert finding.uses == ("trl",)  # a vLLM test alone never runs TRL's integration


@pytest.mark.parametrize(
    "stack",
    [
        ("platform=cuda", "lib.trl=0.26.0", "lib.vllm=0.11.2"),  # inside the pin
        ("platform=cuda", "lib.trl=0.26.0"),  # no vLLM listed: nothing to judge
    ],
)
def test_nothing_where_the_pin_holds_or_the_package_is_not_listed(stack: tuple[str, ...]) -> None:
    assert _integration(*stack) == []


def test_a_rocm_vllm_is_judged_by_trls_own_metadata() -> None:
    """TRL's wheel is one for every platform; only the pins vLLM's own (CUDA) wheels declare are not read on ROCm."""
    (finding,) = _integration("platform=rocm", "torch=2.9.0+rocm6.4", "lib.trl=0.26.0", "lib.vllm=0.12.0+rocm700")
    assert "installed vllm 0.12.0+rocm700" in finding.reason


def test_verls_sglang_extra_is_judged_too() -> None:
    (finding,) = _integration("platform=cuda", "lib.verl=0.4.1", "lib.sglang=0.4.9")
    assert "verl 0.4.1 requires sglang==0.4.6.post5 (its sglang extra), installed sglang 0.4.9" in finding.reason


def test_a_pair_this_project_has_run_time_rows_for_is_left_to_them() -> None:
    """OpenRLHF's and verl's vLLM pairs have sourced rows for these releases (requirement_tables): an exact extra pin
    does not add a risk; where no row covers the release, the extra is read (transformers' torch rows begin at 4.50)."""
    assert _integration("platform=cuda", "lib.openrlhf=0.10.4", "lib.vllm=0.9.0") == []
    assert _integration("platform=cuda", "lib.verl=0.4.1", "lib.vllm=0.9.2") == []
    (finding,) = _integration("platform=cuda", "torch=1.13.1", "lib.transformers=4.49.0")
    assert "transformers 4.49.0 requires torch>=2.0 (its torch extra)" in finding.reason
    (finding,) = _integration("platform=cuda", "lib.trl=0.29.0", "lib.peft=0.3.0")
    assert "trl 0.29.0 requires peft>=0.8.0 (its peft extra)" in finding.reason


def test_a_live_hosts_installed_metadata_does_not_hide_the_extra() -> None:
    """The probe records requirements without extras; the release's extras are PyPI's all the same."""
    live = Environment(
        platform="cuda", python="3.12.3", os="Linux", torch="2.9.0+cu128", source="live",
        libraries={"trl": "0.26.0", "vllm": "0.12.0"}, requires={"trl": ("transformers>=4.56.1",), "vllm": ()},
    )  # fmt: skip
    assert [f.check for f in integration_extras.check(live)] == [integration_extras.ID]


def test_only_the_pairs_own_texts_confirm_it() -> None:
    (rule,) = [r for r in compile_rules(_integration(*STACK)) if r.id == integration_extras.ID]
    assert rule.signature is not None and rule.signature.search(IMPORT_TEXT)
    assert not rule.signature.search("RuntimeError: CUDA error: out of memory")
    assert not rule.signature.search("ERROR: pip's dependency resolver does not currently take into account")
    # TRL's own API, as a test written for another TRL release meets it: not the integration
    assert not rule.signature.search("ImportError: cannot import name 'GRPOConfig' from 'trl'")
    assert not rule.signature.search("AttributeError: module 'trl' has no attribute 'SFTConfig'")


def test_through_pytest_the_import_is_known_bad_and_unrelated_fails(pytester: pytest.Pytester) -> None:
    # TRL 1.7.0's extra pins vllm>=0.14.0; no other check claims vLLM 0.13.0 beside it (its own torch pin holds, and no
    # name TRL 1.7.0 imports from vLLM is missing there: tools/import_scan.py)
    stack = ("platform=cuda", "arch=sm_90", "torch=2.9.0+cu128", "lib.trl=1.7.0", "lib.vllm=0.13.0")
    others = [f.check for f in evaluate(apply_overrides(BASE, list(stack))) if not f.uncertain]
    assert integration_extras.ID not in others and "requirement-not-met" not in others
    predicted, unrelated = predicted_and_unrelated(
        pytester, IMPORT_TEXT, stack, uses="trl", env=BASE, error="ImportError"
    )
    assert predicted["rocm_rule"] == integration_extras.ID
    assert unrelated.get("rocm_outcome", "fail") == "fail" and "rocm_rule" not in unrelated


def test_a_name_the_release_imports_is_judged_by_the_generated_row_too() -> None:
    """TRL 0.26.0's trainers import GuidedDecodingParams, which vLLM 0.12 removed: the row generated from what the release
    imports states it for certain, and the extra's risk stays beside it (a generated row does not judge the pair)."""
    found = {f.check: f for f in evaluate(apply_overrides(BASE, list(STACK)))}
    row = found["requirement-not-met"]
    assert not row.uncertain and "trl 0.26.0 requires vllm>=0.6.0.dev0,<0.12.0" in row.reason
    assert found[integration_extras.ID].uncertain
    (rule,) = [r for r in compile_rules([row]) if r.id == "requirement-not-met"]
    assert rule.signature.search(IMPORT_TEXT)
