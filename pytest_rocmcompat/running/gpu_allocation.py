"""Which GPUs a test sees: an xdist worker's own slice, a test that borrows beyond it, and the
controller that publishes the host's devices to its workers (``pinning``) and locks them
(``gpu_locks``). The hooks in ``plugin.py`` call these at start-up, collection and exit.
"""

from __future__ import annotations

import os

import pytest

from pytest_rocmcompat.running.gpu_locks import (
    BORROWED_KEY,
    DEVICES_KEY,
    LOCK_DIR_VAR,
    GpuAllocator,
    borrowed_set,
)
from pytest_rocmcompat.running.pinning import (
    POLICY_VAR,
    VISIBILITY,
    pin_this_worker,
    publish,
    published_devices,
    restore_published,
    saved_published,
    unpublish,
    visibility,
)
from pytest_rocmcompat.session.state import CompatState

PINNED_KEY = pytest.StashKey[list[str]]()  # an xdist worker's own GPUs
PUBLISHED_KEY = pytest.StashKey[bool]()  # this controller handed GPUs to its workers
SAVED_KEY = pytest.StashKey[dict[str, str | None]]()  # the published variables before this controller's


def pin_worker(early_config: pytest.Config) -> None:
    """Before any conftest imports torch: an xdist worker takes its slice of the published GPUs."""
    pinned = pin_this_worker(os.environ)
    if pinned is not None:
        early_config.stash[PINNED_KEY] = pinned


def worker_gpus(config: pytest.Config) -> list[str] | None:
    """This worker's own GPUs, or None outside a pinned xdist worker."""
    return config.stash.get(PINNED_KEY, None)


def configure(config: pytest.Config, state: CompatState) -> None:
    """A controller with ``-n`` publishes the probed GPUs (inherited by its workers); a pinned
    worker registers the lock holder for its slice.
    """
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        saved = saved_published(os.environ)
        if publish(state.env.platform, len(state.env.gpus), os.environ, policy=gpu_policy(config)) is not None:
            config.stash[PUBLISHED_KEY] = True
            config.stash[SAVED_KEY] = saved
    mine = worker_gpus(config)
    if mine is not None and os.environ.get(LOCK_DIR_VAR):
        config.pluginmanager.register(
            GpuAllocator(
                os.environ[LOCK_DIR_VAR],
                mine,
                published_devices(os.environ),
                wait_limit=gpu_wait_limit(config),
                every_test=os.environ.get(POLICY_VAR, "all") == "all",
            ),
            "rocmcompat-gpu-locks",
        )


def unconfigure(config: pytest.Config) -> None:
    """The controller takes back what it published (variables and lock directory) and puts back
    what an ancestor session had published (a session started inside a test).
    """
    if config.stash.get(PUBLISHED_KEY, False):
        unpublish(os.environ, remove_locks=True)
        saved: dict[str, str | None] = config.stash[SAVED_KEY]
        restore_published(os.environ, saved)
        config.stash[PUBLISHED_KEY] = False


def gpu_policy(config: pytest.Config) -> str:
    """``--rocm-gpu-policy``, else ini ``rocm_gpu_policy`` (checked in ``session.options.check_ini``)."""
    return str(config.getoption("rocm_gpu_policy", None) or config.getini("rocm_gpu_policy") or "marked")


def declared_gpus(item: pytest.Item, names: set[str], gpu_fixtures: frozenset[str]) -> pytest.Mark | None:
    """How many GPUs a test declares: its ``gpus`` marker, or (``fixture=True``: a GPU if there is
    one, never a skip) one for a fixture of ini ``rocm_gpu_fixtures``.
    """
    if "gpus" in names:
        return item.get_closest_marker("gpus")
    if gpu_fixtures and gpu_fixtures.intersection(getattr(item, "fixturenames", ())):
        return pytest.mark.gpus(1, fixture=True).mark
    return None


def gpu_fixtures(config: pytest.Config) -> frozenset[str]:
    return frozenset(str(name) for name in config.getini("rocm_gpu_fixtures"))


def gpu_wait_limit(config: pytest.Config) -> float:
    """``rocm_gpu_wait_timeout`` (checked in ``session.options.check_ini``)."""
    return float(config.getini("rocm_gpu_wait_timeout"))


def requested(gpus: pytest.Mark) -> object:
    """The count a ``gpus`` marker asks for (``gpus(2)``, ``gpus(n=2)``; none given: 1), unchecked."""
    return gpus.kwargs.get("n", gpus.args[0] if gpus.args else 1)


def allocate(item: pytest.Item, gpus: pytest.Mark, state: CompatState, mine: list[str] | None) -> None:
    """Skip a test that needs more GPUs than the machine has; under xdist, give it its GPUs.

    Policy ``all``: the worker already sees its slice; a test that needs more borrows beyond it
    and runs in a child that sees exactly those. Policy ``marked``: the worker sees every GPU (as
    plain xdist), so a declared test holds its GPUs' locks and, where the host has more GPUs than
    it holds, runs in a child that sees exactly them; on a one-GPU host it runs in-process.
    """
    need = requested(gpus)
    if isinstance(need, bool) or not isinstance(need, int) or need < 0:
        raise pytest.UsageError(f"rocmcompat: {item.nodeid}: gpus({need!r}): the GPU count must be a whole number >= 0")
    devices = published_devices(os.environ) if mine is not None else []
    available = len(devices) if mine is not None else len(state.env.gpus)
    if need > available:
        if not gpus.kwargs.get("fixture"):  # a fixture that may fall back to the CPU: no skip
            item.add_marker(pytest.mark.skip(reason=f"needs {need} GPU(s), this environment has {available}"))
        return
    if mine is None or need == 0:
        return
    chosen = borrowed_set(mine, devices, need) if need > len(mine) else list(mine)
    narrowed = os.environ.get(POLICY_VAR, "all") == "all"
    if narrowed and need <= len(mine):
        return  # the worker's own slice, which it already sees and locks
    item.stash[DEVICES_KEY] = chosen
    if narrowed or len(chosen) < len(devices):
        item.stash[BORROWED_KEY] = ",".join(chosen)


def borrows(item: pytest.Item) -> bool:
    """The test must see other devices than its worker: it runs in a child process."""
    return BORROWED_KEY in item.stash


def child_environ(item: pytest.Item, state: CompatState) -> dict[str, str] | None:
    """A test that borrows GPUs sees exactly those; it is no pinned worker any more."""
    borrowed = item.stash.get(BORROWED_KEY, None)
    if borrowed is None or state.env.platform not in VISIBILITY:
        return None
    environ = dict(os.environ)
    environ.update(visibility(state.env.platform, borrowed.split(","), environ))
    unpublish(environ)  # the child must not pin itself to the worker's slice again
    return environ
