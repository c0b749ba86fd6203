"""Spawn one process per rank, time-limit them, kill what is left, read what they wrote.

Every rank runs in its own session (``start_new_session``), so ``killpg`` reaches
anything it started. When the wall-clock limit passes, or a rank ends badly and the
others have not finished ``grace`` seconds later, every rank's group is killed; the
processes of those groups (found in ``/proc``) are recorded and checked to be gone.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from pytest_rocmcompat.collectives.plan import Case
from pytest_rocmcompat.collectives.world import World
from pytest_rocmcompat.knowledge.diagnoses import diagnose
from pytest_rocmcompat.running import warm
from pytest_rocmcompat.running.isolation.roots import sandbox_parent
from pytest_rocmcompat.running.processes import TreeGuard, alive, in_sessions, kill_group, signal_name

TAIL_CHARS = 3000
WORKER = "pytest_rocmcompat.collectives.worker"


@dataclass
class RankRun:
    """One rank's process and what it reported."""

    rank: int
    pid: int
    returncode: int | None = None  # None: killed by the launcher
    ended_at: float | None = None  # monotonic time the launcher saw it end
    events: list[dict] = field(default_factory=list)
    tail: str = ""

    def last(self, event: str) -> dict | None:
        return next((e for e in reversed(self.events) if e.get("event") == event), None)

    @property
    def error(self) -> dict | None:
        return self.last("error")

    @property
    def done(self) -> bool:
        return self.last("done") is not None

    @property
    def current(self) -> str | None:
        """The case it began and did not finish, if any."""
        for e in reversed(self.events):
            if e.get("event") == "case":
                return None
            if e.get("event") == "begin":
                return e.get("case")
        return None

    @property
    def signal_name(self) -> str | None:
        return signal_name(self.returncode)

    def where(self) -> str:
        if self.current:
            return f"in {self.current}"
        if self.last("init") is None:
            return "before the process group was initialised"
        return "between cases"

    def status(self) -> str:
        if self.returncode is None:
            what = "killed by the launcher"
        elif self.signal_name:
            what = f"died from {self.signal_name}"
        elif self.returncode == 0:
            what = "finished"
        else:
            what = f"exited with code {self.returncode}"
        return f"rank {self.rank} (pid {self.pid}): {what}" + ("" if self.done else f" {self.where()}")


@dataclass
class Launch:
    world: World
    outcome: str  # pass | fail | crashed | hang
    message: str
    ranks: list[RankRun]
    seconds: float
    signature: str | None = None
    pids: list[int] = field(default_factory=list)  # every process seen in the ranks' groups
    survivors: list[int] = field(default_factory=list)  # of those, still alive after the kill

    def results(self, name: str) -> list[dict]:
        """Every rank's finished results for the cases of test ``name``."""
        return [e for r in self.ranks for e in r.events if e.get("event") == "case" and e.get("name") == name]

    def info(self) -> dict:
        """The first rank's ``init`` event (versions, device) and ``start`` event (settings)."""
        first = min(self.ranks, key=lambda r: r.rank) if self.ranks else None
        if first is None:
            return {}
        return {**(first.last("start") or {}), **(first.last("init") or {})}


def launch(
    world: World,
    cases: list[Case],
    *,
    timeout: float,
    op_timeout: float,
    grace: float = 5.0,
    iters: int = 5,
    warmup: int = 1,
    fault: dict | list | None = None,
) -> Launch:
    """Run ``cases`` on every rank of ``world`` this session spawns; never raises for a rank's failure."""
    start = time.monotonic()
    # In the session's folder, which the controller removes even when this process is killed
    with tempfile.TemporaryDirectory(prefix="rocmcompat-collectives-", dir=sandbox_parent()) as tmp:
        tmp_path = Path(tmp)
        spec = {
            "backend": world.backend,
            "device": world.device,
            "init_method": world.init_method(tmp_path),
            "op_timeout_s": op_timeout,
            "result_dir": tmp,
            "iters": iters,
            "warmup": warmup,
            "cases": [c.to_dict() for c in cases],
            "fault": fault,
        }
        spec_file = tmp_path / "spec.json"
        spec_file.write_text(json.dumps(spec), encoding="utf-8")
        guard = TreeGuard()  # finds what the ranks start, setsid escapees included
        procs = _spawn(world, spec_file, tmp_path)
        runs = {rank: RankRun(rank, p.pid) for rank, p in procs.items()}
        try:
            limit_hit = _wait(procs, runs, start + timeout, grace)
        except BaseException:  # Ctrl-C or SIGTERM in the session: no rank outlives it
            for p in procs.values():
                kill_group(p.pid)
            guard.kill([p.pid for p in procs.values()])
            raise
        pids = in_sessions({p.pid for p in procs.values()})
        for p in procs.values():
            kill_group(p.pid)
        pids |= set(guard.kill([p.pid for p in procs.values()]))
        for rank, p in procs.items():
            code = p.wait()
            if p.stdout is not None:  # a warm process's pipe, unused once its job began
                p.stdout.close()
            if runs[rank].ended_at is None:
                runs[rank].returncode = None  # it was still running: killed by us
            else:
                runs[rank].returncode = code
            runs[rank].events = _read_events(tmp_path / f"rank{rank}.jsonl")
            runs[rank].tail = _tail(tmp_path / f"rank{rank}.log")
    # Ranks for the next launch start now, while the test judges this one (after the guard's
    # kill, which takes every process started during the launch for one of the ranks').
    warm.pool().prewarm(rank_environ(), len(world.ranks))
    ranks = [runs[r] for r in sorted(runs)]
    all_pids = sorted(
        pids | {r.pid for r in ranks} | {e["pid"] for r in ranks for e in r.events if e.get("event") == "child"}
    )
    outcome, message, signature = judge(ranks, limit_hit, timeout)
    return Launch(world, outcome, message, ranks, time.monotonic() - start, signature, all_pids, survivors(all_pids))


def rank_environ() -> dict[str, str]:
    """The environment every rank starts from (before its own RANK, WORLD_SIZE, ...): this
    process's, without torchrun's agent store (the ranks meet through their own file store).
    """
    return {k: v for k, v in os.environ.items() if k != "TORCHELASTIC_USE_AGENT_STORE"}


def _spawn(world: World, spec_file: Path, tmp: Path) -> dict[int, subprocess.Popen]:
    """One process per rank, in its own session: a warm one (interpreter and ``import torch``
    already paid, see :mod:`..warm`) where one fits, else started now.
    """
    procs = {}
    base = rank_environ()
    for rank, local in zip(world.ranks, world.local_ranks, strict=False):
        env = {
            **base,
            "RANK": str(rank),
            "WORLD_SIZE": str(world.size),
            "LOCAL_RANK": str(local),
            "LOCAL_WORLD_SIZE": str(len(world.ranks)),
            "PYTHONUNBUFFERED": "1",
        }
        procs[rank] = warm.pool().popen(WORKER, [str(spec_file)], env, log=tmp / f"rank{rank}.log")
    return procs


def _wait(procs: dict[int, subprocess.Popen], runs: dict[int, RankRun], deadline: float, grace: float) -> bool:
    """Wait for every rank; returns whether the wall-clock limit ended the wait."""
    stop = deadline
    while True:
        now = time.monotonic()
        for rank, p in procs.items():
            if runs[rank].ended_at is None and p.poll() is not None:
                runs[rank].ended_at, runs[rank].returncode = now, p.returncode
                if p.returncode != 0:
                    stop = min(stop, now + grace)  # the others will not get far without it
        if all(r.ended_at is not None for r in runs.values()):
            return False
        if now >= stop:
            return stop == deadline
        time.sleep(0.05)


def survivors(pids: list[int], wait: float = 2.0) -> list[int]:
    """The ``pids`` still alive after up to ``wait`` seconds (SIGKILL is delivered asynchronously)."""
    end = time.monotonic() + wait
    while True:
        left = [p for p in pids if alive(p)]
        if not left or time.monotonic() >= end:
            return left
        time.sleep(0.05)


def _read_events(path: Path) -> list[dict]:
    events: list[dict] = []
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return events
    for line in lines:
        try:
            events.append(json.loads(line))
        except ValueError:
            pass  # a line cut short by the kill
    return events


def _tail(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError:
        return ""
    return data[-TAIL_CHARS:].decode("utf-8", "replace")


def judge(ranks: list[RankRun], limit_hit: bool, timeout: float) -> tuple[str, str, str | None]:
    """``(outcome, message, signature id)`` of a launch from its ranks' ends.

    hang: the wall-clock limit killed it, or the first rank to fail hit a collective or
    rendezvous timeout; crashed: the first rank to fail died from a signal or exited
    without reporting; fail: it reported an exception; pass: every rank finished.
    """
    states = "\n".join(r.status() for r in ranks)
    if limit_hit:
        stuck = [r for r in ranks if r.returncode is None]
        first = stuck[0] if stuck else ranks[0]
        sig = diagnose("\n".join(r.tail for r in ranks))
        return (
            "hang",
            f"killed after the {timeout:g} s wall-clock limit (every rank's process group "
            f"killed)\n{states}\n{_tail_block(first)}",
            sig.id if sig else None,
        )
    bad = sorted((r for r in ranks if r.returncode not in (0, None)), key=lambda r: r.ended_at or 0.0)
    if not bad:
        if all(r.done for r in ranks):
            return "pass", states, None
        bad = [r for r in ranks if not r.done]
    first = _primary(bad)
    sig = diagnose(first.tail + "\n" + ((first.error or {}).get("text") or ""))
    error = first.error
    if (error and error.get("timeout")) or (sig is not None and sig.id == "collective-timeout"):
        outcome, what = "hang", f"rank {first.rank} timed out {first.where()}"
    elif error is not None:
        outcome, what = "fail", f"rank {first.rank} raised an exception {first.where()}"
    elif first.signal_name:
        outcome, what = "crashed", f"rank {first.rank} died from {first.signal_name} {first.where()}"
    else:
        outcome, what = "crashed", f"rank {first.rank} exited with code {first.returncode} {first.where()}"
    if sig is not None:
        what += f"\nfailure signature {sig.id}: {sig.explanation}"
    return outcome, f"{what}\n{states}\n{_tail_block(first)}", sig.id if sig else None


PEER_GONE = re.compile(
    r"(?i)connection (?:reset|closed) by peer|broken pipe|remote process exited|"
    r"ncclRemoteError|socket (?:closed|error)|end of file|EOF"
)


def _primary(bad: list[RankRun], window: float = 1.0) -> RankRun:
    """The rank whose failure caused the others': among those that ended within ``window``
    seconds of the first, a death before an error, and an error before a peer's-death error.
    """
    first_end = bad[0].ended_at or 0.0
    near = [r for r in bad if (r.ended_at or 0.0) <= first_end + window]

    def rank_of(r: RankRun) -> int:
        if r.error is None:
            return 0 if r.signal_name else 1
        return 3 if PEER_GONE.search(r.error.get("text", "")) else 2

    return min(near, key=lambda r: (rank_of(r), r.ended_at or 0.0, r.rank))


def _tail_block(rank: RankRun) -> str:
    return f"--- last output of rank {rank.rank} ---\n{rank.tail.rstrip() or '(no output)'}"
