"""``arch-not-in-build``: a GPU whose architecture the torch build carries no code for.

A stack that names no torch: an arch no official wheel ever carried is a finding; one that only
some official release builds carry is an *uncertain* finding (``Finding.uncertain``): a failure
this check predicts confirms it (known-bad), a pass stands.
"""

from __future__ import annotations

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from pytest_rocmcompat.knowledge.checks import cuda_targets, hsa_override, rocm_targets
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.wheel_targets import (
    TABLE,
    TOOLKIT_SOURCE,
    build_targets,
    ever_official,
    release_rows,
    stated_build_series,
    toolkit_ceiling,
)
from pytest_rocmcompat.stack.arch import arch_vendor
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.versions import build_tag_version, coerce_version

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
    r"|(?:rocBLAS|rocblaslt) error: Could not initialize Tensile (?:library|host)"
    r"|No paths matched [^\n]{0,400}?(?:ROCBLAS|HIPBLASLT)_TENSILE_LIBPATH"
    # the GPU executing a code object built for another ISA (ROCr's queue error): on gfx1103, where AMD
    # confirms "A dispatch of Fury kernel on gfx1103 leads to HSA_STATUS_ERROR_INVALID_ISA error"
    # (https://github.com/ROCm/rocm-libraries/pull/5763, for https://github.com/ROCm/TheRock/issues/3044;
    # also https://github.com/ROCm/TheRock/issues/2579)
    r"|HSA_(?:STATUS_)?ERROR_INVALID_ISA"
    # the loader refusing a code object the GPU has no machine entry for, which HIP then reports as
    # hipErrorNoBinaryForGpu (AMD: GetMachInfo() failing "made LoadCodeObject() return
    # HSA_STATUS_ERROR_INVALID_CODE_OBJECT, surfacing as hipErrorNoBinaryForGpu",
    # https://github.com/ROCm/rocm-systems/pull/6309); rocm_kernel leaves this status to this check
    r"|HSA_STATUS_ERROR_INVALID_CODE_OBJECT"
    # twenty-sixth round, from a helper's corpus of 96 public texts (tests/knowledge/test_check_signatures.py):
    # the HIP runtime's log of a fat binary without the GPU's code object (hip_fatbin.cpp, AMD_LOG_LEVEL >= 1:
    # ROCm/MIVisionX#1437), rocBLAS naming the arch it has no library for ("... for GPU arch : gfx1036", also
    # quoted cut down to "Illegal seek for GPU arch : gfx1103": ROCm/ROCm#3015, #2719), hipBLASLt's extension
    # kernels without the arch (ROCm/TheRock#6175), and the assembler refusing an instruction the GPU's ISA
    # lacks in a library's kernels (MIOpen's, ROCm/MIOpen#117)
    r"|No compatible code objects found for: gfx\w+|for GPU arch : gfx\w+|hipModuleLoad failed: \S*gfx\w+\.hsaco"
    r"|error: instruction not supported on this GPU"
    # ptxas (Triton's bundled one, or the toolkit's) that does not know the GPU's processor: the toolchain
    # beside the build predates the GPU as the build does ("ptxas fatal   : Value 'sm_120' is not defined for
    # option 'gpu-name'": tests/knowledge/test_unstated_risks.py quotes the reports)
    r"|Value 'sm_\d+a?' is not defined for option 'gpu-name'"
    r"|" + rocm_targets.TRITON_HIP_NO_BINARY
)
# A GPU the build has no code for runs a kernel only when the runtime was told to load another processor's
# code in its place: HSA_OVERRIDE_GFX_VERSION, which guides tell users of such GPUs to export and launchers
# export by themselves (AUTOMATIC1111's webui.sh for every Navi 1/Navi 2 GPU, and 9.0.0 for Renoir:
# https://github.com/AUTOMATIC1111/stable-diffusion-webui/blob/80adb6979d46bbb832254004cac4f4f9bec9efb3/webui.sh),
# so a stated stack, which names no environment, does not show it. That foreign code fails the way
# hsa_override predicts (a wrong ISA, missing code objects, memory faults, illegal instructions), and beyond
# it with the queue errors such code ends in: the memory aperture violation of an RX 5500 XT (gfx1012) made
# to run gfx1030 code (https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/9283) and the
# hardware exception of code built for another gfx target (iree-org/iree#17872, where the maintainers'
# answer is a target "matching" the GPU: https://github.com/iree-org/iree/issues/17872). AMD on an
# override left set: "Memory access fault by GPU node-2 on address (nil). Reason: unknown"
# (https://github.com/ROCm/legacy-rocm-build/issues/5238). Predicted only where the stack names the torch build
# and it lacks the GPU, on a stated stack that states no override: where the GPU may be served (an uncertain
# finding), or the stack names no torch at all (its torch may be a distribution's or a community build made
# for the GPU, whose faults are ordinary bugs), a fault tells nothing; on a live host the environment is known.
# (Measured on the incident corpus, 2026-11-28: claiming faults also where no official wheel carries the GPU
# and no torch is named marked a working near-miss broken.)
FOREIGN_CODE_PREDICTS = (
    hsa_override.PREDICTS + r"|HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION|HSA_STATUS_ERROR_EXCEPTION\b"
)


def check(env: Environment) -> list[Finding]:
    targets, origin = build_targets(env)
    untagged = None if targets else untagged_rocm_release(env)
    missing: list[str] = []
    at_risk: list[str] = []  # the stack names no torch; only some official release builds carry the arch
    link = ""
    for gpu in rocm_targets.effective_archs(env):
        arch, effective = gpu.arch or gpu.effective, gpu.effective  # (an unstated arch: the override's)
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
            elif served:
                carried = release_builds_carrying(
                    arch_vendor(effective), effective, stated_build_series(env, arch_vendor(effective))
                )
                if carried is not None:
                    at_risk.append(f"{effective} {carried}")
        elif untagged is not None and _platform_matches(env, arch):
            # a ROCm stack's torch named without its build tag: the official ROCm builds of that release
            # (a risk: Arch Linux, Fedora and source builds name the bare release, with their own targets)
            served, carried = _served_by_release(untagged, effective)
            link = rocm_targets.SOURCE
            if served is False:
                at_risk.append(f"{effective}: none")
            elif carried is not None:
                at_risk.append(f"{effective}: {carried}")
            served = None
        elif arch.startswith("sm_"):
            served, link = _within_toolkit(env, arch), TOOLKIT_SOURCE
        if served is False:
            missing.append(gpu.shown)
    if not missing:
        return _at_risk(at_risk, link, untagged)
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
            predicts=FOREIGN_CODE_PREDICTS if targets and _override_unstated(env, missing) else "",
        )
    ]


def _override_unstated(env: Environment, missing: list[str]) -> bool:
    """Whether foreign code may have run on a missing AMD GPU unseen: a stated stack (not a live probe) that
    sets no ``HSA_OVERRIDE_GFX_VERSION`` (global or per node) while a GPU it lacks code for is a gfx one.
    """
    if env.source == "live" or not any(shown.startswith("gfx") for shown in missing):
        return False
    return not any(name.startswith(rocm_targets.OVERRIDE_VARIABLE) for name in env.env)


def _at_risk(archs: list[str], link: str, untagged: Version | None = None) -> list[Finding]:
    """The uncertain finding for GPUs that only some official release builds serve (or, for a ROCm torch
    named without its build tag, that none of that release's official builds serves).
    """
    if not archs:
        return []
    lead = (
        "the stack names no torch build, and the official torch wheels it could be carry kernels for "
        if untagged is None
        else f"the stack names torch {untagged} without its build tag (a distribution or source build has "
        "its own targets); the official ROCm builds of that release with kernels for "
    )
    return [
        Finding(
            check=ID,
            reason=lead + "; ".join(archs),
            fix="name the torch build (torch=VERSION+TAG) to settle it, and use one whose targets include this GPU",
            link=link,
            markers=("gpus",),
            nodeids=GPU_SUITE,
            uncertain=True,
        )
    ]


def release_builds_carrying(vendor: str, arch: str, series: str | None = None) -> str | None:
    """``"only in rocm6.3 (torch >=2.7,<2.10), ..."`` (or ``"in none of the ... builds"``): the release
    builds of :data:`TABLE` that serve ``arch``, when some of the candidates do not; ``None`` when
    all serve it (or there is no candidate).

    The candidates are the vendor's release builds, or, when the stack names its ROCm/CUDA release
    (``series``: ``"rocm6.1"``, ``"cu121"``), the builds made for that release (``rocm5`` rows for
    any 5.x): the torch a user of that release installs.
    """
    serving, lacking = _split_builds(release_rows(vendor, series), arch)
    if not lacking:
        return None
    return f"only in {', '.join(serving)}" if serving else f"in none of the {', '.join(lacking)} builds"


def untagged_rocm_release(env: Environment) -> Version | None:
    """The torch release of a stated ROCm stack that names it without a build tag (``torch==2.3.1``, as bug
    reports and hand-written lists say it); ``None`` for a tagged, prerelease or dev torch (source,
    NGC-style and vendor builds, whose targets are unknown), off ROCm, and on a live host.
    """
    version = coerce_version(env.torch)
    if env.platform != "rocm" or version is None or version.local or version.is_prerelease or version.is_devrelease:
        return None
    # a live host's bare release is a distribution or source build (pip lists the official wheels tagged),
    # whose own targets torch reports when it works: not guessed from the official ones
    return None if env.source == "live" else version


def _served_by_release(release: Version, arch: str) -> tuple[bool | None, str | None]:
    """Whether the official ROCm builds of torch ``release`` serve ``arch``: ``(False, _)`` when none
    does, ``(True, "only in ...")`` when only some do, ``(True, None)`` when all do, ``(None, None)``
    when the table has no build of that release.
    """
    rows = [
        row for row in TABLE if row[0].startswith("rocm") and SpecifierSet(row[1]).contains(release, prereleases=True)
    ]
    if not rows:
        return None, None
    serving, lacking = _split_builds(rows, arch)
    if not serving:
        return False, None
    return True, (f"only in {', '.join(serving)}" if lacking else None)


def _split_builds(rows: list[tuple[str, str, str, str]], arch: str) -> tuple[list[str], list[str]]:
    """``(serving, lacking)``: the :data:`TABLE` rows (``tag (torch spec)``) whose targets serve ``arch``, and the rest."""
    serving: list[str] = []
    lacking: list[str] = []
    for tag, spec, targets, _ in rows:
        (serving if _served(tuple(targets.split()), arch) else lacking).append(f"{tag} (torch {spec})")
    return serving, lacking


def _platform_matches(env: Environment, arch: str) -> bool:
    """A gfx arch on a ROCm stack, an sm arch on a CUDA one."""
    return (env.platform, arch_vendor(arch)) in (("rocm", "amd"), ("cuda", "nvidia"))


def _served_by_any(vendor: str, arch: str) -> bool | None:
    return _served(ever_official(vendor), arch)


def _served(targets: tuple[str, ...], arch: str) -> bool | None:
    """Whether ``targets`` serve ``arch``, by CUDA's rules for an sm arch, ROCm's for a gfx one."""
    served = cuda_targets.served_by(targets, arch)
    return served if served is not None else rocm_targets.served_by(targets, arch)


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
