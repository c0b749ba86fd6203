"""What a stack file says, shared by its readers (stack_files.py, conda_files.py): the stack, the error, the target."""

from __future__ import annotations

from dataclasses import dataclass, field

from packaging.version import Version

from pytest_rocmcompat.stack.environment import Environment


class StackFileError(ValueError):
    """A stack file that cannot be read as one exact stack; the message names the file and line."""


class AmbiguousPython(Exception):
    """Markers choose differently for different Pythons and no Python is known (internal)."""

    def __init__(self, where: str) -> None:
        super().__init__(where)
        self.where = where


@dataclass(frozen=True)
class Target:
    """What markers are evaluated for: a Python (``""``: not known) on Linux x86_64 by default."""

    python: str = ""
    sys_platform: str = "linux"
    machine: str = "x86_64"

    def markers(self, python: str | None = None) -> dict[str, str]:
        full = python or self.python
        version = Version(full)
        system = {"linux": "Linux", "darwin": "Darwin", "win32": "Windows"}.get(self.sys_platform, self.sys_platform)
        return {
            "python_version": f"{version.major}.{version.minor}",
            "python_full_version": full,
            "implementation_name": "cpython",
            "implementation_version": full,
            "platform_python_implementation": "CPython",
            "sys_platform": self.sys_platform,
            "platform_system": system,
            "platform_machine": self.machine,
            "os_name": "nt" if self.sys_platform == "win32" else "posix",
            "platform_release": "",
            "platform_version": "",
            "extra": "",
        }


@dataclass(frozen=True)
class StackFile:
    """What a stack file says: exact package versions (normalised names) and what else it knows."""

    path: str
    format: str
    packages: dict[str, str] = field(default_factory=dict)
    python: str | None = None  # from the file itself (conda's python=, a probe's python)
    not_checkable: tuple[str, ...] = ()  # "FILE:LINE: what" for editable/VCS entries
    skipped: tuple[str, ...] = ()  # entries whose markers exclude the target, non-PEP 440 conda versions
    environment: Environment | None = None  # a recorded probe, whole


@dataclass(frozen=True)
class LockSelection:
    """What of a ``uv.lock``'s workspace is installed, as ``uv sync`` takes it: the members' dependencies, their
    ``extras`` (``--extra``; none by default) and dependency ``groups`` (``--group``; ``dev`` by default, as uv's
    ``default-groups``, which the lock does not record).
    """

    extras: tuple[str, ...] = ()
    groups: tuple[str, ...] = ("dev",)
