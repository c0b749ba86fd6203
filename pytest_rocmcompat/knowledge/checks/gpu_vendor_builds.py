"""``built-for-other-vendor``: the stack holds a build that runs only on the other GPU vendor's runtime.

The stack's GPU platform is what its GPUs are (all AMD: ROCm, all NVIDIA: CUDA), else its
``platform`` (``rocm``/``cuda``: probed, recorded, ``--rocm-set``, or what ``rocmcompat check``
reads from torch's label), else, for the other distributions, the build torch is (a ``+rocm``/``+cu``
label, a HIP version). A stack that names none of these says nothing.

What a distribution is comes from :mod:`gpu_vendor_builds_data`: its name (``onnxruntime-gpu``,
``cupy-cuda12x``, ``jax-rocm7-plugin`` ...) or its version's local label (``+cu124``, ``+rocm6.2``,
``+cuda12.cudnn89``), the label winning where both say something. torch itself is judged only
against the GPUs and the platform (never against its own label). A ROCm stack holding
``onnxruntime-rocm`` 1.23 or later is a conditional finding: that release line has no
``ROCMExecutionProvider`` (only MIGraphX), so only code asking for the ROCm provider meets it.
"""

from __future__ import annotations

from packaging.version import Version

from pytest_rocmcompat.knowledge.checks import gpu_vendor_builds_data as data
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.derived_facts import pypi_default_build
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.versions import coerce_version

ID = "built-for-other-vendor"
GPU_SUITE = ("suites/gpu", "*/suites/gpu/*")
NAMES = {"cuda": "CUDA", "rocm": "ROCm"}
_BY_VENDOR = {"amd": "rocm", "nvidia": "cuda"}
_ORT_NO_ROCM_EP = Version(data.ORT_ROCM_EP_REMOVED)
# What a build for the other vendor's runtime fails with (each matched by a message quoted in
# tests/knowledge/test_gpu_vendor_builds.py): onnxruntime asked for a provider its build lacks,
# or failing to load/create the CUDA one; the other vendor's runtime libraries missing; torch's
# CUDA build without an NVIDIA driver, its ROCm build without an AMD GPU; CuPy's own hint; JAX's
# plugins; Triton finding no driver of its build.
PREDICTS = (
    r"Specified provider '(?:CUDA|ROCM|MIGraphX|Tensorrt)ExecutionProvider' is not in available provider names"
    r"|Failed to load library libonnxruntime_providers_(?:cuda|rocm|migraphx|tensorrt)\.so"
    r"|Failed to create (?:CUDA|ROCM|MIGraphX|Tensorrt)ExecutionProvider"
    r"|lib(?:cudart|cuda|cublas|cublasLt|cudnn|nvrtc|cufft|curand|cusparse|nccl|amdhip64|hiprtc|rocblas"
    r"|hipblas|hipblaslt|MIOpen|rccl|migraphx"
    # thirtieth round: torch's own per-vendor libraries, which an extension built against the other vendor's torch
    # links (a ROCm torch has libtorch_hip.so and libc10_hip.so, a CUDA torch the _cuda ones; a CUDA build's
    # op library loaded into a ROCm torch: https://github.com/pytorch/pytorch/issues/139410)
    r"|torch_cuda|torch_hip|c10_cuda|c10_hip)\.so[.\d]*: cannot open shared object file"
    r"|Found no NVIDIA driver on your system|No HIP GPUs are available"
    r"|CUDA driver version is insufficient for CUDA runtime version|cudaErrorInsufficientDriver"
    r"|make sure that the package matches with the version of CUDA or ROCm installed"
    r"|Unable to initialize backend '(?:cuda|rocm)'|CUDA backend failed to initialize"
    r"|0 active drivers \(\[\]\)\. There should only be one"
)


def check(env: Environment) -> list[Finding]:
    gpus = gpu_platform(env)
    found: list[Finding] = []
    torch_build = data.label_vendor(env.torch_local)
    if gpus is not None and torch_build is not None and torch_build != gpus:
        found.append(_torch_finding(env, torch_build, gpus))
    if gpus == "rocm" and torch_build is None:
        found += _untagged_torch_on_amd(env)
    platform = gpus or torch_build or ("rocm" if env.hip else None)
    if platform is None:
        return found
    for dist, version in sorted(env.libraries.items()):
        if dist == "torch":
            continue
        finding = _library_finding(env, dist, version, platform)
        if finding is not None:
            found.append(finding)
    return found


def gpu_platform(env: Environment) -> str | None:
    """``rocm``/``cuda`` by the GPUs' one vendor, else by ``platform``; ``None`` when neither says."""
    vendors = {_BY_VENDOR[g.vendor] for g in env.gpus if g.vendor in _BY_VENDOR}
    if len(vendors) == 1:
        return vendors.pop()
    return env.platform if env.platform in NAMES else None


def _evidence(env: Environment, platform: str) -> str:
    """Why the stack is ``platform``: its GPUs, its torch build, its platform field, or HIP."""
    archs = [g.arch for g in env.gpus if _BY_VENDOR.get(g.vendor) == platform and g.arch]
    if archs:
        return f"its GPUs are {'AMD' if platform == 'rocm' else 'NVIDIA'} ({', '.join(dict.fromkeys(archs))})"
    if data.label_vendor(env.torch_local) == platform:
        return f"torch {env.torch} is a {NAMES[platform]} build"
    return f"its platform is {platform}" if env.platform == platform else f"HIP is {env.hip}"


def _torch_finding(env: Environment, build: str, platform: str) -> Finding:
    return Finding(
        check=ID,
        reason=f"torch {env.torch} is a {NAMES[build]} build, but {_evidence(env, platform)}",
        fix=f"install torch's {NAMES[platform]} build (the {NAMES[platform]} index of download.pytorch.org)",
        link=data.LABEL_SOURCE,
        markers=("gpus",),
        uses=("torch",),
        nodeids=GPU_SUITE,
    )


# What PyPI's CUDA torch says on a machine without an NVIDIA driver (torch/cuda/__init__.py _lazy_init, the driver
# check of torch/csrc/cuda/Module.cpp), and its Triton looking for the CUDA driver library: nothing a ROCm torch prints
UNTAGGED_ON_AMD_PREDICTS = r"Found no NVIDIA driver on your system|libcuda\.so(?:\.1)?: cannot open shared object file"


def _untagged_torch_on_amd(env: Environment) -> list[Finding]:
    """A torch release without a build label on a stack whose GPUs are AMD, on Linux (or an OS not named): PyPI's wheel
    of that release is a CUDA build (``pip install torch`` without ROCm's index), while ROCm's wheels always carry
    ``+rocm``; a distribution's or a source build may be untagged too. A risk (*uncertain*) that only the CUDA
    build's own failure on a machine without an NVIDIA driver confirms.
    """
    version = coerce_version(env.torch)
    if version is None or version.local or version.is_prerelease or version.is_devrelease:
        return []
    if env.system and env.system != "Linux":
        return []  # PyPI's Windows and macOS wheels are CPU builds (torch-cpu-build's)
    default = pypi_default_build(env.torch)
    if default is None or not default[0].startswith("cu"):
        return []
    return [
        Finding(
            check=ID,
            reason=f"torch {env.torch} names no build, and PyPI's wheel of it is the CUDA build ({env.torch}+"
            f"{default[0]}), but {_evidence(env, 'rocm')}; ROCm's wheels always carry +rocm (a distribution's or a "
            "source build may not)",
            fix="install torch's ROCm build (pip install torch --index-url https://download.pytorch.org/whl/rocmX.Y), "
            "or state the build (torch=X.Y.Z+rocmX.Y)",
            link=data.LABEL_SOURCE,
            markers=("gpus",),
            uses=("torch",),
            nodeids=GPU_SUITE,
            uncertain=True,
            predicts=UNTAGGED_ON_AMD_PREDICTS,
            signature_only=True,
        )
    ]


def _library_finding(env: Environment, dist: str, version: str, platform: str) -> Finding | None:
    row = data.named(dist)
    parsed = coerce_version(version)
    label = data.label_vendor(parsed.local if parsed is not None else None)
    needs = label or (row.needs if row is not None else None)
    if needs is not None and needs != platform:
        what = f"a {NAMES[needs]} build (+{parsed.local})" if label and parsed else (row.what if row else "")
        return Finding(
            check=ID,
            reason=f"{dist} {version} is {what}, but {_evidence(env, platform)}",
            fix=f"replace {dist} with its {NAMES[platform]} build, or remove it",
            link=data.LABEL_SOURCE if label else (row.source if row else data.LABEL_SOURCE),
            uses=tuple(dict.fromkeys((dist, *(row.uses if row else ())))),
            conditional=row is not None and row.conditional and not label,
        )
    if dist == "onnxruntime-rocm" and platform == "rocm" and parsed is not None and parsed >= _ORT_NO_ROCM_EP:
        return Finding(
            check=ID,
            reason=f"onnxruntime-rocm {version} has no ROCMExecutionProvider (removed in onnxruntime "
            f"{data.ORT_ROCM_EP_REMOVED}; only MIGraphX is left)",
            fix="ask for MIGraphXExecutionProvider, or pin onnxruntime-rocm below 1.23 for the ROCm provider",
            link=data.ORT_ROCM_EP_SOURCE,
            uses=("onnxruntime-rocm", "onnxruntime"),
            conditional=True,
        )
    return None
