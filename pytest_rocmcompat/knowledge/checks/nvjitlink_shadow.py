"""``cusparse-nvjitlink-older``: cuSPARSE of one CUDA 12 release loads the nvJitLink of an older one.

What the builds contain: from CUDA 12 cuSPARSE (and cuSOLVER, cuFFT) link ``libnvJitLink.so.12`` and call its
functions by versioned names, ``__nvJitLinkComplete_12_4`` for the cuSPARSE of CUDA 12.4. An nvJitLink exports
the names of its own release and every earlier one (``nvidia-nvjitlink-cu12`` 12.1.105 exports ``_12_0`` and
``_12_1``, 12.4.127 ``_12_0`` to ``_12_4``, 12.6.85 up to ``_12_6``: read in the wheels' libraries, SOURCE_WHEELS),
so an older one leaves the newer names undefined and ``import torch`` fails:
``libcusparse.so.12: undefined symbol: __nvJitLinkComplete_12_4, version libnvJitLink.so.12``.

Which cuSPARSE a stack holds: the ``nvidia-cusparse-cu12`` it lists, at the CUDA release torch's PyPI wheels pin it
beside (``12.3.1.170`` with ``nvidia-cuda-runtime-cu12==12.4.127``: torch 2.5.1, :mod:`..declared_data`), else the
CUDA of torch's own build (``+cu124``; torch's ``cu12N`` wheels pin the cuSPARSE of CUDA 12.N). Which nvJitLink it
loads:

* an ``nvidia-nvjitlink-cu12`` the stack lists: its own release (pip keeps an older one that satisfies cuSPARSE's
  unversioned requirement; NVIDIA/cuvs#1794: "pip may resolve an older ``nvidia-nvjitlink-cu12`` than what
  ``nvidia-cusparse-cu12`` requires"). Left to ``requirement-not-met`` where torch itself pins nvJitLink (2.5+);
* a CUDA 12 toolkit on ``LD_LIBRARY_PATH`` (``/usr/local/cuda-12.1/lib64``, an HPC SDK's ``cuda/12.4/lib64``), for
  torch 2.1-2.5: the cuSPARSE wheel has no RPATH to the nvJitLink wheel, so the loader takes the first
  ``libnvJitLink.so.12`` on the path (pytorch/pytorch#111469, #134929, #140797; infiniflow/ragflow#4466 shows
  ``ldd`` resolving it to ``/usr/local/cuda-12.1/lib64``). torch 2.6.0 preloads the wheel's nvJitLink after its
  global dependencies (pytorch/pytorch#141063, ``_load_global_deps`` in the v2.6.0 wheel): from there no finding.
  A ``cuda/lib64`` without a release in its path is the stated toolkit (``cuda=`` apart from torch's tag).

A stated stack (``--rocm-set``, ``rocmcompat check``) with such a torch that states no ``LD_LIBRARY_PATH`` leaves
this open: a risk (:func:`unstated`) confirmed only by the loader's own words naming an nvJitLink function.
"""

from __future__ import annotations

import re
from functools import cache

from packaging.version import Version

from pytest_rocmcompat.knowledge import declared_data
from pytest_rocmcompat.knowledge.checks.finding import Finding, own_message_risk
from pytest_rocmcompat.knowledge.derived_facts import torch_release_pins
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import stated_keys
from pytest_rocmcompat.stack.versions import coerce_version

ID = "cusparse-nvjitlink-older"
SOURCE_WHEELS = "https://pypi.org/project/nvidia-nvjitlink-cu12/#history"
SOURCE_PATH = "https://github.com/pytorch/pytorch/issues/140797"
SOURCE_FIX = "https://github.com/pytorch/pytorch/pull/141063"
SOURCE_PIP = "https://github.com/NVIDIA/cuvs/pull/1794"
# the dynamic loader naming an nvJitLink function the loaded library lacks (``__nvJitLinkAddData_12_1``, ``_12_4``;
# RAPIDS' ``_nvJitLinkGetErrorLogSize_12_9``), from any library that calls it (cuSPARSE, cuSOLVER, cuFFT)
PREDICTS = r"undefined symbol: _{1,2}nvJitLink\w*?_1[2-9]_\d+"
TORCH_FIRST = Version("2.1.0")  # the first torch whose PyPI wheels are CUDA 12 with nvidia-* wheels
TORCH_PRELOADS = Version("2.6.0")  # preloads the wheel's nvJitLink (SOURCE_FIX)
VARIABLE = "LD_LIBRARY_PATH"
_RUNTIME = "nvidia-cuda-runtime-cu12"
_CUSPARSE = "nvidia-cusparse-cu12"
_NVJITLINK = "nvidia-nvjitlink-cu12"
# a CUDA release in a library directory: cuda-12.1, cuda/12.4 (NVIDIA HPC SDK), math_libs/12.4, cuda_12.1
_RELEASE_DIR = re.compile(r"(?:^|/)(?:cuda|math_libs)[-_/]?(\d+)\.(\d+)(?=/|$)")
# a toolkit directory without its release: /usr/local/cuda/lib64, $CUDA_HOME/targets/x86_64-linux/lib
_TOOLKIT_DIR = re.compile(r"(?:^|/)cuda/(?:lib64|lib|targets)(?=/|$)")


def check(env: Environment) -> list[Finding]:
    needed = needed_minor(env)
    if needed is None:
        return []
    found = _wheel(env, needed) or _library_path(env, needed)  # one cause is enough: the listed wheel wins
    return [found] if found is not None else []


def unstated(env: Environment) -> list[Finding]:
    """The risk of a stated stack with a torch 2.1-2.5 CUDA 12 wheel that states no ``LD_LIBRARY_PATH``."""
    needed = needed_minor(env)
    if needed is None or not _path_decides(env) or VARIABLE in env.env or f"env.{VARIABLE}" in stated_keys(env):
        return []
    if _wheel(env, needed) is not None:
        return []  # the listed wheel is the cause, whatever the path
    return [
        own_message_risk(
            f"{ID}:unstated",
            f"torch {env.torch} loads the nvJitLink that LD_LIBRARY_PATH finds first, and its cuSPARSE (CUDA 12.{needed}) "
            f"needs one of CUDA 12.{needed} or newer; the stack does not say which CUDA toolkit is on the path",
            f"state LD_LIBRARY_PATH; drop an older CUDA toolkit from it, or upgrade torch to {TORCH_PRELOADS}+",
            SOURCE_PATH,
            PREDICTS,
        )
    ]


def needed_minor(env: Environment) -> int | None:
    """The CUDA 12 minor of the stack's cuSPARSE (the nvJitLink functions it calls), or ``None``."""
    if env.platform not in ("cuda", "cpu") or env.torch_rocm is not None:
        return None
    listed = env.libraries.get(_CUSPARSE)
    if listed is not None:
        return cusparse_cuda_minors().get(listed.split("+")[0])
    torch, cuda = env.torch_version, env.torch_cuda
    if torch is None or cuda is None or cuda.major != 12 or torch.release < TORCH_FIRST.release:
        return None
    return cuda.minor


@cache
def cusparse_cuda_minors() -> dict[str, int]:
    """``nvidia-cusparse-cu12`` release -> the CUDA 12 minor of the runtime torch's PyPI wheels pin beside it."""
    found: dict[str, int] = {}
    for version in declared_data.versions("torch"):
        pins = {dist: pinned for dist, pinned, _ in torch_release_pins(str(version), None)}
        runtime = coerce_version(pins.get(_RUNTIME))
        if _CUSPARSE in pins and runtime is not None and runtime.major == 12:
            found[pins[_CUSPARSE]] = runtime.minor
    return found


def _wheel(env: Environment, needed: int) -> Finding | None:
    """The ``nvidia-nvjitlink-cu12`` the stack lists, older than its cuSPARSE, where torch does not pin it."""
    listed = coerce_version(env.libraries.get(_NVJITLINK))
    if listed is None or listed.major != 12 or listed.minor >= needed or _torch_pins_nvjitlink(env):
        return None
    return Finding(
        check=ID,
        reason=f"{_NVJITLINK} {env.libraries[_NVJITLINK]} exports nvJitLink's functions up to CUDA 12.{listed.minor}; "
        f"the stack's cuSPARSE (CUDA 12.{needed}) calls those of 12.{needed}: import torch fails with an undefined symbol",
        fix=f"pip install -U '{_NVJITLINK}>=12.{needed}'",
        link=SOURCE_PIP,
        everything=True,
        predicts=PREDICTS,
    )


def _library_path(env: Environment, needed: int) -> Finding | None:
    """An older CUDA 12 toolkit on ``LD_LIBRARY_PATH`` that torch 2.1-2.5 takes nvJitLink from."""
    if not _path_decides(env):
        return None
    for entry in env.env.get(VARIABLE, "").split(":"):
        minor = _toolkit_minor(entry, env)
        if minor is not None and minor < needed:
            return Finding(
                check=ID,
                reason=f"LD_LIBRARY_PATH names {entry} (CUDA 12.{minor}), whose libnvJitLink.so.12 the loader takes "
                f"before the wheel's; torch {env.torch}'s cuSPARSE (CUDA 12.{needed}) calls nvJitLink functions "
                f"of 12.{needed}: import torch fails with an undefined symbol",
                fix=f"remove {entry} from LD_LIBRARY_PATH (or put the nvidia/nvjitlink/lib of the wheel before it), "
                f"or upgrade torch to {TORCH_PRELOADS}+, which preloads the wheel's nvJitLink",
                link=SOURCE_PATH,
                everything=True,
                predicts=PREDICTS,
            )
    return None


def _toolkit_minor(entry: str, env: Environment) -> int | None:
    """The CUDA 12 minor of the toolkit a library directory belongs to, or ``None`` (not one, or not 12)."""
    named = _RELEASE_DIR.search(entry)
    if named is not None:
        return int(named.group(2)) if named.group(1) == "12" else None
    stated = coerce_version(env.cuda) if "cuda" in stated_keys(env) else None
    if _TOOLKIT_DIR.search(entry) and stated is not None and stated.major == 12 and env.torch_cuda != stated:
        return stated.minor
    return None


def _path_decides(env: Environment) -> bool:
    """Whether the loader's search decides the stack's nvJitLink: a torch 2.1-2.5 CUDA 12 wheel."""
    torch, cuda = env.torch_version, env.torch_cuda
    # by release: a 2.5 nightly (2.5.0.dev20240720+cu124, pytorch/pytorch#131312) lacks the preload, 2.6's have it
    return (
        torch is not None
        and cuda is not None
        and cuda.major == 12
        and TORCH_FIRST.release <= torch.release < TORCH_PRELOADS.release
    )


def _torch_pins_nvjitlink(env: Environment) -> bool:
    """Whether torch's PyPI wheel pins ``nvidia-nvjitlink-cu12`` itself (``requirement-not-met`` judges it then)."""
    return any(dist == _NVJITLINK for dist, _, _ in torch_release_pins(env.torch or "", env.python or None))
