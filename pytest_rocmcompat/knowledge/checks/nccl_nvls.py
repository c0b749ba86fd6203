"""``nccl-nvls-init``: an NCCL whose communicator init fails where NVLink SHARP (NVLS) set-up fails.

NCCL 2.17.1 added the NVLS algorithm (NVLink SHARP multicast through NVSwitch, intra-node:
:data:`SOURCE_ADDED`). ``ncclNvlsInit`` turns it on by itself where the CUDA driver reports
``CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED`` (``NCCL_NVLS_ENABLE`` default 2 from 2.18.1; 1 in 2.17.1);
an NCCL built with CUDA before 12.1 has only stubs (``#if CUDART_VERSION >= 12010`` in
``src/transport/nvls.cc``), and 2.17.1 asks for a 12.1 driver ("NVLS Multicast support requires
CUDA12.1 UMD + KMD"). When the multicast object cannot be created or bound ("usually caused by a
system or configuration error in the Fabric Manager or NVSwitches", as 2.27.3+ says), ``nvls.cc`` returns
``ncclUnhandledCudaError`` and communicator init fails:

- 2.17.1 to 2.27.2: fatal (:data:`SOURCE_FATAL`);
- 2.27.3 to 2.28.x: NCCL falls back to other algorithms unless ``NCCL_NVLS_ENABLE=1`` forces NVLS
  (:data:`SOURCE_FALLBACK`: release notes and ``nvlsAllocateMem``);
- 2.29.2 and later: a failed ``cuMulticastBindMem`` is fatal again, the default included
  (:data:`SOURCE_FATAL_AGAIN`: "More prominent error when cuMulticastBind fails and
  NCCL_NVLS_ENABLE=2"); read up to :data:`NEWEST` (2.30.7), newer releases are not judged.

``NCCL_NVLS_ENABLE=0`` skips NVLS set-up (``if (!ncclParamNvlsEnable() ...) return ncclSuccess``
at every tag). ``NCCL_ALGO`` is not taken as a way out: NCCL reads it only in its tuning
(``src/graph/tuning.cc``, ``enqueue.cc``), never in the NVLS set-up of ``nvls.cc``/``init.cc``. Whether this host's
NVSwitch multicast works no stack states: a risk (only the NVLS failure confirms it). It reaches
every test, not only the collective ones: NCCL runs under vLLM, SGLang, DeepSpeed, torchrun scripts
and any multi-GPU library a test may call, and the risk claims only NCCL's own NVLS set-up messages
(:data:`PREDICTS`), so it cannot take another failure; it is conditional (not counted against the stack).
GPUs judged: those of the NVSwitch baseboards Fabric Manager serves (:data:`SOURCE_NVSWITCH`: HGX
H100, sm_90; HGX B200/B100, sm_100); the driver's multicast attribute decides on the machine. Newer
parts without NVSwitch (sm_120 RTX cards) are not judged, nor sm_103 (not verified here). A CUDA stack
that states no GPU arch (``platform=cuda`` alone) may be such a host: the risk applies; a stack naming no
GPU platform at all (a pip freeze alone) is not judged.

A stack that is not a live probe (a replay, a recording, ``rocmcompat check``) naming such a GPU whose
NCCL is not known (none stated, no ``nvidia-nccl-cu12`` wheel, a torch this project maps to no NCCL or
none) gets the same risk for an unknown NCCL: every release from 2.17.1 except the 2.27.3-2.28.x window
fails init where NVLS set-up fails, and nothing says which one runs (``NCCL_NVLS_ENABLE=0`` still
clears it). A live probe is not judged so (its NCCL comes from the torch it imports; without one no
NCCL runs).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from packaging.version import Version

from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.versions import coerce_version

ID = "nccl-nvls-init"
_TREE = "https://github.com/NVIDIA/nccl/blob/{}/src/transport/nvls.cc"
SOURCE_ADDED = "https://github.com/NVIDIA/nccl/commit/5d3ab08b69754cb863ab1bf6e3fb6f7612bb725b"  # NCCL 2.17.1-1
SOURCE_FATAL = _TREE.format("v2.26.6-1")  # CUCHECKGOTO(cuMulticastBindMem(...)) in nvlsAllocateMem
SOURCE_FALLBACK = "https://github.com/NVIDIA/nccl/commit/72d2432094d6ae36abd6e511c3a16a2d052dbf94"  # NCCL 2.27.3-1
SOURCE_FATAL_AGAIN = "https://github.com/NVIDIA/nccl/commit/ebd1e929285881cb4df02c3459588a2e12b2d8c0"  # 2.29.2-1
SOURCE_NVSWITCH = "https://docs.nvidia.com/datacenter/tesla/pdf/fabric-manager-user-guide.pdf"  # 1.6 baseboards
NVSWITCH_ARCHS = ("sm_90", "sm_100")  # HGX H100/H200 (Hopper), HGX B200/B100 (Blackwell)

ADDED = Version("2.17.1")
FALLBACK = Version("2.27.3")
FATAL_AGAIN = Version("2.29.2")
NEWEST = Version("2.30.7")  # the newest tag read
MULTICAST_DRIVER = Version("12.1")
VARIABLE = "NCCL_NVLS_ENABLE"

# NCCL's own messages for a failed NVLS set-up: the multicast bind (2.27.3+, nvlsAllocateMem), or any
# CUDA call of transport/nvls.cc failing (CUCHECK's "Cuda failure", the file named by NCCL_DEBUG=WARN).
# The same as the nvls-multicast-bind diagnosis. Never a "Cuda failure" of another file, nor
# "unhandled cuda error" alone: other NCCL faults print those too.
PREDICTS = r"Failed to bind NVLink SHARP \(NVLS\) Multicast memory|transport/nvls\.cc:\d+ NCCL WARN Cuda failure"

_STRTOLL = re.compile(r"\s*([+-]?)(0[xX][0-9a-fA-F]+|[1-9][0-9]*|0[0-7]*)")


@dataclass(frozen=True)
class _Risk:
    """Why this NCCL fails init where NVLS set-up fails, what to do, and the source."""

    reason: str
    fix: str
    link: str


def check(env: Environment) -> list[Finding]:
    """A collective risk for a CUDA stack whose NCCL does not fall back from a failed NVLS set-up."""
    nccl = coerce_version(env.nccl)
    if not _may_use_nvls(env):
        return []
    setting = _setting(env.env.get(VARIABLE))
    if nccl is not None:
        risk = _risk(Version(nccl.base_version), setting)
    else:
        risk = _unknown_nccl_risk(setting, env.torch) if env.source != "live" else None
    if risk is None:
        return []
    archs = ", ".join(sorted(set(_nvls_archs(env))))
    host = (
        f"GPU {archs}: NVLS on an NVSwitch host"
        if archs
        else "no GPU arch stated: NVLS on an sm_90/sm_100 NVSwitch host"
    )
    return [
        Finding(
            check=ID,
            reason=f"{risk.reason} ({host})",
            fix=risk.fix,
            link=risk.link,
            everything=True,  # NCCL under any multi-GPU library; only NVLS's own messages are claimed
            conditional=True,
            uncertain=True,  # whether this host's NVSwitch multicast works no stack states
        )
    ]


def _risk(nccl: Version, setting: int | None) -> _Risk | None:
    """The risk of NCCL ``nccl`` with ``NCCL_NVLS_ENABLE`` at ``setting`` (``None``: unset), if any."""
    if setting == 0 or not ADDED <= nccl <= NEWEST:
        return None
    head = f"NCCL {nccl} fails communicator init where NVLS multicast set-up fails"
    if nccl < FALLBACK:
        return _Risk(
            f"{head} (no fall back until {FALLBACK})",
            f"set {VARIABLE}=0, or use NCCL >= {FALLBACK} (2.28.x at most: {FATAL_AGAIN} fails again)",
            SOURCE_FATAL,
        )
    if nccl >= FATAL_AGAIN:
        return _Risk(
            f"{head} (NCCL {FALLBACK}-2.28 fell back; {FATAL_AGAIN} made a failed multicast bind fatal again)",
            f"set {VARIABLE}=0, or repair Fabric Manager/NVSwitch multicast on the host",
            SOURCE_FATAL_AGAIN,
        )
    if setting == 1:
        return _Risk(
            f"{head}: {VARIABLE}=1 forces NVLS, so NCCL does not fall back as it would by default",
            f"unset {VARIABLE} (the default falls back) or set it to 0",
            SOURCE_FALLBACK,
        )
    return None


def _unknown_nccl_risk(setting: int | None, torch: str | None) -> _Risk | None:
    """The risk of a stated stack naming no NCCL (nor a torch it comes from): most releases since
    2.17.1 fail init where NVLS set-up fails, and nothing says this one is of the 2.27.3-2.28.x window.
    """
    if setting == 0:
        return None
    unknown = (
        f"torch {torch}'s NCCL is not known here (no NCCL stated, nor an nvidia-nccl wheel)"
        if torch
        else "the stack states no NCCL version (nor a torch or nvidia-nccl wheel it comes from)"
    )
    return _Risk(
        f"{unknown}; NCCL "
        f"{ADDED}-2.27.2 and {FATAL_AGAIN}+ fail communicator init where NVLS multicast set-up fails "
        f"(only {FALLBACK}-2.28.x fall back, and not with {VARIABLE}=1)",
        f"state the NCCL in use (nccl=<torch.cuda.nccl.version()>, or the torch / nvidia-nccl-cu12 it comes "
        f"from); set {VARIABLE}=0 where NVLS set-up fails",
        SOURCE_FATAL,
    )


def _may_use_nvls(env: Environment) -> bool:
    """A CUDA stack whose NCCL is built with CUDA 12.1+, a driver that may multicast, an NVSwitch-board GPU."""
    if env.platform == "rocm" or (env.torch_local or "").startswith(("rocm", "cpu")):
        return False
    driver = coerce_version(env.driver_cuda)
    if driver is not None and driver < MULTICAST_DRIVER:
        return False
    # a CUDA host whose GPU arch the stack does not state (a replay naming only the platform) may be an
    # NVSwitch host; a stack naming no GPU platform (a pip freeze alone) is not judged
    unstated = env.platform == "cuda" and not env.archs
    return (bool(_nvls_archs(env)) or unstated) and not _pre_multicast_build(env)


def _pre_multicast_build(env: Environment) -> bool:
    """NCCL built before CUDA 12.1 (only NVLS stubs): the CUDA 11 wheel alone, or a torch for CUDA < 12.1."""
    wheels = {name for name in env.libraries if name.startswith("nvidia-nccl-cu")}
    if wheels:
        return wheels == {"nvidia-nccl-cu11"}
    cuda = env.torch_cuda
    return cuda is not None and cuda < MULTICAST_DRIVER


def _nvls_archs(env: Environment) -> list[str]:
    """The GPUs of an NVSwitch baseboard (``sm_90``, ``sm_90a``, ``sm_100``, ``sm_100f``...)."""
    return [a for a in env.archs if re.sub(r"[af]$", "", a) in NVSWITCH_ARCHS]


def _setting(value: str | None) -> int | None:
    """``NCCL_NVLS_ENABLE`` as NCCL reads it (``strtoll(str, nullptr, 0)``; unset or empty: the default)."""
    if not value:
        return None  # unset or empty: NCCL reads only a non-empty value (whitespace alone is strtoll's 0)
    match = _STRTOLL.match(value)
    if match is None:
        return 0  # strtoll of a non-number
    sign, digits = match.groups()
    base = 16 if digits[:2].lower() == "0x" else 8 if digits.startswith("0") and len(digits) > 1 else 10
    number = int(digits, base)
    return -number if sign == "-" else number
