"""Installed library versions through :mod:`importlib.metadata`, nothing imported."""

from __future__ import annotations

import json
from collections.abc import Iterable
from importlib import metadata
from urllib.parse import unquote, urlsplit

from packaging.utils import InvalidWheelFilename, parse_wheel_filename
from packaging.version import InvalidVersion, Version

from pytest_rocmcompat.stack.environment import normalize_library

# The libraries of the stacks this tool serves (RL / fine-tuning on ROCm and CUDA).
STACK_LIBRARIES: tuple[str, ...] = (
    "torch",
    "torchvision",
    "torchaudio",
    "pytorch-triton-rocm",
    "triton-rocm",  # the ROCm wheels' Triton from torch 2.10 (knowledge/torch_rocm_triton.py)
    "triton",
    "pytorch-triton",  # the nightlies' Triton
    "numpy",
    "transformers",
    "peft",
    "accelerate",
    "datasets",
    "tokenizers",
    "safetensors",
    "vllm",
    "torchao",
    "torchtune",
    "flash-attn",
    "xformers",
    "bitsandbytes",
    "deepspeed",
    "transformer-engine",
    "megatron-core",
    "ray",
    "verl",
    "roll",
    "trl",
    "openrlhf",
    "sglang",
    "sgl-kernel",  # SGLang pins it exactly
    "liger-kernel",
    "apex",
    "amdsmi",
    "nvidia-ml-py",
    "nvidia-nccl-cu12",
    "nvidia-nccl-cu13",
    # the layer on top whose declared pins the generated data holds (tools/regenerate_declared.py)
    "huggingface-hub",
    "evaluate",
    "sentence-transformers",
    "diffusers",
    "optimum",
    "optimum-quanto",
    "auto-gptq",
    "autoawq",
    "gptqmodel",
    "compressed-tensors",
    "llmcompressor",
    "unsloth",
    "unsloth-zoo",
    "timm",
    "open-clip-torch",
    "lightning",
    "pytorch-lightning",
    "torchmetrics",
    "torchtext",
    "torchdata",
    "xgrammar",
    "onnxruntime",
    "onnxruntime-gpu",
    "onnxruntime-rocm",  # the AMD builds checks/onnxruntime_builds.py judges
    "onnxruntime-migraphx",
    "onnxruntime-directml",  # two ONNX Runtime builds at once (onnxruntime_builds' first finding)
    "onnxruntime-openvino",
    "onnxruntime-training",  # installs the onnxruntime package too (onnxruntime_builds_data.DISTRIBUTIONS)
    "amd-aiter",  # AITER, vLLM's and SGLang's ROCm kernels (checks/library_arch.py)
    "aiter",  # AITER's distribution name up to v0.1.7 (setup.py PACKAGE_NAME)
    "triton-windows",  # the Windows fork of Triton (checks/dynamo_gate.py, declared_pins.TRITON_WINDOWS)
    # compiled torch extensions whose wheels name the torch they were built for
    "mamba-ssm",
    "causal-conv1d",
    "flashinfer-python",
    "flashinfer-cubin",  # FlashInfer's prebuilt parts (checks/flashinfer_parts.py)
    "flashinfer-jit-cache",
    "torch-scatter",
    "torch-sparse",
    "torch-cluster",
    "torch-spline-conv",
    "pyg-lib",
    # the compiled scientific layer whose declared bounds and wheels the generated data holds
    "scipy",
    "pandas",
    "scikit-learn",
    "numba",
    "llvmlite",
    "pyarrow",
    "opencv-python",
    "opencv-python-headless",
    "sentencepiece",
    # session 29: the packages the declared data gained (their pins are judged on a live host too)
    "transformer-engine-torch",
    "transformer-engine-cu12",
    "nvidia-modelopt",
    "tensordict",
    "torchrl",
    "torchcodec",
    "llamafactory",
    "axolotl",
    "ms-swift",
    "lm-eval",
    "lmdeploy",
    "outlines",
    "outlines-core",
    "mistral-common",
    "hqq",
)


# Families of distributions recorded by name prefix: TheRock's pip ROCm, whose package names say
# which GPU family its kernels serve (``rocm-sdk-libraries-gfx110X-dgpu``, ``amd-torch-device-gfx1151``:
# checks/rocm_sdk_family.py), and its core runtime.
STACK_PREFIXES: tuple[str, ...] = (
    "rocm-sdk-",
    "amd-torch-device-",
    "amd-torchvision-device-",
    "amd-torchaudio-device-",
)


def installed_versions(extra: Iterable[str] = ()) -> dict[str, str]:
    """Versions of the stack libraries plus ``extra`` names that are installed.

    One pass over the installed distributions (cheap even with hundreds of them).
    """
    return installed_stack(extra)[0]


def installed_stack(extra: Iterable[str] = ()) -> tuple[dict[str, str], dict[str, tuple[str, ...]]]:
    """Versions (as :func:`installed_versions`) and the GPU stack's ``Requires-Dist``, in the same pass."""
    wanted = {normalize_library(n) for n in (*STACK_LIBRARIES, *extra)}
    found: dict[str, str] = {}
    requires: dict[str, tuple[str, ...]] = {}
    for dist in metadata.distributions():
        try:
            name = dist.metadata["Name"]
        except Exception:  # a broken METADATA file must not stop the probe
            continue
        if not name:
            continue
        key = normalize_library(name)
        recorded = key in wanted or key.startswith(STACK_PREFIXES)
        if recorded and key not in found:  # first on sys.path wins, as for imports
            found[key] = _with_build_label(dist, dist.version) if key in _STACK else dist.version
            if key in _STACK or key.startswith("nvidia-"):
                requires[key] = _without_extras(dist.requires or [])
    return dict(sorted(found.items())), dict(sorted(requires.items()))


def _with_build_label(dist: metadata.Distribution, version: str) -> str:
    """``2.8.3`` -> ``2.8.3+cu12torch2.8cxx11abitrue`` when installed from a wheel so named.

    flash-attn's release wheels carry the torch and C++ ABI they were built for only in
    the file name (the METADATA says ``2.8.3``); a direct-URL install records that name in
    ``direct_url.json`` (PEP 610). Anything unreadable keeps the metadata version.
    """
    if "+" in version:
        return version
    try:
        text = dist.read_text("direct_url.json")
        url = json.loads(text).get("url", "") if text and len(text) < 65536 else ""
        name = unquote(urlsplit(str(url)).path.rsplit("/", 1)[-1])
        _, labelled, _, _ = parse_wheel_filename(name)
        same = labelled.local is not None and Version(labelled.public) == Version(version)
    except (InvalidWheelFilename, InvalidVersion, ValueError, AttributeError, OSError, TypeError):
        return version
    return str(labelled) if same else version


def _without_extras(requires: list[str]) -> tuple[str, ...]:
    return tuple(r for r in requires if "extra" not in r.partition(";")[2])  # extras never apply


def declared_requirements(installed: dict[str, str]) -> dict[str, tuple[str, ...]]:
    """``Requires-Dist`` of the installed GPU-stack distributions (read from METADATA, nothing imported).

    Only the stack libraries (and ``nvidia-*`` runtime wheels) are read, so the cost stays a
    handful of small file reads.
    """
    out: dict[str, tuple[str, ...]] = {}
    for name in installed:
        if name not in _STACK and not name.startswith("nvidia-"):
            continue
        try:
            requires = metadata.requires(name) or []
        except Exception:  # missing or broken metadata: nothing declared
            continue
        out[name] = _without_extras(requires)
    return out


_STACK = frozenset(
    normalize_library(n)
    for n in (*STACK_LIBRARIES, "pytorch-triton-rocm", "diffusers", "torchtune", "trl", "apex", "transformer-engine")
)
