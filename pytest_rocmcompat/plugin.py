"""Thin pytest glue: options, markers, header, collection, report classification, summary.

The decisions live elsewhere (``session``, ``rules``, ``classify``, ``report``);
each hook here only hands pytest's objects to them.
"""

from __future__ import annotations

import gc
import os
import sys

import pytest

from pytest_rocmcompat.knowledge.rules.engine import ItemFacts, uses_of
from pytest_rocmcompat.markers import register_markers
from pytest_rocmcompat.matrix.model import SUITES
from pytest_rocmcompat.running.gpu_locks import BORROWED_KEY, DEVICES_KEY, LOCK_DIR_VAR, GpuAllocator, borrowed_set
from pytest_rocmcompat.running.pinning import (
    VISIBILITY,
    pin_this_worker,
    publish,
    published_devices,
    unpublish,
    visibility,
)
from pytest_rocmcompat.session import classify, junit_file

# The fixtures are offered to every test suite by being attributes of this plugin module.
from pytest_rocmcompat.session.fixtures import rocm_env, rocm_matrix, rocm_measure, rocm_property  # noqa: F401
from pytest_rocmcompat.session.interrupt import NOT_RUN_INTERRUPTED, NOT_RUN_STOPPED, SigtermAsInterrupt, not_run
from pytest_rocmcompat.session.options import add_options, check_ini
from pytest_rocmcompat.session.results import CLASSIFIED, ResultHook
from pytest_rocmcompat.session.rootdir_guard import keep_rootdir
from pytest_rocmcompat.session.state import (
    PROBE_CACHED_KEY,
    STATE_KEY,
    WORKER_ENV_KEY,
    CompatState,
    build_state,
    state_of,
)

TIMEOUT_KEY = pytest.StashKey[float]()
INI_TIMEOUT_KEY = pytest.StashKey[float]()  # ini rocm_isolate_timeout, checked
PINNED_KEY = pytest.StashKey[list]()  # an xdist worker's own GPUs
PUBLISHED_KEY = pytest.StashKey[bool]()  # this controller handed GPUs to its workers
SIGTERM_KEY = pytest.StashKey[SigtermAsInterrupt]()
RESULTS_KEY = pytest.StashKey[ResultHook]()
_NO_USES: frozenset[str] = frozenset()


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, args: list[str]) -> None:
    """Before any conftest (and so torch) is imported: the rootdir pytest chose without knowing the
    plugin's options is checked again, and an xdist worker takes its GPUs.
    """
    keep_rootdir(early_config, args)
    pinned = pin_this_worker(os.environ)
    if pinned is not None:
        early_config.stash[PINNED_KEY] = pinned


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    register_markers(config)
    if config.option.help or config.option.version:
        return
    config.stash[INI_TIMEOUT_KEY] = check_ini(config)  # before collection: a usage error costs nothing
    config.stash[STATE_KEY] = state = build_state(config)
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        # inherited by the workers; removed again in pytest_unconfigure
        config.stash[PUBLISHED_KEY] = publish(state.env.platform, len(state.env.gpus), os.environ) is not None
    mine = config.stash.get(PINNED_KEY, None)
    if mine is not None and os.environ.get(LOCK_DIR_VAR):
        config.pluginmanager.register(
            GpuAllocator(os.environ[LOCK_DIR_VAR], mine, published_devices(os.environ)), "rocmcompat-gpu-locks"
        )
    if getattr(config.option, "xmlpath", None):  # --junitxml: testsuite properties, rocm_uses
        from pytest_rocmcompat.report.junit_props import install as install_junit_properties

        install_junit_properties(config, state)
    child_result = config.getoption("rocm_child_result")
    if child_result:  # this process is an isolation sandbox
        from pytest_rocmcompat.running.isolation.child import SandboxServer

        server = SandboxServer(config, child_result)
        server.start()
        config.pluginmanager.register(server, "rocmcompat-child")


def pytest_report_header(config: pytest.Config) -> list[str]:
    state = state_of(config)
    if state is None:
        return []
    cached = " (probe cached: --rocm-probe=fresh probes again)" if config.stash.get(PROBE_CACHED_KEY, False) else ""
    lines = [f"rocmcompat: {state.env.summary()}{cached}"]
    if state.location is not None:
        lines.append(f"rocmcompat: {state.location.describe()}")
    elif state.matrix is not None and state.matrix.axis_names == ():
        lines.append(f"rocmcompat: rules from {state.rules_source} (no axes: no cell to locate)")
    lines.append(
        f"rocmcompat: {len(state.rules.active)} of {len(state.rules.all_rules)} known-bad rules "
        f"active ({state.rules_source})"
    )
    if state.problems:
        lines.append(f"rocmcompat: checks: {len(state.problems)} problem(s) with this stack:")
        lines.extend(f"rocmcompat:   {p.describe()}" for p in state.problems)
    for note in state.env.notes:
        if config.option.verbose > 0:
            lines.append(f"rocmcompat: probe note: {note}")
    from pytest_rocmcompat.safe_io.escape import safe_text

    return [safe_text(line) for line in lines]


def pytest_ignore_collect(collection_path, config: pytest.Config) -> bool | None:
    """Bundled suites the matrix does not list (``suites: [...]``) are not collected."""
    state = state_of(config)
    if state is None or state.matrix is None or not state.matrix.suites:
        return None
    if (
        collection_path.parent.name == "suites"
        and collection_path.name in SUITES
        and collection_path.name not in state.matrix.suites
    ):
        return True
    return None


@pytest.hookimpl(trylast=True)  # after -k/-m and other plugins' deselection: selected tests only
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    state = state_of(config)
    if state is None:
        return
    mine = config.stash.get(PINNED_KEY, None)  # an xdist worker: its own slice of the GPUs
    results = config.stash.get(RESULTS_KEY, None)
    matching = bool(state.rules.active)
    inherited: dict[int, list[pytest.Mark]] = {}  # a parent node's marks, walked once for all its tests
    isolating = False
    for item in items:
        marks = _marks_of(item, inherited)  # one list serves every lookup below
        names = {m.name for m in marks}
        known = _known_issue_ids(item, state, marks) if "known_issue" in names else ()
        if matching or known:
            nodeid = item.nodeid
            uses = uses_of(a for m in marks if m.name == "uses" for a in m.args) if "uses" in names else _NO_USES
            rules = state.rules.match(ItemFacts(nodeid, names, uses, known))
            if rules:
                state.applied[nodeid] = [r.id for r in rules]
                if results is not None:
                    results.rules[nodeid] = rules
                names.update(classify.attach(item, rules))  # the markers it added: skip, isolated
        if "gpus" in names:
            _allocate_gpus(item, item.get_closest_marker("gpus"), state, mine)
        if "isolated" in names:
            item.stash[TIMEOUT_KEY] = _isolation_timeout(item, item.get_closest_marker("isolated"))
        elif BORROWED_KEY in item.stash:  # it must see other devices than its worker: a child process
            item.stash[TIMEOUT_KEY] = _isolation_timeout(item, pytest.mark.isolated.mark)
        else:
            continue
        isolating = True
    if (
        isolating
        and not config.getoption("rocm_child_result")
        and not config.pluginmanager.has_plugin("rocmcompat-isolation")
    ):  # a child runs its test itself
        config.pluginmanager.register(_Isolator(state, results, items), "rocmcompat-isolation")


def _marks_of(item: pytest.Item, inherited: dict[int, list[pytest.Mark]]) -> list[pytest.Mark]:
    """``list(item.iter_markers())`` (closest first), with the parents' part computed once per parent."""
    return [*item.own_markers, *_chain_marks(item.parent, inherited)]


def _chain_marks(node: pytest.Node | None, inherited: dict[int, list[pytest.Mark]]) -> list[pytest.Mark]:
    if node is None:
        return []
    marks = inherited.get(id(node))
    if marks is None:
        marks = inherited[id(node)] = [*node.own_markers, *_chain_marks(node.parent, inherited)]
    return marks


def _allocate_gpus(item: pytest.Item, gpus: pytest.Mark, state: CompatState, mine: list[str] | None) -> None:
    """Skip a test that needs more GPUs than the machine has; under xdist, borrow beyond the slice."""
    need = gpus.kwargs.get("n", gpus.args[0] if gpus.args else 1)
    if isinstance(need, bool) or not isinstance(need, int) or need < 0:
        raise pytest.UsageError(f"rocmcompat: {item.nodeid}: gpus({need!r}): the GPU count must be a whole number >= 0")
    devices = published_devices(os.environ) if mine is not None else []
    available = len(devices) if mine is not None else len(state.env.gpus)
    if need > available:
        item.add_marker(pytest.mark.skip(reason=f"needs {need} GPU(s), this environment has {available}"))
    elif mine is not None and need > len(mine):
        chosen = borrowed_set(mine, devices, need)
        item.stash[DEVICES_KEY] = chosen
        item.stash[BORROWED_KEY] = ",".join(chosen)


def _known_issue_ids(item: pytest.Item, state: CompatState, marks: list[pytest.Mark]) -> tuple[str, ...]:
    ids = []
    for mark in (m for m in marks if m.name == "known_issue"):
        for rule_id in (*mark.args, *([mark.kwargs["rule_id"]] if "rule_id" in mark.kwargs else [])):
            if rule_id not in state.rules.by_id:
                import difflib

                close = difflib.get_close_matches(str(rule_id), list(state.rules.by_id), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise pytest.UsageError(
                    f"rocmcompat: {item.nodeid}: known_issue({rule_id!r}) names no rule of {state.rules_source}{hint}"
                )
            ids.append(str(rule_id))
    return tuple(ids)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids: list[str]) -> None:
    state = state_of(node.config)
    if state is not None and not state.collected:  # the controller learns the collection here
        state.collected = list(ids)


def pytest_collection_finish(session: pytest.Session) -> None:
    state = state_of(session.config)
    if state is not None and session.items:
        state.collected = [item.nodeid for item in session.items]
        results = session.config.stash.get(RESULTS_KEY, None)
        if results is not None:
            results.track(session.items, state.collected)
        if session.config.getini("rocm_gc_freeze") and not session.config.getoption("rocm_child_result"):
            # (not in a sandbox: it collects once per isolated test, and frozen objects are never freed)
            # The collected items live until the session ends: moving them out of the collector's
            # reach keeps every full GC pass of the run from walking them again (unfrozen at the end).
            gc.freeze()
    if state is None or not session.config.option.collectonly or not state.applied:
        return
    tr = session.config.pluginmanager.get_plugin("terminalreporter")
    if tr is None:
        return
    tr.write_sep("-", "rocmcompat: known-bad rules that apply")
    selected = {item.nodeid for item in session.items}
    for nodeid, rule_ids in state.applied.items():
        if nodeid not in selected:  # deselected after the rules were matched (a later plugin)
            continue
        for rule_id in rule_ids:
            rule = state.rules.by_id[rule_id]
            tr.write_line(f"{nodeid}: {rule.action.upper()} {rule.describe()}")


class _Isolator:
    """Registered once collection holds an isolated test (so plain sessions pay no extra hook):
    tests marked ``isolated`` (or reached by an ``isolate`` rule) run in a child process.
    """

    def __init__(self, state: CompatState, results: ResultHook | None, items: list[pytest.Item]) -> None:
        self.state = state
        self.rules = results.rules if results is not None else {}
        self.pool = None  # SandboxPool, made when the first isolated test is about to run
        self.remaining = sum(TIMEOUT_KEY in item.stash for item in items)

    def _pool(self, config: pytest.Config):
        if self.pool is None:
            from pytest_rocmcompat.running.isolation.args import sandbox_argv
            from pytest_rocmcompat.running.isolation.sandbox import SandboxPool

            self.pool = SandboxPool(
                sandbox_argv(config), config.invocation_params.dir, self.state.env.to_json(indent=None)
            )
        return self.pool

    def pytest_runtestloop(self, session: pytest.Session) -> None:
        """Start the first sandbox ahead of need, while in-process tests run."""
        if self.remaining and not session.config.option.collectonly:
            self._pool(session.config).prestart()

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
        if TIMEOUT_KEY not in item.stash:  # set at collection for isolated tests only
            return None
        from pytest_rocmcompat.running.isolation.runner import run_isolated

        state = self.state
        item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
        self.remaining -= 1
        marker = item.get_closest_marker("isolated")
        reports = run_isolated(
            item,
            item.stash[TIMEOUT_KEY],
            self._pool(item.config),
            self.rules.get(item.nodeid, []),
            environ=_child_environ(item, state),
            fresh=bool(marker is not None and marker.kwargs.get("fresh")),
            more=self.remaining > 0,
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


def _isolation_timeout(item: pytest.Item, marker: pytest.Mark) -> float:
    value = marker.kwargs.get("timeout", marker.args[0] if marker.args else None)
    source = f"{item.nodeid}: isolated(timeout={value!r})"
    if value is None:
        return item.config.stash[INI_TIMEOUT_KEY]  # checked in pytest_configure
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        seconds = -1.0
    if not seconds > 0:
        raise pytest.UsageError(f"rocmcompat: {source}: the time limit must be a number of seconds > 0")
    return seconds


def _child_environ(item: pytest.Item, state: CompatState) -> dict[str, str] | None:
    """A test that borrows GPUs sees exactly those; it is no pinned worker any more."""
    borrowed = item.stash.get(BORROWED_KEY, None)
    if borrowed is None or state.env.platform not in VISIBILITY:
        return None
    environ = dict(os.environ)
    environ.update(visibility(state.env.platform, borrowed.split(","), environ))
    unpublish(environ)  # the child must not pin itself to the worker's slice again
    return environ


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    state = state_of(session.config)
    if state is None:
        return
    config = session.config
    # Registered after pytest's Session, so its tryfirst hook runs before the Session counts failures.
    records = not hasattr(config, "workerinput") and not config.getoption("rocm_child_result")
    config.stash[RESULTS_KEY] = results = ResultHook(state, config, records=records)
    config.pluginmanager.register(results, "rocmcompat-results")
    if not hasattr(config, "workerinput"):  # the process that writes the results
        junit_file.redirect_writer(config)
        config.stash[SIGTERM_KEY] = sigterm = SigtermAsInterrupt()
        sigterm.install()


@pytest.hookimpl(optionalhook=True)
def pytest_handlecrashitem(crashitem: str, report: pytest.TestReport, sched) -> None:
    """pytest-xdist lost a worker in mid-test: that test crashed, like an isolated one would."""
    classify.mark_worker_crash(report)
    config = getattr(sched, "config", None) or getattr(getattr(report, "node", None), "config", None)
    if config is not None:  # JUnit says crashed too, as the run report does
        junit_file.add_crash_properties(config, report)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:  # pytest-xdist: hand the probed environment to workers
    state = state_of(node.config)
    if state is not None:
        node.workerinput[WORKER_ENV_KEY] = state.env.to_json(indent=None)


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    state = state_of(config)
    if state is None:
        return
    from pytest_rocmcompat.report.terminal import write_summary

    state.finish_all()
    write_summary(terminalreporter, state)


def pytest_unconfigure(config: pytest.Config) -> None:
    if gc.get_freeze_count():
        gc.unfreeze()
    sigterm = config.stash.get(SIGTERM_KEY, None)
    if sigterm is not None:
        sigterm.remove()
    if config.stash.get(PUBLISHED_KEY, False):
        unpublish(os.environ, remove_locks=True)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    state = state_of(session.config)
    if state is None or hasattr(session.config, "workerinput") or session.config.getoption("rocm_child_result"):
        return
    state.finish_all()
    usage_error = exitstatus == pytest.ExitCode.USAGE_ERROR  # nothing was meant to run: no "not run" list
    missing = [] if session.config.option.collectonly or usage_error else not_run(state.collected, state.finished)
    if missing:
        stopped = exitstatus != pytest.ExitCode.INTERRUPTED and (session.shouldstop or session.shouldfail)
        state.mark_not_run(missing, NOT_RUN_STOPPED if stopped else NOT_RUN_INTERRUPTED)
    junit_file.finish(session.config, [(n, state.notable[n].message) for n in missing])
    from pytest_rocmcompat.report.summary import append_step_summary

    append_step_summary(state, int(exitstatus))  # $GITHUB_STEP_SUMMARY, when set
    if state.report_path is None:
        return
    from pytest_rocmcompat.report.markdown import write_run_report

    try:
        write_run_report(state, state.report_path, exitstatus=int(exitstatus))
    except OSError as exc:  # the run's results stand; say why the report is missing
        from pytest_rocmcompat.safe_io.escape import terminal_line

        message = terminal_line(f"rocmcompat: could not write the report to {state.report_path}: {exc.strerror or exc}")
        tr = session.config.pluginmanager.get_plugin("terminalreporter")
        if tr is not None:
            tr.write_line(message, red=True)
        else:
            print(message, file=sys.stderr)
