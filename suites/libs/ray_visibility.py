"""Which device-visibility variable Ray sets for a task, and to what (by Ray version).

Ray gives each task the GPUs it reserved by rewriting one variable in the worker:
``CUDA_VISIBLE_DEVICES`` on NVIDIA; on AMD ``ROCR_VISIBLE_DEVICES`` before Ray 2.45 and
``HIP_VISIBLE_DEVICES`` from 2.45 (ray-project/ray#51104). ``RAY_EXPERIMENTAL_NOSET_<VAR>=1``
tells Ray to leave that variable alone (verl and OpenRLHF set it on ROCm). A task that
reserved no GPU keeps the inherited value unless ``RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO`` is
true, which makes Ray set it to the empty string.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from packaging.version import Version

HIP_FROM = Version("2.45")
OVERRIDE_ON_ZERO = "RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO"
_TRUE = {"1", "true"}  # ray._private.ray_constants.env_bool


@dataclass(frozen=True)
class Expected:
    """The variable Ray manages and the value a task should see (``None``: unset)."""

    variable: str
    value: str | None
    why: str
    ray_sets: bool  # False: the task inherits the driver's value


def managed_variable(ray_version: str, runtime: str) -> str:
    """The variable Ray rewrites per task for ``runtime`` (``cuda`` or ``hip``)."""
    if runtime == "cuda":
        return "CUDA_VISIBLE_DEVICES"
    if runtime == "hip":
        return "HIP_VISIBLE_DEVICES" if Version(ray_version).release >= HIP_FROM.release else "ROCR_VISIBLE_DEVICES"
    raise ValueError(f"runtime must be 'cuda' or 'hip', not {runtime!r}")


def expected_visibility(
    ray_version: str, runtime: str, gpu_ids: Sequence[str], driver_env: Mapping[str, str]
) -> Expected:
    """What a task that was assigned ``gpu_ids`` should see in Ray's managed variable."""
    variable = managed_variable(ray_version, runtime)
    inherited = driver_env.get(variable)
    noset = f"RAY_EXPERIMENTAL_NOSET_{variable}"
    if driver_env.get(noset, "").strip().lower() in _TRUE:
        return Expected(variable, inherited, f"{noset} is set: Ray leaves {variable} as inherited", False)
    if gpu_ids:
        return Expected(variable, ",".join(str(i) for i in gpu_ids), f"Ray sets {variable} to the task's GPU ids", True)
    if driver_env.get(OVERRIDE_ON_ZERO, "").strip().lower() in _TRUE:
        return Expected(variable, "", f"{OVERRIDE_ON_ZERO} is set: a task without GPUs gets an empty {variable}", True)
    return Expected(variable, inherited, f"a task without GPUs keeps the inherited {variable}", False)
