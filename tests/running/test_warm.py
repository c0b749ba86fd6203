"""Warm processes (``pytest_rocmcompat.running.warm``): imports paid ahead, one job each, nothing left.

Real processes throughout: a warm process really imports (``json`` stands in for torch where
the point is the protocol), really runs the job module as ``__main__`` and really dies."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from pytest_rocmcompat.running.warm import WARM_MARK, WarmPool
from tests.collectives.test_collectives import GLOO2, SMALL, needs_torch
from tests.conftest import REPO, process_running

JOB = textwrap.dedent(
    f"""
    import json, os, sys
    print(json.dumps({{"argv": sys.argv[1:], "rank": os.environ.get("RANK"), "warm": os.environ.get("{WARM_MARK}"),
                      "pid": os.getpid(), "json_preloaded": "json" in sys.modules, "name": __name__}}))
    sys.exit(int(os.environ.get("EXIT", "0")))
"""
)


@pytest.fixture
def job_module(tmp_path: Path) -> tuple[str, dict[str, str]]:
    (tmp_path / "warmjob.py").write_text(JOB, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")])))
    return "warmjob", env


def test_a_prewarmed_process_serves_one_job_then_exits(job_module, tmp_path: Path) -> None:
    import json

    module, env = job_module
    warm = WarmPool()
    try:
        warm.prewarm(env, 1, preload=("json",))
        time.sleep(0.5)
        idle_pid = next(iter(warm._idle.values()))[0].pid
        proc = warm.popen(module, ["a", "b c"], dict(env, RANK="3"), preload=("json",))
        out, _ = proc.communicate(timeout=60)
        result = json.loads(out.strip().splitlines()[-1])
        assert proc.returncode == 0
        assert result == {
            "argv": ["a", "b c"],
            "rank": "3",
            "warm": "1",
            "pid": idle_pid,
            "json_preloaded": True,
            "name": "__main__",
        }
        # cold when nothing is warm: same protocol, marked cold
        cold = warm.popen(module, [], dict(env, RANK="0", EXIT="3"), preload=("json",))
        out, _ = cold.communicate(timeout=60)
        assert cold.returncode == 3 and json.loads(out.strip().splitlines()[-1])["warm"] == "0"
    finally:
        warm.shutdown()


def test_a_different_environment_never_gets_a_warm_process(job_module) -> None:
    """A variable read at start-up (LD_LIBRARY_PATH, OMP_NUM_THREADS, ...) may differ: cold start."""
    import json

    module, env = job_module
    warm = WarmPool()
    try:
        warm.prewarm(env, 1, preload=("json",))
        proc = warm.popen(module, [], dict(env, OMP_NUM_THREADS="7"), preload=("json",))
        out, _ = proc.communicate(timeout=60)
        assert json.loads(out.strip().splitlines()[-1])["warm"] == "0"
        assert len(next(iter(warm._idle.values()))) == 1  # the warm one is still waiting
    finally:
        warm.shutdown()


def test_idle_warm_processes_die_on_shutdown_and_with_their_parent(job_module, tmp_path: Path) -> None:
    _module, env = job_module
    warm = WarmPool()
    warm.prewarm(env, 2, preload=("json",))
    pids = [p.pid for idle in warm._idle.values() for p in idle]
    warm.shutdown()
    assert not [p for p in pids if process_running(p)]
    # a launcher killed with SIGKILL: its warm processes go too (end of stdin, parent-death signal)
    script = textwrap.dedent(f"""
        import os, sys, time
        sys.path.insert(0, {str(REPO)!r})
        from pytest_rocmcompat.running.warm import WarmPool
        w = WarmPool(); w.prewarm(dict(os.environ), 2, preload=("json",))
        print(" ".join(str(p.pid) for idle in w._idle.values() for p in idle), flush=True)
        time.sleep(60)
    """)
    launcher = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    children = [int(p) for p in launcher.stdout.readline().split()]
    assert len(children) == 2
    launcher.send_signal(signal.SIGKILL)
    launcher.wait()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and any(process_running(p) for p in children):
        time.sleep(0.2)
    assert not [p for p in children if process_running(p)]


@needs_torch
def test_the_second_launch_runs_on_warm_ranks_and_leaves_nothing() -> None:
    from pytest_rocmcompat.collectives.launcher import launch
    from pytest_rocmcompat.running.warm import pool

    first = launch(GLOO2, SMALL, timeout=120, op_timeout=60)
    assert first.outcome == "pass", first.message
    second = launch(GLOO2, SMALL, timeout=120, op_timeout=60)
    assert second.outcome == "pass", second.message
    warmth = [r.last("start").get("warm") for r in second.ranks]
    assert warmth == [True, True], warmth  # both ranks were started ahead, during the first launch
    assert not second.survivors
    idle = [p.pid for procs in pool()._idle.values() for p in procs]
    pool().shutdown()
    assert not [p for p in idle if process_running(p)]
