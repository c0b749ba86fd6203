"""A content-addressed cache of checked matrix files: an unchanged file is not parsed again.

Reading a matrix file means importing PyYAML, parsing and checking every rule: about 70 ms
for a 100-rule file on a 2-core machine, paid by every pytest run, xdist worker and isolated
child. The cache keeps, per file, the checked :class:`~.model.FileContent`; a later run that
reads the same text loads it instead (about 3 ms, and PyYAML is never imported).

- **Key**: SHA-256 of the file's text, the name it is shown under in messages, whether it
  is an included file, the Python version, the package version and the package's code that
  checks and models a file (size and modification time of those modules). An edited, renamed or differently
  included file, or a changed checker, is a miss, never a stale hit. Includes are resolved
  live on every run; only each file's own checked content is cached.
- **Stored**: only files that checked clean, so every error message comes from a real check.
- **Where**: ``$ROCMCOMPAT_CACHE_DIR``, else ``$XDG_CACHE_HOME/pytest-rocmcompat``, else
  ``~/.cache/pytest-rocmcompat``. ``ROCMCOMPAT_CACHE_DIR=off`` turns the cache off.
- **Safety**: entries are plain JSON (:mod:`.plain`: strings, numbers, lists), never pickles,
  so nothing in the cache can run code; each holds the SHA-256 of the text it was checked
  from, and an entry whose hash is not the file's is ignored. Entries are read only from a
  directory that this user owns and no one else can write (created with mode 0700), and only
  entries owned by this user. A corrupt, foreign, planted or unreadable entry is a miss (any
  exception, ``SystemExit`` and ``KeyboardInterrupt`` included, means a normal load); a cache
  that cannot be written is skipped. The cache never changes a result, so it never raises.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

from pytest_rocmcompat.matrix.model import FileContent
from pytest_rocmcompat.matrix.plain import FORMAT, content_from_plain, content_to_plain
from pytest_rocmcompat.safe_io.cache_store import cache_dir, read_entry, write_entry
from pytest_rocmcompat.safe_io.package_files import VERSION, module_files

MAX_ENTRY_BYTES = 64 * 2**20
# The modules whose code decides what a checked file becomes (or how it is stored): a name that
# no longer exists is an error (package_files.MissingModuleError), never a silently stale cache.
CODE_MODULES = (
    "matrix.model",
    "matrix.schema",
    "matrix.rule_schema",
    "matrix.checker",
    "matrix.yaml_lines",
    "matrix.cache",
    "matrix.plain",
    "matrix.limits",
    "knowledge.rules.model",
    "knowledge.rules.signature",
    "knowledge.checks.registry",
    "knowledge.metrics",
    "stack.arch",
    "stack.versions",
    "stack.environment",
    "errors",
)


class MatrixCache:
    """Checked file contents by key, in one directory."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._code: str | None = None

    @classmethod
    def from_environ(cls) -> MatrixCache | None:
        directory = cache_dir()
        return None if directory is None else cls(directory)

    def key(self, text: str, name: str, included: bool) -> str:
        digest = hashlib.sha256()
        for part in (VERSION, self._code_fingerprint(), sys.version, name, str(included), text):
            digest.update(part.encode("utf-8", "surrogatepass"))
            digest.update(b"\0")
        return digest.hexdigest()

    def get(self, key: str, text: str) -> FileContent | None:
        """The content checked from exactly ``text`` under ``key``, or ``None`` (a miss)."""
        try:
            raw = read_entry(self.directory / f"{key}.json", MAX_ENTRY_BYTES)
            if raw is None:
                return None
            entry = json.loads(raw)
            if entry.get("format") != FORMAT or entry.get("text_sha256") != text_hash(text):
                return None
            return content_from_plain(entry["content"])
        except BaseException:
            return None

    def put(self, key: str, text: str, content: FileContent) -> None:
        try:
            entry = {"format": FORMAT, "text_sha256": text_hash(text), "content": content_to_plain(content)}
            write_entry(
                self.directory / f"{key}.json",
                json.dumps(entry, separators=(",", ":"), allow_nan=False).encode("utf-8"),
            )
        except Exception:  # read-only home, full disk, a value JSON cannot hold: run without the cache
            return

    def _code_fingerprint(self) -> str:
        if self._code is None:
            parts = []
            for name, path in zip(CODE_MODULES, module_files(CODE_MODULES), strict=False):
                st = os.stat(path)
                parts.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
            self._code = "|".join(parts)
        return self._code


def text_hash(text: str) -> str:
    """SHA-256 of a file's text, as stored inside each entry."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
