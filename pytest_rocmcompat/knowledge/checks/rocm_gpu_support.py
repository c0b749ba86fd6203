"""``rocm-gpu-unsupported``: the ROCm release the tests run has no support for the GPU at all.

Two facts, each from the release itself (:mod:`rocm_gpu_support_data`, sources per row):

- the release's HIP runtime has no entry for the GPU's ISA: it drops the device, and HIP sees
  none (5.0-6.2: gfx1100 before 5.3, MI300 before 5.7, gfx1150/1151 before 6.0, RDNA4 before
  6.2);
- AMD's own GPU table of the release marks the GPU ❌ *Unsupported* ("not enabled in our
  software distributions"; from 6.1 "prebuilt ROCm libraries ... will cause runtime errors"):
  MI25/Vega 10 (gfx900) in 5.6-6.3.

"Not listed" alone is no finding: AMD's tables name few consumer GPUs, and many unlisted ones
(RX 7800/7600, RX 6700, RDNA1) run fine on libraries built for them; ⚠️ *Deprecated* (gfx906 in
6.1-6.3) still works. A GPU the runtime knows but the release's rocBLAS has no Tensile kernels for
is left to ``rocblas-arch-not-in-release`` (:mod:`rocblas_arch`), which names it; one the runtime does
not know is this check's alone (its texts are a superset of rocBLAS'); a torch build without code for
it is ``arch-not-in-build``'s.

The release judged is the ROCm user space the tests run: a ``+rocmX.Y`` torch wheel's bundled
runtime, else the system ``rocm``; with ``HSA_OVERRIDE_GFX_VERSION`` the runtime reports (and
loads code for) the named processor, so that one is judged. Releases the tables do not cover
are not judged.
"""

from __future__ import annotations

from pytest_rocmcompat.knowledge.checks import rocblas_arch, rocm_targets
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.rocm_gpu_support_data import LISTED, RUNTIME, runtime_drops
from pytest_rocmcompat.stack.environment import Environment

ID = "rocm-gpu-unsupported"
GPU_SUITE = ("suites/gpu", "*/suites/gpu/*")
# What a release without support for the GPU gives, verbatim from the sources:
# - HIP runtime (ROCm/clr rocm-6.2.0 hipamd/src/hip_error.cpp): hipErrorNoDevice "no ROCm-capable
#   device is detected", hipErrorNoBinaryForGpu "no kernel image is available for execution on the
#   device", hipErrorInvalidDeviceFunction "invalid device function"; hipamd/src/hip_code_object.cpp
#   "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!";
#   rocclr/device/rocm/rocdevice.cpp "Unsupported HSA device %s (PCI ID %x) for ISA %s";
# - torch (c10/cuda/CUDAFunctions.cpp, hipified): "No CUDA GPUs are available" -> "No HIP GPUs ...";
# - ROCr (ROCm/ROCR-Runtime rocm-6.2.0 src/core/runtime/runtime.cpp): "Memory access fault by GPU
#   node-%u (Agent handle: %p) on address %p%s. Reason: %s.";
# - rocBLAS (library/src/tensile_host.cpp): "Cannot read ...TensileLibrary..." (as rocblas_arch).
PREDICTS = (
    r"no ROCm-capable device is detected|hipErrorNoDevice|HIP_ERROR_NoDevice|No HIP GPUs are available"
    r"|Unsupported HSA device \S+ \(PCI ID \w+\) for ISA"
    r"|hipErrorNoBinaryForGpu|no kernel image is available for execution on the device"
    r"|Unable to find code object for all current devices"
    r"|(?i:invalid device function)|hipErrorInvalidDeviceFunction"
    r"|Memory access fault by GPU node-\d+"
    r"|(?:Cannot read|Could not load) [^\n]{0,400}?TensileLibrary"
    # seventh round: rocBLAS/hipBLASLt failing to load their per-arch kernels (as rocblas_arch)
    r"|(?:rocBLAS|rocblaslt) error: Could not initialize Tensile library"
    r"|No paths matched [^\n]{0,400}?(?:ROCBLAS|HIPBLASLT)_TENSILE_LIBPATH"
)


def check(env: Environment) -> list[Finding]:
    if env.platform != "rocm":
        return []
    release = rocm_targets.loaded_series(env)
    if release is None:
        return []
    problems: list[tuple[str, str]] = []  # (what, source)
    for gpu in rocm_targets.amd_gpus(env):
        effective = rocm_targets.base(gpu.effective)
        problem = _problem(release, effective, gpu.shown)
        if problem is not None:
            problems.append(problem)
    if not problems:
        return []
    return [
        Finding(
            check=ID,
            reason="; ".join(what for what, _ in problems),
            fix="use a ROCm release that supports this GPU (AMD's GPU table of the release), "
            "or a GPU that release supports",
            link=problems[0][1],
            markers=("gpus",),
            nodeids=GPU_SUITE,
        )
    ]


def _problem(release: str, arch: str, shown: str) -> tuple[str, str] | None:
    """What the release lacks for ``arch`` (and its source); ``None``: supported, or decided elsewhere."""
    if runtime_drops(release, arch):  # first: a GPU the runtime drops never reaches rocBLAS (which leaves it here)
        what = f"the HIP runtime of ROCm {release} has no entry for {shown}: it enumerates no such device"
        return what, RUNTIME[release][1]
    if _rocblas_decides(release, arch):
        return None
    listed = LISTED.get(release)
    if listed is not None and arch in listed.unsupported:
        supported = " ".join(sorted(listed.supported))
        return f"ROCm {release} marks {shown} unsupported (its supported GPUs: {supported})", listed.source
    return None


def _rocblas_decides(release: str, arch: str) -> bool:
    """``rocblas-arch-not-in-release`` already reports this GPU for this release."""
    targets = rocblas_arch.TARGETS.get(release)
    return targets is not None and arch not in targets[0]
