"""What ``rocm_gc_freeze`` (gc.freeze after collection, on by default) does to a host suite.

A generated suite of ``--tests`` tests (``--files`` files; each test builds and drops
``--garbage`` objects in reference cycles, so the collector runs throughout; every 50th test
keeps a cyclic structure alive in its module until the end) runs as real pytest
subprocesses, interleaved: plain pytest (``-p no:rocmcompat``), the plugin with
``rocm_gc_freeze=true`` and with ``false``. The suite's conftest records, in the pytest
process, the time spent in garbage collections per generation (``gc.callbacks``), the number
of collections and the peak resident memory (``ru_maxrss``). Times are CPU seconds
(``time.process_time``), which a loaded machine disturbs far less than wall time.

    python bench/gc_freeze.py [--reps 5] [--tests 4000] [--out .bench/gc_freeze.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

from _common import default_out, interleave, machine, summary, table, timed_run, write_json

CONFTEST = """
import gc, json, os, resource, time

_gc = {"time": [0.0, 0.0, 0.0], "count": [0, 0, 0]}
_start = {}

def _cb(phase, info):
    if phase == "start":
        _start["t"] = time.process_time()
    else:
        g = info["generation"]
        _gc["time"][g] += time.process_time() - _start.pop("t", time.process_time())
        _gc["count"][g] += 1

gc.callbacks.append(_cb)

def pytest_unconfigure(config):
    out = os.environ.get("GC_BENCH_OUT")
    if out:
        with open(out, "w") as fh:
            json.dump({**_gc, "maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                       "cpu_s": time.process_time(),
                       "frozen_at_end": gc.get_freeze_count()}, fh)
"""

TEST_FILE = """
import pytest

KEPT = []

class Node:
    def __init__(self, parent):
        self.parent = parent
        self.children = []
        self.payload = {{"k": [1, 2, 3]}}
        if parent is not None:
            parent.children.append(self)

@pytest.mark.parametrize("i", range({per_file}))
def test_builds_garbage(i):
    root = Node(None)
    for _ in range({garbage}):
        Node(root)
    if i % 50 == 0:
        KEPT.append(root)
    assert len(root.children) == {garbage}
"""


def make_suite(root: Path, tests: int, files: int, garbage: int) -> None:
    (root / "conftest.py").write_text(CONFTEST)
    for f in range(files):
        (root / f"test_gc_{f:03d}.py").write_text(TEST_FILE.format(per_file=tests // files, garbage=garbage))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--tests", type=int, default=4000)
    ap.add_argument("--files", type=int, default=40)
    ap.add_argument("--garbage", type=int, default=200, help="objects each test creates and drops")
    ap.add_argument("--out", default=default_out("gc_freeze"))
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="rocmcompat-gc-bench-"))
    make_suite(work, args.tests, args.files, args.garbage)
    env = {**os.environ, "ROCMCOMPAT_CACHE_DIR": str(work / "cache")}
    env.pop("PYTEST_ADDOPTS", None)
    base = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rocm-no-bundled"]
    variants = {
        "plain pytest": [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:rocmcompat"],
        "plugin, rocm_gc_freeze=true": [*base, "-o", "rocm_gc_freeze=true"],
        "plugin, rocm_gc_freeze=false": [*base, "-o", "rocm_gc_freeze=false"],
    }
    inner: dict[str, list[dict]] = {name: [] for name in variants}

    def go(name: str):
        def run() -> float:
            out = work / "gc.json"
            wall, _ = timed_run(variants[name], cwd=work, env={**env, "GC_BENCH_OUT": str(out)})
            inner[name].append(json.loads(out.read_text()))
            return wall

        return run

    walls = interleave({name: go(name) for name in variants}, args.reps)
    rows, result = [], {}
    for name, samples in walls.items():
        kept = inner[name][-args.reps :]
        gc_time = [sum(k["time"]) for k in kept]
        gen2 = [k["time"][2] for k in kept]
        rss = [k["maxrss_kib"] / 1024 for k in kept]
        cpu = [k["cpu_s"] for k in kept]
        result[name] = {
            "wall_s": summary(samples),
            "cpu_s": summary(cpu),
            "gc_s": summary(gc_time),
            "gc_gen2_s": summary(gen2),
            "maxrss_mib": summary(rss),
            "collections": kept[-1]["count"],
            "raw": kept,
        }
        rows.append(
            [
                name,
                statistics.median(samples),
                statistics.median(cpu),
                statistics.median(gc_time),
                statistics.median(gen2),
                kept[-1]["count"][2],
                statistics.median(rss),
            ]
        )
    out = write_json(
        args.out,
        {
            "benchmark": "gc_freeze",
            "machine": machine(),
            "reps": args.reps,
            "tests": args.tests,
            "garbage_per_test": args.garbage,
            "variants": result,
        },
    )
    print(
        table(
            rows,
            [
                "variant",
                "wall median s",
                "CPU median s",
                "GC CPU median s",
                "GC gen2 CPU median s",
                "gen2 collections",
                "peak RSS median MiB",
            ],
        )
    )
    print(f"\nresults: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
