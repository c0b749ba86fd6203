"""Pin pytest-xdist workers to disjoint GPUs before anything in them imports torch.

The controller publishes the devices it may use (``ROCMCOMPAT_XDIST_DEVICES``, inherited
by the workers it spawns). Each worker takes its own slice by index, through the variable
the runtime reads (``HIP_VISIBLE_DEVICES`` on ROCm, ``CUDA_VISIBLE_DEVICES`` on CUDA), in
``pytest_load_initial_conftests``: before conftest files, and so before torch, are imported.
With more workers than GPUs the slices cannot be disjoint: workers then share one GPU each,
round-robin, and ``gpus(n)`` tests see only the worker's slice.
"""

from __future__ import annotations

from collections.abc import MutableMapping

DEVICES_VAR = "ROCMCOMPAT_XDIST_DEVICES"
PLATFORM_VAR = "ROCMCOMPAT_XDIST_PLATFORM"
VISIBILITY = {"rocm": "HIP_VISIBLE_DEVICES", "cuda": "CUDA_VISIBLE_DEVICES"}


def visible_devices(platform: str, count: int, environ: MutableMapping[str, str]) -> list[str]:
    """The device ids this process may hand out: an existing visibility list, else 0..count-1."""
    var = VISIBILITY.get(platform)
    current = environ.get(var, "").strip() if var else ""
    if current:
        return [d.strip() for d in current.split(",") if d.strip()]
    return [str(i) for i in range(count)]


def publish(platform: str, count: int, environ: MutableMapping[str, str]) -> None:
    """Controller side: record the devices for the workers it is about to start."""
    if platform in VISIBILITY and count > 0:
        environ[DEVICES_VAR] = ",".join(visible_devices(platform, count, environ))
        environ[PLATFORM_VAR] = platform


def worker_slice(devices: list[str], index: int, workers: int) -> list[str]:
    """Worker ``index`` of ``workers``: a disjoint, equal slice, or one shared GPU if too few."""
    if not devices or workers <= 0:
        return []
    if workers <= len(devices):
        per = len(devices) // workers
        return devices[index * per:(index + 1) * per]
    return [devices[index % len(devices)]]


def pin_this_worker(environ: MutableMapping[str, str]) -> list[str] | None:
    """Worker side: set the visibility variable; returns the slice (``None`` outside xdist)."""
    worker, devices = environ.get("PYTEST_XDIST_WORKER", ""), environ.get(DEVICES_VAR, "")
    platform = environ.get(PLATFORM_VAR, "")
    if not worker.startswith("gw") or not devices or platform not in VISIBILITY:
        return None
    mine = worker_slice(devices.split(","), int(worker[2:]), int(environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))
    environ[VISIBILITY[platform]] = ",".join(mine)
    return mine
