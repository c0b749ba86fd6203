"""One folder per session for every sandbox directory, so an interrupted session removes them all.

The process that writes the results (the only one, or pytest-xdist's controller) names the
folder and publishes it in ``ROCMCOMPAT_SANDBOX_ROOT`` before any worker starts; sandboxes of
that process and of its workers are made inside it, on first need. When a second signal kills
every process of the session at once (none can clean up after itself), the controller removes
the one folder; at the end of a normal session it is removed too. A nested session names its own.
"""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile

ROOT_VAR = "ROCMCOMPAT_SANDBOX_ROOT"


class SandboxRoot:
    """Owned by the controller: published at configure, removed (with the variable) at the end."""

    def __init__(self) -> None:
        self.path = os.path.join(tempfile.gettempdir(), f"rocmcompat-session-{os.getpid()}-{secrets.token_hex(4)}")
        self.previous = os.environ.get(ROOT_VAR)
        os.environ[ROOT_VAR] = self.path

    def remove(self) -> None:
        """Remove the folder and everything in it (bounded: nothing waits for a process)."""
        shutil.rmtree(self.path, ignore_errors=True)

    def close(self) -> None:
        self.remove()
        if os.environ.get(ROOT_VAR) == self.path:
            if self.previous is None:
                os.environ.pop(ROOT_VAR, None)
            else:
                os.environ[ROOT_VAR] = self.previous


def sandbox_parent() -> str | None:
    """Where a new sandbox directory goes: the session's folder (made now), else the temp dir."""
    root = os.environ.get(ROOT_VAR)
    if not root:
        return None
    try:
        os.makedirs(root, mode=0o700, exist_ok=True)
    except OSError:
        return None
    return root
