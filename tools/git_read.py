"""Reading a local clone of a public repository with git, for the scripts that regenerate data from one."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git(repo: Path, *args: str) -> str:
    """``git -C repo ARGS``'s standard output; a failing git raises :class:`subprocess.CalledProcessError`."""
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout
