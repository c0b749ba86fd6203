"""Processes started ahead of need: the interpreter and ``import torch`` paid before a launch.

The collectives suite and the mini-PPO data-parallel tests start one process per rank for
every test, and each pays the interpreter start and ``import torch`` (about 2 to 5 s on a GPU
host) before its first collective. A *warm* process has done exactly that and then waits, idle,
on its stdin for one job: the module to run as ``__main__``, its arguments, its environment
and where its output goes. It runs that job once and exits, so nothing (no process group, no
CUDA context, no communicator) is carried from one test to the next: only the imports are
shared, which is what makes it as safe as a cold start.

A warm process serves a job only when everything that matters before the job starts is the
same: the interpreter, what was imported, and the environment minus the per-rank variables a
job sets itself (:data:`JOB_VARIABLES`: rank, world size, device visibility, rendezvous). A
different ``LD_LIBRARY_PATH``, ``OMP_NUM_THREADS`` or any other variable means a cold start.
``PYTHONPATH`` entries of the job are added to ``sys.path``. Warm processes die with the
process that started them (parent-death signal, and end of stdin), are started in their own
session like a cold rank, and are killed by :func:`shutdown` at exit.
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_rocmcompat.running.processes import die_with_parent, kill_group

#: Variables a job sets for itself; a warm process started without them still serves the job.
JOB_VARIABLES = frozenset(
    {
        "RANK",
        "LOCAL_RANK",
        "WORLD_SIZE",
        "LOCAL_WORLD_SIZE",
        "GROUP_RANK",
        "MASTER_ADDR",
        "MASTER_PORT",
        "CUDA_VISIBLE_DEVICES",
        "HIP_VISIBLE_DEVICES",
        "ROCR_VISIBLE_DEVICES",
        "PYTHONPATH",
        "PYTHONUNBUFFERED",
        "ROCMCOMPAT_WARM",
    }
)
PRELOAD = ("torch", "torch.distributed")
WARM_MARK = "ROCMCOMPAT_WARM"  # "1" in a job that a warm process served


def _fingerprint(env: Mapping[str, str], preload: Sequence[str]) -> tuple:
    return (sys.executable, tuple(preload), tuple(sorted((k, v) for k, v in env.items() if k not in JOB_VARIABLES)))


class WarmPool:
    """Idle warm processes, by what they can serve. One per process that launches ranks."""

    def __init__(self) -> None:
        self._idle: dict[tuple, list[subprocess.Popen]] = {}
        self._lock = threading.Lock()

    def prewarm(self, env: Mapping[str, str], count: int, preload: Sequence[str] = PRELOAD) -> None:
        """Have ``count`` idle processes ready for jobs with this environment (starts the missing)."""
        key = _fingerprint(env, preload)
        with self._lock:
            idle = self._idle.setdefault(key, [])
            idle[:] = [p for p in idle if p.poll() is None]
            for _ in range(max(0, count - len(idle))):
                idle.append(_start(env, preload))

    def popen(
        self,
        module: str,
        argv: Sequence[str],
        env: Mapping[str, str],
        *,
        log: Path | None = None,
        preload: Sequence[str] = PRELOAD,
    ) -> subprocess.Popen:
        """Run ``python -m module *argv`` with ``env``, its output to ``log`` (or a text pipe
        on ``.stdout`` when ``log`` is None), in its own session: in a warm process when one
        fits, else in a process started now the same way.
        """
        key = _fingerprint(env, preload)
        with self._lock:
            idle = self._idle.get(key, [])
            proc = None
            while idle and proc is None:
                candidate = idle.pop(0)
                if candidate.poll() is None:
                    proc = candidate
            warm = proc is not None
        if proc is None:
            proc = _start(env, preload)
        job: dict[str, Any] = {
            "module": module,
            "argv": list(argv),
            "env": {**env, WARM_MARK: "1" if warm else "0"},
            "log": None if log is None else str(log),
            "cwd": os.getcwd(),
        }
        try:
            assert proc.stdin is not None
            _send(proc, job)
        except (BrokenPipeError, OSError):  # it died idle: start the job cold instead
            proc = _start(env, preload)
            job["env"][WARM_MARK] = "0"
            _send(proc, job)
        return proc

    def shutdown(self) -> None:
        """Kill every idle warm process (their sessions, nothing else)."""
        with self._lock:
            procs = [p for idle in self._idle.values() for p in idle]
            self._idle.clear()
        for proc in procs:
            kill_group(proc.pid)
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass


def _send(proc: subprocess.Popen, job: dict) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(job) + "\n")
    proc.stdin.close()
    proc.stdin = None  # communicate() and wait() must not touch it again


def _start(env: Mapping[str, str], preload: Sequence[str]) -> subprocess.Popen:
    base = {k: v for k, v in env.items() if k not in JOB_VARIABLES or k == "PYTHONPATH"}
    return subprocess.Popen(
        [sys.executable, "-m", __name__, *preload],
        env={**base, "PYTHONUNBUFFERED": "1"},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


_POOL: WarmPool | None = None


def pool() -> WarmPool:
    """This process's pool (killed at exit)."""
    global _POOL  # noqa: PLW0603  one pool per process, made on first use
    if _POOL is None:
        _POOL = WarmPool()
        atexit.register(_POOL.shutdown)
    return _POOL


def _serve(preload: Sequence[str]) -> int:
    """The warm side: import, wait for one job, become it."""
    import importlib
    import runpy

    die_with_parent()
    for name in preload:
        try:
            importlib.import_module(name)
        except Exception:
            pass
    line = sys.stdin.readline()
    if not line.strip():
        return 0  # the launcher went away: never used
    job = json.loads(line)
    env = job["env"]
    os.environ.clear()
    os.environ.update(env)
    for entry in reversed([p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    if job.get("cwd"):
        os.chdir(job["cwd"])
    if job.get("log"):
        fd = os.open(job["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
    sys.stdin = open(os.devnull)  # noqa: SIM115 - the job's stdin, as a cold rank's
    sys.argv = [job["module"], *job["argv"]]
    runpy.run_module(job["module"], run_name="__main__", alter_sys=True)
    return 0


if __name__ == "__main__":
    sys.exit(_serve(sys.argv[1:]))
