"""The live probe's result, kept between runs as plain JSON (no pickle).

A live probe starts a child that imports torch (about 3 s); every pytest invocation used to
pay it. Its result can only change when something it reads changes, so it is stored under a
key made of cheap facts (stats and a few small files, no subprocess, no import):

- this package's version and the probe code (size and mtime of ``probe/*.py``);
- the interpreter (``sys.executable``, its version), host name and kernel release;
- the mtime of every ``sys.path`` folder packages are installed into (site-packages, the
  interpreter's own): installing, upgrading or removing a distribution
  (torch, amdsmi, nvidia-ml-py, the CUDA wheels, any library the report lists) adds or
  removes a ``*.dist-info`` entry there;
- the driver and runtime version files (``/opt/rocm/.info/version*`` under every ROCm root,
  ``/proc/driver/nvidia/version``, ``/sys/module/amdgpu/version``) by content, and the vendor
  tools the probe would run (path, size, mtime);
- the GPU-stack environment variables the probe reads (allow-list, plus ``PATH``), hashed;
- the library names the matrix asks about.

Entries live in ``ROCMCOMPAT_CACHE_DIR`` (``off`` disables, as for the matrix cache), in a
``probe/`` folder private to the user (mode 0700, owner checked before reading); a probe whose
native child failed is not stored. ``--rocm-probe=fresh`` probes again and replaces the entry.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from pytest_rocmcompat.probe.envvars import is_allowed
from pytest_rocmcompat.safe_io.cache_store import cache_dir, read_entry, write_entry
from pytest_rocmcompat.safe_io.package_files import VERSION, package_modules
from pytest_rocmcompat.stack.environment import Environment

VERSION_FILES = ("/proc/driver/nvidia/version", "/sys/module/amdgpu/version")
TOOLS = ("rocminfo", "amd-smi", "nvidia-smi")
MAX_ENTRY_BYTES = 4 * 2**20  # a recorded environment is a few KB
KEEP_ENTRIES = 16  # newest entries kept; older ones are removed when a new one is written
_UNSTORED_NOTES = ("native:", "native probe")  # a failed or timed-out torch child: not a fact to keep


def probe_key(extra_libraries: Iterable[str], environ: Mapping[str, str]) -> str:
    """A hash of everything that can change what the live probe reports (see the module docstring)."""
    roots = list(dict.fromkeys([*(environ[k] for k in ("ROCM_PATH", "ROCM_HOME") if environ.get(k)), "/opt/rocm"]))
    facts = {
        "package": VERSION,
        "code": sorted(_stat(p) for p in (*package_modules("probe"), *package_modules("stack"))),
        "python": [sys.executable, sys.version, platform.node(), platform.release()],
        "paths": [_stat(Path(p)) for p in _install_dirs()],
        "files": [
            _content(f)
            for f in (*VERSION_FILES, *(str(r) for root in roots for r in sorted(Path(root, ".info").glob("version*"))))
        ],
        "tools": [_stat(Path(t)) for t in _tools(environ, roots)],
        "env": hashlib.sha256(
            json.dumps(sorted((k, v) for k, v in environ.items() if is_allowed(k) or k == "PATH")).encode()
        ).hexdigest(),
        "libraries": sorted(set(extra_libraries)),
    }
    return hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()[:40]


def cached_probe(
    extra_libraries: Iterable[str] = (), *, fresh: bool = False, environ: Mapping[str, str] | None = None
) -> tuple[Environment, bool]:
    """``(environment, read from the cache)``; probes live (and stores the result) on a miss."""
    from pytest_rocmcompat.probe.live import probe

    environ = os.environ if environ is None else environ
    extra = tuple(extra_libraries)
    base = cache_dir(environ)
    if base is None:
        return probe(extra), False
    directory = base / "probe"
    path = directory / f"{probe_key(extra, environ)}.json"
    if not fresh:
        env = _read(path)
        if env is not None:
            return env, True
    env = probe(extra)
    if not any(note.startswith(_UNSTORED_NOTES) for note in env.notes):
        _write(directory, path, env)
    return env, False


def _read(path: Path) -> Environment | None:
    try:
        raw = read_entry(path, MAX_ENTRY_BYTES)
        return None if raw is None else Environment.from_json(raw.decode("utf-8"))
    except (OSError, ValueError, TypeError, KeyError):  # absent, unreadable or not ours: probe live
        return None


def _write(directory: Path, path: Path, env: Environment) -> None:
    try:
        if not write_entry(path, env.to_json().encode("utf-8")):
            return
        entries = sorted(directory.glob("*.json"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
        for old in entries[KEEP_ENTRIES:]:
            old.unlink(missing_ok=True)
    except OSError:  # read-only home, full disk: the next run probes again
        return


def _install_dirs() -> list[str]:
    """``sys.path`` folders packages are installed into (not the project's own: its mtime moves with every file)."""
    prefixes = tuple({sys.prefix, sys.base_prefix, sys.exec_prefix})
    return [
        p
        for p in sys.path
        if p and ("site-packages" in p or "dist-packages" in p or p.startswith(prefixes)) and os.path.isdir(p)
    ]


def _tools(environ: Mapping[str, str], roots: list[str]) -> list[str]:
    path = os.pathsep.join([environ.get("PATH", ""), *(os.path.join(r, "bin") for r in roots)])
    return [found for tool in TOOLS if (found := shutil.which(tool, path=path))]


def _stat(path: Path) -> str:
    try:
        st = path.stat()
        return f"{path}:{st.st_size}:{st.st_mtime_ns}"
    except OSError:
        return f"{path}:-"


def _content(path: str) -> str:
    try:
        with open(path, "rb") as fh:
            return f"{path}:{hashlib.sha256(fh.read(65536)).hexdigest()}"
    except OSError:
        return f"{path}:-"
