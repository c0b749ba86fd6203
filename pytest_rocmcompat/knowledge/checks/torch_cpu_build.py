"""``torch-cpu-build``: the stack has GPUs, but its torch is a build without CUDA or HIP.

A CPU build of torch holds no GPU code: ``torch.cuda.is_available()`` is False whatever GPUs the
host has, and every GPU call fails. It is what a stack gets from download.pytorch.org's ``cpu``
index (``+cpu``, ``+cpu.cxx11.abi``), from conda's ``cpu`` builds (read as ``+cpu`` from the build
string by stack/stack_files.py), from the ``xpu`` index (Intel GPUs only), a torch whose probe
found neither ``torch.version.cuda`` nor ``torch.version.hip`` (a source build), on macOS (no CUDA or ROCm wheels), and from PyPI on Windows, whose
wheels are CPU-only: the CUDA builds come from download.pytorch.org's ``cuXYZ`` indexes. An
untagged torch on Windows is judged a risk, not a certainty: a conda or source build lists the
same version.

The GPUs are what the stack says (its GPUs' vendor, else ``platform=cuda``/``rocm``). The finding
reaches GPU tests (``gpus`` marker, the GPU and collectives suites), never CPU tests of the same
torch, which pass.
"""

from __future__ import annotations

import re

from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.gpu_vendor_builds import GPU_SUITE, NAMES, gpu_platform
from pytest_rocmcompat.knowledge.checks.gpu_vendor_builds_data import label_vendor
from pytest_rocmcompat.stack.environment import Environment

ID = "torch-cpu-build"
CPU_LABEL = re.compile(r"^(?:cpu|xpu)(?:$|[._])")  # cpu, cpu.cxx11.abi, xpu (Intel GPUs only)
SOURCE = "https://download.pytorch.org/whl/cpu"
WINDOWS_SOURCE = "https://discuss.pytorch.org/t/index-url-to-install-pytorch/198253"
REACHES = (*GPU_SUITE, "suites/collectives", "*/suites/collectives/*")
# What a CPU build of torch raises where GPU code is asked for, each text printed by a real CPU
# build (tests/knowledge/test_torch_cpu_build.py runs them on the installed CPU torch): a tensor
# or module moved to the GPU, torch.compile on a GPU tensor, torch.cuda queries; torch.cuda's
# private bindings a CPU build lacks (set_device, nccl.version); a CUDA stream; pinned memory
# (2.13's text, and the text older releases print); the NCCL process group; torch.load of a
# checkpoint saved on a GPU.
PREDICTS = (
    r"Torch not compiled with CUDA enabled"
    r"|module 'torch\._C' has no attribute '_(?:cuda|nccl)_\w+'"
    r"|torch\.cuda\.Stream requires CUDA support"
    r"|pin_memory=True requires a CUDA or other accelerator backend"
    r"|Distributed package doesn't have NCCL built in"
    r"|Attempting to deserialize object on a CUDA device but torch\.cuda\.is_available\(\) is False"
)


def check(env: Environment) -> list[Finding]:
    gpus = gpu_platform(env)
    if gpus is None or not env.torch:
        return []
    local = env.torch_local or ""
    if CPU_LABEL.match(local):
        return [_finding(env, gpus, f"torch {env.torch} is built without CUDA or HIP (its +{local} label)", SOURCE)]
    if label_vendor(local) is not None:  # +cu124, +rocm6.2: a GPU build
        return []
    if env.torch_archs == () and env.cuda is None and env.hip is None:
        # probed in the running torch (probe/native_child.py): no code targets, torch.version.cuda and .hip None
        return [_finding(env, gpus, f"torch {env.torch} is built without CUDA or HIP (probed)", SOURCE)]
    if local:
        return []
    if env.system == "Darwin":
        return [_finding(env, gpus, f"torch {env.torch} on macOS has no CUDA or ROCm build", SOURCE)]
    if env.system == "Windows":
        what = f"torch {env.torch} on Windows names no build: PyPI's Windows wheels are CPU-only"
        return [_finding(env, gpus, what, WINDOWS_SOURCE, uncertain=True)]
    return []


def _finding(env: Environment, gpus: str, what: str, link: str, uncertain: bool = False) -> Finding:
    index = "cuXYZ" if gpus == "cuda" else "rocmX.Y"
    which = "a CUDA release the driver supports" if gpus == "cuda" else "the ROCm release installed"
    return Finding(
        check=ID,
        reason=f"{what}, but the stack's GPUs are {NAMES[gpus]} ({_gpus(env)}): torch cannot use them",
        fix=f"install torch's {NAMES[gpus]} build: pip install torch --index-url "
        f"https://download.pytorch.org/whl/{index} ({which})",
        link=link,
        markers=("gpus",),
        nodeids=REACHES,
        uncertain=uncertain,
    )


def _gpus(env: Environment) -> str:
    return ", ".join(env.archs) if env.archs else f"platform {env.platform}"
