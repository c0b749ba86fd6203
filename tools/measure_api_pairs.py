"""Measure which releases of a pure-Python library work on which releases of the library under it.

PEFT declares ``transformers`` with no upper bound (and, for most releases, no lower one), so no
metadata says that an older PEFT breaks on a newer transformers or a newer PEFT on an older one: it
has to be run. For every minor series of the dependent (its newest patch) this tool installs it
beside minor series of the dependency, each environment resolved *as of the later of the two
releases* (``uv pip compile --exclude-newer``: the other packages are the ones a user installing
that pair that day got), runs a smoke script (``tools/api_smoke/``) in a fresh interpreter, and
records the outcome and, for a failure, the exception line the interpreter printed.

Which pairs are run: the dependency releases alone first (a release that fails alone on this
machine's torch and Python is not judged), then, for each dependent release, the dependency release
current at its date and, by bisection, the newest and oldest dependency releases it still works
with (a failure at a release is taken to hold for every release beyond it; the data says which
pairs were measured and which were bisected over).

    python tools/measure_api_pairs.py --uv /tmp/uvt/bin/uv --find-links /opt/wheels \
        --torch 'torch==2.13.0+cpu' --work /tmp/pairs --jobs 2

Writes ``pytest_rocmcompat/knowledge/data/api_pairs.json`` (``--out``). Needs ``uv`` and network
access to PyPI; about 300 smoke runs, 40 minutes on 2 cores. The tests run :func:`bisect_window`
and :func:`exception_line` on fixtures; the measurement itself is recorded, not re-run in CI.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "pytest_rocmcompat" / "knowledge" / "data" / "api_pairs.json"
SMOKE = Path(__file__).resolve().parent / "api_smoke"
INDEX = "https://pypi.org/pypi/{name}/json"
# (dependent, dependency, smoke script, the first dependency release measured)
PAIRS: tuple[tuple[str, str, str, str], ...] = (("peft", "transformers", "peft_transformers.py", "4.26"),)
DEPENDENT_SINCE = "2023-01-01"
# torch's own requirements, taken as of today whatever the cut-off (the torch under test is today's)
TORCH_DEPENDENCIES = (
    "setuptools",
    "sympy",
    "mpmath",
    "networkx",
    "jinja2",
    "markupsafe",
    "filelock",
    "fsspec",
    "typing-extensions",
)
# the last line of a traceback: "pkg.module.SomeError: text" or "SomeError: text"
_EXCEPTION = re.compile(r"^(?:[A-Za-z_][\w.]*\.)?([A-Z]\w*(?:Error|Exception|Warning|Exit|Interrupt))(?::\s?(.*))?$")


def exception_line(stderr: str) -> str:
    """The exception a failed run ended with (its type and message), else its last non-empty line."""
    lines = [line.rstrip() for line in stderr.splitlines() if line.strip()]
    for line in reversed(lines):
        if not line.startswith((" ", "\t")) and _EXCEPTION.match(line):
            return line[:400]
    return lines[-1][:400] if lines else "no output"


def minor_releases(index: dict[str, Any], since: str) -> list[tuple[str, str]]:
    """(version, upload date) of the newest final release of each minor series since ``since``."""
    newest: dict[tuple[int, int], tuple[Version, str]] = {}
    for text, files in index["releases"].items():
        try:
            version = Version(text)
        except InvalidVersion:
            continue
        live = [f for f in files if not f.get("yanked")]
        if version.is_prerelease or version.is_devrelease or not live:
            continue
        date = min(f["upload_time_iso_8601"] for f in live)[:10]
        key = (version.major, version.minor)
        if key not in newest or version > newest[key][0]:
            newest[key] = (version, date)
    return sorted(((str(v), d) for v, d in newest.values() if d >= since), key=lambda p: Version(p[0]))


def bisect_window(
    releases: Sequence[str], start: int, works: Callable[[str], bool]
) -> tuple[int | None, int | None]:
    """The indexes of the first failing release below and above ``start`` (``None``: none fails).

    ``works(releases[start])`` is assumed; a failure at a release is taken to hold for every
    release farther from ``start`` (the window of working releases is contiguous).
    """

    def first_failure(candidates: list[int]) -> int | None:
        if not candidates or works(releases[candidates[-1]]):
            return None
        lo, hi = 0, len(candidates) - 1  # candidates[hi] fails; find the nearest failing one
        while lo < hi:
            mid = (lo + hi) // 2
            if works(releases[candidates[mid]]):
                lo = mid + 1
            else:
                hi = mid
        return candidates[lo]

    above = first_failure(list(range(start + 1, len(releases))))
    below = first_failure(list(range(start - 1, -1, -1)))
    return below, above


class Runner:
    """One uv environment per worker thread; each run resolves its pins as of a date and syncs."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.local = threading.local()
        self.count = 0
        self.lock = threading.Lock()
        self.cache: dict[str, dict[str, Any]] = {}
        self.cache_file = Path(args.work) / "runs.json"
        if self.cache_file.exists():
            self.cache = json.loads(self.cache_file.read_text())

    def venv(self) -> Path:
        if not hasattr(self.local, "venv"):
            with self.lock:
                self.count += 1
                number = self.count
            path = Path(self.args.work) / f"venv{number}"
            if not path.exists():
                subprocess.run([self.args.uv, "venv", "-q", "-p", "3.11", str(path)], check=True)
            self.local.venv = path
        return self.local.venv

    def run(self, pins: list[str], cutoff: str, script: str, mode: str) -> dict[str, Any]:
        key = f"{' '.join(pins)} | {mode}"
        if key in self.cache:
            return self.cache[key]
        venv = self.venv()
        python = str(venv / "bin" / "python")
        work = Path(self.args.work)
        override = work / "override.txt"
        override.write_text(self.args.torch + "\n")
        exempt = [f"--exclude-newer-package={name}={dt.date.today()}" for name in TORCH_DEPENDENCIES]
        links = ["--find-links", self.args.find_links] if self.args.find_links else []
        compiled = subprocess.run(
            [self.args.uv, "pip", "compile", "-q", "-", "--python-version", "3.11", "--override", str(override),
             "--exclude-newer", cutoff, *exempt, *links],
            input="\n".join([*pins, self.args.torch]), capture_output=True, text=True,
        )  # fmt: skip
        if compiled.returncode != 0:
            result = {"pins": pins, "mode": mode, "ok": None, "error": exception_line(compiled.stderr), "cutoff": cutoff}
        else:
            lock = work / f"{venv.name}.txt"
            lock.write_text(compiled.stdout)
            sync = subprocess.run(
                [self.args.uv, "pip", "sync", "-q", "-p", python, str(lock), *links], capture_output=True, text=True
            )
            if sync.returncode != 0:
                result = {"pins": pins, "mode": mode, "ok": None, "error": exception_line(sync.stderr), "cutoff": cutoff}
            else:
                smoke = subprocess.run(
                    [python, str(SMOKE / script), mode], capture_output=True, text=True, timeout=600,
                    env={**os.environ, "PYTHONWARNINGS": "ignore", "TOKENIZERS_PARALLELISM": "false"}, cwd=work,
                )  # fmt: skip
                ok = smoke.returncode == 0 and smoke.stdout.strip().endswith("OK")
                result = {
                    "pins": pins,
                    "mode": mode,
                    "ok": ok,
                    "error": None if ok else exception_line(smoke.stderr),
                    "cutoff": cutoff,
                    "installed": {
                        n: v for n, _, v in (ln.partition("==") for ln in compiled.stdout.splitlines()) if v and n[0] != "#"
                    },
                }
        with self.lock:
            self.cache[key] = result
            self.cache_file.write_text(json.dumps(self.cache, indent=1, sort_keys=True))
        print(f"{'ok  ' if result['ok'] else 'FAIL' if result['ok'] is False else 'n/a '} {key}: {result['error'] or ''}",
              flush=True)  # fmt: skip
        return result


def _index(name: str) -> dict[str, Any]:
    with urllib.request.urlopen(INDEX.format(name=name), timeout=60) as response:
        return json.load(response)


def _next_day(*dates: str) -> str:
    return str(dt.date.fromisoformat(max(dates)) + dt.timedelta(days=1))


def measure_pair(runner: Runner, dependent: str, dependency: str, script: str, first: str, jobs: int) -> dict[str, Any]:
    upper = [r for r in minor_releases(_index(dependency), "2000-01-01") if Version(r[0]) >= Version(first)]
    lower = minor_releases(_index(dependent), DEPENDENT_SINCE)
    dates = dict(upper)

    def alone(version: str) -> bool:
        return bool(runner.run([f"{dependency}=={version}"], _next_day(dates[version]), script, "base")["ok"])

    with ThreadPoolExecutor(jobs) as pool:
        usable = [v for v, ok in zip(dates, pool.map(alone, dates)) if ok]

    def window(entry: tuple[str, str]) -> dict[str, Any]:
        version, date = entry
        current = [i for i, v in enumerate(usable) if dates[v] <= date]
        start = current[-1] if current else 0

        def works(other: str) -> bool:
            pins = [f"{dependent}=={version}", f"{dependency}=={other}"]
            return bool(runner.run(pins, _next_day(date, dates[other]), script, "pair")["ok"])

        if not works(usable[start]):
            return {"version": version, "date": date, "current": usable[start], "works_current": False}
        below, above = bisect_window(usable, start, works)
        return {
            "version": version,
            "date": date,
            "current": usable[start],
            "works_current": True,
            "oldest_working": usable[below + 1] if below is not None else usable[0],
            "first_failing_below": usable[below] if below is not None else None,
            "newest_working": usable[above - 1] if above is not None else usable[-1],
            "first_failing_above": usable[above] if above is not None else None,
        }

    with ThreadPoolExecutor(jobs) as pool:
        windows = list(pool.map(window, lower))
    runs = [r for r in runner.cache.values() if r["pins"][0].startswith((f"{dependent}==", f"{dependency}=="))]
    return {
        "dependent": dependent,
        "dependency": dependency,
        "smoke": f"tools/api_smoke/{script}",
        "dependency_releases": upper,
        "usable": usable,
        "windows": windows,
        "runs": sorted(runs, key=lambda r: (r["mode"], r["pins"])),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--uv", default="uv")
    parser.add_argument("--find-links", default="")
    parser.add_argument("--torch", default="torch", help="the torch requirement every environment gets")
    parser.add_argument("--work", required=True, help="a scratch folder (environments, the run cache)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    Path(args.work).mkdir(parents=True, exist_ok=True)
    runner = Runner(args)
    data = {
        "generated": str(dt.date.today()),
        "python": ".".join(map(str, sys.version_info[:3])),
        "torch": args.torch,
        "pairs": [measure_pair(runner, *pair, args.jobs) for pair in PAIRS],
    }
    args.out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
