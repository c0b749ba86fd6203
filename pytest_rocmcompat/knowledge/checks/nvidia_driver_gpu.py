"""``nvidia-driver-gpu-unsupported``: the NVIDIA kernel driver's branch cannot drive a GPU of the stack.

A driver branch drives a GPU architecture only between two branches (:mod:`nvidia_driver_gpu_data`):
one released before the architecture's first GPU has no support for it (an RTX 5090, sm_120, on
535; an RTX 4090, sm_89, on 515; an A100, sm_80, on 440), one after NVIDIA dropped it ignores the
GPU (Kepler after R470; Maxwell, Pascal and Volta after R580). The driver then loads without the
GPU, or not at all, and every GPU test fails. The floor is the first branch that supported *any*
GPU of the architecture: certain below it, while a later GPU of the architecture may need more
(the finding says so, and claims nothing above the floor).

Judged only for NVIDIA GPUs (the stack's GPU platform is CUDA: all its GPUs NVIDIA, else
``platform=cuda``) and a driver version that reads as NVIDIA's (``535.104.05``, Windows'
``581.29``): on AMD ``driver`` is the amdgpu version. One finding per unsupported architecture.
"""

from __future__ import annotations

import re

from pytest_rocmcompat.knowledge.checks import nvidia_driver_gpu_data as data
from pytest_rocmcompat.knowledge.checks.finding import Finding
from pytest_rocmcompat.knowledge.checks.gpu_vendor_builds import GPU_SUITE, gpu_platform
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.versions import coerce_version

ID = "nvidia-driver-gpu-unsupported"
_VARIANT = re.compile(r"(?<=\d)[af]$")  # sm_90a, sm_100f: the architecture's own row
# What the NVIDIA kernel module logs when its release cannot drive the GPU (each text quoted in
# tests/knowledge/test_nvidia_driver_gpu.py from a real report of such a driver): a GPU outside the
# release's supported products (the message's layout changed over the years: "installed" ends the
# line before, or starts it), a GPU whose support moved to a legacy branch, and the module finding
# no GPU left to drive. nvidia-smi's and CUDA's "no device" texts are not claimed: the same words
# come from hidden devices, a module never loaded, or a GPU that failed to initialise.
PREDICTS = (
    r"NVRM:\s+(?:installed )?in this system is not supported by the"
    r"|supported through the NVIDIA \d+\.xx Legacy drivers"
    r"|NVIDIA driver will ignore"
    r"|NVRM: No NVIDIA (?:GPU|graphics adapter) found"
)


def check(env: Environment) -> list[Finding]:
    if gpu_platform(env) != "cuda":
        return []
    branch = driver_branch(env.driver)
    if branch is None:
        return []
    archs = dict.fromkeys(g.arch for g in env.gpus if g.vendor == "nvidia" and g.arch)
    found = [_finding(env, arch, branch) for arch in archs]
    return [f for f in found if f is not None]


def driver_branch(driver: str | None) -> int | None:
    """``"535.104.05"`` -> ``535``; ``None`` for what is no NVIDIA driver version (amdgpu's ``6.8.5``, a kernel release)."""
    version = coerce_version(driver)
    if version is None or len(version.release) < 2 or not 100 <= version.release[0] < 10000:
        return None
    return version.release[0]


def _finding(env: Environment, arch: str, branch: int) -> Finding | None:
    row = data.BY_ARCH.get(_VARIANT.sub("", arch))
    if row is None:
        return None
    name = row.arch  # sm_90a's row is sm_90's
    if row.first is not None and branch < row.first:
        return Finding(
            check=ID,
            reason=f"NVIDIA driver {env.driver} is older than R{row.first}, the first driver branch that supported "
            f"any {name} GPU: it cannot drive this {name} GPU (and a later {name} GPU may need a later branch)",
            fix=f"install an NVIDIA driver of branch R{row.first} or later whose supported products list the GPU",
            link=row.source,
            markers=("gpus",),
            nodeids=GPU_SUITE,
        )
    if row.last is not None and branch >= (row.last // 10 + 1) * 10:  # Windows' 581.xx is still R580
        return Finding(
            check=ID,
            reason=f"NVIDIA driver {env.driver} is newer than R{row.last}, the last driver branch that supports "
            f"{name} GPUs: it ignores this {name} GPU",
            fix=f"install the R{row.last} legacy driver branch for the {name} GPU, or replace the GPU",
            link=row.source,
            markers=("gpus",),
            nodeids=GPU_SUITE,
        )
    return None
