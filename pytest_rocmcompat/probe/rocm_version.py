"""The installed ROCm release from ``<ROCM_PATH>/.info/version``.

ROCm 6.x writes ``6.2.0-66`` (release and build number) there; ROCm 7.x writes
``7.0.1``. Some installs have only ``.info/version-dev``; TheRock builds have neither.
"""

from __future__ import annotations

import os
import re

_VERSION = re.compile(r"^\s*(\d+\.\d+(?:\.\d+)?)(?![\d.])")
VERSION_FILES = ("version", "version-dev")


def parse_rocm_version_file(text: str) -> str | None:
    """``"6.2.0-66\\n"`` -> ``"6.2.0"``; ``None`` when the first line is no version."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    if not isinstance(text, str):
        return None
    lines = text.strip().splitlines()
    match = _VERSION.match(lines[0]) if lines else None
    return match.group(1) if match else None


def read_rocm_version(roots: list[str]) -> tuple[str | None, str]:
    """(version, note): the first readable ``<root>/.info/version[-dev]`` over ``roots``.

    The note is empty on success; otherwise it says which files were looked at
    and why none gave a version.
    """
    problems: list[str] = []
    looked: list[str] = []
    for root in roots:
        for name in VERSION_FILES:
            path = os.path.join(root, ".info", name)
            looked.append(path)
            try:
                with open(path, encoding="utf-8", errors="replace") as fh:
                    text = fh.read(4096)
            except FileNotFoundError:
                continue
            except OSError as exc:
                problems.append(f"{path}: {exc.strerror or exc}")
                continue
            version = parse_rocm_version_file(text)
            if version:
                return version, ""
            first = text.strip().splitlines()[0][:40] if text.strip() else ""
            problems.append(f"{path}: no version in {first!r}")
    if problems:
        return None, "ROCm version file unreadable: " + "; ".join(problems)
    if not looked:
        return None, "no ROCm root to look for .info/version in"
    return None, "no ROCm version file (" + ", ".join(looked) + ")"
