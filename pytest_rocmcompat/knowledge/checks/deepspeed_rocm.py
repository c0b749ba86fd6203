"""``deepspeed-rocm-ops``: a DeepSpeed release whose op builder cannot build its ops on this ROCm stack.

DeepSpeed compiles its C++/HIP ops (FusedAdam, CPUAdam, transformer_inference, ...) when installed with
``DS_BUILD_*`` or just in time, through ``op_builder/builder.py``; on a ROCm torch (``torch.version.hip``,
and ``ROCM_HOME`` found) that code has had release-bound faults, read at each tag of
deepspeedai/DeepSpeed:

- **the ROCm release from a file that may not exist**: 0.6.x read ``/opt/rocm/.info/version-dev``
  unconditionally (FileNotFoundError where ROCm is elsewhere or packaged without it); 0.7.0-0.14.4 read
  ``$ROCM_HOME/.info/version-dev``, else the ``rocm`` in ``torch.__version__`` (``2.3.0+rocm6.0``), else
  ``assert False, "Could not detect ROCm version"``: a torch whose version names no ROCm (a source or
  container build, ``2.4.0a0+git...``) on a ROCm without that file (AMD's CentOS 9 images: #5815) cannot
  build any GPU op. 0.14.5 reads ``.info/version`` and ``/usr/include/rocm_version.h`` too (#5705, #5815);
- **hipBLAS v2**: ROCm 6 made hipBLAS's v2 API the one torch builds against (``-DHIPBLAS_V2``), and
  DeepSpeed's transformer_inference, quantizer and random_ltd ops still called rocBLAS-era APIs until
  0.14.3 ("rocblas -> hipblas changes for ROCm", #5401, fixing #4989; #5474 "JIT build fails for ROCM 6.0",
  torch 2.3.0+rocm6.0): their build fails with torch's ``Error building extension '<op>'``;
- **the CPU optimizers' compile flag**: 0.17.5's ``get_cuda_compile_flag`` returns nothing on ROCm (its
  ``return '-D__DISABLE_CUDA__'`` only inside the ``except``; 0.16.3-0.17.4 and 0.17.6 also return it after),
  so CPUAdam, CPUAdagrad and CPULion (ZeRO-Offload) fail in ``strip_empty_entries`` with ``TypeError:
  object of type 'NoneType' has no len()`` (the traceback quoted in #7521, "fix get_cuda_compile_flag", 0.17.6).

Each is a risk (*uncertain*, ``signature_only``): the fault needs the op to be built (a test may use
other ops, or the ops were prebuilt elsewhere) and, for the ROCm-release read, a ROCm without the file;
only the op builder's own text confirms it. The findings reach tests that use DeepSpeed, and through
:mod:`..dependency_reach` those of libraries requiring it (OpenRLHF).
"""

from __future__ import annotations

from packaging.version import Version

from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.requirements import rocm_build
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.versions import coerce_version

ID = "deepspeed-rocm-ops"
_AT = "https://github.com/deepspeedai/DeepSpeed/blob/{}/op_builder/builder.py"
SOURCE_VERSION_DEV = _AT.format("v0.6.0")
SOURCE_DETECT = _AT.format("v0.14.4")
SOURCE_HIPBLAS = "https://github.com/deepspeedai/DeepSpeed/pull/5401"
SOURCE_CPU_FLAG = "https://github.com/deepspeedai/DeepSpeed/pull/7521"
DETECT = (Version("0.6.0"), Version("0.14.5"))  # releases reading the ROCm release from .info/version-dev
DETECT_FALLBACK = Version("0.7.0")  # from here torch's "+rocmX.Y" is read when the file is missing
HIPBLAS_V2_FIXED = Version("0.14.3")
CPU_FLAG = (Version("0.17.5"), Version("0.17.6"))  # read at every tag 0.16.0-0.19.5
# the op builder's own texts: 0.6.x's open() of the hard-coded path, 0.7-0.14.4's assertion, torch's
# cpp_extension failure naming the three ops #5401 made build on ROCm 6, and strip_empty_entries' len(None)
PREDICTS_VERSION_DEV = r"No such file or directory: '/opt/rocm/\.info/version-dev'"
PREDICTS_DETECT = r"Could not detect ROCm version"
PREDICTS_HIPBLAS = r"Error building extension '(?:transformer_inference|quantizer|random_ltd)'"
PREDICTS_CPU_FLAG = r"object of type 'NoneType' has no len\(\)"
PREDICTS = f"{PREDICTS_VERSION_DEV}|{PREDICTS_DETECT}|{PREDICTS_HIPBLAS}|{PREDICTS_CPU_FLAG}"
USES = ("deepspeed",)


def check(env: Environment) -> list[Finding]:
    if not rocm_build(env):
        return []
    stated = env.libraries.get("deepspeed")
    version = coerce_version(stated)
    if version is None:
        return []
    release = Version(version.base_version)
    which = f"deepspeed {stated}"
    found: list[Finding] = []
    if DETECT[0] <= release < DETECT[1]:
        found += _rocm_release_read(env, which, release)
    if release < HIPBLAS_V2_FIXED and _rocm_major(env) >= 6:
        found.append(
            _risk(
                f"{which} builds transformer_inference, quantizer and random_ltd with rocBLAS-era calls that ROCm 6's "
                "hipBLAS v2 API (what torch builds against from ROCm 6) lacks",
                "use deepspeed >=0.14.3 (#5401)",
                SOURCE_HIPBLAS,
                PREDICTS_HIPBLAS,
            )
        )
    if CPU_FLAG[0] <= release < CPU_FLAG[1]:
        found.append(
            _risk(
                f"{which} passes no compile flag for its CPU optimizers on ROCm, so CPUAdam, CPUAdagrad and "
                "CPULion (ZeRO-Offload) fail to build",
                "use deepspeed >=0.17.6 (#7521), or 0.17.4",
                SOURCE_CPU_FLAG,
                PREDICTS_CPU_FLAG,
            )
        )
    return found


def _rocm_release_read(env: Environment, which: str, release: Version) -> list[Finding]:
    """0.6.x's hard-coded file; 0.7.0-0.14.4's assertion where torch's version names no ROCm release."""
    if release < DETECT_FALLBACK:
        return [
            _risk(
                f"{which} reads the ROCm release only from /opt/rocm/.info/version-dev when it builds an op",
                "use deepspeed >=0.14.5, or a ROCm installed at /opt/rocm with .info/version-dev",
                SOURCE_VERSION_DEV,
                PREDICTS_VERSION_DEV,
            )
        ]
    if "rocm" in (env.torch or ""):
        return []  # the fallback reads torch's "+rocmX.Y" (DeepSpeed's own test; a probed HIP version is not read)
    return [
        _risk(
            f"{which} reads the ROCm release from $ROCM_HOME/.info/version-dev, else from torch's version, which "
            f"names none ({env.torch or 'no torch stated'}), and asserts when both are missing",
            "use deepspeed >=0.14.5 (it also reads .info/version and rocm_version.h)",
            SOURCE_DETECT,
            PREDICTS_DETECT,
        )
    ]


def _rocm_major(env: Environment) -> int:
    """The ROCm major the ops are built against: torch's build, else the system ROCm; 0 when unknown."""
    version = env.torch_rocm or env.rocm_version
    return version.major if version is not None else 0


def _risk(reason: str, fix: str, link: str, predicts: str) -> Finding:
    return Finding(
        check=ID,
        reason=reason,
        fix=fix,
        link=link,
        uses=USES,
        predicts=predicts,
        signature_only=True,
        uncertain=True,
    )
