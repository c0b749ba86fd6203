"""Installed library versions through :mod:`importlib.metadata`, nothing imported."""

from __future__ import annotations

from collections.abc import Iterable
from importlib import metadata

from .environment import normalize_library

# The libraries of the stacks this tool serves (RL / fine-tuning on ROCm and CUDA).
STACK_LIBRARIES: tuple[str, ...] = (
    "torch", "torchvision", "torchaudio", "pytorch-triton-rocm", "triton", "numpy",
    "transformers", "peft", "accelerate", "datasets", "tokenizers", "safetensors",
    "vllm", "torchao", "torchtune", "flash-attn", "xformers", "bitsandbytes",
    "deepspeed", "transformer-engine", "megatron-core", "ray", "verl", "roll",
    "trl", "openrlhf", "sglang", "liger-kernel", "apex", "amdsmi", "nvidia-ml-py",
    "nvidia-nccl-cu12", "nvidia-nccl-cu13",
)


def installed_versions(extra: Iterable[str] = ()) -> dict[str, str]:
    """Versions of the stack libraries plus ``extra`` names that are installed.

    One pass over the installed distributions (cheap even with hundreds of them).
    """
    wanted = {normalize_library(n) for n in (*STACK_LIBRARIES, *extra)}
    found: dict[str, str] = {}
    for dist in metadata.distributions():
        try:
            name = dist.metadata["Name"]
        except Exception:  # a broken METADATA file must not stop the probe
            continue
        if not name:
            continue
        key = normalize_library(name)
        if key in wanted and key not in found:  # first on sys.path wins, as for imports
            found[key] = dist.version
    return dict(sorted(found.items()))
