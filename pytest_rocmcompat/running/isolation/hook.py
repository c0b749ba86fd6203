"""The isolation hook: tests marked ``isolated`` (or reached by an ``isolate`` rule, or borrowing
GPUs beyond their worker's slice) run in a sandbox process; everything else runs in-process.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from pytest_rocmcompat.running import gpu_allocation
from pytest_rocmcompat.running.gpu_locks import WAIT_FAILED_KEY
from pytest_rocmcompat.session.results import CLASSIFIED, ResultHook
from pytest_rocmcompat.session.state import CompatState

if TYPE_CHECKING:  # imported when the first isolated test runs: plain sessions never load it
    from pytest_rocmcompat.running.isolation.sandbox import SandboxPool

TIMEOUT_KEY = pytest.StashKey[float]()  # set at collection, for isolated tests only
INI_TIMEOUT_KEY = pytest.StashKey[float]()  # ini rocm_isolate_timeout, checked in pytest_configure
PLUGIN_NAME = "rocmcompat-isolation"


def scope(config: pytest.Config) -> str:
    """``--rocm-isolate``, else ini ``rocm_isolate`` (checked in ``session.options.check_ini``)."""
    return str(config.getoption("rocm_isolate", None) or config.getini("rocm_isolate") or "marked")


def plan(item: pytest.Item, names: set[str], declares_gpu: bool = False, isolate: str = "marked") -> bool:
    """Give an isolated test its time limit; True when ``item`` will run in a sandbox.

    ``isolate`` is :func:`scope`: 'gpu' adds the tests that declare GPU use, 'all' every test.
    """
    if "isolated" in names:
        item.stash[TIMEOUT_KEY] = isolation_timeout(item, item.get_closest_marker("isolated"))
    elif gpu_allocation.borrows(item) or isolate == "all" or (isolate == "gpu" and declares_gpu):
        item.stash[TIMEOUT_KEY] = isolation_timeout(item, pytest.mark.isolated.mark)
    else:
        return False
    return True


def register(config: pytest.Config, state: CompatState, results: ResultHook | None, items: list[pytest.Item]) -> None:
    """Register the hook once collection holds an isolated test (a sandbox runs its test itself)."""
    if not config.getoption("rocm_child_result") and not config.pluginmanager.has_plugin(PLUGIN_NAME):
        config.pluginmanager.register(Isolator(state, results, items), PLUGIN_NAME)


def isolation_timeout(item: pytest.Item, marker: pytest.Mark | None) -> float:
    """The marker's ``timeout`` (seconds > 0), else the checked ini value."""
    value = None if marker is None else marker.kwargs.get("timeout", marker.args[0] if marker.args else None)
    if value is None:
        return item.config.stash[INI_TIMEOUT_KEY]
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        seconds = -1.0
    if not seconds > 0:
        raise pytest.UsageError(
            f"rocmcompat: {item.nodeid}: isolated(timeout={value!r}): the time limit must be a number of seconds > 0"
        )
    return seconds


def reuses(item: pytest.Item, marker: pytest.Mark | None) -> bool:
    """Whether ``item`` runs in the reusable sandbox: ``isolated(reuse=True)`` or ini ``rocm_isolate_reuse``.

    ``fresh=True`` (the default now; kept for rules and markers written before) always wins.
    """
    kwargs = marker.kwargs if marker is not None else {}
    if kwargs.get("fresh"):
        return False
    reuse = kwargs.get("reuse")
    return bool(item.config.getini("rocm_isolate_reuse") if reuse is None else reuse)


def standby_spec(nextitem: pytest.Item | None, state: CompatState) -> dict | None:
    """What the template prepares for ``nextitem`` while the current isolated test runs, or None.

    Ini ``rocm_isolate_standby``: 'gpu' (default) a standby with its CUDA driver started, for a
    next test that declares GPU use on a CUDA machine; 'always' a standby for every next isolated
    test (its runtime started only where 'gpu' would); 'off' none. See :mod:`.standby`.
    """
    if nextitem is None or TIMEOUT_KEY not in nextitem.stash:
        return None
    config = nextitem.config
    mode = str(config.getini("rocm_isolate_standby") or "gpu")
    if mode == "off" or reuses(nextitem, nextitem.get_closest_marker("isolated")):
        return None
    names = {mark.name for mark in nextitem.iter_markers()}
    gpus = gpu_allocation.declared_gpus(nextitem, names, gpu_allocation.gpu_fixtures(config))
    need = 0 if gpus is None else gpu_allocation.requested(gpus)
    warm = bool(need) and state.env.platform == "cuda" and bool(state.env.gpus)
    if mode == "gpu" and not warm:
        return None
    return {"environ": gpu_allocation.child_environ(nextitem, state), "warm": warm}


class Isolator:
    """Registered once collection holds an isolated test (so plain sessions pay no extra hook)."""

    def __init__(self, state: CompatState, results: ResultHook | None, items: list[pytest.Item]) -> None:
        self.state = state
        self.rules = results.rules if results is not None else {}
        self.pool: SandboxPool | None = None  # made when the first isolated test is about to run
        self.remaining = sum(TIMEOUT_KEY in item.stash for item in items)

    def _pool(self, config: pytest.Config) -> SandboxPool:
        if self.pool is None:
            from pytest_rocmcompat.running.isolation.args import sandbox_argv
            from pytest_rocmcompat.running.isolation.sandbox import SandboxPool

            self.pool = SandboxPool(
                sandbox_argv(config),
                config.invocation_params.dir,
                self.state.env.to_json(indent=None),
                tuple(config.getini("rocm_isolate_preload")),
            )
        return self.pool

    def pytest_runtestloop(self, session: pytest.Session) -> None:
        """Start the first sandbox ahead of need, while in-process tests run."""
        if self.remaining and not session.config.option.collectonly:
            self._pool(session.config).prestart(reuse=bool(session.config.getini("rocm_isolate_reuse")))

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
        if TIMEOUT_KEY not in item.stash or WAIT_FAILED_KEY in item.stash:  # (a GPU wait failed: in-process error)
            return None
        from pytest_rocmcompat.running.isolation.runner import run_isolated

        item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
        self.remaining -= 1
        marker = item.get_closest_marker("isolated")
        reports = run_isolated(
            item,
            item.stash[TIMEOUT_KEY],
            self._pool(item.config),
            self.rules.get(item.nodeid, []),
            environ=gpu_allocation.child_environ(item, self.state),
            reuse=reuses(item, marker),
            more=self.remaining > 0,
            standby=standby_spec(nextitem, self.state),
        )
        for report in reports:  # classified already, by the child or (a death) by the runner
            setattr(report, CLASSIFIED, True)
            item.ihook.pytest_runtest_logreport(report=report)
        # What the previous in-process test left set up (its module, class) goes now, as pytest's own
        # teardown would do, so the next test, perhaps in another module, starts from a clean stack.
        item.session._setupstate.teardown_exact(nextitem)
        item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
        return True

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self) -> None:
        if self.pool is not None:
            self.pool.close()

    def pytest_unconfigure(self) -> None:  # a session that never finished (internal error)
        if self.pool is not None:
            self.pool.close()
