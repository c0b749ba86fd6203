"""Pin pytest-xdist workers to disjoint GPUs before anything in them imports torch.

The controller publishes the devices it may use (``ROCMCOMPAT_XDIST_DEVICES``, inherited
by the workers it spawns). Each worker takes its own slice by index, through the variable
the runtime reads (``HIP_VISIBLE_DEVICES`` on ROCm, ``CUDA_VISIBLE_DEVICES`` on CUDA), in
``pytest_load_initial_conftests``: before conftest files, and so before torch, are imported.
Where ``ROCR_VISIBLE_DEVICES`` is set (Slurm and some container runtimes set it), it is
narrowed to the slice too, and ``HIP_VISIBLE_DEVICES`` then counts within it.
With more workers than GPUs the slices cannot be disjoint: workers then share one GPU each,
round-robin, and the GPU locks of ``gpu_locks`` keep their tests from running on it at once.

A worker is recognised by its parentage, not by the variables alone: the controller records
its process id (``ROCMCOMPAT_XDIST_CONTROLLER``) and only its direct children that pytest-xdist
named (``PYTEST_XDIST_WORKER``) pin themselves, once per process. Everything a test starts
(an isolation sandbox, ``pytest`` in a subprocess, serial or with ``-n``, an in-process
``pytester.runpytest``) inherits those variables but is a session of its own: it takes no
worker identity and none of its ancestor's locks, so it can never wait on a lock the test
that started it holds. It sees the devices that test sees; with ``-n`` it publishes them to
its own workers, with its own lock directory, and puts its ancestor's variables back at the end.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping, MutableMapping

from pytest_rocmcompat.running.gpu_locks import LOCK_DIR_VAR
from pytest_rocmcompat.running.isolation.roots import sandbox_parent

DEVICES_VAR = "ROCMCOMPAT_XDIST_DEVICES"
PLATFORM_VAR = "ROCMCOMPAT_XDIST_PLATFORM"
ROCR_VAR = "ROCR_VISIBLE_DEVICES"
ORIGINAL_ROCR_VAR = "ROCMCOMPAT_XDIST_ROCR"  # the controller's ROCR list, before any narrowing
CONTROLLER_VAR = "ROCMCOMPAT_XDIST_CONTROLLER"  # the publishing controller's process id
POLICY_VAR = "ROCMCOMPAT_XDIST_GPU_POLICY"  # marked | all (none publishes nothing)
PUBLISHED_VARS = (DEVICES_VAR, PLATFORM_VAR, ORIGINAL_ROCR_VAR, CONTROLLER_VAR, POLICY_VAR, LOCK_DIR_VAR)
_pinned_pid: int | None = None  # this process pinned itself as a worker (once per process)
VISIBILITY = {"rocm": "HIP_VISIBLE_DEVICES", "cuda": "CUDA_VISIBLE_DEVICES"}


def visible_devices(platform: str, count: int, environ: MutableMapping[str, str]) -> list[str]:
    """The device ids this process may hand out: an existing visibility list, else 0..count-1."""
    var = VISIBILITY.get(platform)
    current = environ.get(var, "").strip() if var else ""
    if current:
        return [d.strip() for d in current.split(",") if d.strip()]
    return [str(i) for i in range(count)]


def publish(platform: str, count: int, environ: MutableMapping[str, str], policy: str = "all") -> str | None:
    """Controller side: record the devices (and the GPU policy) for the workers it is about to start.

    Returns the session's GPU lock directory (the caller removes it at the end), if any.
    """
    if platform in VISIBILITY and count > 0 and policy != "none":
        environ[POLICY_VAR] = policy
        environ[DEVICES_VAR] = ",".join(visible_devices(platform, count, environ))
        environ[PLATFORM_VAR] = platform
        if platform == "rocm" and environ.get(ROCR_VAR, "").strip():
            environ[ORIGINAL_ROCR_VAR] = environ[ROCR_VAR]
        else:
            environ.pop(ORIGINAL_ROCR_VAR, None)  # an ancestor's list does not describe this one's
        environ[CONTROLLER_VAR] = str(os.getpid())
        environ[LOCK_DIR_VAR] = tempfile.mkdtemp(prefix="rocmcompat-gpu-locks-", dir=sandbox_parent())
        return environ[LOCK_DIR_VAR]
    return None


def saved_published(environ: Mapping[str, str]) -> dict[str, str | None]:
    """The published variables as they are now (an ancestor session's, or none), to restore."""
    return {var: environ.get(var) for var in PUBLISHED_VARS}


def restore_published(environ: MutableMapping[str, str], saved: Mapping[str, str | None]) -> None:
    """Put back what :func:`saved_published` recorded (a nested controller hands back its test's view)."""
    for var, value in saved.items():
        if value is None:
            environ.pop(var, None)
        else:
            environ[var] = value


def unpublish(environ: MutableMapping[str, str], remove_locks: bool = False) -> None:
    """Forget the published devices (and, for the controller at the end, remove the locks)."""
    for var in (DEVICES_VAR, PLATFORM_VAR, ORIGINAL_ROCR_VAR, CONTROLLER_VAR, POLICY_VAR):
        environ.pop(var, None)
    lock_dir = environ.pop(LOCK_DIR_VAR, None)
    if lock_dir and remove_locks:
        shutil.rmtree(lock_dir, ignore_errors=True)


def published_devices(environ: MutableMapping[str, str]) -> list[str]:
    """Every device the controller handed out (all workers' slices together)."""
    return [d for d in environ.get(DEVICES_VAR, "").split(",") if d]


def worker_slice(devices: list[str], index: int, workers: int) -> list[str]:
    """Worker ``index`` of ``workers``: a disjoint, equal slice, or one shared GPU if too few."""
    if not devices or workers <= 0:
        return []
    if workers <= len(devices):
        per = len(devices) // workers
        return devices[index * per : (index + 1) * per]
    return [devices[index % len(devices)]]


def is_worker_of_publisher(environ: Mapping[str, str], parent_pid: int | None = None) -> bool:
    """This process is an xdist worker started by the controller that published the devices
    (its direct child), and has not pinned itself yet: not a session some test started.
    """
    worker = environ.get("PYTEST_XDIST_WORKER", "")
    controller = environ.get(CONTROLLER_VAR, "")
    parent = os.getppid() if parent_pid is None else parent_pid
    return worker.startswith("gw") and controller == str(parent) and _pinned_pid != os.getpid()


def pin_this_worker(environ: MutableMapping[str, str], parent_pid: int | None = None) -> list[str] | None:
    """Worker side: set the visibility variable; returns the slice (``None`` outside xdist, and in
    any session a test started: see the module docstring).
    """
    global _pinned_pid  # noqa: PLW0603  once per process: an in-process nested session is no worker
    worker, devices = environ.get("PYTEST_XDIST_WORKER", ""), environ.get(DEVICES_VAR, "")
    platform = environ.get(PLATFORM_VAR, "")
    if not devices or platform not in VISIBILITY or not is_worker_of_publisher(environ, parent_pid):
        return None
    _pinned_pid = os.getpid()
    mine = worker_slice(devices.split(","), int(worker[2:]), int(environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))
    if environ.get(POLICY_VAR, "all") == "all":  # "marked": the worker sees what plain xdist shows
        environ.update(visibility(platform, mine, environ))
    return mine


def visibility(platform: str, chosen: list[str], environ: MutableMapping[str, str]) -> dict[str, str]:
    """The variables that make a process see exactly ``chosen`` (device ids as published).

    With a published ``ROCR_VISIBLE_DEVICES`` the ids index its list: ROCR is narrowed to those
    entries and ``HIP_VISIBLE_DEVICES`` counts from 0 within them.
    """
    var = VISIBILITY[platform]
    rocr = [d.strip() for d in environ.get(ORIGINAL_ROCR_VAR, "").split(",") if d.strip()]
    if platform == "rocm" and rocr:
        try:
            narrowed = [rocr[int(d)] for d in chosen]
        except (ValueError, IndexError):  # ids that are not indices (UUIDs): HIP alone
            return {var: ",".join(chosen)}
        return {ROCR_VAR: ",".join(narrowed), var: ",".join(str(i) for i in range(len(chosen)))}
    return {var: ",".join(chosen)}
