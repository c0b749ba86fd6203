"""Child-process helpers shared by isolation and the multi-process launchers."""

from __future__ import annotations

import os
import signal


def signal_name(returncode: int | None) -> str | None:
    """``SIGSEGV`` for a process killed by signal 11 (``returncode`` -11), else ``None``."""
    if returncode is None or returncode >= 0:
        return None
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def kill_group(pgid: int) -> None:
    """SIGKILL a process group (a child started with ``start_new_session=True``) and all it spawned."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
