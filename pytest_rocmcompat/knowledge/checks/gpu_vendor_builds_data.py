"""Which distributions are builds for one GPU vendor's runtime, by name or version label; each row sourced.

Read by :mod:`pytest_rocmcompat.knowledge.checks.gpu_vendor_builds`. ``needs`` is the platform a
build runs its GPU code on (``cuda`` or ``rocm``); a name is matched whole against the PEP 503
normalised distribution name. Verified with PyPI's JSON API (project summaries and descriptions)
and the vendors' documentation named in each row.

Left out on purpose, with the reason:

- ``nvidia-*-cu1X`` (cuDNN, cuBLAS, NCCL ... as wheels) on ROCm: shared libraries only a CUDA build
  loads; nothing on a ROCm stack opens them, so they are inert there and say nothing.
- ``flash-attn`` on PyPI is a source distribution (its ``setup.py`` builds for the installed torch,
  ROCm included), and its prebuilt wheels install without the ``+cu`` label (it is only in the file
  name): nothing to tell by what ``pip freeze`` lists (the live probe recovers the label from
  ``direct_url.json`` when the wheel was installed by URL; the label rule then judges it). ``xformers`` and ``vllm`` without a label are
  left to the pins of ``declared_pins`` (their PyPI wheels are CUDA builds, ROCm builds come from
  other indexes, not told apart by version alone); with a ``+cu``/``+rocm`` label they are judged
  by :data:`LABELS`. ``bitsandbytes`` on ROCm is ``bitsandbytes-rocm-build``'s.
- ``onnxruntime-rocm``'s ROCm release: the PyPI wheels (1.22.1, 1.22.2.post1 to .post3) say no ROCm
  release in their name, label or metadata, and AMD's per-release wheel list was not found in a
  source we could verify, so a ROCm major.minor mismatch is not judged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class VendorBuild:
    """Distributions whose name says they are built for one vendor's GPU runtime."""

    pattern: str  # regular expression, matched whole against the normalised name
    needs: str  # "cuda" | "rocm"
    what: str  # what the build is, for the finding's text
    uses: tuple[str, ...]  # what tests mark with ``uses(...)`` (the import name)
    source: str
    # only code that loads it meets it, and how it fails is not sourced: the finding reaches the
    # tests that use it but is not counted against the stack (``rocmcompat check``)
    conditional: bool = False

    def matches(self, dist: str) -> bool:
        return re.fullmatch(self.pattern, dist) is not None


_ORT_CUDA = "https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html"
_ORT_MIGRAPHX = "https://onnxruntime.ai/docs/execution-providers/MIGraphX-ExecutionProvider.html"
_TRITON_ROCM = "https://github.com/pytorch/pytorch/blob/0036db5ab1a6fcf13662cd8ccd99f021422fe547/.github/scripts/build_triton_wheel.py"
_CUPY = "https://pypi.org/project/cupy/"  # "cupy-cuda12x (for CUDA 12.x) ... cupy-rocm-5-0 (for ROCm 5.0)"

NAMED: tuple[VendorBuild, ...] = (
    # onnxruntime-gpu: the CUDA (and TensorRT) execution providers; "Starting with version 1.19,
    # CUDA 12.x becomes the default version when distributing ONNX Runtime GPU packages in PyPI"
    VendorBuild(
        r"onnxruntime-gpu",
        "cuda",
        "onnxruntime's CUDA build (CUDA/TensorRT execution providers)",
        ("onnxruntime",),
        _ORT_CUDA,
    ),
    # PyPI summary: "ONNX Runtime is a runtime accelerator for Machine Learning models (ROCm build)"
    VendorBuild(
        r"onnxruntime-rocm",
        "rocm",
        "onnxruntime's ROCm build (ROCm/MIGraphX execution providers)",
        ("onnxruntime",),
        "https://pypi.org/project/onnxruntime-rocm/",
    ),
    # "The MIGraphX execution provider uses AMD's Deep Learning graph optimization engine ... on AMD GPUs"
    VendorBuild(
        r"onnxruntime-migraphx", "rocm", "onnxruntime's MIGraphX build (AMD GPUs)", ("onnxruntime",), _ORT_MIGRAPHX
    ),
    # "This is a CuPy wheel (precompiled binary) package for CUDA 12.x" (cupy-cuda12x); cupy-cuda102 ...
    VendorBuild(r"cupy-cuda\d+x?", "cuda", "a CuPy wheel for CUDA", ("cupy",), _CUPY),
    # "This is a CuPy wheel (precompiled binary) package for AMD ROCm 5.0" (cupy-rocm-5-0)
    VendorBuild(r"cupy-rocm-\d+-\d+", "rocm", "a CuPy wheel for ROCm", ("cupy",), _CUPY),
    # PyPI summaries: "JAX Plugin for NVIDIA GPUs", "JAX XLA PJRT Plugin for NVIDIA GPUs"
    VendorBuild(
        r"jax-cuda\d+-(?:plugin|pjrt)",
        "cuda",
        "JAX's plugin for NVIDIA GPUs",
        ("jax", "jaxlib"),
        "https://pypi.org/project/jax-cuda12-plugin/",
    ),
    # PyPI summaries: "JAX Plugin for AMD GPUs (ROCm:7.14.0)", "JAX XLA PJRT Plugin for AMD GPUs"
    VendorBuild(
        r"jax-rocm\d+-(?:plugin|pjrt)",
        "rocm",
        "JAX's plugin for AMD GPUs",
        ("jax", "jaxlib"),
        "https://pypi.org/project/jax-rocm7-plugin/",
    ),
    # AMD's prebuilt ROCm jaxlib, named by a JAX maintainer among "pre-built options" for ROCm
    VendorBuild(
        r"jaxlib-rocm",
        "rocm",
        "AMD's ROCm build of jaxlib",
        ("jax", "jaxlib"),
        "https://github.com/jax-ml/jax/issues/15983",
    ),
    # the Triton of PyTorch's ROCm wheels, built from ROCm's Triton fork with ROCm's libraries
    # bundled (``build_triton_wheel.py``: device "rocm" -> "pytorch-triton-rocm", ROCm/triton,
    # setup_rocm_libs.sh); conditional: how it fails under a CUDA torch is not sourced
    VendorBuild(
        r"(?:pytorch-)?triton-rocm",  # triton-rocm from torch 2.10 (knowledge/torch_rocm_triton.py)
        "rocm",
        "Triton built for ROCm (the Triton of PyTorch's ROCm wheels)",
        ("triton", "torch.compile", "inductor"),
        _TRITON_ROCM,
        conditional=True,
    ),
)

# A PEP 440 local version label naming the toolkit a wheel was built with: PyTorch's indexes
# (``2.5.1+cu124``, ``2.5.1+rocm6.2``, AMD's ``2.4.0+rocm6.3.4.git69d40773``), jaxlib's
# ``0.4.26+cuda12.cudnn89`` (jax-ml/jax#20722), flash-attn's ``+cu12torch2.8...``.
LABEL_SOURCE = "https://pytorch.org/get-started/previous-versions"
LABELS: tuple[tuple[str, str], ...] = (
    (r"(?:cu|cuda)\d", "cuda"),
    (r"rocm\d", "rocm"),
)


def named(dist: str) -> VendorBuild | None:
    """The row whose name matches ``dist`` (normalised), or ``None``."""
    return next((row for row in NAMED if row.matches(dist)), None)


def label_vendor(local: str | None) -> str | None:
    """``cuda`` / ``rocm`` for a local label that names the toolkit (``cu124``, ``rocm6.2...``), else ``None``."""
    if not local:
        return None
    return next((vendor for pattern, vendor in LABELS if re.match(pattern, local)), None)


# onnxruntime's ROCm execution provider was removed in 1.23.0: "ROCM EP was removed from the source
# tree. Users are recommended to use Migraphx or Vitis AI EPs from AMD." (v1.23.0 release notes;
# the removal is microsoft/onnxruntime#25181, "Delete ROCM EP", merged 2025-06-26).
ORT_ROCM_EP_REMOVED = "1.23"
ORT_ROCM_EP_SOURCE = "https://github.com/microsoft/onnxruntime/releases/tag/v1.23.0"
