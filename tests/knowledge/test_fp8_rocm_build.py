"""``fp8-format-arch``: a torch built for ROCm before 6.5 has no OCP fp8 in ``_scaled_mm``, the only fp8 of gfx950/gfx12.

Messages quoted verbatim from the public reports beside them; torch's check is
``TORCH_CHECK(ROCM_VERSION >= 60500, "Float8_e4m3fn is only supported for ROCm 6.5 and above")`` in
``aten/src/ATen/native/cuda/ScaledBlas.cpp`` (numeric_formats.ROCM_SCALED_SOURCE).
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import numeric_formats
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.fp8_predicted import BASE

# Comfy-Org/ComfyUI#10388: RX 9070 XT (gfx1201), torch 2.9.0+rocm6.4
OCP_ROCM64 = "RuntimeError: Float8_e4m3fn is only supported for ROCm 6.5 and above"
# sgl-project/sglang#5147: an OCP e4m3fn tensor into torch._scaled_mm on MI300 (gfx942), ROCm 6.3 image
OCP_MI300 = (
    'RuntimeError: false INTERNAL ASSERT FAILED at "/app/pytorch/aten/src/ATen/hip/HIPDataType.h":102, please report '
    "a bug to PyTorch. Cannot convert ScalarType Float8_e4m3fn to hipDataType."
)


def _finding(*stack: str) -> numeric_formats.Finding | None:
    found = numeric_formats.check_fp8(apply_overrides(BASE, ["platform=rocm", *stack]))
    return found[0] if found else None


def _claims(stack: tuple[str, ...], message: str) -> bool:
    finding = _finding(*stack)
    return finding is not None and compile_signature(finding.predicts).search(message) is not None


@pytest.mark.parametrize(
    ("stack", "message", "expected"),
    [
        (("arch=gfx1201", "torch=2.9.0+rocm6.4"), OCP_ROCM64, True),  # OCP is its only fp8; the build lacks it
        (("arch=gfx950", "torch=2.7.1+rocm6.4"), OCP_ROCM64, True),
        (("arch=gfx1201", "torch=2.10.0+rocm7.0"), OCP_ROCM64, False),  # a ROCm 7.0 build has it: something else
        (("arch=gfx1201",), OCP_ROCM64, False),  # no torch named: the build is not known
        (("arch=gfx942", "torch=2.6.0+rocm6.2.4"), OCP_ROCM64, True),  # FNUZ-only: any OCP use fails
        (("arch=gfx942", "torch=2.6.0+rocm6.2.4"), OCP_MI300, True),
        (("arch=gfx1201", "torch=2.10.0+rocm7.0"), OCP_MI300, False),  # OCP is native there
    ],
)
def test_ocp_fp8_refused_by_the_build_is_predicted_only_where_the_gpu_needs_it(
    stack: tuple[str, ...], message: str, expected: bool
) -> None:
    assert _claims(stack, message) is expected


def test_the_reason_names_the_build() -> None:
    finding = _finding("arch=gfx1201", "torch=2.9.0+rocm6.4")
    assert finding is not None
    assert "torch 2.9.0+rocm6.4 is built for ROCm 6.4, whose _scaled_mm takes OCP fp8 from ROCm 6.5" in finding.reason


def test_not_check_wide() -> None:
    check_wide = compile_signature(numeric_formats.FP8_PREDICTS)
    assert check_wide.search(OCP_ROCM64) is None and check_wide.search(OCP_MI300) is None
