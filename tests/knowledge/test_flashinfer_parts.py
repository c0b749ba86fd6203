"""``flashinfer-parts-mismatch``: flashinfer-cubin or flashinfer-jit-cache of another release than flashinfer-python."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import flashinfer_parts
from pytest_rocmcompat.knowledge.checks.registry import PREDICTS
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated

BASE = Environment(platform="cuda", python="3.12.3", os="Linux")
# the 26.04 NGC container's cubin beside the newer library pip pulled (NVIDIA-NeMo/Export-Deploy#679)
CUBIN_TEXT = (
    "RuntimeError: flashinfer-cubin version (0.6.8.post1) does not match flashinfer version (0.6.10). Please "
    "install the same version of both packages. Set FLASHINFER_DISABLE_VERSION_CHECK=1 to bypass this check."
)
CUBIN_STACK = ("lib.flashinfer-python=0.6.10", "lib.flashinfer-cubin=0.6.8.post1")
# a jit-cache left at 0.6.9+cu130 beside flashinfer-python 0.6.11 (lightseekorg/tokenspeed#284)
CACHE_STACK = ("lib.flashinfer-python=0.6.11", "lib.flashinfer-jit-cache=0.6.9+cu130")
# the jit-cache's message, as flashinfer/jit/env.py formats it for that pair
CACHE_TEXT = (
    "RuntimeError: flashinfer-jit-cache version (0.6.9+cu130) does not match flashinfer version (0.6.11). Please "
    "install the same version of both packages. Set FLASHINFER_DISABLE_VERSION_CHECK=1 to bypass this check."
)


def findings(*stack: str) -> list:
    return flashinfer_parts.check(apply_overrides(BASE, list(stack)))


def test_a_cubin_of_another_release_is_refused() -> None:
    (finding,) = findings(*CUBIN_STACK)
    assert "flashinfer-cubin 0.6.8.post1 beside flashinfer-python 0.6.10" in finding.reason
    assert "flashinfer-cubin==0.6.10" in finding.fix
    assert not finding.uncertain and not finding.everything and "flashinfer" in finding.uses


def test_a_jit_cache_of_another_release_is_refused_and_its_cuda_label_is_not() -> None:
    (finding,) = findings(*CACHE_STACK)
    assert "flashinfer-jit-cache 0.6.9+cu130" in finding.reason
    assert findings("lib.flashinfer-python=0.6.11", "lib.flashinfer-jit-cache=0.6.11+cu130") == []


@pytest.mark.parametrize(
    "stack",
    [
        ("lib.flashinfer-python=0.6.10", "lib.flashinfer-cubin=0.6.10"),
        ("lib.flashinfer-python=0.3.1", "lib.flashinfer-cubin=0.4.0"),  # before the parts: nothing looks
        ("lib.flashinfer-cubin=0.6.8",),  # no library named
        (*CUBIN_STACK, "env.FLASHINFER_DISABLE_VERSION_CHECK=1"),
    ],
)
def test_matching_parts_an_old_library_or_the_bypass_are_not_judged(stack: tuple[str, ...]) -> None:
    assert findings(*stack) == []


def test_versions_are_compared_as_flashinfer_compares_its_strings() -> None:
    """``flashinfer_version != flashinfer_cubin_version``: 0.6 and 0.6.0 differ there; spaces a file carries do not."""
    assert len(findings("lib.flashinfer-python=0.6.0", "lib.flashinfer-cubin=0.6")) == 1
    assert findings("lib.flashinfer-python=0.6.0", "lib.flashinfer-jit-cache=0.6.0+cu128") == []


def test_an_unread_04_release_is_a_risk() -> None:
    (finding,) = findings("lib.flashinfer-python=0.4.1", "lib.flashinfer-cubin=0.4.0")
    assert finding.uncertain


@pytest.mark.parametrize("text", [CUBIN_TEXT, CACHE_TEXT])
def test_the_librarys_own_refusal_is_predicted(text: str) -> None:
    assert compile_signature(PREDICTS[flashinfer_parts.ID]).search(text)


def test_other_flashinfer_failures_are_not() -> None:
    signature = compile_signature(PREDICTS[flashinfer_parts.ID])
    assert not signature.search("RuntimeError: FlashInfer requires sm75+")
    assert not signature.search(
        "RuntimeError: Could not find nvcc and default cuda_home='/usr/local/cuda' doesn't exist"
    )


def test_through_pytest_a_vllm_test_is_reached_through_what_vllm_requires(pytester: pytest.Pytester) -> None:
    """vLLM 0.12.0 declares flashinfer-python==0.5.3 (PyPI): a test that uses vLLM imports the library."""
    stack = ("lib.flashinfer-python=0.5.3", "lib.flashinfer-cubin=0.5.2", "lib.vllm=0.12.0")
    text = CUBIN_TEXT.replace("0.6.8.post1", "0.5.2").replace("0.6.10", "0.5.3")  # env.py's format for the pair
    predicted, _ = predicted_and_unrelated(pytester, text, stack, uses="vllm", env=BASE)
    assert predicted["rocm_rule"] == flashinfer_parts.ID


def test_through_pytest_the_refusal_is_known_bad_and_unrelated_fails(pytester: pytest.Pytester) -> None:
    predicted, unrelated = predicted_and_unrelated(pytester, CUBIN_TEXT, CUBIN_STACK, uses="flashinfer", env=BASE)
    assert predicted["rocm_rule"] == flashinfer_parts.ID
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated
