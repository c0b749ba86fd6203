"""The GPUs a process sees: a stated stack's devices filtered by the visibility variables it states.

A stated stack (``rocmcompat check --set``, a ``--rocm-set`` replay) lists the machine's devices; a
process sees fewer where the environment says so:

- AMD: ``ROCR_VISIBLE_DEVICES`` filters the devices first (the ROCm runtime, for every
  application), then ``HIP_VISIBLE_DEVICES`` (else ``CUDA_VISIBLE_DEVICES``) picks among the
  ones it left, by their position there
  (https://rocm.docs.amd.com/en/latest/conceptual/gpu-isolation.html). The usual case is an
  APU's integrated GPU (gfx1036, gfx1035, gfx90c) beside a Radeon card, hidden as AMD advises.
- NVIDIA: ``CUDA_VISIBLE_DEVICES``
  (https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#cuda-environment-variables), in
  the order of the stated list only under ``CUDA_DEVICE_ORDER=PCI_BUS_ID`` (CUDA's default order is
  fastest first) or where every device is the same arch.

Only where the stack states both its devices (``arch=``) and the variable: a live probe's list comes
from amdsmi/NVML (all devices, in their order, which need not be the runtime's on a mixed host, e.g.
pytorch/pytorch#160468) or from rocminfo/torch (already filtered), and a replay's variables may be the
machine's. Only plain index lists apply: a UUID, an index past the devices, a repeated index, an empty
value or one that hides every device leaves the devices as they are, as do mixed-vendor stacks. Each
device keeps its own index: per-node ``HSA_OVERRIDE_GFX_VERSION_<n>`` counts every node
(``rocm_targets.override_setting`` reads :func:`narrowed`).
"""

from __future__ import annotations

from pytest_rocmcompat.stack.environment import GPU, Environment
from pytest_rocmcompat.stack.overrides import stated_keys

ROCR = "ROCR_VISIBLE_DEVICES"
HIP = ("HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES")  # HIP reads the first set, non-empty one
CUDA = "CUDA_VISIBLE_DEVICES"


def visible_gpus(env: Environment) -> tuple[tuple[GPU, ...], str] | None:
    """``(devices seen, why)`` where the stack's visibility variables hide some of its devices; else ``None``."""
    vendors = {gpu.vendor for gpu in env.gpus}
    if len(env.gpus) < 2 or len(vendors) != 1 or [g.index for g in env.gpus] != list(range(len(env.gpus))):
        return None
    stated = stated_keys(env)
    if "arch" not in stated:
        return None  # the devices are the machine's (probed or recorded): their order is not known to be HIP's
    seen = list(env.gpus)
    applied: list[str] = []
    if vendors == {"amd"}:
        steps = [ROCR, next((name for name in HIP if (env.env.get(name) or "").strip()), "")]
    elif vendors == {"nvidia"}:
        if env.env.get("CUDA_DEVICE_ORDER", "").strip() != "PCI_BUS_ID" and len(set(env.archs)) > 1:
            return None  # CUDA numbers the devices fastest first: which one an index names is not known
        steps = [CUDA]
    else:
        return None
    for name in steps:
        value = env.env.get(name, "") if name else ""
        if not value.strip():
            continue
        if f"env.{name}" not in stated:
            return None  # the machine's variable beside a stated device list
        indices = _indices(value)
        if indices is None:
            return None  # UUIDs or another form: which devices it leaves is not known here
        if any(i >= len(seen) for i in indices) or len(set(indices)) != len(indices):
            return None  # selects a device that is not there: the runtime refuses it, nothing to narrow
        seen = [seen[i] for i in indices]
        applied.append(f"{name}={env.env[name].strip()}")
    if not applied or len(seen) == len(env.gpus):
        return None
    shown = ", ".join(f"gpu{gpu.index} {gpu.arch or gpu.name}" for gpu in seen)
    return tuple(seen), f"{' then '.join(applied)} leaves {shown} of {len(env.gpus)} devices"


NOTE = "derived: the GPUs a process sees: "  # the note derived_facts adds when it narrows the list


def narrowed(env: Environment) -> bool:
    """Whether ``env``'s device list is :func:`visible_gpus`' narrowing: each device's ``index`` is then its
    place in the stated list (the per-node override number less one), not its place in ``env.gpus``.
    """
    return any(note.startswith(NOTE) for note in env.notes)


def _indices(value: str) -> list[int] | None:
    """The device indices of a plain index list; ``None`` for anything else."""
    parts = [part.strip() for part in value.split(",")]
    if not all(part.isdigit() for part in parts):
        return None
    return [int(part) for part in parts]
