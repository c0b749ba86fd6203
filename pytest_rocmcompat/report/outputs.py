"""What the controller writes when a session ends, besides JUnit: the GitHub step summary and
the ``--rocm-report`` Markdown file. A report that cannot be written never fails the run.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from pytest_rocmcompat.report.markdown import write_run_report
from pytest_rocmcompat.report.summary import append_step_summary
from pytest_rocmcompat.safe_io.escape import terminal_line
from pytest_rocmcompat.session.state import CompatState


def write_outputs(state: CompatState, exitstatus: int, warn: Callable[..., None] | None = None) -> None:
    """Append ``$GITHUB_STEP_SUMMARY`` (when set), then write the run report (when asked for);
    a failed write is one red line through ``warn`` (the terminal), else on stderr.
    """
    append_step_summary(state, exitstatus)
    if state.report_path is None:
        return
    try:
        write_run_report(state, state.report_path, exitstatus=exitstatus)
    except OSError as exc:  # the run's results stand; say why the report is missing
        message = terminal_line(f"rocmcompat: could not write the report to {state.report_path}: {exc.strerror or exc}")
        if warn is not None:
            warn(message, red=True)
        else:
            print(message, file=sys.stderr)
