"""``arch-not-in-build``: a GPU whose architecture the torch build carries no code for."""

from __future__ import annotations

from packaging.version import Version

from pytest_rocmcompat.knowledge.checks import cuda_targets, rocm_targets
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.wheel_targets import TOOLKIT_SOURCE, build_targets, ever_official, toolkit_ceiling
from pytest_rocmcompat.stack.arch import arch_vendor
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.versions import build_tag_version

ID = "arch-not-in-build"
GPU_SUITE = ("suites/gpu", "*/suites/gpu/*")  # a checkout, or the suites shipped in the wheel
# The failures a build without code for the GPU gives (tests/knowledge/test_check_signatures.py
# matches each against a message quoted from a real report): CUDA's launch error and torch's
# own warnings, HIP's missing-kernel errors (any case: "Invalid device function" is reported
# too), and the math libraries' per-arch kernel files (rocBLAS Tensile, cuBLAS).
# Seventh round, the libraries' own texts: torch's newer capability warning (torch/cuda/__init__.py
# _warn_unsupported_code, "Found GPU0 ... which is of compute capability (CC) 12.0.", and the range
# warning before it, "Minimum and Maximum cuda capability supported by this version of PyTorch is
# (8.0) - (12.0)"); rocBLAS'
# and hipBLASLt's tensile_host.cpp (ROCm/rocBLAS, ROCm/hipBLASLt: the per-arch library not loaded,
# the library not initialised, no code object file matching the processor).
PREDICTS = (
    r"no kernel image is available for execution on the device|cudaErrorNoKernelImageForDevice"
    r"|with CUDA capability sm_\d+ is not compatible with the current PyTorch installation"
    r"|PyTorch no longer supports this GPU because it is too old"
    r"|which is of compute capability \(CC\) \d+\.\d+|Minimum and Maximum cuda capability supported by this version of PyTorch"
    r"|(?i:invalid device function)|hipErrorInvalidDeviceFunction"
    r"|hipErrorNoBinaryForGpu|Unable to find code object for all current devices"
    r"|(?:Cannot read|Could not load) [^\n]{0,400}?TensileLibrary|TensileLibrary\.dat: Illegal seek|CUBLAS_STATUS_ARCH_MISMATCH"
    r"|(?:rocBLAS|rocblaslt) error: Could not initialize Tensile library"
    r"|No paths matched [^\n]{0,400}?(?:ROCBLAS|HIPBLASLT)_TENSILE_LIBPATH"
)


def check(env: Environment) -> list[Finding]:
    targets, origin = build_targets(env)
    override = rocm_targets.overridden_arch(env.env.get("HSA_OVERRIDE_GFX_VERSION"))
    missing: list[str] = []
    link = ""
    for arch in env.archs:
        effective = override if override and arch.startswith("gfx") else arch
        served = None
        if targets:
            served = cuda_targets.served_by(targets, effective)
            link = cuda_targets.SOURCE
            if served is None:
                served = rocm_targets.served_by(targets, effective)
                link = rocm_targets.SOURCE
        elif env.torch is None and _platform_matches(env, arch):
            # the stack names no torch: an arch no official wheel ever carried has no build at all
            served = _served_by_any(arch_vendor(effective), effective)
            link = rocm_targets.SOURCE if effective.startswith("gfx") else cuda_targets.SOURCE
            if served is False:
                origin = "no official torch wheel of any release carries it (the stack names no torch)"
        elif arch.startswith("sm_"):
            served, link = _within_toolkit(env, arch), TOOLKIT_SOURCE
        if served is False:
            missing.append(effective if effective == arch else f"{arch} (as {effective} by HSA_OVERRIDE_GFX_VERSION)")
    if not missing:
        return []
    if env.torch is None and not targets:
        reason = f"no official torch build has kernels for {', '.join(missing)} ({origin})"
    else:
        shown = " ".join(targets) if targets else f"none newer than sm_{toolkit_ceiling(str(_tagged_cuda(env)))}"
        reason = (
            f"torch {env.torch} has no kernels for {', '.join(missing)} (build targets: {shown}; "
            f"{origin if targets else 'CUDA ' + str(_tagged_cuda(env)) + ' toolkit limit'})"
        )
    return [
        Finding(
            check=ID,
            reason=reason,
            fix="install a torch build whose targets include this GPU (a newer CUDA/ROCm wheel), "
            "or build torch with TORCH_CUDA_ARCH_LIST / PYTORCH_ROCM_ARCH naming it",
            link=link,
            markers=("gpus",),
            nodeids=GPU_SUITE,
        )
    ]


def _platform_matches(env: Environment, arch: str) -> bool:
    """A gfx arch on a ROCm stack, an sm arch on a CUDA one."""
    return (env.platform, arch_vendor(arch)) in (("rocm", "amd"), ("cuda", "nvidia"))


def _served_by_any(vendor: str, arch: str) -> bool | None:
    union = ever_official(vendor)
    served = cuda_targets.served_by(union, arch)
    return served if served is not None else rocm_targets.served_by(union, arch)


def _within_toolkit(env: Environment, arch: str) -> bool | None:
    """Without a target list: a GPU of a newer major than the build's CUDA can compile is unserved.

    Only for a ``+cuXYZ`` build tag: a CPU build or an untagged one says nothing here.
    """
    cuda = _tagged_cuda(env)
    ceiling = toolkit_ceiling(str(cuda)) if cuda is not None else None
    gpu = cuda_targets.capability(arch)
    if ceiling is None or gpu is None:
        return None
    return gpu[0] <= ceiling // 10


def _tagged_cuda(env: Environment) -> Version | None:
    return build_tag_version(env.torch_local, "cuda")
