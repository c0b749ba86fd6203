"""Ray: a bounded local cluster, a task that reports the GPUs it sees, checked against
the device-visibility variable Ray should have set (see ray_visibility.py).

The test runs isolated: a hung raylet or GCS becomes a ``hang`` outcome, not a stuck
session; the cluster is shut down whatever happens. It is alone in its module: an
isolated test followed by another module's test trips pytest's setup-state check in
this plugin version (reported to the lead).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

import pytest

pytestmark = pytest.mark.uses("ray")

TASK_TIMEOUT_S = 60.0


def _isolate_when_installed() -> Callable:
    """Isolated when Ray is installed; without it the test skips in-process (this plugin
    version mis-reports the skip reasons of isolated tests under -rs; reported to the lead)."""
    try:
        metadata.version("ray")
    except metadata.PackageNotFoundError:
        return lambda test: test
    return pytest.mark.isolated(timeout=180)


def _expectations():
    sys.path.insert(0, str(Path(__file__).parent))
    try:
        import ray_visibility
    finally:
        sys.path.pop(0)
    return ray_visibility


@_isolate_when_installed()
def test_task_sees_its_gpus(library, torch, runtime_name) -> None:
    version = library("ray")
    import ray

    gpus = torch.cuda.device_count() if runtime_name != "cpu" else 0
    want = min(gpus, 1)
    driver_env = dict(os.environ)
    # address="local": always a fresh cluster, even when RAY_ADDRESS points at a running one
    ray.init(
        address="local",
        num_cpus=1,
        num_gpus=gpus,
        include_dashboard=False,
        log_to_driver=False,
        configure_logging=False,
    )
    try:

        @ray.remote(num_cpus=1, num_gpus=want)
        def report(count_devices: bool) -> tuple[list[str], dict[str, str | None], int | None]:
            names = ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES")
            seen = {n: os.environ.get(n) for n in names}
            devices = None
            if count_devices:  # what torch in the worker makes of the variables Ray set
                import torch as worker_torch

                devices = worker_torch.cuda.device_count()
            return [str(i) for i in ray.get_gpu_ids()], seen, devices

        gpu_ids, seen, devices = ray.get(report.remote(gpus > 0), timeout=TASK_TIMEOUT_S)
        assert ray.cluster_resources().get("GPU", 0) == gpus, f"Ray counts {ray.cluster_resources()}"
    finally:
        ray.shutdown()
    assert not ray.is_initialized()
    assert len(gpu_ids) == want, f"task reserved {want} GPU(s) but ray.get_gpu_ids() is {gpu_ids}"
    # A CPU machine: Ray's NVIDIA manager still owns CUDA_VISIBLE_DEVICES, with no GPU assigned.
    runtime = runtime_name if runtime_name != "cpu" else "cuda"
    expected = _expectations().expected_visibility(version, runtime, gpu_ids, driver_env)
    assert seen[expected.variable] == expected.value, (
        f"Ray {version} task with GPUs {gpu_ids}: {expected.variable}={seen[expected.variable]!r}, "
        f"expected {expected.value!r} ({expected.why}); the task saw {seen}"
    )
    if devices is not None:
        visible = len(gpu_ids) if expected.ray_sets else gpus
        assert devices == visible, f"torch in the task sees {devices} GPU(s), expected {visible} ({expected.why})"
