"""The pytest hooks: each one hands pytest's objects to the layer that decides.

Options and ini keys (``session.options``), the probed stack and rules (``session.state``),
rules reaching tests (``session.collection``), classification (``session.results``), GPUs per
xdist worker (``running.gpu_allocation``), sandboxes (``running.isolation.hook``), JUnit and
Markdown writers (``session.junit_file``, ``report``). Nothing is decided here.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pytest_rocmcompat.markers import register_markers
from pytest_rocmcompat.matrix.model import SUITES
from pytest_rocmcompat.running import gpu_allocation
from pytest_rocmcompat.running.isolation import hook as isolation
from pytest_rocmcompat.running.isolation.roots import SandboxRoot
from pytest_rocmcompat.running.processes import become_subreaper, kill_every_descendant
from pytest_rocmcompat.session import classify, collection, gc_freeze, junit_file
from pytest_rocmcompat.session.fixtures import (  # noqa: F401  offered to every suite as plugin attributes
    rocm_env,
    rocm_matrix,
    rocm_measure,
    rocm_property,
)
from pytest_rocmcompat.session.interrupt import (
    NOT_RUN_INTERRUPTED,
    NOT_RUN_STOPPED,
    install_guard,
    not_run,
    remove_guard,
)
from pytest_rocmcompat.session.options import add_options, check_ini
from pytest_rocmcompat.session.results import results_of, start_results
from pytest_rocmcompat.session.rootdir_guard import keep_rootdir
from pytest_rocmcompat.session.state import (
    PROBE_CACHED_KEY,
    STATE_KEY,
    WORKER_ENV_KEY,
    CompatState,
    build_state,
    state_of,
)

if TYPE_CHECKING:  # pytest-xdist is optional (and untyped); these name its objects
    from _pytest.terminal import TerminalReporter
    from xdist.scheduler.protocol import Scheduling
    from xdist.workermanage import WorkerController

SANDBOX_ROOT_KEY = pytest.StashKey[SandboxRoot]()  # the controller's folder for every sandbox


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, args: list[str]) -> None:
    """Before any conftest (and so torch) is imported: the rootdir pytest chose without knowing the
    plugin's options is checked again, and an xdist worker takes its GPUs.
    """
    keep_rootdir(early_config, args)
    gpu_allocation.pin_worker(early_config)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    register_markers(config)
    if config.option.help or config.option.version:
        return
    config.stash[isolation.INI_TIMEOUT_KEY] = check_ini(config)  # before collection: a usage error costs nothing
    config.stash[STATE_KEY] = state = build_state(config)
    child_result = config.getoption("rocm_child_result")
    if not child_result and not hasattr(config, "workerinput"):  # the process that writes the results
        # Before xdist starts workers (they inherit it) and before the GPU lock folder is made in it.
        config.stash[SANDBOX_ROOT_KEY] = SandboxRoot()
    gpu_allocation.configure(config, state)
    if getattr(config.option, "xmlpath", None):  # --junitxml: testsuite properties, rocm_uses
        from pytest_rocmcompat.report.junit_props import install as install_junit_properties

        install_junit_properties(config, state)
    if child_result:  # this process is an isolation sandbox
        from pytest_rocmcompat.running.isolation.child import SandboxServer

        server = SandboxServer(config, child_result)
        server.start()
        config.pluginmanager.register(server, "rocmcompat-child")
    elif not hasattr(config, "workerinput"):  # the process that writes the results
        from pytest_rocmcompat.running.isolation.counts import IsolationCounts

        config.pluginmanager.register(IsolationCounts(), "rocmcompat-isolation-counts")


def pytest_report_header(config: pytest.Config) -> list[str]:
    state = state_of(config)
    if state is None:
        return []
    from pytest_rocmcompat.report.terminal import header_lines

    return header_lines(state, cached=config.stash.get(PROBE_CACHED_KEY, False), verbose=config.option.verbose > 0)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Bundled suites the matrix does not list (``suites: [...]``) are not collected."""
    state = state_of(config)
    if state is None or state.matrix is None or not state.matrix.suites:
        return None
    name = collection_path.name
    if collection_path.parent.name == "suites" and name in SUITES and name not in state.matrix.suites:
        return True
    return None


@pytest.hookimpl(trylast=True)  # after -k/-m and other plugins' deselection: selected tests only
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    state = state_of(config)
    if state is None:
        return
    mine = gpu_allocation.worker_gpus(config)  # an xdist worker: its own slice of the GPUs
    results = results_of(config)
    matched = results.rules if results is not None else None
    inherited: collection.Inherited = {}  # a parent node's marks, walked once for all its tests
    gpu_fixtures = gpu_allocation.gpu_fixtures(config)
    isolating = False
    isolate = isolation.scope(config)
    for item in items:
        marks = collection.marks_of(item, inherited)  # one list serves every lookup below
        names = collection.apply_rules(item, marks, state, matched)
        gpus = gpu_allocation.declared_gpus(item, names, gpu_fixtures)
        if gpus is not None:
            gpu_allocation.allocate(item, gpus, state, mine)
        if isolation.plan(item, names, gpus is not None, isolate):
            isolating = True
    if isolating:
        isolation.register(config, state, results, items)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: WorkerController, ids: list[str]) -> None:
    state = state_of(node.config)
    if state is not None and not state.collected:  # the controller learns the collection here
        state.collected = list(ids)


def pytest_collection_finish(session: pytest.Session) -> None:
    state = state_of(session.config)
    if state is not None and session.items:
        state.collected = [item.nodeid for item in session.items]
        results = results_of(session.config)
        if results is not None:
            results.track(session.items, state.collected)
        gc_freeze.freeze_collected(session.config)  # unfrozen in pytest_unconfigure
    if state is None or not session.config.option.collectonly or not state.applied:
        return
    tr = session.config.pluginmanager.get_plugin("terminalreporter")
    if tr is not None:
        from pytest_rocmcompat.report.terminal import write_applied_rules

        write_applied_rules(tr, state, {item.nodeid for item in session.items})


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    state = state_of(session.config)
    if state is None:
        return
    config = session.config
    start_results(config, state)
    if not hasattr(config, "workerinput"):  # the process that writes the results
        junit_file.redirect_writer(config)
        root = config.stash.get(SANDBOX_ROOT_KEY, None)

        def kill_children() -> None:
            kill_every_descendant(rounds=1)
            if root is not None:
                root.remove()

        # Under xdist, orphans of what the workers started (a killed worker's launches) come to this
        # process, so an interrupted session can find and kill them (interrupt.InterruptGuard.sweep).
        # A serial session becomes one only where it starts such processes (isolation, launches):
        # a host suite's own daemons keep going to init.
        if getattr(config.option, "numprocesses", None):
            become_subreaper()
        install_guard(
            config,
            kill_children=kill_children,
            salvage=lambda: _salvage(config),
            sweep=kill_every_descendant,
            prepare=junit_file.prepare,  # a salvage's JUnit library, imported before the writers, not in a handler
        )


@pytest.hookimpl(optionalhook=True)
def pytest_handlecrashitem(crashitem: str, report: pytest.TestReport, sched: Scheduling) -> None:
    """pytest-xdist lost a worker in mid-test: that test crashed, like an isolated one would."""
    classify.mark_worker_crash(report)
    config = getattr(sched, "config", None) or getattr(getattr(report, "node", None), "config", None)
    if config is not None:  # JUnit says crashed too, as the run report does
        junit_file.add_crash_properties(config, report)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: WorkerController) -> None:  # pytest-xdist: hand the probed environment to workers
    state = state_of(node.config)
    if state is not None:
        node.workerinput[WORKER_ENV_KEY] = state.env.to_json(indent=None)


def pytest_terminal_summary(terminalreporter: TerminalReporter, exitstatus: int, config: pytest.Config) -> None:
    state = state_of(config)
    if state is None:
        return
    from pytest_rocmcompat.report.terminal import write_summary

    state.finish_all()
    write_summary(terminalreporter, state)


def pytest_unconfigure(config: pytest.Config) -> None:
    gc_freeze.unfreeze()
    remove_guard(config)
    root = config.stash.get(SANDBOX_ROOT_KEY, None)
    if root is not None:
        root.close()
    gpu_allocation.unconfigure(config)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    state = state_of(config)
    if state is None or hasattr(config, "workerinput") or config.getoption("rocm_child_result"):
        return
    usage_error = exitstatus == pytest.ExitCode.USAGE_ERROR  # nothing was meant to run: no "not run" list
    stopped = exitstatus != pytest.ExitCode.INTERRUPTED and bool(session.shouldstop or session.shouldfail)
    _write_results(
        config, state, int(exitstatus), listed=not (config.option.collectonly or usage_error), stopped=stopped
    )


def _write_results(config: pytest.Config, state: CompatState, exitstatus: int, *, listed: bool, stopped: bool) -> None:
    """JUnit (with the tests that never finished, if ``listed``) and the plugin's reports."""
    state.finish_all()
    missing = not_run(state.collected, state.finished) if listed else []
    reason = NOT_RUN_STOPPED if stopped else NOT_RUN_INTERRUPTED
    if missing:
        state.mark_not_run(missing, reason)
    # state.not_run, not missing: a salvage that cut the first pass short (the bound expired in it)
    # finds those tests already marked, and its JUnit must list them all the same
    junit_file.finish(config, [(n, r.message if (r := state.notable.get(n)) else reason) for n in state.not_run])
    from pytest_rocmcompat.report.outputs import write_outputs

    tr = config.pluginmanager.get_plugin("terminalreporter")
    write_outputs(state, exitstatus, warn=tr.write_line if tr is not None else None)


def _salvage(config: pytest.Config) -> None:
    """The interrupt bound expired with the writers still busy (one of them stuck, perhaps before
    pytest's own JUnit writer ran): write what the session holds now, once, and leave.
    """
    state = state_of(config)
    junit_file.write_pending(config)
    if state is None:
        junit_file.salvage(config)
        return
    _write_results(config, state, int(pytest.ExitCode.INTERRUPTED), listed=not config.option.collectonly, stopped=False)
    junit_file.salvage(config)  # whatever is still unplaced (nothing, normally): removed, never half-published
