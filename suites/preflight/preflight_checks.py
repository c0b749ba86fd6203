"""Preflight checks: mistakes of real GPU deployments, each a pure function.

A check takes the session's :class:`Environment` (probed, replayed or overridden, so
``--rocm-env`` / ``--rocm-set`` reach it) and the :class:`HostFacts` of this machine
(things a replayed environment cannot know: device nodes, /dev/shm), and returns
``None`` when all is well or one line naming the problem and its fix. A check that
does not apply to the platform raises :class:`NotApplicable` with the reason.

numpy 2 against a torch built for numpy 1 is detected for real: :func:`gather_host_facts`
imports torch and numpy in a child Python and keeps its output, where such a torch
prints "A module that was compiled using NumPy 1.x cannot be run in NumPy 2" and
"Failed to initialize NumPy: _ARRAY_API not found"; a replayed environment without
that output falls back to the versions (torch < 2.3 wheels were built against numpy 1).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from packaging.version import InvalidVersion, Version

from pytest_rocmcompat.stack.arch import normalize_arch
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.versions import coerce_version


class NotApplicable(Exception):
    """The check does not apply here; the message says why (the test skips with it)."""


@dataclass(frozen=True)
class HostFacts:
    """Operating-system facts of the machine the session runs on."""

    shm_bytes: int | None = None  # size of /dev/shm; None when absent
    device_nodes: dict[str, str] = field(default_factory=dict)  # path -> ok | missing | no-access
    numpy_child_output: str | None = None  # stderr+stdout of `import torch, numpy` in a child


# ---- gathering the facts (the only impure part) -----------------------------------------


def shm_size(path: str = "/dev/shm") -> int | None:
    """Total bytes of the shared-memory file system, or None when it is absent."""
    try:
        st = os.statvfs(path)
    except OSError:
        return None
    return st.f_frsize * st.f_blocks


def device_node_state(path: str) -> str:
    """``ok``, ``missing`` or ``no-access`` (exists but this user cannot read and write it)."""
    if not os.path.exists(path):
        return "missing"
    if os.path.isdir(path):
        renders = [os.path.join(path, n) for n in sorted(os.listdir(path)) if n.startswith("renderD")]
        if not renders:
            return "missing"
        return "ok" if any(os.access(r, os.R_OK | os.W_OK) for r in renders) else "no-access"
    return "ok" if os.access(path, os.R_OK | os.W_OK) else "no-access"


NUMPY_PROBE = (
    "import warnings; warnings.simplefilter('always')\n"
    "import numpy, torch\n"
    "torch.from_numpy(numpy.arange(3.0))\n"
    "print('numpy', numpy.__version__, 'torch', torch.__version__)\n"
)


def numpy_child_output(python: str = sys.executable, timeout: float = 120.0) -> str | None:
    """What ``import numpy, torch; torch.from_numpy(...)`` prints in a fresh interpreter."""
    try:
        proc = subprocess.run([python, "-c", NUMPY_PROBE], capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"probe failed: {exc}"
    return (proc.stdout + proc.stderr)[-20000:]


def gather_host_facts(run_numpy_probe: bool = True) -> HostFacts:
    nodes = {p: device_node_state(p) for p in ("/dev/kfd", "/dev/dri")}
    return HostFacts(shm_size(), nodes, numpy_child_output() if run_numpy_probe else None)


# ---- helpers ---------------------------------------------------------------------------


def _needs_rocm(env: Environment, what: str) -> None:
    if env.platform != "rocm":
        raise NotApplicable(f"{what} only matters on ROCm (platform is {env.platform})")


def _split(value: str) -> list[str]:
    return [v for v in re.split(r"[;,\s]+", value.strip()) if v]


def _gib(n: int) -> str:
    return f"{n / (1 << 30):.2f} GiB" if n >= 1 << 30 else f"{n / (1 << 20):.0f} MiB"


# ---- the checks --------------------------------------------------------------------------


def check_device_nodes(env: Environment, facts: HostFacts) -> str | None:
    """/dev/kfd and /dev/dri must exist and be readable and writable (ROCm only)."""
    _needs_rocm(env, "/dev/kfd and /dev/dri")
    if env.source != "live":  # this machine's /dev says nothing of the machine the environment came from
        raise NotApplicable(
            f"/dev/kfd and /dev/dri are facts of the recorded machine, not this one (environment {env.source})"
        )
    bad = {p: s for p, s in sorted(facts.device_nodes.items()) if s != "ok"}
    if not bad:
        return None
    what = ", ".join(f"{p} {s}" for p, s in bad.items())
    if "missing" in bad.values():
        fix = "start the container with --device=/dev/kfd --device=/dev/dri --group-add video --group-add render"
    else:
        fix = "add the user to the render and video groups (sudo usermod -aG render,video $USER) or --group-add them"
    return f"ROCm device nodes unusable ({what}): {fix}"


MIN_SHM_BYTES = 1 << 30


def check_shm_size(env: Environment, facts: HostFacts, minimum: int = MIN_SHM_BYTES) -> str | None:
    """/dev/shm of at least 1 GiB (Docker's default 64 MiB breaks DataLoader workers and NCCL/RCCL)."""
    if facts.shm_bytes is None:
        return "/dev/shm is missing: mount a tmpfs there, or start the container with --ipc=host or --shm-size=16g"
    if facts.shm_bytes < minimum:
        return (
            f"/dev/shm is only {_gib(facts.shm_bytes)} (need >= {_gib(minimum)}; multi-process data loaders "
            "and NCCL/RCCL collectives fail with bus errors): start the container with --ipc=host or --shm-size=16g"
        )
    return None


def gfx_from_override(value: str) -> str | None:
    """``"9.4.2"`` -> ``"gfx942"``, ``"9.0.10"`` -> ``"gfx90a"``, ``"11.0.0"`` -> ``"gfx1100"``."""
    parts = value.strip().split(".")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        return None
    major, minor, step = (int(p) for p in parts)
    return f"gfx{major}{minor:x}{step:x}"


def check_hsa_override(env: Environment, facts: HostFacts) -> str | None:
    """HSA_OVERRIDE_GFX_VERSION must not claim a different ISA than the GPU has.

    Pointing an RDNA card at its family's supported target (gfx1031 -> 10.3.0) is the
    documented workaround and passes; any other mismatch (and every gfx9 mismatch:
    gfx906, gfx908, gfx90a, gfx942 are different ISAs) runs kernels built for another
    chip and ends in "Memory access fault by GPU node-N".
    """
    _needs_rocm(env, "HSA_OVERRIDE_GFX_VERSION")
    value = env.env.get("HSA_OVERRIDE_GFX_VERSION")
    if value is None:
        return None
    target = gfx_from_override(value)
    if target is None:
        return f"HSA_OVERRIDE_GFX_VERSION={value!r} is not of the form MAJOR.MINOR.STEPPING: unset it"
    archs = env.archs
    if not archs:
        raise NotApplicable("no GPU recorded to compare HSA_OVERRIDE_GFX_VERSION with")
    for arch in archs:
        if arch == target:
            continue
        same_family = arch.startswith("gfx1") and target.startswith("gfx1") and arch[:-1] == target[:-1]
        if not same_family:
            return (
                f"HSA_OVERRIDE_GFX_VERSION={value} claims {target} but the GPU is {arch} "
                f"(known to cause 'Memory access fault by GPU'): unset HSA_OVERRIDE_GFX_VERSION"
            )
    return None


ROCM_ARCH_VARS = ("PYTORCH_ROCM_ARCH", "AMDGPU_TARGETS", "GPU_TARGETS")


def _cuda_arch_covered(arch: str, entries: list[str]) -> bool:
    """Whether a TORCH_CUDA_ARCH_LIST (``8.0;9.0+PTX``, ``9.0a``) covers ``sm_XY``."""
    digits = "".join(c for c in arch[3:] if c.isdigit())
    if not digits:
        return True
    want = Version(f"{digits[:-1]}.{digits[-1]}")
    for entry in entries:
        m = re.fullmatch(r"(\d+)\.(\d+)[af]?(\+PTX)?", entry, flags=re.IGNORECASE)
        if not m:
            continue
        have = Version(f"{m.group(1)}.{m.group(2)}")
        if have == want or (m.group(3) and have <= want):
            return True
    return False


def check_build_arch_list(env: Environment, facts: HostFacts) -> str | None:
    """Extension builds must target the device: PYTORCH_ROCM_ARCH / AMDGPU_TARGETS (TORCH_CUDA_ARCH_LIST on CUDA)."""
    if env.platform == "cpu":
        raise NotApplicable("no GPU extension builds on a CPU platform")
    if not env.archs:
        raise NotApplicable("no GPU recorded to compare the build targets with")
    if env.platform == "rocm":
        for var in ROCM_ARCH_VARS:
            value = env.env.get(var)
            if value is None:
                continue
            listed = {normalize_arch(a) for a in _split(value)}
            missing = [a for a in env.archs if a not in listed]
            if missing:
                wanted = ";".join(sorted(listed | set(missing)))
                return (
                    f"{var}={value!r} does not include {', '.join(missing)}: extensions built now will fail "
                    f"with 'no kernel image'/'invalid device function': export {var}=\"{wanted}\""
                )
        return None
    value = env.env.get("TORCH_CUDA_ARCH_LIST")
    if value is None:
        return None
    missing = [a for a in env.archs if not _cuda_arch_covered(a, _split(value))]
    if missing:
        need = ";".join(f"{a[3:-1]}.{a[-1]}" for a in missing)
        return (
            f"TORCH_CUDA_ARCH_LIST={value!r} does not cover {', '.join(missing)}: "
            f'add {need} (export TORCH_CUDA_ARCH_LIST="{need}")'
        )
    return None


RAY_SPLIT = Version("2.45")
NOSET_HIP = "RAY_EXPERIMENTAL_NOSET_HIP_VISIBLE_DEVICES"
NOSET_ROCR = "RAY_EXPERIMENTAL_NOSET_ROCR_VISIBLE_DEVICES"


def check_ray_visibility(env: Environment, facts: HostFacts) -> str | None:
    """Ray >= 2.45 sets HIP_VISIBLE_DEVICES on AMD (honours NOSET_HIP); earlier Ray set ROCR (NOSET_ROCR)."""
    _needs_rocm(env, "Ray's AMD device-visibility variable")
    ray = coerce_version(env.libraries.get("ray"))
    if ray is None:
        raise NotApplicable("Ray is not installed")
    has_hip, has_rocr = NOSET_HIP in env.env, NOSET_ROCR in env.env
    if ray.release[:2] >= RAY_SPLIT.release[:2]:
        if has_rocr and not has_hip:
            return (
                f"Ray {ray} ignores {NOSET_ROCR} (it manages HIP_VISIBLE_DEVICES since 2.45): "
                f"export {NOSET_HIP}=1 instead"
            )
    elif has_hip and not has_rocr:
        return (
            f"Ray {ray} ignores {NOSET_HIP} (before 2.45 it manages ROCR_VISIBLE_DEVICES): "
            f"export {NOSET_ROCR}=1 instead, or upgrade Ray to >= 2.45"
        )
    return None


def _ids(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def check_visible_devices(env: Environment, facts: HostFacts) -> str | None:
    """HIP_VISIBLE_DEVICES, CUDA_VISIBLE_DEVICES and ROCR_VISIBLE_DEVICES must agree (ROCm).

    ROCR_VISIBLE_DEVICES filters first; HIP_VISIBLE_DEVICES (or CUDA_VISIBLE_DEVICES, which
    HIP also reads) then indexes into what ROCR left. Different HIP and CUDA lists, or a HIP
    index beyond ROCR's list, leave processes on the wrong GPUs or on none.
    """
    _needs_rocm(env, "HIP/CUDA/ROCR_VISIBLE_DEVICES agreement")
    hip, cuda, rocr = (env.env.get(v) for v in ("HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"))
    if hip is not None and cuda is not None and _ids(hip) != _ids(cuda):
        return (
            f"HIP_VISIBLE_DEVICES={hip!r} and CUDA_VISIBLE_DEVICES={cuda!r} disagree (HIP reads both): "
            "set only HIP_VISIBLE_DEVICES (unset CUDA_VISIBLE_DEVICES)"
        )
    inner = hip if hip is not None else cuda
    if rocr is not None and inner is not None:
        rocr_ids, inner_ids = _ids(rocr), _ids(inner)
        too_big = [i for i in inner_ids if i.isdigit() and int(i) >= len(rocr_ids)]
        if too_big:
            return (
                f"ROCR_VISIBLE_DEVICES={rocr!r} leaves {len(rocr_ids)} GPU(s) but HIP/CUDA_VISIBLE_DEVICES="
                f"{inner!r} indexes {', '.join(too_big)} (indices are relative to ROCR's list): "
                "set only one of them, e.g. unset ROCR_VISIBLE_DEVICES"
            )
    return None


ALLOC_CONF_VARS = ("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_HIP_ALLOC_CONF", "PYTORCH_ALLOC_CONF")


def check_vllm_expandable_segments(env: Environment, facts: HostFacts) -> str | None:
    """vLLM with expandable_segments:True: sleep mode refuses it and custom all-reduce crashes (IPC handles)."""
    if "vllm" not in env.libraries:
        raise NotApplicable("vLLM is not installed")
    for var in ALLOC_CONF_VARS:
        value = env.env.get(var, "")
        if re.search(r"expandable_segments\s*:\s*true", value, flags=re.IGNORECASE):
            return (
                f"vLLM {env.libraries['vllm']} is installed and {var}={value!r} asks for expandable segments "
                "(vLLM sleep mode rejects them; tensor-parallel custom all-reduce fails on their memory): "
                f"unset it for vLLM processes ({var}=expandable_segments:False)"
            )
    return None


NUMPY1_MARKERS = (
    "compiled using NumPy 1.x cannot be run in",
    "_ARRAY_API not found",
    "numpy.core.multiarray failed to import",
)


def check_numpy_abi(env: Environment, facts: HostFacts) -> str | None:
    """numpy 2 with a torch built against numpy 1 (import-time warning, broken tensor<->array)."""
    numpy_v, torch_v = coerce_version(env.libraries.get("numpy")), env.torch_version
    if torch_v is None:
        raise NotApplicable("torch is not installed")
    if numpy_v is None:
        raise NotApplicable("numpy is not installed")
    text = facts.numpy_child_output or ""
    seen = next((m for m in NUMPY1_MARKERS if m in text), None)
    if seen:
        return (
            f"torch {env.torch} was built against numpy 1 but numpy {numpy_v} is installed "
            f"(import prints {seen!r}): pip install 'numpy<2' or a torch >= 2.3"
        )
    if numpy_v.major >= 2 and torch_v.release[:2] < (2, 3):
        return (
            f"numpy {numpy_v} with torch {env.torch} (torch wheels before 2.3 are built against numpy 1): "
            "pip install 'numpy<2' or a torch >= 2.3"
        )
    return None


def check_python_rocm_wheels(env: Environment, facts: HostFacts) -> str | None:
    """Python 3.13+ with a ROCm torch: no official ROCm wheels for cp313 before torch 2.6."""
    if env.platform != "rocm" and env.torch_rocm is None:
        raise NotApplicable(f"no ROCm torch here (platform {env.platform})")
    try:
        py = Version(env.python.split()[0]) if env.python else None
    except InvalidVersion:
        py = None
    if py is None:
        raise NotApplicable("Python version not recorded")
    torch_v = env.torch_version
    if py.release[:2] >= (3, 13) and torch_v is not None and torch_v.release[:2] < (2, 6):
        return (
            f"Python {py} with torch {env.torch}: PyTorch publishes ROCm wheels for Python 3.13 only from "
            "torch 2.6 (this build is not an official one and ROCm libraries such as vLLM lag further): "
            "use Python 3.12, or torch >= 2.6 from download.pytorch.org/whl/rocm*"
        )
    return None


Check = Callable[[Environment, HostFacts], "str | None"]

CHECKS: dict[str, Check] = {
    "device_nodes": check_device_nodes,
    "shm_size": check_shm_size,
    "hsa_override": check_hsa_override,
    "build_arch_list": check_build_arch_list,
    "ray_visibility": check_ray_visibility,
    "visible_devices": check_visible_devices,
    "vllm_expandable_segments": check_vllm_expandable_segments,
    "numpy_abi": check_numpy_abi,
    "python_rocm_wheels": check_python_rocm_wheels,
}
