"""The plugin's one per-report hook: classify a report where its test ran, record it where results are kept.

pytest calls ``pytest_runtest_logreport`` for every phase of every test (15,000 times for a
5,000-test run), so this is the plugin's hot path, and it is one hook, not one per job:

- **classify** (in the process that ran the test, where the item is): known-bad rules,
  signatures and performance floors adjust the report in place;
- **record** (in the process that writes the results: the xdist controller, or the only
  process): the outcome is counted for the report and the summary.

It runs first (``tryfirst``, registered after pytest's session), so pytest's ``-x`` counting,
the terminal, the JUnit writer and pytest-xdist's forwarding all see the classified report.
A report classified already (by an xdist worker, an isolated child, or the isolation runner
for a test whose process died) carries :data:`CLASSIFIED` and is not classified again.
A plain pass of a test no rule reaches costs two dictionary look-ups.

The terminal words for outcomes pytest has no name for (``KNOWN-BAD``, ``STALE-RULE``,
``CRASHED``, ``HANG``) come from :class:`StatusWords`, registered only once a report needs
them, so a session without one pays nothing for them.
"""

from __future__ import annotations

import pytest

from pytest_rocmcompat.knowledge.metrics import METRIC_PREFIX
from pytest_rocmcompat.knowledge.rules.model import Rule
from pytest_rocmcompat.outcomes import PROP_DIAGNOSIS, PROP_OUTCOME, Outcome
from pytest_rocmcompat.session import classify
from pytest_rocmcompat.session.floors import FLOOR_MISSES_KEY, floor_failure
from pytest_rocmcompat.session.state import CompatState

_OWN_LETTERS = (Outcome.CRASHED.value, Outcome.HANG.value)  # outcomes whose letter is not pytest's
CLASSIFIED = "rocm_classified"  # report attribute; it travels with xdist's and the child's serialisation
RESULTS_KEY = pytest.StashKey["ResultHook"]()


class StatusWords:
    """``pytest_report_teststatus`` for the plugin's own outcomes (registered when first needed)."""

    def pytest_report_teststatus(
        self, report: pytest.TestReport, config: pytest.Config
    ) -> tuple[str, str, tuple[str, dict[str, bool]]] | None:
        if not report.user_properties:  # pytest's own words
            return None
        return classify.teststatus(report)


class ResultHook:
    """Classifies and records every test report of the session (see the module docstring)."""

    def __init__(self, state: CompatState, config: pytest.Config, *, records: bool) -> None:
        self.state = state
        self.config = config
        self.records = records  # False in an xdist worker: the controller records
        self.items: dict[str, pytest.Item] = {}  # node id -> item, for the tests this process runs
        self.rules: dict[str, list[Rule]] = {}  # node id -> the known-bad rules that reach it
        self._words = False  # StatusWords registered
        self._seen_outcome = False  # a report carried one of the plugin's outcomes
        self._verbose = config.get_verbosity() > 0

    def track(self, items: list[pytest.Item], nodeids: list[str]) -> None:
        """The collected tests (``nodeids[i]`` is ``items[i].nodeid``), known before the first report."""
        self.items = dict(zip(nodeids, items, strict=False))

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.outcome == "passed" and not report.user_properties:  # the common case, kept cheap
            when = report.when
            if when == "setup":
                return  # a passing setup says nothing the call and teardown will not
            nodeid = report.nodeid
            if when == "teardown":
                if self.records:
                    self.state.finish(nodeid)
                return
            if nodeid not in self.rules:  # a plain pass, nothing to classify
                if self.records:
                    self.state.record_pass(nodeid)
                return
        nodeid = report.nodeid
        item = self.items.get(nodeid)
        if item is not None and not getattr(report, CLASSIFIED, False):
            self._classify(item, report)
        props = report.user_properties
        if props and not self._words and (report.outcome == "failed" or not self._seen_outcome):
            self._words_for(report)
        if self.records:
            outcome, rule, signature, message = classify.from_report(report)
            self.state.record(nodeid, report.when, outcome, rule, signature, message)
            if report.when == "teardown" and any(
                isinstance(name, str) and name.startswith(METRIC_PREFIX) for name, _ in props
            ):
                from pytest_rocmcompat.session.measurements import measurements_of

                self.state.record_measurements(nodeid, measurements_of(props))

    def _classify(self, item: pytest.Item, report: pytest.TestReport) -> None:
        try:
            self._classify_now(item, report)
        except (MemoryError, RecursionError) as exc:  # the test exhausted its process: keep pytest's outcome
            report.sections.append(("rocmcompat", f"not classified: {type(exc).__name__}: {exc}"))
        setattr(report, CLASSIFIED, True)

    def _classify_now(self, item: pytest.Item, report: pytest.TestReport) -> None:
        if report.when == "call":
            if report.outcome == "passed" and FLOOR_MISSES_KEY in item.stash:
                report.outcome = "failed"  # a figure worse than its floor is a regression
                report.longrepr = floor_failure(item)
            classify.classify(item, report, self.rules.get(report.nodeid, []), strict=self.state.strict)
        elif report.outcome == "failed":  # setup or teardown: only a failure has anything to name
            classify.classify(item, report, [], strict=self.state.strict)

    def _words_for(self, report: pytest.TestReport) -> None:
        """Register :class:`StatusWords` once a report needs them.

        At once when the letter differs from pytest's (``C`` crashed, ``H`` hang) or the words
        show (``-v``); otherwise (``KNOWN-BAD`` is pytest's ``x``, ``STALE-RULE`` its ``X`` or
        ``F``) before the terminal summary, whose lines show the words.
        """
        outcome = next((value for name, value in report.user_properties if name == PROP_OUTCOME), None)
        if outcome is None:
            if report.failed and any(name == PROP_DIAGNOSIS for name, _ in report.user_properties):
                self._seen_outcome = True  # a diagnosed failure: its words show in the summary
                if self._verbose:
                    self._register_words()
            return
        self._seen_outcome = True
        if self._verbose or outcome in _OWN_LETTERS:
            self._register_words()

    def _register_words(self) -> None:
        if not self._words:
            self.config.pluginmanager.register(StatusWords(), "rocmcompat-status-words")
            self._words = True

    @pytest.hookimpl(tryfirst=True)
    def pytest_terminal_summary(self) -> None:
        if self._seen_outcome:
            self._register_words()


def start_results(config: pytest.Config, state: CompatState) -> ResultHook:
    """Register the result hook (after pytest's Session, so it classifies before the Session counts
    failures); only the controller, never an xdist worker or a sandbox, records the results.
    """
    records = not hasattr(config, "workerinput") and not config.getoption("rocm_child_result")
    config.stash[RESULTS_KEY] = results = ResultHook(state, config, records=records)
    config.pluginmanager.register(results, "rocmcompat-results")
    return results


def results_of(config: pytest.Config) -> ResultHook | None:
    """The session's result hook, once ``pytest_sessionstart`` registered it."""
    return config.stash.get(RESULTS_KEY, None)
