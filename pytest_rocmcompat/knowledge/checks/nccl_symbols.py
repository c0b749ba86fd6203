"""``nccl-lacks-symbol``: the stack's NCCL is older than API functions that builds against a newer one link.

NCCL keeps one soname, ``libnccl.so.2``, for every 2.x release, so a torch (or vLLM, CuPy, an
extension) built against a newer NCCL loads an older one without complaint until the dynamic linker
resolves a function that release does not have: ``libtorch_cuda.so: undefined symbol: ncclCommRegister``
(pytorch/pytorch#120186, THU-MIG/yolov10#306: torch 2.2's wheels link NCCL 2.19's registration API;
``ncclMemFree`` with NCCL 2.14.3 loaded, rwth-i6/returnn#1802; ``ncclCommWindowRegister`` from an
nccl-tests build against 2.27 that loaded the system's 2.23.4, NVIDIA/nccl#1784). Which functions each
release has is what its public header declares: :data:`SINCE` holds, per API function, the first release
whose ``src/nccl.h.in`` declares it, read at every ``v2.X.Y-1`` tag of NVIDIA/nccl from v2.3.7 (the oldest
tag there; what it already declares is left out, its first release not being read) to :data:`NEWEST`.

The stack's NCCL is its ``nccl``, stated or derived from the ``nvidia-nccl-cu1x`` wheel it lists
(:mod:`derived_facts`). Where the stack names a torch whose release's PyPI wheel pins an NCCL
(:func:`built_against`), only the functions up to that NCCL are claimed: a torch links nothing of a later
release, so an NCCL that is the torch's own pin, or newer, is not judged; with no torch named, or one whose
NCCL is not known (a source or container build), every function the stack's NCCL lacks is. Which of the later functions a build links depends on the NCCL it was built with,
which no stack field says: a risk (*uncertain*), reaching every test (NCCL runs under any multi-GPU
library), conditional, that claims only ``undefined symbol`` naming a function this NCCL lacks: such a
failure has no other cause than an NCCL older than the build's. ROCm's RCCL keeps NCCL's numbering but not
its exact API: not judged.
"""

from __future__ import annotations

import re

from packaging.version import Version

from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.derived_facts import torch_release_pins
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.versions import coerce_version

ID = "nccl-lacks-symbol"
_HEADER = "https://github.com/NVIDIA/nccl/blob/{}/src/nccl.h.in"
NEWEST = Version("2.30.7")  # the newest tag read
_NCCL_WHEEL = re.compile(r"nvidia-nccl-cu1\d")
# API function -> the first NCCL release whose nccl.h.in declares it (tags v2.3.7-1 ... v2.30.7-1)
SINCE: dict[str, str] = {
    "ncclCommAbort": "2.4.2",
    "ncclCommGetAsyncError": "2.4.2",
    "ncclSend": "2.7.3",
    "ncclRecv": "2.7.3",
    "ncclRedOpCreatePreMulSum": "2.11.4",
    "ncclRedOpDestroy": "2.11.4",
    "ncclGetLastError": "2.13.4",
    "ncclCommFinalize": "2.14.3",
    "ncclCommInitRankConfig": "2.14.3",
    "ncclCommSplit": "2.18.1",
    "ncclCommRegister": "2.19.1",
    "ncclCommDeregister": "2.19.1",
    "ncclMemAlloc": "2.19.1",
    "ncclMemFree": "2.19.1",
    "ncclGroupSimulateEnd": "2.22.3",
    "ncclCommInitRankScalable": "2.23.4",
    "ncclResetDebugInit": "2.24.3",
    "ncclCommShrink": "2.27.3",
    "ncclCommWindowRegister": "2.27.3",
    "ncclCommWindowDeregister": "2.27.3",
    "ncclAlltoAll": "2.28.3",
    "ncclGather": "2.28.3",
    "ncclScatter": "2.28.3",
    "ncclCommRevoke": "2.28.7",
    "ncclCommGetUniqueId": "2.29.2",
    "ncclCommGrow": "2.29.2",
    "ncclPutSignal": "2.29.2",
    "ncclSignal": "2.29.2",
    "ncclWaitSignal": "2.29.2",
    "ncclWinGetUserPtr": "2.29.2",
    "ncclCommMemStats": "2.29.7",
    "ncclCommResume": "2.29.7",
    "ncclCommSuspend": "2.29.7",
}


def lacking(nccl: Version) -> list[str]:
    """The API functions of :data:`SINCE` that NCCL ``nccl`` does not have, oldest first."""
    release = Version(nccl.base_version)
    return sorted((f for f, since in SINCE.items() if release < Version(since)), key=lambda f: Version(SINCE[f]))


def predicts(functions: list[str]) -> str:
    """The linker's failure for any of ``functions`` (and NCCL's ``pnccl`` profiling twins), quoted or not."""
    return r"undefined symbol: [\"']?p?(?:" + "|".join(functions) + r")\b"


def built_against(env: Environment) -> Version | None:
    """The NCCL the stack's torch release was built against: the ``nvidia-nccl-cu1x`` its PyPI wheel pins."""
    if not env.torch:
        return None
    for dist, pinned, _ in torch_release_pins(env.torch, env.python or None):
        if _NCCL_WHEEL.fullmatch(dist):
            return coerce_version(pinned)
    return None


# Every function a release may lack; each finding claims only those its NCCL lacks (signature_only)
PREDICTS = predicts(list(SINCE))


def check(env: Environment) -> list[Finding]:
    """The risk of an NCCL older than functions a build against a newer release links."""
    nccl = coerce_version(env.nccl)
    if nccl is None or env.platform == "rocm" or nccl.major != 2:
        return []
    build = built_against(env)  # a torch links no function of an NCCL newer than the one it was built with
    missing = [f for f in lacking(nccl) if build is None or Version(SINCE[f]) <= build]
    if not missing:
        return []
    first = missing[0]
    shown = ", ".join(missing[:4]) + (f" and {len(missing) - 4} more" if len(missing) > 4 else "")
    return [
        Finding(
            check=ID,
            reason=f"NCCL {env.nccl} lacks {shown} (NCCL {SINCE[first]}+): a torch or library built against a "
            'newer NCCL loads this libnccl.so.2 and fails to resolve them ("undefined symbol")',
            fix="load the NCCL the build was made with (the nvidia-nccl wheel torch pins; an older libnccl.so.2 "
            "earlier on LD_LIBRARY_PATH or in the system shadows it), or an NCCL at least as new as the one the "
            "build names (its ldd, its pinned wheel)",
            link=_HEADER.format(f"v{SINCE[first]}-1"),
            everything=True,  # NCCL under any library; only its own missing functions are claimed
            conditional=True,
            uncertain=True,  # which functions a build links depends on the NCCL it was built with
            predicts=predicts(missing),
            signature_only=True,
        )
    ]
