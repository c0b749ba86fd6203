"""Child side of isolation: record this process's test reports in a JSON file.

The child is a plain ``python -m pytest NODEID`` started by the parent with
``--rocm-child-result FILE``. It writes the file after every report, so a test
that crashes the process mid-way still leaves what happened before the crash.
"""

from __future__ import annotations

import json

import pytest

from ..report.atomic import write_atomic


class ChildRecorder:
    """Serialises every report through pytest's own hook and rewrites the result file."""

    def __init__(self, config: pytest.Config, path: str) -> None:
        self.config = config
        self.path = path
        self.reports: list[dict] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        data = self.config.hook.pytest_report_to_serializable(config=self.config, report=report)
        if data is not None:
            self.reports.append(data)
            write_atomic(self.path, json.dumps({"reports": self.reports}))
