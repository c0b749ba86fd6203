"""Where the time of a fresh isolated suite goes: a timeline of one session, per test and phase.

Runs real pytest sessions of N isolated torch tests (``gpus(1)`` where the host has an NVIDIA
GPU, so each next test's process is a warmed standby) with a conftest that stamps the wall
clock (``time.time()``, comparable across processes) at the session's start, at each test's
start and end in the session's process, and, in the process that runs the test, at its
collection, at the start and end of the test's body and at its protocol's end. Printed per
session: the start until the first test began (the template's start-up), and medians per test
of: session's test start -> child's collection (fork or standby hand-over, the command),
collection -> body, the body, body end -> child's protocol end (reporting), child's end ->
session's test end (the child's exit, the end's detection, the session's own reporting), and
the gap between one test's end and the next one's start in the session. Also, in a process
that imported torch (CUDA untouched): one bare ``fork`` + ``_exit`` + ``waitpid``, and the
process-tree scans the session makes per test.

    python bench/isolation_timeline.py [--tests 10] [--reps 3] [--out .bench/isolation_timeline.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import default_out, machine, table, write_json
from isolation_overhead import TORCH_TEST, recorded_environment

CONFTEST = """
import json, os, time
import pytest

_PATH = os.environ["RCB_STAMPS"]
_CHILD = os.environ.get("ROCMCOMPAT_ISOLATED") == "1" or os.environ.get("PYTEST_ROCMCOMPAT_ISOLATED") == "1"


def stamp(event, nodeid=""):
    line = json.dumps({"t": time.time(), "pid": os.getpid(), "event": event, "nodeid": nodeid})
    with open(_PATH, "a") as fh:
        fh.write(line + "\\n")


def pytest_sessionstart(session):
    stamp("sessionstart")


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session):
    stamp("sessionfinish-last")


def pytest_unconfigure(config):
    stamp("unconfigure")


def pytest_collectstart(collector):
    if isinstance(collector, pytest.Module):
        stamp("collectstart", collector.nodeid)


def pytest_runtest_logstart(nodeid, location):
    stamp("logstart", nodeid)


def pytest_runtest_logfinish(nodeid, location):
    stamp("logfinish", nodeid)


@pytest.fixture(autouse=True)
def _body(request):
    stamp("body", request.node.nodeid)
    yield
    stamp("bodyend", request.node.nodeid)
"""


def write_suite(root: Path, n: int) -> None:
    mark = "@pytest.mark.isolated(timeout=300)\n@pytest.mark.gpus(1)\n"
    (root / "test_iso_gpu.py").write_text("import pytest\n" + "".join(mark + TORCH_TEST.format(i=i) for i in range(n)))
    (root / "conftest.py").write_text(CONFTEST)
    (root / "pytest.ini").write_text("[pytest]\n")
    (root / "env.json").write_text(recorded_environment().to_json())


def session(root: Path, extra: list[str]) -> dict:
    stamps = root / "stamps.jsonl"
    stamps.unlink(missing_ok=True)
    env = {**os.environ, "RCB_STAMPS": str(stamps)}
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rocm-env", "env.json", *extra]
    t0 = time.time()
    done = subprocess.run([*argv, "test_iso_gpu.py"], cwd=root, env=env, capture_output=True, text=True, check=False)
    wall = time.time() - t0
    if done.returncode != 0:
        sys.stderr.write(done.stdout[-3000:] + done.stderr[-3000:])
    events = [json.loads(line) for line in stamps.read_text().splitlines()]
    return {"wall": wall, "t0": t0, "events": events}


def phases(run: dict) -> dict[str, float]:
    """Per-phase figures of one session (medians over its tests)."""
    events = run["events"]
    main = next(e["pid"] for e in events if e["event"] == "sessionstart")
    at: dict[tuple[str, int, str], float] = {}
    for e in events:
        at.setdefault((e["event"], e["pid"], e["nodeid"]), e["t"])  # the first of each
    nodeids = [e["nodeid"] for e in events if e["event"] == "logstart" and e["pid"] == main]
    child = {e["nodeid"]: e["pid"] for e in events if e["event"] == "logstart" and e["pid"] != main}
    rows: dict[str, list[float]] = {}

    def span(a: tuple[str, int, str], b: tuple[str, int, str]) -> float | None:
        return at[b] - at[a] if a in at and b in at else None

    for i, node in enumerate(nodeids):
        pid, module = child.get(node, -1), node.split("::")[0]
        figures = {
            "session test start -> child collects": span(("logstart", main, node), ("collectstart", pid, module)),
            "child collects -> child test start": span(("collectstart", pid, module), ("logstart", pid, node)),
            "child test start -> body": span(("logstart", pid, node), ("body", pid, node)),
            "body (the matmul)": span(("body", pid, node), ("bodyend", pid, node)),
            "child test start -> child test end": span(("logstart", pid, node), ("logfinish", pid, node)),
            "child test end -> session test end": span(("logfinish", pid, node), ("logfinish", main, node)),
            "session test (start -> end)": span(("logstart", main, node), ("logfinish", main, node)),
        }
        if i + 1 < len(nodeids):
            figures["session: test end -> next start"] = span(
                ("logfinish", main, node), ("logstart", main, nodeids[i + 1])
            )
        for name, value in figures.items():
            if value is not None:
                rows.setdefault(name, []).append(value)
    out = {k: statistics.median(v) for k, v in rows.items()}
    first, last = (nodeids[0], nodeids[-1]) if nodeids else ("", "")
    end_of_tests = at.get(("logfinish", main, last), run["t0"])
    out["process start -> session start"] = at.get(("sessionstart", main, ""), run["t0"]) - run["t0"]
    out["session start -> first test start"] = span(("sessionstart", main, ""), ("logstart", main, first)) or 0.0
    out["first test: start -> child collects (template start-up)"] = (
        span(("logstart", main, first), ("collectstart", child.get(first, -1), first.split("::")[0])) or 0.0
    )
    out["last test end -> session finished (sandboxes closed)"] = (
        at.get(("sessionfinish-last", main, ""), end_of_tests) - end_of_tests
    )
    out["session finished -> unconfigure"] = span(("sessionfinish-last", main, ""), ("unconfigure", main, "")) or 0.0
    out["unconfigure -> process exit"] = run["t0"] + run["wall"] - at.get(("unconfigure", main, ""), end_of_tests)
    out["wall"] = run["wall"]
    return out


def micro(reps: int) -> dict[str, float]:
    """fork + _exit + waitpid in a process that imported torch; the session's /proc scans."""
    code = f"""
import os, time, json, statistics
import torch
from pytest_rocmcompat.running.processes import children_of, descendants
def one():
    t = time.perf_counter(); pid = os.fork()
    if pid == 0: os._exit(0)
    os.waitpid(pid, 0); return time.perf_counter() - t
forks = [one() for _ in range({reps})]
import gc; gc.freeze()
frozen = [one() for _ in range({reps})]
t = time.perf_counter(); [children_of(os.getpid()) for _ in range(20)]; c = (time.perf_counter() - t) / 20
t = time.perf_counter(); [descendants([os.getpid()]) for _ in range(20)]; d = (time.perf_counter() - t) / 20
print(json.dumps({{"fork+exit+wait": statistics.median(forks), "same after gc.freeze()": statistics.median(frozen),
                  "children_of": c, "descendants (full /proc scan)": d, "processes": len(os.listdir('/proc'))}}))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=10)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--out", default=default_out("isolation_timeline"))
    parser.add_argument("--extra", action="append", default=[], help="extra pytest argument (repeatable)")
    args = parser.parse_args()
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_suite(root, args.tests)
        for _ in range(args.reps):
            runs.append(session(root, args.extra))
    figures = [phases(r) for r in runs]
    keys = list(figures[0])
    med = {k: statistics.median(f[k] for f in figures if k in f) for k in keys}
    print(
        table(
            [(k, round(v, 4)) for k, v in med.items()],
            (f"median of {args.reps} sessions, {args.tests} tests (s)", "value"),
        )
    )
    small = micro(20)
    print(table([(k, round(v, 5)) for k, v in small.items()], ("torch-imported process", "value")))
    write_json(args.out, {"machine": machine(), "medians": med, "sessions": figures, "micro": small, "runs": runs})
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
