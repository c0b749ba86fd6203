"""Helpers shared by the benchmarks: timing real subprocesses, medians, tables, machine facts.

Not a test module and not part of the package; the scripts beside it import it
(``python bench/NAME.py`` puts ``bench/`` first on ``sys.path``).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def machine() -> dict[str, object]:
    """What the numbers were measured on."""
    model = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        nproc = len(os.sched_getaffinity(0))
    except AttributeError:
        nproc = os.cpu_count() or 0
    return {
        "nproc": nproc,
        "cpu_model": model or platform.processor() or "unknown",
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "os": f"{platform.system()} {platform.release()}",
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "loadavg_start": _loadavg(),
        "commit": _git("rev-parse", "--short", "HEAD"),
        "package_dirty": bool(_git("status", "--porcelain", "--", "pytest_rocmcompat")),
    }


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def _loadavg() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def timed_run(
    argv: Sequence[str],
    *,
    cwd: str | os.PathLike[str] | None = None,
    env: dict[str, str] | None = None,
    ok_codes: Sequence[int] = (0,),
    timeout: float = 900.0,
) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Wall time of one real subprocess, output captured; raise if it exits unexpectedly."""
    start = time.perf_counter()
    proc = subprocess.run(
        list(argv), cwd=cwd, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=timeout
    )
    wall = time.perf_counter() - start
    if proc.returncode not in ok_codes:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-20:])
        raise RuntimeError(f"{' '.join(map(str, argv))} exited with {proc.returncode}:\n{tail}")
    return wall, proc


def interleave(
    variants: dict[str, Callable[[], float]], reps: int, *, warmup: int = 1, progress: bool = True
) -> dict[str, list[float]]:
    """Run each variant ``reps`` times, interleaved A B C A B C ...; warm-up runs are not kept."""
    for _ in range(warmup):
        for fn in variants.values():
            fn()
    times: dict[str, list[float]] = {name: [] for name in variants}
    for rep in range(reps):
        for name, fn in variants.items():
            times[name].append(fn())
        if progress:
            done = ", ".join(f"{n}={t[-1]:.2f}s" for n, t in times.items())
            print(f"  rep {rep + 1}/{reps}: {done}", file=sys.stderr, flush=True)
    return times


def summary(samples: Sequence[float]) -> dict[str, float]:
    """Median, min, max and a robust spread (median absolute deviation)."""
    med = statistics.median(samples)
    return {
        "median": med,
        "min": min(samples),
        "max": max(samples),
        "mad": statistics.median(abs(x - med) for x in samples),
        "n": len(samples),
    }


def paired_ratio(treated: Sequence[float], base: Sequence[float]) -> float:
    """Median of the per-repetition ratios (each pair ran back to back)."""
    return statistics.median(t / b for t, b in zip(treated, base))


def table(rows: Sequence[Sequence[object]], headers: Sequence[str]) -> str:
    """A plain fixed-width table (no dependency)."""
    cells = [[str(h) for h in headers]] + [[_fmt(c) for c in r] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = []
    for n, row in enumerate(cells):
        lines.append("  ".join(c.rjust(w) if n and _numeric(c) else c.ljust(w) for c, w in zip(row, widths)))
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(line.rstrip() for line in lines)


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def _numeric(text: str) -> bool:
    return text.replace(".", "", 1).replace("-", "", 1).replace("%", "").replace("+", "").replace("x", "").isdigit()


def write_json(path: str | os.PathLike[str], data: dict[str, object]) -> Path:
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    data = {**data}
    data.setdefault("machine", machine())
    if isinstance(data["machine"], dict):
        data["machine"] = {**data["machine"], "loadavg_end": _loadavg()}
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, out)
    return out


def default_out(name: str) -> str:
    return str(REPO / ".bench" / f"{name}.json")


class Timeout(BaseException):
    """A fuzz input past its time limit: not an Exception, so no handler in the code under test swallows it."""


def alarm(*_: object) -> None:
    """SIGALRM's handler for the fuzz benches: raise :class:`Timeout`."""
    raise Timeout
