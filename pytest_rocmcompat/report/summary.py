"""GitHub Actions: append the run's Markdown report to ``$GITHUB_STEP_SUMMARY``."""

from __future__ import annotations

import os

from pytest_rocmcompat.session.state import CompatState

STEP_SUMMARY_VAR = "GITHUB_STEP_SUMMARY"


def append_step_summary(state: CompatState, exitstatus: int, environ: dict[str, str] | None = None) -> bool:
    """Append the run report to the file ``$GITHUB_STEP_SUMMARY`` names; ``False`` when unset.

    A summary that cannot be written is a warning on stderr, never a failed run.
    """
    path = (os.environ if environ is None else environ).get(STEP_SUMMARY_VAR, "").strip()
    if not path:
        return False
    from pytest_rocmcompat.report.markdown import render_run_report

    state.finish_all()
    text = render_run_report(state, exitstatus)
    try:
        with open(path, "a", encoding="utf-8", errors="replace") as fh:
            fh.write(text if text.endswith("\n") else text + "\n")
    except OSError as exc:
        from pytest_rocmcompat.safe_io.escape import echo

        echo(
            f"rocmcompat: could not append the report to ${STEP_SUMMARY_VAR} ({path}): {exc.strerror or exc}", err=True
        )
        return False
    return True
