"""``onnxruntime-build-mismatch``: the stack's onnxruntime cannot give the GPU execution provider it was installed for.

Four findings, each predicting only its own failures (``signature_only``):

- **several onnxruntime distributions** (``onnxruntime`` beside ``onnxruntime-gpu``, ``-rocm``,
  ``-migraphx``, ``-directml``, ``-openvino``): all install the one ``onnxruntime`` package, and
  ONNX Runtime says only one may be installed; the one installed last owns the files, so the GPU
  provider is missing ("... is not in available provider names") or, after uninstalling one of
  them, the package is broken;
- **onnxruntime-gpu built for another CUDA or cuDNN major** than the stack holds: the PyPI wheel of
  each release loads one CUDA and one cuDNN major (:data:`onnxruntime_builds_data.CUDA_BUILDS`);
  the stack's CUDA is torch's build (``+cu118``, or what an untagged torch's wheel pins, filled in
  by ``derived_facts``), ``cuda`` and the ``nvidia-*-cuNN`` wheels, its cuDNN the ``cudnn`` library
  entry and the ``nvidia-cudnn-cuNN`` wheels. Any of them matching is enough; a stack that names no
  CUDA (or no cuDNN) says nothing about it. ROCm stacks are left to ``built-for-other-vendor``;
- **onnxruntime-rocm's PyPI wheel built for another ROCm major** than the stack's (its ``rocm``, or
  the ROCm torch was built for): the wheel links that major's sonames (``libamdhip64.so.6`` or
  ``.so.7``, :data:`onnxruntime_builds_data.ROCM_WHEELS`), so its ROCm provider library cannot load (a risk,
  ``uncertain``, for the release named without its ``.postN``, ``1.22.2``, when some of its wheels link another major);
- **a GPU outside the gfx targets of onnxruntime-rocm's PyPI wheel** (as ``HSA_OVERRIDE_GFX_VERSION``
  makes the runtime see it): the ROCm provider's own kernels have no code for it, so they fail to
  launch. Certain for a release the table lists; a risk (``uncertain``) for another build of a listed
  release (``1.22.2`` without its ``.postN``), when some of that release's wheels lack the GPU.

- **a ROCm build labelled for another ROCm major** (``onnxruntime-training`` / ``onnxruntime-rocm``
  ``+rocm57``, ``+rocm6.4``: ONNX Runtime's setup.py labels its ROCm training builds so): its ROCm provider
  library links that major's sonames, so it cannot load.

A risk (``uncertain``): **a PyPI MIGraphX wheel built for another ROCm major** than the stack's
(:data:`onnxruntime_builds_data.MIGRAPHX_WHEELS`: ``onnxruntime-migraphx`` 1.23.0 to 1.27.1 link
``libamdhip64.so.7``, PyPI's ``onnxruntime-rocm`` 1.22.1 ``.so.6``): its MIGraphX provider library cannot
load (an AMD build of the same version may link the stack's ROCm, so a pass stands).

Two risks of a ROCm stack that are also ``conditional`` (only code that asks for the provider, or
runs on that GPU, meets them):

- **its one onnxruntime distribution has no ROCm execution provider**
  (:data:`onnxruntime_builds_data.NO_ROCM_PROVIDER`): ``onnxruntime-migraphx`` (MIGraphX only; ONNX
  Runtime removed the ROCm provider in 1.23), PyPI's ``onnxruntime-rocm`` 1.22.1 (a MIGraphX build),
  ``onnxruntime`` (PyPI's is the CPU build, so neither AMD provider), an unlabelled ``onnxruntime-training``
  (PyPI's is a CUDA 11.8 build): asking for the missing provider
  warns "... is not in available provider names" and the session runs on the CPU. ``onnxruntime-rocm``
  1.23 or later and ``onnxruntime-gpu`` there are ``built-for-other-vendor``'s;
- **no onnxruntime-rocm release named, and a GPU outside every PyPI wheel's gfx targets**: the stack
  lists no onnxruntime distribution (or onnxruntime-rocm without a version), so if the tests' onnxruntime
  is one of PyPI's onnxruntime-rocm wheels its ROCm provider's kernels cannot launch on the GPU.
"""

from __future__ import annotations

import re

from packaging.version import Version

from pytest_rocmcompat.knowledge.checks import gpu_vendor_builds_data as vendor
from pytest_rocmcompat.knowledge.checks import onnxruntime_builds_data as data
from pytest_rocmcompat.knowledge.checks import rocm_targets
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.derived_facts import NVIDIA_CU
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.versions import coerce_version

ID = "onnxruntime-build-mismatch"
# What a second onnxruntime distribution over the first fails with (each matched by a message quoted
# in tests/knowledge/test_onnxruntime_builds.py): the GPU provider asked for is not in the build
# that owns the files (today's warning and the old ValueError), or the package is half removed.
_GPU_EPS = r"(?:CUDA|ROCM|MIGraphX|Tensorrt|Dml|OpenVINO)ExecutionProvider"
TWO_BUILDS_PREDICTS = (
    rf"Specified provider ['‘’]{_GPU_EPS}['‘’] is not in available provider names"
    rf"|\['{_GPU_EPS}'[^\]]*\] does not contain a subset of available providers"
    r"|module 'onnxruntime' has no attribute 'InferenceSession'"
)
# What a CUDA build for another CUDA/cuDNN major fails with: the CUDA provider library cannot load
# one of the CUDA/cuDNN libraries it links (Linux), or cannot be loaded at all (Windows), and ORT's
# own warnings about it.
CUDA_PREDICTS = (
    r"Failed to load library (?:\S*/)?libonnxruntime_providers_cuda\.so with error: "
    r"lib(?:cudart|cublas|cublasLt|cudnn|cudnn_\w+|cufft|curand|nvrtc)\.so\.\d+(?:\.\d+)?: cannot open shared object file"
    r"|Failed to create CUDAExecutionProvider\. (?:Require cuDNN \d+\.\* and CUDA \d+\.\*"
    r"|Please reference https://onnxruntime\.ai/docs/execution-providers/CUDA-ExecutionProvider\.html#requirements)"
    r"|CUDA_PATH is set but CUDA wasn'?t able to be loaded"
    r'|LoadLibrary failed with error 126 "" when trying to load "[^"]*onnxruntime_providers_cuda\.dll"'
)
# What a ROCm build for another ROCm major fails with: its ROCm provider library cannot load one of
# the ROCm libraries it links (those of setup.py's ``rocm_dependencies`` and of the PyPI wheels' NEEDED,
# onnxruntime_builds_data.ROCM_LABEL_SOURCE), and what ONNX Runtime says when that library did not load:
# onnxruntime_pybind_state.cc's ROCM_PATH error, provider_bridge_ort.cc's "ROCM Provider not available" and
# the C API's append call (tests/knowledge/test_onnxruntime_rocm_texts.py quotes each with its source).
_ROCM_LIBS = r"amdhip64|hipblas|hipblaslt|hipfft|MIOpen|rocblas|hiprtc|rocm_smi64|roctracer64|roctx64|rccl|rocfft"
ROCM_PREDICTS = (
    r"Failed to load library (?:\S*/)?libonnxruntime_providers_rocm\.so with error: "
    rf"lib(?:{_ROCM_LIBS})\.so\.\d+: cannot open shared object file"
    r"|ROCM_PATH is set but ROCM wasn'?t able to be loaded"
    r"|ROCM Provider not available, can'?t get interface for it"
    r"|OrtSessionOptionsAppendExecutionProvider_Rocm: Failed to load shared library"
)
# What a ROCm build without the GPU's gfx target fails with: HIP finding no code object for the device
# (its text in hipamd/src/hip_code_object.cpp; onnxruntime built for ROCm on a gfx900:
# https://github.com/microsoft/onnxruntime/issues/12662, quoted in tests/knowledge/test_onnxruntime_rocm_more.py).
ARCH_PREDICTS = r"hipErrorNoBinaryForGpu: Unable to find code object for all current devices"
# What a MIGraphX build for another ROCm major fails with: its MIGraphX provider library cannot load the HIP
# runtime it links (or MIGraphX's C API), as the PyPI wheels print it (provider_bridge_ort.cc's text, quoted in
# tests/knowledge/test_onnxruntime_rocm_gaps.py).
MIGRAPHX_PREDICTS = (
    r"Failed to load library (?:\S*/)?libonnxruntime_providers_migraphx\.so with error: "
    r"lib(?:amdhip64|migraphx_c)\.so\.\d+: cannot open shared object file"
    r"|MIGraphX Provider not available, can'?t get interface for it"
    r"|SessionOptionsAppendExecutionProvider_MIGraphX: Failed to load shared library"
)


# What code asking for an execution provider its build lacks meets: onnxruntime_inference_collection.py's
# warning from 1.8 on ("Specified provider '{}' is not in available provider names.Available providers:
# '{}'"; the session then runs on the CPU) and 1.7's ValueError ("Specified provider '{}' is unavailable.
# Available providers: '{}'"), read in the PyPI wheels of 1.7.0 to 1.32.0.
def _provider_missing(provider: str) -> str:
    return rf"Specified provider ['‘’]{provider}['‘’] is (?:not in available provider names|unavailable)"


NO_ROCM_EP_PREDICTS = _provider_missing("ROCMExecutionProvider")
NO_AMD_EP_PREDICTS = _provider_missing("(?:ROCM|MIGraphX)ExecutionProvider")
PREDICTS = "|".join(
    (TWO_BUILDS_PREDICTS, CUDA_PREDICTS, ROCM_PREDICTS, ARCH_PREDICTS, MIGRAPHX_PREDICTS, NO_AMD_EP_PREDICTS)
)

_NVIDIA_CUDNN = re.compile(r"^nvidia-cudnn-cu\d+$")
# setup.py's label drops the dots (``+rocm57``: the major is its first digit); another builder's keeps them
_ROCM_LABEL = re.compile(r"^rocm(?:(\d+)\.|(\d))")


def check(env: Environment) -> list[Finding]:
    checks = (
        _two_builds,
        _cuda_mismatch,
        _rocm_mismatch,
        _labelled_rocm_mismatch,
        _rocm_arch,
        _migraphx_mismatch,
        _no_rocm_provider,
        _unnamed_rocm_arch,
    )
    return [f for f in (c(env) for c in checks) if f is not None]


def _two_builds(env: Environment) -> Finding | None:
    """Two or more distributions that each install the ``onnxruntime`` package."""
    dists = _listed(env)
    if len(dists) < 2:
        return None
    listed = " and ".join(f"{d} {env.libraries[d]}" for d in dists)
    keep = next((d for d in dists if d != "onnxruntime"), dists[0])
    return Finding(
        check=ID,
        reason=f"{listed} are installed together: each installs the one onnxruntime package, so only "
        "the one installed last is there (with only its execution providers)",
        fix=f"uninstall all of them ({' '.join(dists)}) and install {keep} alone",
        link=data.ONE_PACKAGE_SOURCE,
        uses=("onnxruntime", *dists),
        predicts=TWO_BUILDS_PREDICTS,
        signature_only=True,
        uncertain=True,  # which one owns the files depends on the install order: a pass stands
    )


def _cuda_mismatch(env: Environment) -> Finding | None:
    """onnxruntime-gpu's PyPI wheel built for a CUDA or cuDNN major the stack does not hold."""
    version = coerce_version(env.libraries.get("onnxruntime-gpu"))
    if version is None or _on_rocm(env):
        return None
    build = _build_of(version)
    if build is None:
        return None
    cuda, cudnn = _cuda_majors(env), _cudnn_majors(env)
    missing = []
    if cuda and build.cuda not in cuda:
        missing.append(f"CUDA {build.cuda} (the stack's CUDA is {_majors(cuda)}{_torch_note(env)})")
    if cudnn and build.cudnn not in cudnn:
        missing.append(f"cuDNN {build.cudnn} (the stack's cuDNN is {_majors(cudnn)})")
    if not missing:
        return None
    return Finding(
        check=ID,
        reason=f"onnxruntime-gpu {env.libraries['onnxruntime-gpu']} (its PyPI wheel) needs "
        f"{' and '.join(missing)}: its CUDA execution provider cannot load",
        fix=_fix(cuda, cudnn),
        link=build.source,
        uses=("onnxruntime", "onnxruntime-gpu"),
        predicts=CUDA_PREDICTS,
        signature_only=True,
    )


def _rocm_mismatch(env: Environment) -> Finding | None:
    """A PyPI onnxruntime-rocm wheel linking another ROCm major than the stack's (system or torch's) ROCm.

    Certain for a tabled version; a risk (``uncertain``) for its release without the ``.postN``
    (``1.22.2``), when some of that release's wheels link another major.
    """
    version = env.libraries.get("onnxruntime-rocm") or ""
    certain = version in data.ROCM_WHEELS
    names = [version] if certain else _releases_of(version)
    other = {n: data.ROCM_WHEELS[n] for n in names if _other_major(env, data.ROCM_WHEELS[n])}
    if not other:
        return None
    releases = _other_major(env, next(iter(other.values())))
    built = " / ".join(dict.fromkeys(f"ROCm {w.rocm} ({w.needs})" for w in other.values()))
    which = "its PyPI wheel" if certain else f"if it is PyPI's {', '.join(other)}"
    wheel = next(iter(other.values()))
    return Finding(
        check=ID,
        reason=f"onnxruntime-rocm {version} ({which}) is built against {built}, but the stack's ROCm is {releases}: "
        "its ROCm execution provider cannot load",
        fix=f"install the onnxruntime-rocm wheel AMD publishes for the stack's ROCm release, or ROCm {wheel.major}",
        link=wheel.source,
        uses=("onnxruntime", "onnxruntime-rocm"),
        predicts=ROCM_PREDICTS,
        signature_only=True,
        uncertain=not certain,  # another wheel (or build) of this release may link the stack's ROCm
    )


def _migraphx_mismatch(env: Environment) -> Finding | None:
    """A risk: a PyPI wheel's MIGraphX provider links another ROCm major than the stack's."""
    for (dist, version), wheel in data.MIGRAPHX_WHEELS.items():
        releases = _other_major(env, wheel) if env.libraries.get(dist) == version else ""
        if releases:
            return Finding(
                check=ID,
                reason=f"{dist} {version} (if it is PyPI's wheel) is built against ROCm {wheel.rocm} "
                f"({wheel.needs}), but the stack's ROCm is {releases}: its MIGraphX execution provider cannot load",
                fix=f"install the {dist} build AMD publishes for the stack's ROCm release, or ROCm {wheel.major}",
                link=wheel.source,
                uses=("onnxruntime", dist),
                predicts=MIGRAPHX_PREDICTS,
                signature_only=True,
                uncertain=True,  # an unlabelled AMD build of this version may link the stack's ROCm
            )
    return None


def _other_major(env: Environment, wheel: data.RocmWheel | None) -> str:
    """The stack's ROCm releases (system, torch's) when none is ``wheel``'s major; "" otherwise or off ROCm."""
    return "" if wheel is None else _releases_without(env, wheel.major)


def _releases_without(env: Environment, major: int) -> str:
    """The stack's ROCm releases (system, torch's) when none is of ``major``; "" otherwise or off ROCm."""
    releases = [v for v in (coerce_version(env.rocm), env.torch_rocm) if v is not None]
    if not releases or not _on_rocm(env) or major in {v.major for v in releases}:
        return ""
    return "/".join(dict.fromkeys(str(v) for v in releases))


def _labelled_rocm_mismatch(env: Environment) -> Finding | None:
    """A ROCm build whose local version (``+rocm57``, ``+rocm6.4``) names another ROCm major than the stack's."""
    for dist in data.ROCM_LABELLED:
        installed = env.libraries.get(dist) or ""
        major = _label_major(installed)
        releases = _releases_without(env, major) if major is not None else ""
        if releases:
            return Finding(
                check=ID,
                reason=f"{dist} {installed} is built for ROCm {major} (its +rocm label), but the stack's ROCm is "
                f"{releases}: its ROCm execution provider cannot load",
                fix=f"install the {dist} build for the stack's ROCm release, or ROCm {major}",
                link=data.ROCM_LABEL_SOURCE,
                uses=("onnxruntime", dist),
                predicts=ROCM_PREDICTS,
                signature_only=True,
            )
    return None


def _label_major(installed: str) -> int | None:
    """The ROCm major a ``+rocm`` label names (``rocm57``: 5, ``rocm6.4.1``: 6), for a build with the ROCm provider."""
    version = coerce_version(installed)
    match = _ROCM_LABEL.match(version.local or "") if version is not None else None
    if version is None or match is None or version.release >= Version(vendor.ORT_ROCM_EP_REMOVED).release:
        return None  # onnxruntime-rocm 1.23 on has no ROCm provider: built-for-other-vendor's
    return int(match.group(1) or match.group(2))


def _rocm_arch(env: Environment) -> Finding | None:
    """The stack's AMD GPUs that onnxruntime-rocm's PyPI wheel has no ROCm provider kernels for."""
    version = env.libraries.get("onnxruntime-rocm") or ""
    wheels, certain = _wheels_of(version)
    gpus = rocm_targets.amd_gpus(env)
    if not wheels or not gpus:
        return None
    missing = [g for g in gpus if not all(_serves(w, g) for w in wheels)]
    if not missing:
        return None
    common = [t for t in wheels[0].targets if all(t in w.targets for w in wheels)]
    which = "its PyPI wheel" if certain else f"if it is one of the PyPI wheels {', '.join(_releases_of(version))}"
    return Finding(
        check=ID,
        reason=f"onnxruntime-rocm {version} ({which}) has no ROCm execution provider kernels for "
        f"{', '.join(g.shown for g in missing)} (built for {' '.join(common)}): they cannot launch on it",
        fix="use MIGraphXExecutionProvider (onnxruntime-migraphx), or build onnxruntime 1.22 with --use_rocm "
        "and this GPU in CMAKE_HIP_ARCHITECTURES",
        link=wheels[0].source,
        uses=("onnxruntime", "onnxruntime-rocm"),
        predicts=ARCH_PREDICTS,
        signature_only=True,
        uncertain=not certain,
    )


def _no_rocm_provider(env: Environment) -> Finding | None:
    """A risk: a ROCm stack's one onnxruntime distribution is a build without the ROCm execution provider."""
    dists = _listed(env)
    if len(dists) != 1 or not _on_rocm(env):  # several: _two_builds
        return None
    dist = dists[0]
    version = coerce_version(env.libraries[dist])
    row = next((r for r in data.NO_ROCM_PROVIDER if version is not None and r.covers(dist, version)), None)
    if row is None:
        return None
    missing = "ROCMExecutionProvider" if row.migraphx else "ROCMExecutionProvider or MIGraphXExecutionProvider"
    return Finding(
        check=ID,
        reason=f"{dist} {env.libraries[dist]} ({row.holds}) has no {missing} on this ROCm stack: code asking "
        "for it gets a warning and runs on the CPU",
        fix=("" if row.migraphx else "install onnxruntime-migraphx instead and ")
        + f"ask for MIGraphXExecutionProvider (ONNX Runtime removed the ROCm provider in {vendor.ORT_ROCM_EP_REMOVED}), "
        "or install onnxruntime-rocm 1.22.2.postN alone for ROCMExecutionProvider",
        link=row.source,
        uses=tuple(dict.fromkeys(("onnxruntime", dist))),
        predicts=NO_ROCM_EP_PREDICTS if row.migraphx else NO_AMD_EP_PREDICTS,
        signature_only=True,
        conditional=True,
        uncertain=True,  # only code asking for the missing provider meets it: a pass stands
    )


def _unnamed_rocm_arch(env: Environment) -> Finding | None:
    """A risk: no onnxruntime build named, and no PyPI onnxruntime-rocm wheel has ROCm provider kernels for the GPU.

    Unlisted counts only on a stated stack (``--rocm-set``), as for ``registry.evaluate_risks``: a probed or
    recorded machine lists what it has.
    """
    dists = _listed(env)
    unversioned = dists == ["onnxruntime-rocm"] and coerce_version(env.libraries["onnxruntime-rocm"]) is None
    unnamed = unversioned or (not dists and env.source == "overridden")
    if not unnamed or not _on_rocm(env):
        return None
    wheels = list(data.ROCM_WHEELS.values())
    missing = [g for g in rocm_targets.amd_gpus(env) if not any(_serves(w, g) for w in wheels)]
    if not missing:
        return None
    targets = sorted({t for w in wheels for t in w.targets}, key=lambda t: (len(t), t))
    return Finding(
        check=ID,
        reason=f"the stack names no onnxruntime-rocm release: none of its PyPI wheels ({', '.join(data.ROCM_WHEELS)}) "
        f"has ROCm execution provider kernels for {', '.join(g.shown for g in missing)} (built for "
        f"{' '.join(targets)}), so if the tests' onnxruntime is one of them they cannot launch on it",
        fix="name the onnxruntime build (lib.onnxruntime-rocm=VERSION) to settle it; use MIGraphXExecutionProvider "
        "(onnxruntime-migraphx), or build onnxruntime 1.22 with --use_rocm and this GPU in CMAKE_HIP_ARCHITECTURES",
        link=wheels[-1].source,
        uses=("onnxruntime", "onnxruntime-rocm"),
        predicts=ARCH_PREDICTS,
        signature_only=True,
        conditional=True,
        uncertain=True,  # the installed build may be AMD's, a source build, or MIGraphX's
    )


def _listed(env: Environment) -> list[str]:
    """The onnxruntime distributions the stack lists, in :data:`onnxruntime_builds_data.DISTRIBUTIONS` order."""
    return [d for d in data.DISTRIBUTIONS if d in env.libraries]


def _serves(wheel: data.RocmWheel, gpu: rocm_targets.EffectiveArch) -> bool:
    return bool(rocm_targets.served_by(wheel.targets, rocm_targets.base(gpu.effective)))


def _wheels_of(version: str) -> tuple[list[data.RocmWheel], bool]:
    """The PyPI wheels ``version`` may be: itself (certain), else those of its release (``1.22.2``)."""
    if version in data.ROCM_WHEELS:
        return [data.ROCM_WHEELS[version]], True
    return [data.ROCM_WHEELS[v] for v in _releases_of(version)], False


def _releases_of(version: str) -> list[str]:
    """The tabled PyPI versions of the release ``version`` names without a post or local part."""
    parsed = coerce_version(version)
    if parsed is None or parsed.post is not None or parsed.local is not None:
        return []
    return [v for v in data.ROCM_WHEELS if Version(v).release == parsed.release]


def _on_rocm(env: Environment) -> bool:
    """A ROCm stack: its platform, an AMD GPU, HIP or a ROCm torch (``built-for-other-vendor`` judges it)."""
    amd = any(g.vendor == "amd" for g in env.gpus)
    return env.platform == "rocm" or amd or bool(env.hip) or env.torch_rocm is not None


def _build_of(version: Version) -> data.CudaBuild | None:
    public = Version(version.public)
    return next((b for b in data.CUDA_BUILDS if Version(b.since) <= public < Version(b.until)), None)


def _cuda_majors(env: Environment) -> set[int]:
    """CUDA majors the stack holds: torch's build, ``cuda``, and the ``nvidia-*-cuNN`` / ``nvidia-cuda-runtime`` wheels."""
    majors = {v.major for v in (env.torch_cuda, coerce_version(env.cuda)) if v is not None}
    for name, installed in env.libraries.items():
        match = NVIDIA_CU.match(name)
        if match:
            majors.add(int(match.group(1)))
        elif name == "nvidia-cuda-runtime":  # CUDA 13's unsuffixed wheel: its version is the CUDA release
            parsed = coerce_version(installed)
            if parsed is not None:
                majors.add(parsed.major)
    return majors


def _cudnn_majors(env: Environment) -> set[int]:
    """The cuDNN majors the stack holds: the ``cudnn`` entry and every ``nvidia-cudnn-cuNN`` wheel."""
    names = [n for n in env.libraries if n == "cudnn" or _NVIDIA_CUDNN.match(n)]
    versions = (coerce_version(env.libraries[n]) for n in names)
    return {v.major for v in versions if v is not None}


def _majors(majors: set[int]) -> str:
    return "/".join(str(m) for m in sorted(majors))


def _torch_note(env: Environment) -> str:
    return f", torch {env.torch}" if env.torch and env.torch_cuda is not None else ""


def _fix(cuda: set[int], cudnn: set[int]) -> str:
    """The PyPI releases built for what the stack holds, or ONNX Runtime's other package feeds."""
    fits = [b for b in data.CUDA_BUILDS if (not cuda or b.cuda in cuda) and (not cudnn or b.cudnn in cudnn)]
    if fits:
        ranges = ", ".join(f"onnxruntime-gpu>={b.since},<{b.until}" for b in fits)
        return (
            f"install the release built for the stack's CUDA/cuDNN ({ranges}), or match CUDA/cuDNN to onnxruntime-gpu"
        )
    return "install onnxruntime-gpu from ONNX Runtime's package feed for the stack's CUDA, or match CUDA/cuDNN to it"
