"""Collectives suite fixtures: the worlds to run, and one launch per world per session.

Settings (environment variables): ``ROCMCOMPAT_COLLECTIVES_TIMEOUT`` (wall-clock seconds for
a whole launch, default 300), ``ROCMCOMPAT_COLLECTIVES_OP_TIMEOUT`` (seconds for the
rendezvous and each collective, default 60), ``ROCMCOMPAT_COLLECTIVES_MAX_BYTES`` (cap on
the sizes, default 256 MiB on GPU, 1 MiB on CPU), ``ROCMCOMPAT_COLLECTIVES_PORT`` (TCP port
of a torchrun/Slurm world; default MASTER_PORT+1). ``ROCMCOMPAT_COLLECTIVES_FAULT`` (JSON,
for testing the harness itself: ``[{"rank": 1, "at": "broadcast", "kind": "stall"}]``; kinds
stall, abort, exit, raise, corrupt) injects faults into the ranks.
"""

from __future__ import annotations

import importlib.util
import json
import os

import pytest

from pytest_rocmcompat.collectives import plan
from pytest_rocmcompat.collectives.launcher import Launch, launch, rank_environ
from pytest_rocmcompat.collectives.shared import SharedWaitTimeout, once_per_session
from pytest_rocmcompat.collectives.world import World, WorldError, worlds
from pytest_rocmcompat.running import warm

LAUNCHES = pytest.StashKey[dict]()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "xdist_group(name): pytest-xdist --dist loadgroup keeps a world together")


def _setting(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{name}={raw!r} is not a number") from None
    if value <= 0:
        raise ValueError(f"{name}={raw!r} must be greater than 0")
    return value


def _fault() -> list | dict | None:
    raw = os.environ.get("ROCMCOMPAT_COLLECTIVES_FAULT", "").strip()
    if not raw:
        return None
    try:
        fault = json.loads(raw)
    except ValueError as exc:
        raise ValueError(f"ROCMCOMPAT_COLLECTIVES_FAULT is not JSON ({exc})") from None
    if not isinstance(fault, (list, dict)):
        raise ValueError("ROCMCOMPAT_COLLECTIVES_FAULT must be a JSON object or list")
    return fault


def _gpu_count(config: pytest.Config) -> int:
    from pytest_rocmcompat.plugin import state_of

    state = state_of(config)
    return len(state.env.gpus) if state is not None else 0


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "world" not in metafunc.fixturenames:
        return
    try:
        found = worlds(os.environ, _gpu_count(metafunc.config))
    except WorldError as exc:  # one failing test names the problem; the other suites still run
        metafunc.parametrize("world", [pytest.param(str(exc), id="invalid-world")])
        return
    params = []
    for w in found:
        marks = [pytest.mark.xdist_group(w.id)]
        if w.device == "cuda":
            marks.append(pytest.mark.gpus(len(w.ranks)))
        params.append(pytest.param(w, id=w.id, marks=marks))
    metafunc.parametrize("world", params)


def _usable(world: World) -> None:
    """Skip with the reason when this world cannot run here."""
    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed (pip install 'pytest-rocmcompat[gpu]')")
    if world.device == "cuda":
        import torch

        if not torch.distributed.is_nccl_available():
            pytest.skip("this torch build has no NCCL/RCCL backend (torch.distributed.is_nccl_available())")
        visible = torch.cuda.device_count()
        if visible <= max(world.local_ranks):
            pytest.skip(f"{world.id} needs GPU index {max(world.local_ranks)}; torch sees {visible} GPU(s)")


def _warm_ahead(config: pytest.Config, world: World, launched: dict) -> None:
    """Start this world's ranks and the next world's as warm processes (``import torch`` paid
    while this launch runs), so the next launch starts on ranks that are ready."""
    try:
        later = [w for w in worlds(os.environ, _gpu_count(config)) if w.id not in launched and w.id != world.id]
    except WorldError:
        later = []
    warm.pool().prewarm(rank_environ(), len(world.ranks) + (len(later[0].ranks) if later else 0))


@pytest.fixture
def launched(world: World, request: pytest.FixtureRequest) -> tuple[Launch, list[plan.Case]]:
    """The world's launch (run once per session), with the cases it was given."""
    if isinstance(world, str):
        pytest.fail(f"rocmcompat collectives: {world}", pytrace=False)
    _usable(world)
    cache = request.config.stash.setdefault(LAUNCHES, {})
    if world.id not in cache:
        gpu = world.device == "cuda"
        try:
            cap = os.environ.get("ROCMCOMPAT_COLLECTIVES_MAX_BYTES", "").strip()
            max_bytes = int(_setting("ROCMCOMPAT_COLLECTIVES_MAX_BYTES", 1)) if cap else None
            timeout = _setting("ROCMCOMPAT_COLLECTIVES_TIMEOUT", 300)
            op_timeout = _setting("ROCMCOMPAT_COLLECTIVES_OP_TIMEOUT", 60)
            fault = _fault()
        except ValueError as exc:
            pytest.fail(f"rocmcompat collectives: {exc}", pytrace=False)
        cases = plan.build(gpu, max_bytes)

        def run() -> Launch:
            _warm_ahead(request.config, world, cache)
            return launch(
                world,
                cases,
                timeout=timeout,
                op_timeout=op_timeout,
                iters=20 if gpu else 5,
                warmup=3 if gpu else 1,
                fault=fault,
            )

        try:  # the session's other xdist workers reuse this launch (and this one theirs)
            result = once_per_session(f"collectives-{world.id}", run, wait_s=timeout + 60)
        except SharedWaitTimeout as exc:
            pytest.fail(f"rocmcompat collectives: {exc}", pytrace=False)
        cache[world.id] = (result, cases)
    return cache[world.id]
