"""Thirtieth round: check signatures widened to the texts users posted, each quoted verbatim from its source.

A helper corpus of 150 public texts (AMD arch support, numeric formats, package pins and builds, the ROCm
runtime), every source checked against the incident corpus first, was matched against the checks' signatures;
these are the texts of a failure a check predicts that its signature missed. Each is asserted where the check
predicts it, and, for the per-GPU ones, not where the GPU has what the text asks for.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import numeric_formats, requirements
from pytest_rocmcompat.knowledge.checks.registry import PREDICTS, compile_rules, evaluate
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.fp8_predicted import predicted as fp8_predicted
from tests.knowledge.two_ways import predicted_and_unrelated

TRITON_209 = "Triton test failed: Triton Error [HIP]: Code: 209"
LLVM_PROCESSOR = "'gfx1100' is not a recognized processor for this target (ignoring processor)"
# (check, message, source): matched by the check's own signature
VERBATIM = (
    (
        "hsa-override-invalid",
        'Invalid HSA_OVERRIDE_GFX_VERSION format expected "1.2.3"',
        "https://github.com/ROCm/ROCR-Runtime/issues/354",
    ),
    ("hsa-override-invalid", TRITON_209, "https://github.com/patientx/ComfyUI-Zluda/issues/263"),
    ("arch-not-in-build", TRITON_209, "https://github.com/patientx/ComfyUI-Zluda/issues/263"),
    ("library-min-arch", TRITON_209, "https://github.com/patientx/ComfyUI-Zluda/issues/263"),
    ("library-min-arch", LLVM_PROCESSOR, "https://github.com/JuliaGPU/AMDGPU.jl/issues/522"),
    (
        "extension-build-toolkit-mismatch",
        "Exception: >- DeepSpeed Op Builder: Installed CUDA version 12.0 does not match the version torch was "
        "compiled with 11.8, unable to",
        "https://github.com/deepspeedai/DeepSpeedExamples/issues/370",
    ),
    (
        "built-for-other-vendor",
        "OSError: libtorch_cuda.so: cannot open shared object file: No such file or directory",
        "https://github.com/pytorch/pytorch/issues/139410",
    ),
    (
        "rocm-driver-unsupported",
        "2020-05-18 06:20:33.971389: E tensorflow/stream_executor/rocm/rocm_driver.cc:975] could not retrieve ROCM "
        "device count: HIP_ERROR_NoDevice",
        "https://github.com/ROCm/tensorflow-upstream/issues/972",
    ),
    (
        "rocm-gpu-unsupported",
        "2020-05-18 06:20:33.971389: E tensorflow/stream_executor/rocm/rocm_driver.cc:975] could not retrieve ROCM "
        "device count: HIP_ERROR_NoDevice",
        "https://github.com/ROCm/tensorflow-upstream/issues/972",
    ),
    (
        "bf16-unsupported-arch",
        "valueerror: bfloat16 is only supported on gpus with compute capability of at least 8.0. your tesla "
        "v100-sxm2-32gb gpu has compute capability 7.0.",
        "https://github.com/OpenBuddy/OpenBuddy/issues/45",
    ),
    (
        "bf16-unsupported-arch",
        "Unsupported conversion from bf16 to f16\n\nUNREACHABLE executed at "
        "/project/lib/Conversion/TritonGPUToLLVM/ElementwiseOpToLLVM.cpp:816!\nAborted",
        "https://github.com/Tractables/pyjuice/issues/20",
    ),
)
# torchvision's import cut before its last line: the frame that failed (each a torch/torchvision mismatch)
META_FRAMES = (
    (
        '  File "/home/andi/micromamba/envs/torchvision/lib/python3.12/site-packages/torchvision/_meta_registrations.py", '
        'line 163, in <module>\n    @torch.library.register_fake("torchvision::nms")',
        "https://github.com/pytorch/vision/issues/8985",
    ),
    (
        '  File "F:\\sd-webui-forge-neo\\venv\\Lib\\site-packages\\torchvision\\_meta_registrations.py", line 163, in '
        '<module>\n    @torch.library.register_fake("torchvision::nms")',
        "https://github.com/ROCm/TheRock/issues/3134",
    ),
    (
        '  File "/home/pmullown/miniforge3/envs/aifs-benchmark/lib/python3.10/site-packages/torchvision/'
        '_meta_registrations.py", line 164, in <module>\n    def meta_nms(dets, scores, iou_threshold):',
        "https://github.com/pytorch/pytorch/issues/123094",
    ),
)
VLLM_ROCM_FP8 = 'Error: "fp8 quantization is currently not supported in ROCm" while running vLLM with quantization=fp8'
# torchvision 0.19.0 declares torch==2.4.0 (PyPI)
VISION = ("platform=cuda", "torch=2.3.1+cu121", "lib.torchvision=0.19.0")
BASE = Environment(platform="cpu", python="3.10.14", os="Linux")


@pytest.mark.parametrize(
    ("check_id", "message", "source"), VERBATIM, ids=[f"{c}-{i}" for i, (c, _, _) in enumerate(VERBATIM)]
)
def test_the_check_predicts_the_text_users_posted(check_id: str, message: str, source: str) -> None:
    assert source.startswith("https://github.com/")
    assert compile_signature(PREDICTS[check_id]).search(message) is not None


@pytest.mark.parametrize(
    "message",
    [
        "Unsupported conversion from f16 to f16",  # Triton's rounding-mode bug on sm_75 names no bf16
        "RuntimeError: HIP error: out of memory",
        "Triton Error [HIP]: Code: 2, Messsage: out of memory",  # another HIP error by number
        "'znver4' is not a recognized processor for this target (ignoring processor)",  # a CPU target
        "Exception: >- DeepSpeed Op Builder: Installed CUDA version 12.1 does not match",  # no torch version named
    ],
)
def test_texts_of_other_failures_are_not_predicted(message: str) -> None:
    for check_id in (
        "bf16-unsupported-arch",
        "arch-not-in-build",
        "library-min-arch",
        "extension-build-toolkit-mismatch",
    ):
        assert compile_signature(PREDICTS[check_id]).search(message) is None, check_id


def _torchvision_rule() -> object:
    env = apply_overrides(BASE, list(VISION))
    found = [f for f in evaluate(env) if f.check == requirements.ID]
    (rule,) = [r for r in compile_rules(found) if r.id == requirements.ID]
    return rule


@pytest.mark.parametrize(("frame", "source"), META_FRAMES, ids=[s for _, s in META_FRAMES])
def test_a_traceback_cut_at_torchvisions_registration_is_the_mismatch(frame: str, source: str) -> None:
    assert source.startswith("https://github.com/")
    rule = _torchvision_rule()
    assert rule.signature is not None and rule.signature.search(frame)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "frame",
    [
        '  File "/venv/lib/python3.12/site-packages/torchvision/transforms/functional.py", line 88, in to_tensor',
        # a meta kernel's own check under FakeTensor: the same file, inside a function, not the import
        '  File "/venv/lib/python3.12/site-packages/torchvision/_meta_registrations.py", line 41, in meta_roi_align\n'
        "RuntimeError: Expected tensor for input to have the same type as tensor for rois",
    ],
)
def test_another_torchvision_frame_is_not(frame: str) -> None:
    rule = _torchvision_rule()
    assert not rule.signature.search(frame)  # type: ignore[attr-defined]


@pytest.mark.parametrize(("platform", "arch", "expected"), [("rocm", "gfx90a", True), ("rocm", "gfx942", False)])
def test_vllms_rocm_fp8_refusal_is_predicted_only_on_a_gpu_without_fp8(
    platform: str, arch: str, expected: bool
) -> None:
    assert fp8_predicted(platform, arch, VLLM_ROCM_FP8) is expected
    assert compile_signature(PREDICTS[numeric_formats.FP8_ID]).search(VLLM_ROCM_FP8) is None


def test_through_pytest_the_cut_traceback_is_known_bad_and_unrelated_fails(pytester: pytest.Pytester) -> None:
    predicted, unrelated = predicted_and_unrelated(pytester, META_FRAMES[0][0], VISION, uses="torchvision", env=BASE)
    assert predicted["rocm_rule"] == requirements.ID
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated


def test_through_pytest_triton_bf16_on_pascal_is_known_bad_and_unrelated_fails(pytester: pytest.Pytester) -> None:
    message = VERBATIM[-1][1]
    predicted, unrelated = predicted_and_unrelated(
        pytester, message, ("platform=cuda", "arch=sm_61", "torch=2.3.1+cu121"), uses="bf16", env=BASE
    )
    assert predicted["rocm_rule"] == numeric_formats.BF16_ID
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated
