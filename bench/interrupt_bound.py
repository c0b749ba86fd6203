"""How long an interrupted session takes to exit after the last SIGINT/SIGTERM (issue 24, item 3).

Real sessions in their own process group, real signals to the whole group, for each sequence
(one SIGTERM; two 0.15 s apart; SIGINT then two SIGTERMs) at each moment: while an isolated
test (and a child of its own) sleeps, while a real gloo collectives launch runs on CPU (the
bundled suite, rank 1 stalled in broadcast), and while the results are being written (a conftest
whose ``pytest_sessionfinish`` takes 5 s, longer than the bound), serially and under ``-n 2``.
Measured: the time from the last signal to the exit of the session's process, over ``--reps``
runs; also the exit statuses, whether JUnit was complete, and processes of the session (noted
before the signals) still alive after it. The documented bound (issue 24): the session ends at
most 2 s after the second signal (``interrupt.BOUND_S`` = 1.5 s); a single signal has none
(pytest unwinds and the writers run, a slow writer to its end: one cancel loses nothing).

    python bench/interrupt_bound.py [--reps 3] [--out .bench/interrupt_bound.json]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass
from pathlib import Path

from _common import REPO, default_out, machine, write_json
from tabulate import tabulate

from pytest_rocmcompat.running.processes import descendants, identity
from pytest_rocmcompat.session.interrupt import BOUND_S
from pytest_rocmcompat.stack.environment import Environment

DOCUMENTED_BOUND_S = 2.0  # issue 24: at most 2 s after the second signal
GAP_S = 0.15
SIGNALS = {"INT": signal.SIGINT, "TERM": signal.SIGTERM}
SEQUENCES: tuple[tuple[str, ...], ...] = (("TERM",), ("TERM", "TERM"), ("INT", "TERM", "TERM"))
MOMENTS = ("isolated test", "collectives launch", "report writing")
MODES = ("serial", "-n 2")
READY_S = 300

ISOLATED_SUITE = """
import os, subprocess, sys, time, pytest

def test_a_passes():
    pass

@pytest.mark.isolated(timeout=300)
def test_b_isolated_and_its_child_sleep():
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    open(os.environ["STARTED"], "w").close()
    time.sleep(600)

@pytest.mark.parametrize("i", range(4))
def test_c_after(i):
    pass
"""
FAST_SUITE = "def test_one():\n    pass\n\ndef test_two():\n    pass\n"
SLOW_WRITER = """
import os, time, pytest

@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session):
    if not hasattr(session.config, "workerinput"):
        open(os.environ["STARTED"], "w").close()
        time.sleep(5.0)
"""
STALL = [{"rank": 1, "at": "broadcast", "kind": "stall", "spawn_child": True}]
LAUNCH_ENV = {
    "ROCMCOMPAT_COLLECTIVES_FAULT": json.dumps(STALL),
    "ROCMCOMPAT_COLLECTIVES_MAX_BYTES": "4096",
    "ROCMCOMPAT_COLLECTIVES_TIMEOUT": "600",
    "ROCMCOMPAT_COLLECTIVES_OP_TIMEOUT": "600",
}


def _living_tree(root: int) -> dict[int, tuple[bytes, str]]:
    """Pid -> identity (start time, command line) of every living descendant of ``root``."""
    return {pid: ident for pid in descendants([root]) if (ident := identity(pid)) is not None}


def _launch_stalled(tmp: Path) -> bool:
    # in TMPDIR, or in the session's folder there
    for log in (tmp / "tmp").glob("**/rocmcompat-collectives-*/rank*.jsonl"):
        if '"event": "child"' in log.read_text(errors="replace"):
            return True
    return False


def _prepare(root: Path, moment: str) -> tuple[list[str], dict[str, str], int]:
    """The session's argv, environment and number of tests, in a fresh folder ``root``."""
    (root / "tmp").mkdir(parents=True)
    env = {
        **os.environ,
        "STARTED": str(root / "started"),
        "TMPDIR": str(root / "tmp"),
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--junitxml", "out/junit.xml"]
    argv += ["--rocm-report", "out/report.md"]
    if moment == "collectives launch":
        (root / "env.json").write_text(
            Environment(platform="cpu", python="3.11.7", torch="2.13.0+cpu", os="Linux 6.1").to_json()
        )
        argv += [str(REPO / "suites" / "collectives"), "--rocm-matrix", str(REPO / "matrices" / "cpu.yaml")]
        argv += ["--rocm-env", "env.json"]
        env.update(LAUNCH_ENV)
        return argv, env, 34
    argv += ["test_suite.py", "--rocm-no-bundled", "-o", "rocm_isolate_preload="]
    if moment == "isolated test":
        (root / "test_suite.py").write_text(ISOLATED_SUITE)
        return argv, env, 6
    (root / "test_suite.py").write_text(FAST_SUITE)
    (root / "conftest.py").write_text(SLOW_WRITER)
    return argv, env, 2


@dataclass
class Run:
    """One interrupted session, as measured."""

    after_last_s: float  # from the last signal sent to the exit of the session's process
    after_second_s: float | None
    signals_sent: int
    exit: int
    junit_complete: bool  # the JUnit file parses and holds every collected test
    survivors: int  # processes of the session, noted before the signals, alive 5 s after its exit
    survivor_commands: list[str]
    stray_tmp: int  # *.tmp files left anywhere in the run's folder
    left_folders: list[str]  # rocmcompat-* folders left in TMPDIR (session, collectives)


def one_run(root: Path, moment: str, mode: str, sequence: tuple[str, ...]) -> Run:
    """One interrupted session: seconds from the last (and the second) signal to its exit, and more."""
    argv, env, tests = _prepare(root, moment)
    argv += ["-n", "2"] if mode == "-n 2" else ["-p", "no:xdist"]
    proc = subprocess.Popen(
        argv, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    deadline = time.monotonic() + READY_S
    ready = (lambda: _launch_stalled(root)) if moment == "collectives launch" else (root / "started").exists
    while not ready():
        if proc.poll() is not None or time.monotonic() > deadline:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            raise RuntimeError(f"{moment}, {mode}: the session never reached the moment (exit {proc.wait()})")
        time.sleep(0.02)
    tree = _living_tree(proc.pid)
    sent: list[float] = []
    for i, name in enumerate(sequence):
        if i:
            time.sleep(GAP_S)
        if proc.poll() is not None:
            break
        sent.append(time.monotonic())
        os.killpg(proc.pid, SIGNALS[name])
    try:
        code = proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        code = proc.wait()
    ended = time.monotonic()
    deadline = time.monotonic() + 5
    while (left := [pid for pid, ident in tree.items() if identity(pid) == ident]) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in sorted(left):  # keep the machine clean (same process only: pids are reused)
        if identity(pid) == tree[pid]:
            os.kill(pid, signal.SIGKILL)
    return Run(
        after_last_s=ended - sent[-1],
        after_second_s=ended - sent[1] if len(sent) > 1 else None,
        signals_sent=len(sent),
        exit=code,
        junit_complete=_junit_count(root / "out" / "junit.xml") == tests,
        survivors=len(left),
        survivor_commands=[tree[pid][1][:120] for pid in left],
        stray_tmp=sum(1 for p in root.rglob("*") if p.name.endswith(".tmp")),
        left_folders=sorted(p.name.split("-")[1] for p in (root / "tmp").glob("rocmcompat-*")),
    )


def _junit_count(path: Path) -> int:
    try:
        return sum(1 for _ in ET.parse(path).iter("testcase"))
    except (OSError, ET.ParseError):
        return -1


def bound_applies(moment: str, sequence: tuple[str, ...]) -> bool:
    """The bound starts at the second signal (a first one during writing lets the writers finish)."""
    return len(sequence) > 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--out", default=default_out("interrupt_bound"))
    args = parser.parse_args()
    runs: dict[str, list[Run]] = {}
    rows = []
    with tempfile.TemporaryDirectory(prefix="interrupt-bound-") as tmp:
        n = 0
        for rep in range(args.reps):  # interleaved: every case once per repetition
            for moment in MOMENTS:
                for mode in MODES:
                    for sequence in SEQUENCES:
                        key = f"{moment} | {mode} | {'+'.join(sequence)}"
                        n += 1
                        result = one_run(Path(tmp) / f"run{n}", moment, mode, sequence)
                        runs.setdefault(key, []).append(result)
                        print(f"  rep {rep + 1}/{args.reps} {key}: {result.after_last_s:.2f} s", file=sys.stderr)
    held_all = True
    for key, results in runs.items():
        moment, mode, seq = key.split(" | ")
        sequence = tuple(seq.split("+"))
        after_last = [r.after_last_s for r in results]
        if bound_applies(moment, sequence):
            # after the second signal
            measured = [r.after_second_s or r.after_last_s for r in results]
            held = max(measured) <= DOCUMENTED_BOUND_S
            held_all &= held
            bound = "held" if held else "NOT held"
        else:
            bound = "n/a"
        rows.append(
            [
                moment,
                mode,
                seq,
                statistics.median(after_last),
                max(after_last),
                bound,
                ",".join(sorted({str(r.exit) for r in results})),
                sum(r.junit_complete for r in results),
                sum(r.survivors for r in results),
                sum(r.stray_tmp for r in results),
                sum(len(r.left_folders) for r in results),
            ]
        )
    headers = [
        "moment",
        "mode",
        "signals (group)",
        "median s after last",
        "max s after last",
        f"bound {DOCUMENTED_BOUND_S:g} s",
        "exit",
        f"JUnit complete (of {args.reps})",
        "survivors",
        "*.tmp left",
        "folders left",
    ]
    print(tabulate(rows, headers=headers, floatfmt=".2f", tablefmt="github"))
    print(
        f"bound (at most {DOCUMENTED_BOUND_S:g} s after the second signal; interrupt.BOUND_S = {BOUND_S} s): "
        f"{'held' if held_all else 'NOT held'} in every run where it applies"
    )
    write_json(
        args.out,
        {
            "reps": args.reps,
            "machine": machine(),
            "documented_bound_s": DOCUMENTED_BOUND_S,
            "bound_s": BOUND_S,
            "runs": {key: [asdict(r) for r in results] for key, results in runs.items()},
            "table": {"headers": headers, "rows": rows},
            "bound_held": held_all,
        },
    )
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
