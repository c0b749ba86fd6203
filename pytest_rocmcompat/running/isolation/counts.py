"""How isolated tests got their process, counted where the results are written.

Each isolated test's reports carry ``rocm_isolation`` (``forked``, ``forked: standby, <warmed
or why not>``, ``spawned: <why>`` or ``reused``); the controller (or the only process) counts them from the reports, so the
count holds under pytest-xdist too, and ends the terminal summary with one line. When
a template could not fork, its reason is said once.
"""

from __future__ import annotations

from collections import Counter

import pytest

from pytest_rocmcompat.outcomes import PROP_ISOLATION


class IsolationCounts:
    """Registered in the process that writes the terminal summary."""

    def __init__(self) -> None:
        self.modes: dict[str, str] = {}  # node id -> forked | spawned | reused
        self.reasons: Counter[str] = Counter()  # why templates could not fork
        self.standby: Counter[str] = Counter()  # forked tests a standby ran: warmed, not warmed (why)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for name, value in report.user_properties:
            if name != PROP_ISOLATION or report.nodeid in self.modes:
                continue
            mode, _, reason = str(value).partition(": ")
            self.modes[report.nodeid] = mode
            if mode == "forked" and reason.startswith("standby, "):
                self.standby[reason.removeprefix("standby, ")] += 1
            elif reason:
                self.reasons[reason] += 1

    def summary(self) -> list[str]:
        """The lines for the terminal (none when no test was isolated)."""
        if not self.modes:
            return []
        counts = Counter(self.modes.values())
        parts = [f"{counts.get(mode, 0)} {mode}" for mode in ("forked", "spawned", "reused") if counts.get(mode)]
        lines = [f"rocmcompat isolation: {len(self.modes)} isolated test(s): {', '.join(parts)}"]
        if self.standby:
            ran = ", ".join(f"{count} {how}" for how, count in self.standby.most_common())
            lines.append(f"rocmcompat isolation: {sum(self.standby.values())} forked ahead as standby ({ran})")
        for reason, count in self.reasons.most_common(3):
            lines.append(f"rocmcompat isolation: {count} spawned, not forked, because {reason}")
        return lines

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        for line in self.summary():
            terminalreporter.write_line(line)
