"""``onnxruntime-build-mismatch``: several onnxruntime distributions, or onnxruntime-gpu for another CUDA/cuDNN."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.checks import onnxruntime_builds as ort
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.registry import compile_rules
from pytest_rocmcompat.knowledge.derived_facts import derive
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.test_check_signatures import FOREIGN

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")


def _findings(*stack: str) -> list[Finding]:
    """The check's findings on ``stack`` (``--rocm-set`` values), with the facts it implies derived."""
    return ort.check(derive(apply_overrides(BASE, list(stack))))


def _reasons(*stack: str) -> list[str]:
    return [f.reason for f in _findings(*stack)]


# ---- several distributions of the one onnxruntime package ---------------------------------------
@pytest.mark.parametrize(
    ("stack", "listed", "keep"),
    [
        (("lib.onnxruntime=1.17.3", "lib.onnxruntime-gpu=1.17.1"), "onnxruntime 1.17.3 and onnxruntime-gpu 1.17.1", "onnxruntime-gpu"),
        (("lib.onnxruntime=1.22.0", "lib.onnxruntime-rocm=1.22.2.post3"), "onnxruntime 1.22.0 and onnxruntime-rocm 1.22.2.post3", "onnxruntime-rocm"),
        (("lib.onnxruntime=1.23.2", "lib.onnxruntime-migraphx=1.23.0"), "onnxruntime 1.23.2 and onnxruntime-migraphx 1.23.0", "onnxruntime-migraphx"),
        (("lib.onnxruntime=1.24.1", "lib.onnxruntime-openvino=1.24.1"), "onnxruntime 1.24.1 and onnxruntime-openvino 1.24.1", "onnxruntime-openvino"),
        (("lib.onnxruntime-gpu=1.20.1", "lib.onnxruntime-directml=1.20.1"), "onnxruntime-gpu 1.20.1 and onnxruntime-directml 1.20.1", "onnxruntime-gpu"),
    ],
)  # fmt: skip
def test_two_onnxruntime_distributions_are_found(stack: tuple[str, ...], listed: str, keep: str) -> None:
    (finding,) = _findings(*stack)
    assert finding.reason.startswith(f"{listed} are installed together: each installs the one onnxruntime package")
    assert finding.fix.endswith(f"and install {keep} alone")
    assert finding.uses[0] == "onnxruntime" and not finding.everything and not finding.conditional
    assert finding.link == "https://onnxruntime.ai/docs/get-started/with-python.html#install-onnx-runtime"
    assert finding.signature_only and finding.predicts == ort.TWO_BUILDS_PREDICTS


# ---- onnxruntime-gpu's PyPI wheel against the stack's CUDA and cuDNN ----------------------------
@pytest.mark.parametrize(
    ("stack", "needs"),
    [
        # torch 2.3.1's wheel pins cuDNN 8.9.2.26 (derived); 1.19's wheel loads cuDNN 9
        (("platform=cuda", "torch=2.3.1", "lib.onnxruntime-gpu=1.19.2"), "needs cuDNN 9 (the stack's cuDNN is 8)"),
        (("torch=2.5.1+cu118", "lib.onnxruntime-gpu=1.20.0"), "needs CUDA 12 (the stack's CUDA is 11, torch 2.5.1+cu118)"),
        # torch 2.5.1's wheel: CUDA 12.4, cuDNN 9.1; 1.18.0's PyPI wheel: CUDA 11.8, cuDNN 8
        (
            ("platform=cuda", "torch=2.5.1", "lib.onnxruntime-gpu=1.18.0"),
            "needs CUDA 11 (the stack's CUDA is 12, torch 2.5.1+cu124) and cuDNN 8 (the stack's cuDNN is 9)",
        ),
        (("torch=2.9.0+cu130", "lib.onnxruntime-gpu=1.23.2"), "needs CUDA 12 (the stack's CUDA is 13, torch 2.9.0+cu130)"),
        (("platform=cuda", "torch=2.5.1", "lib.onnxruntime-gpu=1.27.0"), "needs CUDA 13 (the stack's CUDA is 12"),
        # no torch: the cuDNN wheel alone says it
        (("lib.nvidia-cudnn-cu12=8.9.2.26", "lib.onnxruntime-gpu=1.20.1"), "needs cuDNN 9 (the stack's cuDNN is 8)"),
    ],
)  # fmt: skip
def test_onnxruntime_gpu_for_another_cuda_or_cudnn_is_found(stack: tuple[str, ...], needs: str) -> None:
    (finding,) = _findings(*stack)
    version = stack[-1].split("=", 1)[1]
    assert finding.reason.startswith(f"onnxruntime-gpu {version} (its PyPI wheel) {needs}")
    assert finding.uses == ("onnxruntime", "onnxruntime-gpu") and not finding.conditional
    assert finding.signature_only and finding.predicts == ort.CUDA_PREDICTS


def test_the_fix_names_the_releases_built_for_the_stack() -> None:
    (finding,) = _findings("torch=2.9.0+cu130", "lib.onnxruntime-gpu=1.23.2")
    assert "onnxruntime-gpu>=1.27,<1.32" in finding.fix
    (old,) = _findings("torch=2.5.1+cu118", "lib.onnxruntime-gpu=1.20.0")
    assert "onnxruntime-gpu>=1.7,<1.19" in old.fix
    # CUDA 12 with cuDNN 8 (torch 2.3): no PyPI release; ONNX Runtime's other feed
    (feed,) = _findings("platform=cuda", "torch=2.3.1", "lib.onnxruntime-gpu=1.19.2")
    assert "package feed" in feed.fix


# ---- onnxruntime-rocm's PyPI wheel against the stack's ROCm --------------------------------------
@pytest.mark.parametrize(
    ("stack", "reason"),
    [
        (
            ("platform=rocm", "arch=gfx90a", "rocm=6.4.1", "lib.onnxruntime-rocm=1.22.2.post3"),
            "onnxruntime-rocm 1.22.2.post3 (its PyPI wheel) is built against ROCm 7.2.4 (libamdhip64.so.7), "
            "but the stack's ROCm is 6.4.1",
        ),
        (
            ("torch=2.8.0+rocm7.0", "lib.onnxruntime-rocm=1.22.2.post1"),
            "onnxruntime-rocm 1.22.2.post1 (its PyPI wheel) is built against ROCm 6.4.2 (libamdhip64.so.6), "
            "but the stack's ROCm is 7.0",
        ),
    ],
)
def test_onnxruntime_rocm_for_another_rocm_major_is_found(stack: tuple[str, ...], reason: str) -> None:
    (finding,) = _findings(*stack)
    assert finding.reason.startswith(reason)
    assert finding.uses == ("onnxruntime", "onnxruntime-rocm") and not finding.conditional
    assert finding.link.startswith("https://pypi.org/project/onnxruntime-rocm/1.22.2.post")
    assert finding.signature_only and finding.predicts == ort.ROCM_PREDICTS


# ---- stacks that work, or that say nothing ------------------------------------------------------
@pytest.mark.parametrize(
    "stack",
    [
        ("lib.onnxruntime=1.20.0",),  # one distribution
        ("platform=cuda", "torch=2.5.1", "lib.onnxruntime-gpu=1.19.2"),  # CUDA 12 / cuDNN 9 both sides
        ("platform=cuda", "torch=2.9.0", "lib.onnxruntime-gpu=1.23.2"),  # torch 2.9.0's wheel: cu128, cuDNN 9.10
        ("torch=2.9.0+cu130", "lib.onnxruntime-gpu=1.27.0"),
        ("torch=2.5.1+cu118", "lib.onnxruntime-gpu=1.18.1"),  # CUDA 11 both sides, no cuDNN named
        # onnxruntime-gpu[cuda,cudnn] beside a CUDA 13 torch: the CUDA 12 wheels it needs are there
        (
            "torch=2.11.0+cu130",
            "lib.onnxruntime-gpu=1.23.2",
            "lib.nvidia-cuda-runtime-cu12=12.9.79",
            "lib.nvidia-cudnn-cu12=9.10.2.21",
        ),
        ("lib.onnxruntime-gpu=1.19.0",),  # the stack names no CUDA and no cuDNN
        ("lib.onnxruntime-gpu=1.6.0", "torch=2.5.1+cu124"),  # before the table's CUDA 11 rows: not judged
        ("lib.onnxruntime-gpu=1.40.0", "torch=2.5.1+cu124"),  # after the releases checked: not judged
        # a ROCm stack: onnxruntime-gpu there is built-for-other-vendor's
        ("platform=rocm", "arch=gfx90a", "torch=2.5.1+rocm6.2", "lib.onnxruntime-gpu=1.19.0"),
        # onnxruntime-rocm's wheel of the stack's ROCm major; no ROCm release named; a wheel not in the table
        ("platform=rocm", "arch=gfx942", "rocm=7.0.2", "lib.onnxruntime-rocm=1.22.2.post3"),
        ("torch=2.7.1+rocm6.3", "lib.onnxruntime-rocm=1.22.2.post1"),
        ("platform=rocm", "arch=gfx90a", "lib.onnxruntime-rocm=1.22.2.post3"),
        ("platform=rocm", "rocm=7.0.2", "lib.onnxruntime-rocm=1.21.0"),
        # a CUDA stack: onnxruntime-rocm there is built-for-other-vendor's
        ("platform=cuda", "arch=sm_90", "torch=2.5.1+cu124", "lib.onnxruntime-rocm=1.22.2.post3"),
    ],
)
def test_working_stacks_and_stacks_that_name_nothing_are_silent(stack: tuple[str, ...]) -> None:
    assert _reasons(*stack) == []


# ---- the failures each finding predicts: (message as a real report quotes it, source) -----------
TWO_BUILDS_MESSAGES = [
    (  # onnxruntime and onnxruntime-gpu both installed on a T4
        "Specified provider ‘CUDAExecutionProvider’ is not in available provider names. Available providers: "
        "‘AzureExecutionProvider, CPUExecutionProvider’",
        "https://github.com/microsoft/onnxruntime/issues/26996",
    ),
    (  # onnxruntime (CPU) where onnxruntime-gpu was meant
        "UserWarning: Specified provider 'CUDAExecutionProvider' is not in available provider names.Available "
        "providers: 'AzureExecutionProvider, CPUExecutionProvider'",
        "https://github.com/Naozumi520/g2pW-Cantonese/issues/1",
    ),
    (  # onnxruntime installed before onnxruntime-gpu
        "ValueError: ['CUDAExecutionProvider'] does not contain a subset of available providers ['CPUExecutionProvider']",
        "https://github.com/microsoft/onnxruntime/issues/3326",
    ),
    (  # then one of the two uninstalled: the shared package half removed
        "AttributeError: module 'onnxruntime' has no attribute 'InferenceSession'",
        "https://github.com/microsoft/onnxruntime/issues/3326",
    ),
]
CUDA_MESSAGES = [
    (  # ORT/cuDNN mismatch, as the maintainer answered and the reporter confirmed
        "1 : FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: libcudnn.so.9: cannot open "
        "shared object file: No such file or directory",
        "https://github.com/Holasyb918/HeyGem-Linux-Python-Hack/issues/5",
    ),
    (
        "[ONNXRuntimeError] : 1 : FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: "
        "libcudnn_adv.so.9: cannot open shared object file: No such file or directory",
        "https://github.com/memoavatar/memo/issues/13",
    ),
    (  # onnxruntime-gpu 1.17.0 on CUDA 12.2
        "[ONNXRuntimeError] : 1 : FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: "
        "libcudnn.so.8: cannot open shared object file: No such file or directory",
        "https://github.com/microsoft/onnxruntime/issues/19616",
    ),
    (  # CUDA 12.1, cuDNN 8, onnxruntime-gpu 1.16 and 1.18.0
        "FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: libcublasLt.so.11: cannot open "
        "shared object file: No such file or directory",
        "https://github.com/microsoft/onnxruntime/issues/21684",
    ),
    (  # CUDA 12.4 with onnxruntime-gpu 1.17.1 (and onnxruntime 1.17.3 beside it)
        "[ONNXRuntimeError] : 1 : FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: "
        "libcublas.so.11: cannot open shared object file: No such file or directory",
        "https://github.com/microsoft/onnxruntime/issues/20656",
    ),
    (  # a CUDA 12 build where only CUDA 13 is installed
        "[ONNXRuntimeError] : 1 : FAIL : Failed to load library "
        "/home/meh/devel/ort-cuda-13-fail/target/debug/libonnxruntime_providers_cuda.so with error: "
        "libcublasLt.so.12: cannot open shared object file: No such file or directory",
        "https://github.com/pykeio/ort/issues/548",
    ),
    (
        "Failed to load library libonnxruntime_providers_cuda.so with error: libcudart.so.11.0: cannot open shared "
        "object file: No such file or directory",
        "https://github.com/Ktiseos-Nyx/Lora_Easy_Training_Jupyter/issues/13",
    ),
    (  # onnxruntime-gpu 1.17.0 pinned on a newer stack; 1.23.2 works
        "Failed to create CUDAExecutionProvider. Please reference "
        "https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html#requirementsto ensure all "
        "dependencies are met.",
        "https://github.com/stepfun-ai/Step-Audio-EditX/issues/3",
    ),
    (  # onnxruntime-gpu 1.22.0 with nvidia-cudnn-cu12 not on the library path
        "Failed to create CUDAExecutionProvider. Require cuDNN 9.* and CUDA 12.*. Please install all dependencies as "
        "mentioned in the GPU requirements page",
        "https://github.com/microsoft/onnxruntime/issues/25609",
    ),
    (  # onnxruntime-gpu 1.19.0 (CUDA 12) on CUDA 11.7, Windows
        'LoadLibrary failed with error 126 "" when trying to load '
        '"C:\\Users\\sunny\\anaconda3\\envs\\pytorch\\lib\\site-packages\\onnxruntime\\capi\\onnxruntime_providers_cuda.dll"',
        "https://github.com/microsoft/onnxruntime/issues/21769",
    ),
    (
        "Failed to create CUDAExecutionProvider. Require cuDNN 9.* and CUDA 12.*, and the latest MSVC runtime.",
        "https://github.com/microsoft/onnxruntime/issues/21769",
    ),
    (  # "it means that your cuda version is not compatible with the onnxrunetime you have installed"
        "CUDA_PATH is set but CUDA wasnt able to be loaded. Please install the correct version of CUDA andcuDNN as "
        "mentioned in the GPU requirements page",
        "https://github.com/cubiq/ComfyUI_InstantID/issues/27",
    ),
    (
        "CUDA_PATH is set but CUDA wasn't able to be loaded. Please install the correct version of CUDA and cuDNN as "
        "mentioned in the GPU requirements page",
        "https://github.com/microsoft/onnxruntime/issues/13576",
    ),
]


ROCM_MESSAGES = [
    (
        "[ONNXRuntimeError] : 1 : FAIL : Failed to load library libonnxruntime_providers_rocm.so with error: "
        "libMIOpen.so.1: cannot open shared object file: No such file or directory",
        "https://github.com/k2-fsa/sherpa-onnx/pull/1110",
    ),
]


@pytest.mark.parametrize(("message", "source"), ROCM_MESSAGES)
def test_the_rocm_signature_matches_the_message_users_see(message: str, source: str) -> None:
    assert source.startswith("https://")
    assert compile_signature(ort.ROCM_PREDICTS).search(message) is not None
    assert compile_signature(ort.PREDICTS).search(message) is not None
    assert compile_signature(ort.CUDA_PREDICTS).search(message) is None


@pytest.mark.parametrize(("message", "source"), TWO_BUILDS_MESSAGES)
def test_the_two_builds_signature_matches_the_message_users_see(message: str, source: str) -> None:
    assert source.startswith("https://")
    assert compile_signature(ort.TWO_BUILDS_PREDICTS).search(message) is not None
    assert compile_signature(ort.PREDICTS).search(message) is not None


@pytest.mark.parametrize(("message", "source"), CUDA_MESSAGES)
def test_the_cuda_signature_matches_the_message_users_see(message: str, source: str) -> None:
    assert source.startswith("https://")
    assert compile_signature(ort.CUDA_PREDICTS).search(message) is not None
    assert compile_signature(ort.PREDICTS).search(message) is not None
    assert compile_signature(ort.TWO_BUILDS_PREDICTS).search(message) is None  # each finding claims its own


@pytest.mark.parametrize(
    "message",
    [
        *FOREIGN,
        "ValueError: a genuinely different regression",
        # TensorRT's own library missing: not a CUDA/cuDNN major of onnxruntime-gpu
        "Failed to load library libonnxruntime_providers_tensorrt.so with error: libnvinfer.so.10: cannot open shared "
        "object file: No such file or directory",
        # onnxruntime-rocm's provider built against another MIOpen: a symbol, not a missing library
        "Failed to load library libonnxruntime_providers_rocm.so with error: /home/arun/miniconda3/envs/ru/lib/"
        "python3.10/site-packages/onnxruntime/capi/libonnxruntime_providers_rocm.so: undefined symbol: "
        "miopenGetConvolutionSpatialDim, version MIOPEN_HIP_1_",
        # the same library missing outside onnxruntime
        "OSError: libcudnn.so.9: cannot open shared object file: No such file or directory",
        "ImportError: libGL.so.1: cannot open shared object file: No such file or directory",
        # a CPU provider, and an attribute onnxruntime never had
        "Specified provider 'CPUExecutionProvider' is not in available provider names",
        "AttributeError: module 'onnxruntime' has no attribute 'foo'",
    ],
)
def test_the_signature_does_not_claim_a_foreign_failure(message: str) -> None:
    assert compile_signature(ort.PREDICTS).search(message) is None


def test_each_finding_compiles_to_a_rule_predicting_only_its_own_failures() -> None:
    (two,) = compile_rules(_findings("lib.onnxruntime=1.20.0", "lib.onnxruntime-gpu=1.20.0"))
    assert two.id == ort.ID and two.at_risk and two.action == "xfail" and two.applies_to.uses[0] == "onnxruntime"
    assert two.signature_matches(TWO_BUILDS_MESSAGES[0][0])
    assert not two.signature_matches(CUDA_MESSAGES[0][0])
    (cuda,) = compile_rules(_findings("torch=2.9.0+cu130", "lib.onnxruntime-gpu=1.23.2"))
    assert cuda.signature_matches(CUDA_MESSAGES[5][0]) and not cuda.signature_matches(TWO_BUILDS_MESSAGES[2][0])
    # both on one stack: two rules (the CUDA finding is certain, the two builds a risk), each its own failures
    certain, risk = compile_rules(
        _findings("torch=2.9.0+cu130", "lib.onnxruntime=1.23.2", "lib.onnxruntime-gpu=1.23.2")
    )
    assert (certain.id, certain.at_risk, risk.id, risk.at_risk) == (
        ort.ID,
        False,
        f"{ort.ID}:at-risk-own-messages",
        True,
    )
    assert certain.signature_matches(CUDA_MESSAGES[5][0]) and not certain.signature_matches(TWO_BUILDS_MESSAGES[0][0])
    assert risk.signature_matches(TWO_BUILDS_MESSAGES[0][0]) and not risk.signature_matches(CUDA_MESSAGES[5][0])
