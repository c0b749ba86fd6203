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
access to PyPI; about 800 smoke runs, about 2 hours on 2 cores (2026-11-28). The tests run :func:`bisect_window`
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
from typing import Any, NamedTuple

from packaging.version import InvalidVersion, Version

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "pytest_rocmcompat" / "knowledge" / "data" / "api_pairs.json"
SMOKE = Path(__file__).resolve().parent / "api_smoke"
INDEX = "https://pypi.org/pypi/{name}/json"


class Pair(NamedTuple):
    """A dependent library, the library under it, and how their pairs are run."""

    dependent: str
    dependency: str
    script: str  # the smoke run, in tools/api_smoke/
    first: str  # the oldest dependency series measured
    since: str  # the oldest dependent release measured (its upload date)
    features: tuple[str, ...]  # what the smoke run reports on, each judged by a window of its own
    core: tuple[str, ...]  # the features every user of the pair meets (the others: one method of it)
    alone: tuple[str, ...] = ()  # what the dependency's run alone installs beside it, resolved as of its date


PAIRS: tuple[Pair, ...] = (
    Pair("peft", "transformers", "peft_transformers.py", "4.26", "2023-01-01", ("lora", "prefix", "prompt"), ("lora",)),
    # the Trainer runs on accelerate: each transformers series alone gets the accelerate of its date; code using
    # transformers without the Trainer never meets its failures (no core feature)
    Pair(
        "accelerate",
        "transformers",
        "accelerate_transformers.py",
        "4.30",
        "2024-01-01",
        ("trainer",),
        (),
        ("accelerate",),
    ),
)
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
# what every environment holds whatever its date: setuptools before 82, whose pkg_resources releases of
# 2023-2024 import (torch 2.13 needs setuptools >= 77.0.3, which is exempt from the cut-off with torch's
# other requirements; setuptools 82.0.0 removed pkg_resources)
ENVIRONMENT_OVERRIDES = ("setuptools<82",)
# how far apart the releases probed on each side of a window are (then bisected): accelerate 1.0 works with
# transformers 4.30 and fails with 4.38 (``dispatch_batches``), so the far end alone does not tell
SAMPLE_EVERY = 4
# an installed file's folder, as exception texts name it (ImportError's "(…/site-packages/x/__init__.py)")
_SITE = re.compile(r"[^\s\"'(]*/site-packages/")
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


def bisect_window(releases: Sequence[str], start: int, works: Callable[[str], bool]) -> tuple[int | None, int | None]:
    """The indexes of the nearest failing release below and above ``start`` (``None``: none found).

    ``works(releases[start])`` is assumed. Each side is probed every :data:`SAMPLE_EVERY` releases and at
    its far end, outward from ``start``; the first failing probe is bisected against the working probe
    before it. A failure is taken to hold for every release farther out, except where a run says otherwise
    (``measured_pairs`` lets a release that was run and worked win); an island of failures narrower than
    the probe step may be missed.
    """

    def first_failure(candidates: list[int]) -> int | None:
        probes = sorted({*range(SAMPLE_EVERY - 1, len(candidates), SAMPLE_EVERY), len(candidates) - 1} - {-1})
        lo = 0  # candidates[:lo] ran (or lie between probes that ran)
        for probe in probes:
            if works(releases[candidates[probe]]):
                lo = probe + 1
                continue
            hi = probe  # candidates[hi] fails; find the nearest failing one after the last working probe
            while lo < hi:
                mid = (lo + hi) // 2
                if works(releases[candidates[mid]]):
                    lo = mid + 1
                else:
                    hi = mid
            return candidates[lo]
        return None

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
        """One smoke run of ``pins`` resolved as of ``cutoff`` (cached by script, pins and mode)."""
        key = f"{script}: {' '.join(pins)} | {mode}"
        if key in self.cache:
            return self.cache[key]
        venv = self.venv()
        resolved = self._resolve(pins, cutoff)
        result: dict[str, Any] = {"pins": pins, "mode": mode, "script": script, "cutoff": cutoff}
        if isinstance(resolved, str):  # no environment: neither works nor fails, not judged
            result |= {"ok": None, "error": resolved}
        else:
            python = str(venv / "bin" / "python")
            lock = Path(self.args.work) / f"{venv.name}.txt"
            lock.write_text("".join(f"{n}=={v}\n" for n, v in resolved.items()))
            sync = _quiet([self.args.uv, "pip", "sync", "-q", "-p", python, str(lock), *self._links()])
            if sync.returncode != 0:
                result |= {"ok": None, "error": exception_line(sync.stderr)}
            else:
                env = {**os.environ, "PYTHONWARNINGS": "ignore", "TOKENIZERS_PARALLELISM": "false"}
                smoke = _quiet([python, str(SMOKE / script), mode], env=env, cwd=self.args.work)
                ok = smoke.returncode == 0 and smoke.stdout.strip().endswith("OK")
                features = next(
                    (json.loads(line[9:]) for line in smoke.stdout.splitlines() if line.startswith("FEATURES ")), None
                )
                error = (
                    None
                    if ok
                    else exception_line(smoke.stderr)
                    if features is None
                    else "; ".join(f"{name}: {text}" for name, text in features.items() if text)
                )
                result |= {"ok": ok, "features": features, "error": error, "installed": resolved}
        with self.lock:
            self.cache[key] = result
            self.cache_file.write_text(json.dumps(self.cache, indent=1, sort_keys=True))
        verdict = {True: "ok  ", False: "FAIL", None: "n/a "}[result["ok"]]
        print(f"{verdict} {key}: {result['error'] or ''}", flush=True)
        return result

    def _links(self) -> list[str]:
        return ["--find-links", self.args.find_links] if self.args.find_links else []

    def _resolve(self, pins: list[str], cutoff: str) -> dict[str, str] | str:
        """``{name: version}`` of ``pins`` and the torch under test as of ``cutoff``, or uv's refusal."""
        override = Path(self.args.work) / "override.txt"
        override.write_text("\n".join([self.args.torch, *ENVIRONMENT_OVERRIDES]) + "\n")
        exempt = [f"--exclude-newer-package={name}={dt.date.today()}" for name in TORCH_DEPENDENCIES]
        command = [self.args.uv, "pip", "compile", "-q", "-", "--python-version", "3.11", "--override", str(override)]
        compiled = _quiet(
            [*command, "--exclude-newer", cutoff, *exempt, *self._links()], stdin="\n".join([*pins, self.args.torch])
        )
        if compiled.returncode != 0:
            return exception_line(compiled.stderr)
        lines = (line.partition("==") for line in compiled.stdout.splitlines() if not line.startswith(("#", " ")))
        return {name.strip(): version.strip() for name, _, version in lines if version}


def _quiet(command: list[str], *, stdin: str | None = None, **options: Any) -> subprocess.CompletedProcess[str]:
    """``command``'s exit status and output, never raising for a failure (a failure is the measurement)."""
    try:
        return subprocess.run(command, input=stdin, capture_output=True, text=True, check=False, timeout=900, **options)
    except subprocess.TimeoutExpired:  # a hang is a failure too, reported as one
        return subprocess.CompletedProcess(command, -9, "", "TimeoutError: no result in 900 s")


def _index(name: str) -> dict[str, Any]:
    with urllib.request.urlopen(INDEX.format(name=name), timeout=60) as response:
        return json.load(response)


def _next_day(*dates: str) -> str:
    return str(dt.date.fromisoformat(max(dates)) + dt.timedelta(days=1))


def measure_pair(runner: Runner, pair: Pair, jobs: int) -> dict[str, Any]:
    dependent, dependency, script = pair.dependent, pair.dependency, pair.script
    upper = [r for r in minor_releases(_index(dependency), "2000-01-01") if Version(r[0]) >= Version(pair.first)]
    lower = minor_releases(_index(dependent), pair.since)
    dates = dict(upper)

    def alone(version: str) -> bool:
        pins = [f"{dependency}=={version}", *pair.alone]
        return bool(runner.run(pins, _next_day(dates[version]), script, "base")["ok"])

    with ThreadPoolExecutor(jobs) as pool:
        usable = [v for v, ok in zip(dates, pool.map(alone, dates), strict=True) if ok]

    def window(entry: tuple[str, str]) -> dict[str, Any]:
        version, date = entry
        current = [i for i, v in enumerate(usable) if dates[v] <= date]
        start = current[-1] if current else 0
        found: dict[str, Any] = {"version": version, "date": date, "current": usable[start], "features": {}}
        for feature in pair.features:

            def works(other: str, feature: str = feature) -> bool:
                pins = [f"{dependent}=={version}", f"{dependency}=={other}"]
                ran = runner.run(pins, _next_day(date, dates[other]), script, "pair")
                return ran["ok"] is True or (ran.get("features") or {}).get(feature, "absent") is None

            if not works(usable[start]):  # not even beside the dependency of its day: not judged
                found["features"][feature] = None
                continue
            below, above = bisect_window(usable, start, works)
            found["features"][feature] = {
                "oldest_working": usable[below + 1] if below is not None else usable[0],
                "first_failing_below": usable[below] if below is not None else None,
                "newest_working": usable[above - 1] if above is not None else usable[-1],
                "first_failing_above": usable[above] if above is not None else None,
            }
        return found

    with ThreadPoolExecutor(jobs) as pool:
        windows = list(pool.map(window, lower))
    runs = [r for r in runner.cache.values() if r["script"] == script]
    return {
        "dependent": dependent,
        "dependency": dependency,
        "smoke": f"tools/api_smoke/{script}",
        "features": list(pair.features),
        "core_features": list(pair.core),
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
    parser.add_argument("--only", nargs="*", help="measure only the pairs of these dependents")
    args = parser.parse_args(argv)
    Path(args.work).mkdir(parents=True, exist_ok=True)
    runner = Runner(args)
    data = {
        "generated": str(dt.date.today()),
        "python": ".".join(map(str, sys.version_info[:3])),
        "torch": args.torch,
        "pairs": [
            measure_pair(runner, pair, args.jobs) for pair in PAIRS if not args.only or pair.dependent in args.only
        ],
    }
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    # exception texts name installed files (ImportError's "(…/site-packages/x/__init__.py)"): the scratch
    # folder is this machine's, not part of the measurement
    args.out.write_text(_SITE.sub("<site-packages>/", text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
