"""``built-for-other-vendor``: a build for the other GPU vendor's runtime, by what the distribution is."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_rocmcompat.knowledge.checks import gpu_vendor_builds
from pytest_rocmcompat.knowledge.checks.registry import PREDICTS, evaluate
from pytest_rocmcompat.knowledge.rules.signature import compile_signature
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
from tests.knowledge.two_ways import predicted_and_unrelated

BASE = Environment(platform="cpu", python="3.11.7", os="Linux")
ROCM = ("platform=rocm", "arch=gfx90a", "torch=2.5.1+rocm6.2")
CUDA = ("platform=cuda", "arch=sm_90", "torch=2.5.1+cu124")


def _found(*stack: str) -> list[str]:
    return [f.reason for f in _findings(*stack)]


def _findings(*stack: str) -> list:
    env = apply_overrides(BASE, list(stack))
    return [f for f in evaluate(env) if f.check == gpu_vendor_builds.ID]


# ---- a ROCm stack holding CUDA-only builds ----------------------------------------------------
@pytest.mark.parametrize(
    ("library", "problem"),
    [
        ("lib.onnxruntime-gpu=1.19.0", "onnxruntime-gpu 1.19.0 is onnxruntime's CUDA build"),
        ("lib.cupy-cuda12x=13.3.0", "cupy-cuda12x 13.3.0 is a CuPy wheel for CUDA"),
        ("lib.cupy-cuda102=9.6.0", "cupy-cuda102 9.6.0 is a CuPy wheel for CUDA"),
        ("lib.jax-cuda12-plugin=0.4.35", "jax-cuda12-plugin 0.4.35 is JAX's plugin for NVIDIA GPUs"),
        ("lib.jax-cuda12-pjrt=0.4.35", "jax-cuda12-pjrt 0.4.35 is JAX's plugin for NVIDIA GPUs"),
        ("lib.jaxlib=0.4.26+cuda12.cudnn89", "jaxlib 0.4.26+cuda12.cudnn89 is a CUDA build (+cuda12.cudnn89)"),
        ("lib.torchvision=0.20.1+cu124", "torchvision 0.20.1+cu124 is a CUDA build (+cu124)"),
        ("lib.vllm=0.6.3+cu118", "vllm 0.6.3+cu118 is a CUDA build (+cu118)"),
    ],
)
def test_cuda_builds_on_rocm_are_found(library: str, problem: str) -> None:
    (found,) = _found(*ROCM, library)
    assert found.startswith(problem) and found.endswith("but its GPUs are AMD (gfx90a)")


def test_a_cuda_torch_on_rocm_is_found_and_reaches_gpu_tests() -> None:
    (finding,) = _findings("platform=rocm", "arch=gfx1100", "torch=2.5.1+cu124")
    assert finding.reason == "torch 2.5.1+cu124 is a CUDA build, but its GPUs are AMD (gfx1100)"
    assert finding.markers == ("gpus",) and "suites/gpu" in finding.nodeids and not finding.conditional
    # the platform alone says ROCm (a replay with --rocm-set platform=rocm, no GPU named)
    assert _found("platform=rocm", "torch=2.5.1+cu124") == [
        "torch 2.5.1+cu124 is a CUDA build, but its platform is rocm"
    ]


# ---- a CUDA stack holding ROCm-only builds ----------------------------------------------------
@pytest.mark.parametrize(
    ("library", "problem"),
    [
        ("lib.onnxruntime-rocm=1.22.1", "onnxruntime-rocm 1.22.1 is onnxruntime's ROCm build"),
        ("lib.onnxruntime-migraphx=1.23.0", "onnxruntime-migraphx 1.23.0 is onnxruntime's MIGraphX build"),
        ("lib.cupy-rocm-5-0=13.3.0", "cupy-rocm-5-0 13.3.0 is a CuPy wheel for ROCm"),
        ("lib.jax-rocm7-plugin=0.6.0", "jax-rocm7-plugin 0.6.0 is JAX's plugin for AMD GPUs"),
        ("lib.jax-rocm60-pjrt=0.5.0", "jax-rocm60-pjrt 0.5.0 is JAX's plugin for AMD GPUs"),
        ("lib.jaxlib-rocm=0.4.6.540", "jaxlib-rocm 0.4.6.540 is AMD's ROCm build of jaxlib"),
        ("lib.torchaudio=2.5.1+rocm6.2", "torchaudio 2.5.1+rocm6.2 is a ROCm build (+rocm6.2)"),
        ("lib.torchvision=0.19.0+rocm6.3.4.git69d40773", "torchvision 0.19.0+rocm6.3.4.git69d40773 is a ROCm build"),
    ],
)
def test_rocm_builds_on_cuda_are_found(library: str, problem: str) -> None:
    (found,) = _found(*CUDA, library)
    assert found.startswith(problem) and found.endswith("but its GPUs are NVIDIA (sm_90)")


def test_a_rocm_torch_on_nvidia_gpus_is_found() -> None:
    # a live probe calls a +rocm torch's platform rocm (torch.version.hip); the GPUs say NVIDIA
    (found,) = _found("platform=rocm", "arch=sm_80", "torch=2.5.1+rocm6.2")
    assert found == "torch 2.5.1+rocm6.2 is a ROCm build, but its GPUs are NVIDIA (sm_80)"
    assert _found("platform=cuda", "torch=2.5.1+rocm6.2") == [
        "torch 2.5.1+rocm6.2 is a ROCm build, but its platform is cuda"
    ]


def test_pytorch_triton_rocm_on_cuda_is_conditional() -> None:
    # how it fails under a CUDA torch is not sourced: it reaches triton/compile tests, not counted
    (finding,) = _findings(*CUDA, "lib.pytorch-triton-rocm=3.1.0")
    assert finding.conditional and {"triton", "torch.compile"} <= set(finding.uses)


def test_the_library_finding_reaches_tests_that_use_it() -> None:
    (finding,) = _findings(*ROCM, "lib.onnxruntime-gpu=1.19.0")
    assert finding.uses == ("onnxruntime-gpu", "onnxruntime") and not finding.everything
    assert finding.link == "https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html"


# ---- onnxruntime's ROCm execution provider, removed in 1.23 -----------------------------------
def test_onnxruntime_rocm_without_the_rocm_provider_is_a_conditional_finding() -> None:
    (finding,) = _findings(*ROCM, "lib.onnxruntime-rocm=1.23.0")
    assert finding.reason.startswith(
        "onnxruntime-rocm 1.23.0 has no ROCMExecutionProvider (removed in onnxruntime 1.23"
    )
    assert finding.conditional and finding.link.endswith("/releases/tag/v1.23.0")


# ---- harmless: the build matches the platform, or nothing says which platform ------------------
@pytest.mark.parametrize(
    "stack",
    [
        (*CUDA, "lib.onnxruntime-gpu=1.19.0", "lib.cupy-cuda12x=13.3.0", "lib.jax-cuda12-plugin=0.4.35"),
        (*CUDA, "lib.torchvision=0.20.1+cu124", "lib.triton=3.1.0", "lib.nvidia-cublas-cu12=12.4.5.8"),
        (*ROCM, "lib.onnxruntime-rocm=1.22.1"),  # a release that has the ROCm provider
        (*ROCM, "lib.onnxruntime-rocm=1.22.2.post3", "lib.onnxruntime-migraphx=1.23.0", "lib.cupy-rocm-5-0=13.3.0"),
        (*ROCM, "lib.pytorch-triton-rocm=3.1.0", "lib.torchvision=0.20.1+rocm6.2", "lib.jax-rocm7-plugin=0.6.0"),
        # nvidia-*-cu12 runtime wheels on ROCm: libraries only a CUDA build loads, inert here
        (*ROCM, "lib.nvidia-cublas-cu12=12.4.5.8", "lib.nvidia-nccl-cu12=2.21.5"),
        (*ROCM, "lib.onnxruntime=1.20.0", "lib.xformers=0.0.28", "lib.torchvision=0.20.1+cpu"),
        # a stack that names no platform, no GPU and no torch build: say nothing
        ("lib.onnxruntime-gpu=1.19.0", "lib.onnxruntime-rocm=1.22.1", "lib.cupy-cuda12x=13.3.0"),
        ("torch=2.5.1", "lib.onnxruntime-rocm=1.22.1"),
    ],
)
def test_matching_builds_and_stacks_without_a_platform_are_silent(stack: tuple[str, ...]) -> None:
    assert _found(*stack) == []


def test_without_gpus_or_platform_the_torch_build_decides_the_libraries() -> None:
    # a pip freeze with a +rocm torch and nothing else: the libraries are judged against ROCm,
    # torch itself is not judged against its own label
    assert _found("torch=2.5.1+rocm6.2", "lib.cupy-cuda12x=13.3.0") == [
        "cupy-cuda12x 13.3.0 is a CuPy wheel for CUDA, but torch 2.5.1+rocm6.2 is a ROCm build"
    ]


# ---- the failures it predicts: (message as a real report quotes it, source) --------------------
LIBRARY_MESSAGES = [
    (
        "UserWarning: Specified provider 'ROCMExecutionProvider' is not in available provider names."
        "Available providers: 'TensorrtExecutionProvider, CUDAExecutionProvider, CPUExecutionProvider'",
        "https://github.com/onnx/onnx/issues/6379",
    ),
    (
        "UserWarning: Specified provider 'CUDAExecutionProvider' is not in available provider names."
        "Available providers: 'AzureExecutionProvider, CPUExecutionProvider'",
        "https://github.com/microsoft/onnxruntime/issues/23736",
    ),
    (  # onnxruntime-gpu on an AMD GPU
        "[ONNXRuntimeError] : 1 : FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: "
        "libcublasLt.so.11: cannot open shared object file: No such file or directory",
        "https://github.com/tpys/FuXi/issues/5",
    ),
    (
        "Failed to create CUDAExecutionProvider. Require cuDNN 9.* and CUDA 12.*, and the latest MSVC runtime.",
        "https://github.com/microsoft/onnxruntime/issues/21769",
    ),
    (
        "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory",
        "https://github.com/cupy/cupy/issues/7772",
    ),
    (
        "ImportError: libcuda.so.1: cannot open shared object file: No such file or directory",
        "https://github.com/cupy/cupy/issues/1790",
    ),
    (
        "If you installed CuPy via wheels (cupy-cudaXXX or cupy-rocm-X-X), make sure that the package matches "
        "with the version of CUDA or ROCm installed.",
        "https://github.com/cupy/cupy/issues/7565",
    ),
    (
        "ImportError: libamdhip64.so.5: cannot open shared object file: No such file or directory",
        "https://github.com/ROCm/legacy-rocm-build/issues/1753",
    ),
    (  # a CUDA torch on an AMD GPU
        "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
        "installed a driver from http://www.nvidia.com/Download/index.aspx",
        "https://github.com/lshqqytiger/stable-diffusion-webui-amdgpu/issues/411",
    ),
    (  # a CUDA torch on an AMD APU (pytorch's ROCm maintainer: "you installed torch for CUDA accidentally")
        "cuda runtime error (35) : CUDA driver version is insufficient for CUDA runtime version at "
        "/pytorch/aten/src/THC/THCGeneral.cpp:47",
        "https://github.com/pytorch/pytorch/issues/51213",
    ),
    # a ROCm torch on an NVIDIA T4 ("a version of PyTorch compiled for AMD (rocm)")
    ("RuntimeError: No HIP GPUs are available", "https://github.com/modal-labs/modal-examples/issues/681"),
    (
        "RuntimeError: Unable to initialize backend 'rocm': Backend 'rocm' is not in the list of known backends: "
        "['cpu', 'tpu'].",
        "https://github.com/ROCm/TheRock/issues/3627",
    ),
    (
        "WARNING:jax._src.xla_bridge:CUDA backend failed to initialize: Unable to load CUDA.",
        "https://github.com/magenta/mt3/issues/145",
    ),
    (
        "RuntimeError: 0 active drivers ([]). There should only be one.",
        "https://github.com/verl-project/verl/issues/904",
    ),
]


@pytest.mark.parametrize(("message", "source"), LIBRARY_MESSAGES)
def test_the_signature_matches_the_message_users_see(message: str, source: str) -> None:
    assert source.startswith("https://")
    assert compile_signature(PREDICTS[gpu_vendor_builds.ID]).search(message) is not None


@pytest.mark.parametrize(
    "message",
    [
        "ValueError: a genuinely different regression",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB",
        "HIP error: invalid device function",
        "ImportError: libGL.so.1: cannot open shared object file: No such file or directory",
        "Specified provider 'OpenVINOExecutionProvider' is not in available provider names",
    ],
)
def test_the_signature_does_not_claim_a_foreign_failure(message: str) -> None:
    assert compile_signature(PREDICTS[gpu_vendor_builds.ID]).search(message) is None


# ---- through pytest and through `rocmcompat check` ---------------------------------------------
def test_predicted_failure_is_known_bad_and_an_unrelated_one_stays_fail(pytester: pytest.Pytester) -> None:
    # the replayed H100 (NVIDIA GPUs) with a ROCm torch: every GPU test meets it
    stack = ("torch=2.5.1+rocm6.2",)
    predicted, unrelated = predicted_and_unrelated(pytester, "RuntimeError: No HIP GPUs are available", stack)
    assert predicted["rocm_outcome"] == "known-bad" and predicted["rocm_rule"] == gpu_vendor_builds.ID
    assert unrelated["rocm_outcome"] == "fail" and "rocm_rule" not in unrelated
    assert unrelated["rocm_diagnosis"].startswith(
        f"{gpu_vendor_builds.ID}: torch 2.5.1+rocm6.2 is a ROCm build, but its GPUs are NVIDIA (sm_90)"
    )


def test_rocmcompat_check_finds_it_in_a_pip_freeze(tmp_path: Path) -> None:
    freeze = tmp_path / "freeze.txt"
    freeze.write_text("torch==2.5.1+rocm6.2\nonnxruntime-gpu==1.19.0\nnumpy==1.26.4\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest_rocmcompat", "check", str(freeze), "--json"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)
    assert result["environment"]["platform"] == "rocm"  # from torch's +rocm6.2 label
    texts = [p["text"] for p in result["problems"]]
    assert any(
        t.startswith(f"[{gpu_vendor_builds.ID}] onnxruntime-gpu 1.19.0 is onnxruntime's CUDA build")
        and "but torch 2.5.1+rocm6.2 is a ROCm build" in t
        for t in texts
    ), texts


# ---- an untagged torch on AMD GPUs: PyPI's wheel of it is the CUDA build (a risk) ----------------
# torch's own words on a machine without an NVIDIA driver (torch/cuda/__init__.py, _lazy_init; its warning from
# torch/csrc/cuda/Module.cpp), as pytorch/pytorch#33339 and ROCm users' reports quote them
NO_NVIDIA_DRIVER = (
    "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed "
    "a driver from http://www.nvidia.com/Download/index.aspx"
)


def test_an_untagged_torch_on_amd_gpus_is_a_risk_of_the_cuda_wheel() -> None:
    (risk,) = _findings("platform=rocm", "arch=gfx942", "torch=2.5.1")
    assert risk.uncertain and risk.signature_only and risk.markers == ("gpus",)
    assert risk.reason.startswith("torch 2.5.1 names no build, and PyPI's wheel of it is the CUDA build (2.5.1+cu124)")
    assert compile_signature(risk.predicts).search(NO_NVIDIA_DRIVER) is not None
    # what a ROCm torch prints itself (no GPU, a fault) is not this risk's
    assert compile_signature(risk.predicts).search("RuntimeError: No HIP GPUs are available") is None


@pytest.mark.parametrize(
    "stack",
    [
        ("platform=rocm", "arch=gfx942", "torch=2.5.1+rocm6.2"),  # ROCm's wheel says so
        ("platform=rocm", "arch=gfx942", "torch=2.4.0a0+git1234abc"),  # a source or vendor build
        ("platform=rocm", "arch=gfx942", "torch=2.5.1", "os=Windows"),  # torch-cpu-build's
        ("platform=cuda", "arch=sm_90", "torch=2.5.1"),  # the CUDA wheel on NVIDIA GPUs
        ("torch=2.5.1",),  # no GPU, no platform
    ],
)
def test_no_untagged_risk_where_the_build_is_known_or_fits(stack: tuple[str, ...]) -> None:
    assert not [f for f in _findings(*stack) if "names no build" in f.reason]


def test_the_untagged_risk_both_ways(pytester: pytest.Pytester) -> None:
    stack = ("platform=rocm", "arch=gfx942", "torch=2.5.1")
    predicted, unrelated = predicted_and_unrelated(pytester, NO_NVIDIA_DRIVER, stack)
    assert predicted["rocm_rule"] == gpu_vendor_builds.ID
    # an unconfirmed risk is no likely cause: a plain failure whose note only says the risk reached it
    assert "rocm_rule" not in unrelated and unrelated["rocm_note"].startswith("risk ")
