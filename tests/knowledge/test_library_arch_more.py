"""``library-min-arch``: vLLM's ROCm build refusing a GPU outside its CMake arch list.

The text is vLLM's own (cmake/utils.cmake ``override_gpu_arches``), rendered for a GPU outside
``HIP_SUPPORTED_ARCHS``; the check finds vLLM on such a GPU, so the build failure of its tests is known-bad.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import library_arch
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated

SIGNATURE = compile_signature(library_arch.PREDICTS)
BASE = Environment(platform="cpu", python="3.11.9", source="replay")

# message(FATAL_ERROR "None of the detected ROCm architectures: ${HIP_ARCHITECTURES} is"
#   " supported. Supported ROCm architectures are: ${_GPU_SUPPORTED_ARCHES_LIST}.")
# https://github.com/vllm-project/vllm/blob/00c1d959bc9dabe8d60a4e976f327f0f02490c4e/cmake/utils.cmake
# with HIP_SUPPORTED_ARCHS as CMakeLists.txt sets it:
# https://github.com/vllm-project/vllm/blob/000a1ee93b2ddc3cb06c62a71fe769c789cbf7b1/CMakeLists.txt
HIP_SUPPORTED_ARCHS = (
    "gfx906;gfx908;gfx90a;gfx942;gfx950;gfx1030;gfx1100;gfx1101;gfx1102;gfx1103;gfx1150;gfx1151;gfx1152;gfx1153;"
    "gfx1200;gfx1201"
)


def refusal(detected: str) -> str:
    """vLLM's CMake text for ``detected`` (its PYTORCH_ROCM_ARCH or rocm_agent_enumerator list)."""
    return (
        f"None of the detected ROCm architectures: {detected} is supported. "
        f"Supported ROCm architectures are: {HIP_SUPPORTED_ARCHS}."
    )


# Failures that name no arch vLLM lacks: generic crashes, and vLLM's other CMake errors
NOT_CLAIMED = (
    "Segmentation fault (core dumped)",
    "RuntimeError: HIP error: out of memory",
    "CMake Error at CMakeLists.txt:180 (message): Can't find CUDA or HIP installation.",
    "None of the detected ROCm architectures",  # the text cut before it names any
)


def vllm_findings(*assignments: str) -> list[Finding]:
    env = apply_overrides(BASE, list(assignments))
    return [f for f in library_arch.check(env) if f.uses == ("vllm",)]


@pytest.mark.parametrize("gpu", ["gfx1010", "gfx803", "gfx900"])
def test_the_refusal_is_predicted_where_the_check_finds_vllm(gpu: str) -> None:
    assert SIGNATURE.search(refusal(gpu)) is not None
    (finding,) = vllm_findings("platform=rocm", f"arch={gpu}", "lib.vllm=0.14.0")
    assert finding.reason.startswith(f"vllm 0.14.0 has no kernels for {gpu}")


def test_a_multi_arch_list_is_matched() -> None:
    assert SIGNATURE.search(refusal("gfx1010;gfx1012")) is not None


@pytest.mark.parametrize("gpu", ["gfx942", "gfx1100", "gfx1201"])
def test_a_gpu_the_cmake_list_and_the_rows_serve_has_no_finding(gpu: str) -> None:
    """Where vLLM's build accepts the GPU and its docs serve it, nothing predicts the refusal."""
    assert gpu in HIP_SUPPORTED_ARCHS.split(";")
    assert vllm_findings("platform=rocm", f"arch={gpu}", "lib.vllm=0.14.0") == []


@pytest.mark.parametrize("gpu", ["gfx906", "gfx1030"])
def test_buildable_but_unserved_archs_are_still_found(gpu: str) -> None:
    """The CMake list accepts gfx906/gfx1030, but vLLM's installation requirements do not name them."""
    assert gpu in HIP_SUPPORTED_ARCHS.split(";")
    assert vllm_findings("platform=rocm", f"arch={gpu}", "lib.vllm=0.14.0")


@pytest.mark.parametrize("message", NOT_CLAIMED)
def test_a_failure_naming_no_arch_gap_is_not_claimed(message: str) -> None:
    assert SIGNATURE.search(message) is None


def test_through_pytest_the_refusal_is_known_bad(pytester: pytest.Pytester) -> None:
    rocm = Environment(platform="rocm", python="3.11.9", source="replay")
    stack = ("platform=rocm", "arch=gfx1010", "torch=2.7.1+rocm6.3", "lib.vllm=0.14.0")
    predicted, unrelated = predicted_and_unrelated(pytester, refusal("gfx1010"), stack, uses="vllm", env=rocm)
    assert predicted["rocm_rule"] == library_arch.ID
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated


def test_an_instruction_the_gpu_lacks_is_predicted_whichever_intrinsic() -> None:
    """LLVM failing to select any amdgcn intrinsic for the GPU: RDNA2's missing bf16 dot (unsloth on a gfx1032)."""
    quoted = (  # https://github.com/unslothai/unsloth/issues/5337
        "`Error: Inference subprocess crashed during generation` with "
        "`LLVM ERROR: Cannot select: intrinsic %llvm.amdgcn.fdot2.bf16.bf16`"
    )
    assert compile_signature(library_arch.PREDICTS).search(quoted)
    assert not compile_signature(library_arch.PREDICTS).search("LLVM ERROR: Cannot select: t12: f32 = fadd t10, t11")
