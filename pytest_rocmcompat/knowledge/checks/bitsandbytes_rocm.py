"""``bitsandbytes-rocm-build``: no bitsandbytes ROCm library serves this ROCm stack.

bitsandbytes loads one native library per GPU runtime (``libbitsandbytes_rocmXY.so`` for
torch's HIP version from 0.48); a ROCm stack without a matching one fails on the first
quantized op. What its own installation guide says, per release (``docs/source/installation.mdx``
at each tag of bitsandbytes-foundation/bitsandbytes):

- up to 0.42 "only supported on CUDA GPU hardwares"; 0.43-0.47 ROCm only on the alpha
  ``multi-backend-refactor`` branch (preview wheels, or built from source); 0.48 "ROCm support is
  currently only available in our preview wheels or when building from source". So a PyPI
  release before **0.49.0** carries no ROCm library at all;
- 0.49 and 0.50 ship ROCm libraries on Linux x86-64 (never in the Linux aarch64 wheels), and from 0.50 on
  Windows, for the ROCm releases and GPU targets their guides table (a library per ROCm release: the version
  must match); each release is judged by its own wheels (:data:`.bitsandbytes_rocm_data.PYPI_WHEELS`, read
  from PyPI: 0.49.0
  and 0.49.1 have no ROCm 7.2 library, 0.50.0's ROCm 7.14 one no gfx1250, 0.50.2 adds ROCm 7.15, gfx908 and
  gfx1030 to every Linux library and gfx1010-1012 to 7.14/7.15, #2046);
- every release that mentions ROCm starts at **ROCm 6.1** ("fully supported from ROCm 6.1
  onwards", 0.44): no upstream build serves ROCm 5.x (forks did: ROCm/bitsandbytes'
  ``rocm5.7_internal_testing``, version 0.42.0, "ROCm >= 5.7",
  https://github.com/ROCm/bitsandbytes/blob/22041b208313840a57c546c1071aeeafa23b4230/README.md, so a stack
  naming no bitsandbytes on ROCm 5 is a risk, not a verdict);
- no release, preview or source build lists gfx803, gfx900, gfx906 or the Vega APUs (gfx1010-1012
  only 0.50.2's ROCm 7.14/7.15 libraries).

A dev bitsandbytes (and ``1.0.0``, multi-backend-refactor's fixed version; PyPI has published no
1.0.0 as of 2026-11-26: should it, that release must be told apart here) is a preview wheel or
a source build of that commit: it is judged by what the preview wheels of that version carried
(:mod:`.bitsandbytes_rocm_data`: their ROCm libraries and GPU targets); since a source build
targets whatever CMake was given or found, a GPU or ROCm release the previews lack is a risk
(``uncertain``), as is a GPU no build lists under such a version or a local label (a fork, a
source build). Without a listed bitsandbytes the finding is conditional (only tests that
``uses("bitsandbytes")`` meet it).

Real reports of the messages PREDICTS adds (each quoted in tests/knowledge/test_bitsandbytes_rocm_preview.py):
https://github.com/ROCm/bitsandbytes/issues/82 (a ROCm library for another ROCm release: "ROCm Setup
failed despite ROCm being available", multi-backend-refactor's cextension.py), and the same
template before the ROCm wording, "CUDA Setup failed despite CUDA being available" (0.43.1-0.45,
https://github.com/bitsandbytes-foundation/bitsandbytes/blob/0.43.3/bitsandbytes/cextension.py). Messages it already predicted, now quoted from ROCm
reports too: https://github.com/ROCm/bitsandbytes/issues/29 (the ``rocm_enabled`` fork, whose CMake
fallback is ``gfx908;gfx90a;gfx940;gfx941;gfx942``, on a gfx1100: "Error invalid device function at
line 679 in file /bitsandbytes/csrc/ops.hip"), https://github.com/ROCm/bitsandbytes/issues/64
(a ``rocm_enabled_multi_backend`` source build: "compiled without GPU support").

Stacks as users state them (eighth round): a stack is ROCm when it says ``platform=rocm``, else when
its GPUs are all AMD (``arch=gfx1100`` alone), else, with no GPU and no CUDA platform, when its torch
is a ROCm build or it names a ROCm release (``rocm=5.7``). On Windows the releases' own "Windows x86-64"
rows apply (0.49: "Windows is not currently supported."; 0.50: ROCm 7.2.1 and 7.14.0, RDNA only). From
0.50.0 the loader takes another library of the same ROCm major when none matches
(``get_cuda_bnb_library_path``: the highest older one, else the lowest newer one) and reads
``BNB_ROCM_VERSION`` (digits only); 0.47-0.49 raise on ``BNB_CUDA_VERSION`` under ROCm
("BNB_CUDA_VERSION=... detected for ROCm!!", cextension.py at 0.49.2). From 0.47.0.dev0 until #1889
(0.50.0.dev0) the loader named the library ``rocm{major * 10 + minor}``, so a dev build on ROCm 7.10+
looks for ``libbitsandbytes_rocm80.so`` (7.10) or ``rocm82.so`` (7.12) that no build names. Two dev versions only source
builds carry (``0.43.2.dev``, plain ``0.44.0.dev``: :mod:`.bitsandbytes_rocm_data`) fall back to CDNA
targets (a risk on other GPUs). A source build names its library after the system's HIP
(CMakeLists.txt: ``hipconfig --version``) while the loader wants torch's: a dev or local version on a
system ROCm other than torch's is a risk (before 0.50.0.dev0; from it, only across majors).
``bitsandbytes-rocm`` (a fork's name, not on PyPI) is not judged.

Real ROCm reports whose messages PREDICTS matches (quoted in tests/knowledge/test_bitsandbytes_rocm_shapes.py):
https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1464,
https://github.com/ROCm/bitsandbytes/issues/35,
https://github.com/bitsandbytes-foundation/bitsandbytes/issues/372,
https://github.com/bitsandbytes-foundation/bitsandbytes/issues/47,
https://github.com/oobabooga/textgen/issues/4558,
https://github.com/broncotc/bitsandbytes-rocm/issues/3,
https://github.com/invoke-ai/InvokeAI/issues/8678,
https://github.com/ROCm/ROCm-docker/issues/149,
https://github.com/ROCm/legacy-rocm-build/issues/4358,
https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1799,
https://github.com/saddam213/AmuseAI/issues/6,
https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1427,
https://github.com/oobabooga/textgen/issues/3339,
https://github.com/amd/playbooks/issues/250.

Fifteenth round (messages quoted in tests/knowledge/test_bnb_rocm_real_messages.py, each beside its source):
the loader errors of 0.46-0.50 and the missing-dependency report join NO_LIBRARY, so a stack naming no
bitsandbytes claims them too; bitsandbytes' own kernel check on a GPU without code ("Error invalid device
function at line N in file .../csrc/ops.hip") likewise; the int8 symbols of ``lib = None`` (0.43-0.45,
multi-backend-refactor, the ROCm forks); the forks' int8-less HIP library ("ERROR: Your GPU does not support
Int8 Matmul!", https://github.com/broncotc/bitsandbytes-rocm/issues/1) and their missing one ("CUDA SETUP:
Setup Failed!", https://github.com/broncotc/bitsandbytes-rocm/issues/2). A library file named in a message now
counts only where the dynamic loader refused it (0.35-0.39 print "CUDA SETUP: Loading binary .../lib...so" on
every import that loads one, cextension.py at 0.39.1). Reports quoted there: https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1905,
https://github.com/bitsandbytes-foundation/bitsandbytes/issues/91 (bitsandbytes' kernel check, "Error no kernel
image is available for execution on the device at line 167 in file ...\\csrc\\ops.cu"),
https://github.com/oobabooga/one-click-installers/issues/94 (an AMD user's "libbitsandbytes_cpu.so: undefined
symbol: cadam32bit_grad_fp32"), and the ROCm ones above (#1799, #1464, ROCm/bitsandbytes#29, amd/playbooks#250).
Twenty-sixth round: https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1245 (0.43's diagnostics on an
MI210 reading the HIP version as a CUDA one, "CUDA versions lower than 11 are currently not supported for LLM.int8()")
and https://github.com/lshqqytiger/stable-diffusion-webui-amdgpu-forge/issues/16 (the CUDA wheel under ZLUDA,
"Error named symbol not found at line 90 in file ...\\csrc\\ops.cu").
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from packaging.version import Version

from pytest_rocmcompat.knowledge.checks import bitsandbytes_rocm_data, rocm_targets
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.versions import coerce_version, optional_version

ID = "bitsandbytes-rocm-build"
DOCS = "https://github.com/bitsandbytes-foundation/bitsandbytes/blob/{tag}/docs/source/installation.mdx"
SOURCE_FIRST = DOCS.format(tag="0.49.0")  # the first release with "Installation from PyPI" for ROCm
SOURCE_PREVIEW = DOCS.format(tag="0.48.0")  # "only available in our preview wheels or when building from source"
SOURCE_FLOOR = DOCS.format(tag="0.44.1")  # "fully supported from ROCm 6.1 onwards"
FIRST_PYPI_ROCM = Version("0.49.0")
MIN_ROCM = Version("6.1")

# From 0.50.0 the loader falls back to another library of the same ROCm major and reads BNB_ROCM_VERSION;
# 0.47-0.49 raise on BNB_CUDA_VERSION under ROCm (cextension.py get_cuda_bnb_library_path at the tags).
LOADER_FALLBACK = Version("0.50.0")
# main's ROCm loader from the backend's merge (#1683, 0.47.0.dev0) until #1889 (f1dcf42a, 0.50.0.dev0) named the
# library f"{major * 10 + minor}" (cuda_specs.py), CMake f"{major}{minor}": ROCm 7.10+ finds none (7.12 looks for
# rocm82: https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1890; 7.10 for rocm80: /issues/1799).
ROCM_NAME_BUG = (Version("0.47.0.dev0"), Version("0.50.0.dev0"))
SOURCE_NAME_BUG = "https://github.com/bitsandbytes-foundation/bitsandbytes/pull/1889"
# multi-backend-refactor's ROCm build from #1299 (0.43.3.dev) and main's from #1683 name the library after
# ``hipconfig --version`` (CMakeLists.txt at 0.49.2); the loader falls back within a major from #1980 (0.50.0.dev0)
NAMED_BY_HIP = Version("0.43.3.dev0")
LOADER_FALLBACK_DEV = Version("0.50.0.dev0")
SOURCE_NAMED_BY_HIP = "https://github.com/bitsandbytes-foundation/bitsandbytes/blob/0.49.2/CMakeLists.txt"
SOURCE_LOADER_050 = "https://github.com/bitsandbytes-foundation/bitsandbytes/blob/0.50.0/bitsandbytes/cextension.py"
SOURCE_REFUSES_CUDA_OVERRIDE = (
    "https://github.com/bitsandbytes-foundation/bitsandbytes/blob/0.49.2/bitsandbytes/cextension.py"
)
# Every target any release, preview wheel (gfx90a/gfx942/gfx1100) or documented build serves.
EVER = frozenset(
    t
    for wheels in bitsandbytes_rocm_data.PYPI_WHEELS
    for rows in (wheels.linux, wheels.windows)
    for targets in rows.values()
    for t in targets
)

# ``lib.cXXX`` of the native library that failed to load (``lib`` is None): bitsandbytes' own C symbols
# (csrc/pythonInterface.cpp), not any attribute starting with c ("'NoneType' object has no attribute
# 'config'" is an ordinary bug). Fifteenth round: every other symbol functional.py of 0.43-0.45 (``lib =
# None`` there), multi-backend-refactor and ROCm/bitsandbytes' forks call (``cdouble_rowcol_quant``,
# ``ctransform_*``, ``cextractOutliers_*``, ``cestimate_quantiles_*``, ``cpipeline_test``) and the handles
# ``CUBLAS_Context``/``Cusparse_Context`` fetch first (``lib.get_context()`` before igemm/igemmlt,
# ``lib.get_cusparse()``, the forks' ``lib.get_hipsparse()``).
_NO_LIBRARY_SYMBOL = (
    r"'NoneType' object has no attribute '(?:c(?:adam|quantize|dequantize|igemm|gemm|percentile|get_|batched"
    r"|spmm|histogram|prefetch|fill|int8|dequant|optimizer|momentum|rmsprop|lion|adagrad|elementwise|ademamix"
    r"|double_rowcol|transform_|extractOutliers|estimate_quantiles|pipeline_test)\w*|get_(?:context|cusparse|hipsparse))'"
)
# bitsandbytes' own kernel check (``CUDA_CHECK_RETURN``/``BNB_CHECK_RETURN``: "Error %s at line %d in file
# %s", csrc/ops.cuh, ops_hip.cuh, compat.cuh) with HIP's text for a library without code for the GPU
# (hipErrorInvalidDeviceFunction, hipErrorNoBinaryForGpu; a symbol or image its binary lacks for this runtime,
# "named symbol not found": the CUDA wheel under ZLUDA, lshqqytiger/stable-diffusion-webui-amdgpu-forge#16), in the
# files that use it: bitsandbytes' own, so
# it confirms even an unnamed release (another library's "HIP error: invalid device function" does not).
_NO_GPU_CODE = (
    r"Error (?:invalid device function|no kernel image is available for execution on the device|named symbol not found"
    r"|device kernel image is invalid) at line \d+ "
    r"in file \S*csrc[/\\](?:ops\.(?:hip|cu)|pythonInterface\.cpp)"
)
# What a bitsandbytes without a library for the GPU runtime prints (each verbatim in its source:
# cextension.py of 0.39.1-0.41, 0.43-0.47, 0.48+): alone, what an unnamed bitsandbytes is confirmed
# by, never a HIP missing-kernel error of another library. Eighth round (quoted from ROCm reports in
# tests/knowledge/test_bitsandbytes_rocm_shapes.py): cextension.py's load failure (0.43-0.45), the CUDA
# setup's missing runtime and version parse on a ROCm torch (0.35-0.45), the CPU-only stub's error.
# Fifteenth round (tests/knowledge/test_bnb_rocm_real_messages.py): the loader errors of 0.46-0.50 (no
# library for torch's ROCm: "Configured ROCm binary not found at", 0.50's "No compatible ROCm binary found
# at", logged as "bitsandbytes library load error: ..."; a library whose ROCm runtime is missing: "ROCm
# SETUP ERROR: Missing dependency") were in PREDICTS only, so a stack naming no bitsandbytes claimed none
# of them; bitsandbytes' own kernel check on a GPU its library has no code for; and the bitsandbytes-rocm
# fork's setup failure when its HIP library is absent (broncotc's cextension.py: "CUDA SETUP: Setup Failed!").
NO_LIBRARY = (
    r"compiled without GPU support|(?:CUDA|ROCm) Setup failed despite (?:GPU|CUDA|ROCm) being available"
    r"|CUDA SETUP: (?:Problem|Required library version not found|Setup Failed!)|Could not find the bitsandbytes (?:CUDA|ROCm) binary"
    r"|bitsandbytes native library functionality but it's not available|Could not load bitsandbytes native library"
    r"|No libcudart\.so found! Install CUDA|torch\.version\.cuda\.split|not available in CPU-only version of bitsandbytes"
    r"|libbitsandbytes_cpu\.so|Configured (?:CUDA|ROCm) binary not found|No compatible \S+ binary found at"
    r"|bitsandbytes library load error|(?:CUDA|ROCm) SETUP ERROR: Missing dependency"
    # twenty-sixth round (tests/knowledge/test_bnb_rocm_real_messages.py): 0.43's diagnostics reading a ROCm torch's
    # HIP version as a CUDA one (diagnostics/cuda.py: bitsandbytes-foundation/bitsandbytes#1245, MI210)
    r"|CUDA versions lower than 11 are currently not supported for LLM\.int8\(\)"
    # a bitsandbytes library the dynamic loader cannot open or link (PREDICTS had any mention of the file:
    # 0.35-0.39's "CUDA SETUP: Loading binary .../libbitsandbytes_cuda118.so..." is printed on every import
    # that loads one, cextension.py at 0.39.1, so a bitsandbytes test failing for another reason was claimed)
    r"|libbitsandbytes_\w+\.so: (?:cannot open shared object file|undefined symbol)|"
    + _NO_GPU_CODE
    + "|"
    + _NO_LIBRARY_SYMBOL
)
# A library built without int8 matmul (``NO_CUBLASLT``: the bitsandbytes-rocm forks' HIP builds, broncotc's
# Makefile always, ROCm/bitsandbytes rocm5.7_internal_testing's nohipblaslt library) stops LLM.int8() with
# csrc/ops.cu's / ops.hip's banner (fifteenth round).
NO_INT8 = r"ERROR: Your GPU does not support Int8 Matmul!"
# Everything the check predicts: NO_LIBRARY, a library for another release or missing its dependencies,
# and a library without code for the GPU (HIP's missing-kernel errors).
PREDICTS = NO_LIBRARY + (
    r"|cadam32bit_grad_fp32"
    r"|hipErrorNoBinaryForGpu|(?i:invalid device function)"
    # seventh round: HIP's text for hipErrorNoBinaryForGpu, which its kernels' error check prints
    # (csrc/compat.cuh "Error %s at line"); the loader's missing-dependency report is in NO_LIBRARY
    r"|no kernel image is available for execution on the device"
    # eighth round: 0.49's refusal of BNB_CUDA_VERSION on ROCm, 0.50's override errors (cextension.py at
    # those tags); 0.50's "No compatible ... binary found at" is in NO_LIBRARY
    r"|BNB_CUDA_VERSION=\S+ detected for ROCm"
    r"|value must be digits only \(e\.g\. '124' for 12\.4\)"
    r"|" + NO_INT8
)


def check(env: Environment) -> list[Finding]:
    if not _on_rocm(env):
        return []
    listed = env.libraries.get("bitsandbytes")
    if listed is None and any(name.startswith("bitsandbytes-") for name in env.libraries):
        return []  # a fork under its own name (bitsandbytes-rocm): its targets are its own
    release = optional_version(listed)
    rocm = env.torch_rocm or _series(coerce_version(env.rocm))
    archs = list(dict.fromkeys(g.effective for g in rocm_targets.amd_gpus(env)))
    problem = _problem(release, rocm, archs, _Host.of(env))
    if problem is None:
        return []
    what = f"bitsandbytes {listed}" if listed else "bitsandbytes"
    return [
        Finding(
            check=ID,
            reason=f"{what} {problem.reason}",
            fix="install a bitsandbytes release whose ROCm library matches this ROCm and GPU "
            "(from 0.49.0 on PyPI), or build it from source for this GPU",
            link=problem.link,
            uses=("bitsandbytes",),
            conditional=listed is None,
            uncertain=problem.uncertain,
            predicts=problem.only,
            signature_only=bool(problem.only),
        )
    ]


def _on_rocm(env: Environment) -> bool:
    """A ROCm stack: ``platform=rocm``, else AMD GPUs only, else (no GPU, not CUDA) a ROCm torch or release.

    Stacks as users state them often name the GPU and versions but no platform
    (``arch=gfx1100 lib.bitsandbytes=0.43.1``, ``rocm=5.7``).
    """
    if env.platform == "rocm":
        return True
    vendors = {g.vendor for g in env.gpus if g.vendor in ("amd", "nvidia")}
    if vendors:
        return vendors == {"amd"}
    return env.platform != "cuda" and (env.torch_rocm is not None or bool(env.rocm))


@dataclass(frozen=True)
class _Host:
    """What of the machine picks bitsandbytes' library: Windows, its library overrides, the system ROCm."""

    windows: bool
    variables: Mapping[str, str]
    system: Version | None = None  # the system ROCm release series (``rocm``), which a source build links
    # the stack was stated (``--rocm-set``), not probed or recorded: there, a package it does not name may
    # still be installed; on a probed or recorded machine an unnamed bitsandbytes is not installed at all
    stated: bool = False

    @classmethod
    def of(cls, env: Environment) -> _Host:
        windows = env.system == "Windows"
        return cls(windows, env.env, _series(coerce_version(env.rocm)), env.source == "overridden")


@dataclass(frozen=True)
class _Problem:
    reason: str
    link: str
    uncertain: bool = False  # a preview wheel lacks it, but a source build of that version may not
    only: str = ""  # the failures that alone confirm it (its signature, not PREDICTS): see _unnamed_release


def _problem(release: Version | None, rocm: Version | None, archs: list[str], host: _Host) -> _Problem | None:
    source = None if release is None else bitsandbytes_rocm_data.source_only_of(release)
    if source is not None:
        return _source_problem(source, rocm, archs)
    if rocm is not None and rocm < MIN_ROCM:
        forked = release is not None and release in ROCM5_FORKS and rocm >= ROCM5_FORKS[release]
        return _fork_floor(rocm) if release is None or forked else _floor(rocm)
    elsewhere = release is not None and (
        release.is_prerelease
        or release.is_devrelease
        or bool(release.local)
        or release == bitsandbytes_rocm_data.MBR_FIXED
    )
    unserved = _missing(archs, EVER)
    if unserved:
        return _Problem(
            f"has no ROCm build for {', '.join(unserved)} (no release or preview lists it)", SOURCE_FIRST, elsewhere
        )
    if release is None:
        return _unnamed_problem(rocm, archs) if host.stated else None
    if elsewhere:
        return (
            _name_bug(release, rocm)
            or _mismatch_problem(release, rocm, host.system)
            or _preview_problem(release, rocm, archs)
        )
    if release < FIRST_PYPI_ROCM:
        return _Problem("from PyPI carries no ROCm library (ROCm wheels start with 0.49.0)", SOURCE_PREVIEW)
    return _pypi_problem(release, rocm, archs, host)


def _pypi_problem(release: Version, rocm: Version | None, archs: list[str], host: _Host) -> _Problem | None:
    """A PyPI release from 0.49.0: its wheel's ROCm libraries for this OS, the one its loader picks."""
    wheels = bitsandbytes_rocm_data.wheels_of(release)
    if wheels is None:
        return None
    rows = wheels.windows if host.windows else wheels.linux
    link = wheels.link
    if not rows:
        return _Problem("ships no ROCm library for Windows (its guide: Windows is not currently supported)", link)
    override = _override(release, host.variables)
    if override is not None:
        return _override_problem(release, override, rows, archs)
    if rocm is None:
        return None
    key = _library_for(release, rows, rocm)
    if key is None:  # before 0.50 the library must match torch's ROCm exactly (cextension.py)
        return _Problem(f"ships no library for ROCm {rocm} (its wheels: ROCm {', '.join(rows)})", link)
    missing = _missing(archs, rows[key])
    if missing:
        picked = "" if key == f"{rocm.major}.{rocm.minor}" else f", which its loader picks for ROCm {rocm}"
        bases = [rocm_targets.base(a) for a in missing]
        later = bitsandbytes_rocm_data.first_serving(release, host.windows, key, bases)
        since = f" (its ROCm {key} library has them from bitsandbytes {later.first})" if later else ""
        return _Problem(f"has no kernels for {', '.join(missing)} in its ROCm {key} library{picked}{since}", link)
    return None


def _library_for(release: Version, rows: Mapping[str, tuple[str, ...]], rocm: Version) -> str | None:
    """The ROCm library the loader loads: the exact one; from 0.50 (get_cuda_bnb_library_path) else the
    highest older one of the same major, else the lowest newer one of the same major.
    """
    exact = f"{rocm.major}.{rocm.minor}"
    if exact in rows or release < LOADER_FALLBACK:
        return exact if exact in rows else None
    same = [Version(k) for k in rows if Version(k).major == rocm.major]
    lower = [v for v in same if v < rocm]
    higher = [v for v in same if v > rocm]
    chosen = max(lower) if lower else min(higher) if higher else None
    return None if chosen is None else f"{chosen.major}.{chosen.minor}"


def _override(release: Version, variables: Mapping[str, str]) -> tuple[str, str] | None:
    """The library override the release reads on ROCm: ``BNB_CUDA_VERSION`` (refused on ROCm up to 0.49),
    ``BNB_ROCM_VERSION`` from 0.50; ``(name, value)``.
    """
    name = "BNB_ROCM_VERSION" if release >= LOADER_FALLBACK else "BNB_CUDA_VERSION"
    value = variables.get(name)
    return (name, value) if value else None


def _override_problem(
    release: Version, override: tuple[str, str], rows: Mapping[str, tuple[str, ...]], archs: list[str]
) -> _Problem | None:
    name, value = override
    if name == "BNB_CUDA_VERSION":
        return _Problem(f"refuses {name}={value} on ROCm ('detected for ROCm!!')", SOURCE_REFUSES_CUDA_OVERRIDE)
    if not value.isdigit():
        return _Problem(f"refuses {name}={value!r} (digits only)", SOURCE_LOADER_050)
    key = next((k for k in rows if k.replace(".", "") == value), None)
    if key is None:
        return _Problem(
            f"ships no libbitsandbytes_rocm{value} for {name} to load (ROCm {', '.join(rows)})", SOURCE_LOADER_050
        )
    missing = _missing(archs, rows[key])
    if missing:
        return _Problem(
            f"has no kernels for {', '.join(missing)} in the ROCm {key} library {name} loads", SOURCE_LOADER_050
        )
    return None


# The versions ROCm 5 forks carry, with the ROCm they need: ROCm/bitsandbytes ``rocm5.7_internal_testing``
# (setup.py version 0.42.0, README "ROCm >= 5.7") and arlo-phoenix/bitsandbytes-rocm-5.6 (0.41.3.post1,
# "ROCm 5.6+"). Such a release named on that ROCm may be the fork's build: a risk, as an unnamed one.
ROCM5_FORKS: dict[Version, Version] = {Version("0.42.0"): Version("5.7"), Version("0.41.3.post1"): Version("5.6")}


def _floor(rocm: Version, uncertain: bool = False) -> _Problem:
    return _Problem(f"has no ROCm {rocm} build (bitsandbytes supports ROCm from 6.1)", SOURCE_FLOOR, uncertain)


def _fork_floor(rocm: Version) -> _Problem:
    """No bitsandbytes named on ROCm before 6.1, or a ROCm 5 fork's version (:data:`ROCM5_FORKS`) named: no
    upstream build serves it, but ROCm's own fork of 0.42.0
    (``rocm5.7_internal_testing``: "ROCm >= 5.7") and the bitsandbytes-rocm forks (arlo-phoenix's 5.6+) were
    built for ROCm 5, so which one is installed decides: a risk (*uncertain*), not a verdict. Only bitsandbytes'
    own texts confirm it: a release without a ROCm library (NO_LIBRARY) or a fork's int8-less library (NO_INT8).
    """
    return _Problem(
        f"has no ROCm {rocm} build (bitsandbytes supports ROCm from 6.1; only a ROCm 5 fork's source build, "
        "e.g. ROCm/bitsandbytes rocm5.7_internal_testing, serves it)",
        SOURCE_FLOOR,
        True,
        f"{NO_LIBRARY}|{NO_INT8}",
    )


def _source_problem(
    source: bitsandbytes_rocm_data.SourceOnly, rocm: Version | None, archs: list[str]
) -> _Problem | None:
    """A dev version only source builds carry: those with a ROCm backend fall back to CDNA targets, and
    ROCm/bitsandbytes' fork built on ROCm releases before 6.1 too (a risk, not a verdict).
    """
    missing = _missing(archs, bitsandbytes_rocm_data.CDNA_FALLBACK)
    if missing:
        fallback = ";".join(bitsandbytes_rocm_data.CDNA_FALLBACK)
        return _Problem(
            f"(a source build: {source.origin}; no preview wheel has this version) has no kernels for "
            f"{', '.join(missing)} unless built for it (CMake falls back to {fallback})",
            bitsandbytes_rocm_data.SOURCE_CDNA,
            True,
        )
    if rocm is not None and rocm < MIN_ROCM:
        return _floor(rocm, True)
    return None


def _name_bug(release: Version, rocm: Version | None) -> _Problem | None:
    """The loader of main before #1889 on ROCm 7.10+: ``rocm{major * 10 + minor}``, a name no build has."""
    if rocm is None or rocm.minor < 10 or not ROCM_NAME_BUG[0] <= Version(release.public) < ROCM_NAME_BUG[1]:
        return None
    wanted = f"libbitsandbytes_rocm{rocm.major * 10 + rocm.minor}"
    return _Problem(f"looks for {wanted} on ROCm {rocm}, which no build names (fixed in #1889)", SOURCE_NAME_BUG)


def _mismatch_problem(release: Version, torch_rocm: Version | None, system: Version | None) -> _Problem | None:
    """A source build names its library after the system's HIP (CMakeLists.txt: ``hipconfig --version``), the
    loader after torch's (``torch.version.hip``): another ROCm release finds none (a preview wheel of the
    version carries several libraries, hence a risk). From 0.50.0.dev0 (#1980) the loader takes one of the
    same major.
    """
    if torch_rocm is None or system is None or torch_rocm == system:
        return None
    public = Version(release.public)
    if public < NAMED_BY_HIP:
        return None
    if public >= LOADER_FALLBACK_DEV and torch_rocm.major == system.major:
        return None
    wanted = f"libbitsandbytes_rocm{torch_rocm.major}{torch_rocm.minor}"
    built = f"libbitsandbytes_rocm{system.major}{system.minor}"
    return _Problem(
        f"(a source build against the system ROCm {system} names its library {built}) finds no {wanted} "
        f"for torch's ROCm {torch_rocm}",
        SOURCE_NAMED_BY_HIP,
        True,
    )


def _preview_problem(release: Version, rocm: Version | None, archs: list[str]) -> _Problem | None:
    """A dev version: what no preview wheel of it carried (a source build of it may have)."""
    preview = bitsandbytes_rocm_data.preview_of(release)
    if preview is None:
        return None
    origin = f"(a {preview.branch} preview wheel or a source build)"
    if rocm is None:
        targets = {t for row in preview.rocm.values() for t in row}
        missing = _missing(archs, targets)
        if missing:
            return _Problem(
                f"{origin}: no preview wheel of it has kernels for {', '.join(missing)}", preview.link, True
            )
        return None
    row = preview.rocm.get(f"{rocm.major}.{rocm.minor}")
    if row is None:  # the loader wants libbitsandbytes_rocm{torch's HIP major minor}
        rows = ", ".join(preview.rocm)
        return _Problem(f"{origin}: its preview wheels ship no ROCm {rocm} library (ROCm {rows})", preview.link, True)
    missing = _missing(archs, row)
    if missing:
        return _Problem(
            f"{origin}: its preview wheels' ROCm {rocm} library has no kernels for {', '.join(missing)} "
            f"({', '.join(row)})",
            preview.link,
            True,
        )
    return None


def _unnamed_problem(rocm: Version | None, archs: list[str]) -> _Problem | None:
    """A stack that names no bitsandbytes: no official library for this ROCm major lists the GPU.

    0.50's loader falls back to a library of the same ROCm major, so every row of that major counts
    (Linux and Windows, preview targets included in the rows); only a fork or a source build could
    serve the GPU, hence *uncertain*: a failure the check predicts confirms it.
    """
    if rocm is None:
        return _unnamed_release()
    served = {
        t
        for wheels in bitsandbytes_rocm_data.PYPI_WHEELS
        for rows in (wheels.linux, wheels.windows)
        for series, targets in rows.items()
        if Version(series).major == rocm.major
        for t in targets
    }
    unserved = _missing(archs, served)
    if not unserved:
        return _unnamed_release()
    return _Problem(
        f"has no official ROCm {rocm.major}.x library for {', '.join(unserved)} (no release's table lists it "
        "for this ROCm major: only a fork or a source build could serve it)",
        SOURCE_FIRST,
        True,
    )


def _unnamed_release() -> _Problem:
    """A stack that names no bitsandbytes on a GPU and ROCm some release serves: which one is installed decides.

    Every PyPI release before 0.49.0 (all of them until 2025-12) carries no ROCm library, so a
    ``pip install bitsandbytes`` of those years fails on ROCm; 0.49+, the preview wheels and source builds
    for the GPU work. *Uncertain*: only a failure this check predicts (bitsandbytes' own "compiled without
    GPU support", its loader's errors, a kernel without code for the GPU) confirms it.
    """
    return _Problem(
        "is not named: PyPI releases before 0.49.0 carry no ROCm library (0.43-0.48 only preview wheels or "
        "source builds), so only 0.49+, a preview wheel or a source build for this GPU serves ROCm",
        SOURCE_PREVIEW,
        True,
        NO_LIBRARY,
    )


def _missing(archs: list[str], targets: Collection[str]) -> list[str]:
    """The GPUs whose base target is not among ``targets``."""
    return [a for a in archs if rocm_targets.base(a) not in targets]


def _series(v: Version | None) -> Version | None:
    return Version(f"{v.major}.{v.minor}") if v is not None else None
