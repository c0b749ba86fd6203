"""``fp8-format-arch``: the compilers refusing fp8 instructions for a GPU without any fp8.

clang's builtin target-feature check (AMD) and ptxas' PTX feature check (NVIDIA), predicted only where the
GPU has no fp8 (``numeric_formats.LACKS_PREDICTS["all"]``). The same texts on a GPU that has fp8 (gfx942
and gfx1201 for the conversion builtins, sm_89 for ptxas' PTX ISA message) stay ``fail``.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import numeric_formats
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from tests.knowledge.fp8_predicted import BASE, predicted
from tests.knowledge.two_ways import predicted_and_unrelated

# clang's diagnostic, verbatim from its test (a target without fp8-conversion-insts / fp8-insts):
# https://github.com/llvm/llvm-project/blob/2214e9c2599bce6585fc6bb022d8bd9f31bfff07/clang/test/CodeGenOpenCL/builtins-amdgcn-gfx9-4-generic-err.cl
CLANG_CVT = "'__builtin_amdgcn_cvt_pk_fp8_f32' needs target feature fp8-conversion-insts"
CLANG_MFMA = "'__builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8' needs target feature fp8-insts"
# ptxas compiling fp8 conversions below sm_89 (issue title): https://github.com/zhihu/ZhiLight/issues/12
PTXAS = "Feature 'cvt with .e4m3x2/.e5m2x2' requires .target sm_90 or higher"

# (platform, arch, message, predicted)
BY_GPU: list[tuple[str, str, str, bool]] = [
    # AITER's JIT modules on RDNA3/3.5, where AMD says the feature "is absent": https://github.com/ROCm/aiter/pull/3860
    ("rocm", "gfx1100", CLANG_CVT, True),
    ("rocm", "gfx1151", CLANG_CVT, True),
    ("rocm", "gfx90a", CLANG_CVT, True),  # MI200: no fp8
    ("rocm", "gfx90a", CLANG_MFMA, True),
    ("rocm", "gfx942", CLANG_CVT, False),  # MI300 has the conversions
    ("rocm", "gfx1201", CLANG_CVT, False),
    ("cuda", "sm_86", PTXAS, True),  # Ampere: no fp8
    ("cuda", "sm_80", PTXAS, True),
    # ... but on Ada, which has fp8, the same text is a PTX ISA (toolchain) limit:
    # https://github.com/ggml-org/llama.cpp/issues/22069
    ("cuda", "sm_89", PTXAS, False),
]

# Generic failures, and fp8 texts that name no missing format: never claimed, on any GPU
NOT_CLAIMED = (
    "Segmentation fault (core dumped)",
    "RuntimeError: HIP error: out of memory",
    "Feature '.bf16' requires .target sm_80 or higher",  # bf16, the other check's
    "'__builtin_amdgcn_s_sleep_var' needs target feature gfx12-insts",  # not an fp8 builtin
    "NotImplementedError: \"addmm_cuda\" not implemented for 'Float8_e4m3fn'",  # no fp8 matmul op on any GPU
)


@pytest.mark.parametrize(("platform", "arch", "message", "expected"), BY_GPU)
def test_predicted_only_where_the_gpu_lacks_what_it_names(
    platform: str, arch: str, message: str, expected: bool
) -> None:
    assert predicted(platform, arch, message) is expected


@pytest.mark.parametrize("message", NOT_CLAIMED)
@pytest.mark.parametrize(("platform", "arch"), [("rocm", "gfx90a"), ("rocm", "gfx942"), ("cuda", "sm_86")])
def test_a_failure_naming_no_format_gap_is_not_claimed(platform: str, arch: str, message: str) -> None:
    assert not predicted(platform, arch, message)


def test_the_forms_are_per_variant_not_check_wide() -> None:
    """The new texts name what a GPU lacks, so they are no part of the check-wide FP8_PREDICTS."""
    check_wide = compile_signature(numeric_formats.FP8_PREDICTS)
    for message in (CLANG_CVT, CLANG_MFMA, PTXAS):
        assert check_wide.search(message) is None


@pytest.mark.parametrize(
    ("message", "stack"),
    [
        (CLANG_CVT, ("platform=rocm", "arch=gfx90a", "torch=2.7.1+rocm6.3")),
        (PTXAS, ("platform=cuda", "arch=sm_86", "torch=2.7.1+cu126")),
    ],
)
def test_through_pytest_the_message_is_known_bad(
    pytester: pytest.Pytester, message: str, stack: tuple[str, ...]
) -> None:
    claimed, unrelated = predicted_and_unrelated(pytester, message, stack, uses="fp8", env=BASE)
    assert claimed["rocm_rule"] == numeric_formats.FP8_ID
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated
