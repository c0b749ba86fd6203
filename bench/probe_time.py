"""Time of a live probe (`rocmcompat probe --json`) against `python -c "import torch"`.

The live probe spawns a child that imports torch (and amdsmi / NVML where
installed), so ``import torch`` is its floor; this measures what the probe adds
on top. Both commands run as real subprocesses, interleaved, ``--reps`` times
each after one untimed warm-up (``python -c pass`` is timed alongside as the
interpreter's start-up). Target: probe time beyond ``import torch`` under 0.5 s.

In-process it then times the parts of :func:`pytest_rocmcompat.probe.live.probe`:
the library scan (``importlib.metadata``), the environment-variable capture,
the vendor-tool lookup, the ROCm version files, the native child (a subprocess)
and the whole ``probe()``; and, from ``python -X importtime``, what the native
child imports before torch.

Repeat runs (issue 18): a pytest invocation on a one-test project, ``--collect-only``, in
three interleaved variants: plain pytest (``-p no:rocmcompat``), the plugin with its probe
read back from the probe cache (the second and later runs of a developer or CI job), and the
plugin with ``--rocm-probe=fresh`` (the first run). Wall and CPU seconds (user+sys of the
child) are recorded; target: cached minus plain, paired median, under 0.2 s. In-process it
times the cache look-up itself (``probe_key`` and a ``cached_probe`` hit).

    python bench/probe_time.py [--reps 9] [--out .bench/probe_time.json] [--repeat-only]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import default_out, interleave, machine, paired_ratio, summary, table, timed_run, write_json

TARGET_BEYOND_TORCH_S = 0.5
TARGET_REPEAT_RUN_S = 0.2


def child_env() -> dict[str, str]:
    """Bytecode caching on (a user's second run reads cached .pyc files), no outside pytest options."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def probe_argv() -> list[str]:
    exe = Path(sys.executable).with_name("rocmcompat")
    if exe.is_file():
        return [str(exe), "probe", "--json"]
    found = shutil.which("rocmcompat")
    return [found, "probe", "--json"] if found else [sys.executable, "-m", "pytest_rocmcompat", "probe", "--json"]


def _median_time(fn, reps: int) -> tuple[float, list[float], object]:
    samples, value = [], None
    for _ in range(reps):
        t = time.perf_counter()
        value = fn()
        samples.append(time.perf_counter() - t)
    return statistics.median(samples), samples, value


def _guarded(fn):
    """Run a probe part that may be broken in this checkout; return (value, error text)."""

    def run():
        try:
            return fn(), None
        except Exception as exc:  # a part that fails is reported, not fatal
            return None, f"{type(exc).__name__}: {exc}"

    return run


def parts(reps: int) -> dict[str, object]:
    """Median seconds of each part of probe(), measured in this process."""
    from pytest_rocmcompat.probe import live
    from pytest_rocmcompat.probe.envvars import capture_env
    from pytest_rocmcompat.probe.libraries import installed_versions

    environ = child_env()
    out: dict[str, object] = {}
    errors: dict[str, str] = {}

    def record(name: str, fn, n: int = reps) -> object:
        med, samples, (value, err) = _median_time(_guarded(fn), n)
        out[name] = {"median": med, "samples": samples}
        if err:
            errors[name] = err
        return value

    record("libraries_scan", lambda: installed_versions(()))
    record("env_capture", lambda: capture_env(dict(environ)))
    record("vendor_tool_lookup", lambda: list(live._tool_commands(environ)))
    record("rocm_version_files", lambda: live._rocm_version(environ))
    native = record("native_child", lambda: live._run_native(environ)) or {}
    libs = installed_versions(())
    record(
        "assemble", lambda: live.assemble(native.get("torch"), live._native_reports(native), None, libs, environ, [])
    )
    env = record("probe_total", lambda: live.probe(environ=environ))
    return {
        "seconds": out,
        "errors": errors,
        "distributions_scanned": _count_distributions(),
        "probe_notes": list(getattr(env, "notes", ()) or ()),
    }


def _count_distributions() -> int:
    from importlib import metadata

    return sum(1 for _ in metadata.distributions())


def importtime(code: str) -> dict[str, float]:
    """Cumulative import seconds of top-level modules, from ``python -X importtime -c CODE``."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, env=child_env()
    )
    top: dict[str, float] = {}
    for line in proc.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \| (\S.*)$", line)
        if m and not m.group(3).startswith(" "):  # top level: no indentation
            top[m.group(3).strip()] = top.get(m.group(3).strip(), 0.0) + int(m.group(2)) / 1e6
    return top


def child_imports(reps: int) -> dict[str, float]:
    """What the native child imports: the package (before torch), then torch (medians)."""
    samples: dict[str, list[float]] = {}
    for _ in range(reps):
        # The child runs ``-m pytest_rocmcompat.probe.native_child``: the package's __init__ first.
        top = importtime("import pytest_rocmcompat, pytest_rocmcompat.probe.native_child, torch")
        for name in ("pytest_rocmcompat", "pytest_rocmcompat.probe", "pytest_rocmcompat.probe.native_child", "torch"):
            if name in top:
                samples.setdefault(name, []).append(top[name])
    return {name: statistics.median(v) for name, v in samples.items()}


def _cpu_run(argv: list[str], cwd: str, env: dict[str, str]) -> tuple[float, float]:
    """(wall, user+sys CPU) seconds of one real subprocess."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall, _ = timed_run(argv, cwd=cwd, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def repeat_runs(reps: int) -> dict[str, object]:
    """pytest --collect-only on a one-test project: plain, plugin (cached probe), plugin (fresh probe)."""
    work = tempfile.mkdtemp(prefix="rocmcompat-probe-bench-")
    Path(work, "test_one.py").write_text("def test_one():\n    pass\n")
    env = child_env()
    env["ROCMCOMPAT_CACHE_DIR"] = str(Path(work, "cache"))
    env.pop("PYTEST_ADDOPTS", None)
    base = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "test_one.py"]
    variants = {
        "plain pytest": [*base, "-p", "no:rocmcompat"],
        "plugin, cached probe": [*base, "--rocm-no-bundled"],
        "plugin, --rocm-probe=fresh": [*base, "--rocm-no-bundled", "--rocm-probe=fresh"],
    }
    cpu: dict[str, list[float]] = {name: [] for name in variants}

    def go(name: str):
        def run() -> float:
            wall, used = _cpu_run(variants[name], work, env)
            cpu[name].append(used)
            return wall

        return run

    walls = interleave({name: go(name) for name in variants}, reps)  # the warm-up fills the cache
    for name in cpu:
        cpu[name] = cpu[name][-reps:]
    plain, cached = walls["plain pytest"], walls["plugin, cached probe"]
    paired = statistics.median(c - p for c, p in zip(cached, plain))
    paired_cpu = statistics.median(c - p for c, p in zip(cpu["plugin, cached probe"], cpu["plain pytest"]))

    from pytest_rocmcompat.probe.cache import cached_probe, probe_key

    hit_env = {**os.environ, "ROCMCOMPAT_CACHE_DIR": env["ROCMCOMPAT_CACHE_DIR"]}
    key_med, _, _ = _median_time(lambda: probe_key((), hit_env), reps)
    hit_med, _, hit = _median_time(lambda: cached_probe((), environ=hit_env), reps)
    return {
        "wall_s": {name: {"samples": t, **summary(t)} for name, t in walls.items()},
        "cpu_s": {name: {"samples": t, **summary(t)} for name, t in cpu.items()},
        "cached_minus_plain_paired_wall_s": paired,
        "cached_minus_plain_paired_cpu_s": paired_cpu,
        "in_process_ms": {"probe_key": key_med * 1000, "cached_probe_hit": hit_med * 1000, "hit": bool(hit and hit[1])},
        "target": {"cached_minus_plain_max_s": TARGET_REPEAT_RUN_S, "met": paired < TARGET_REPEAT_RUN_S},
    }


def print_repeat(rep: dict[str, object]) -> None:
    rows = [
        [name, w["median"], rep["cpu_s"][name]["median"], w["min"], w["mad"]]  # type: ignore[index]
        for name, w in rep["wall_s"].items()
    ]  # type: ignore[union-attr]
    print(table(rows, ["pytest --collect-only, 1 test", "wall median s", "CPU median s", "wall min s", "wall MAD s"]))
    paired = rep["cached_minus_plain_paired_wall_s"]
    print(
        table(
            [
                [
                    "repeat run beyond plain pytest",
                    f"{paired:+.3f}",
                    f"{rep['cached_minus_plain_paired_cpu_s']:+.3f}",
                    f"< {TARGET_REPEAT_RUN_S}",
                    "met" if rep["target"]["met"] else "NOT MET",
                ]
            ],  # type: ignore[index]
            ["", "paired wall s", "paired CPU s", "target s", "status"],
        )
    )
    ms = rep["in_process_ms"]
    print(f"  in-process: probe_key {ms['probe_key']:.2f} ms, cached_probe hit {ms['cached_probe_hit']:.2f} ms")  # type: ignore[index]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=default_out("probe_time"), help="JSON results (default %(default)s)")
    ap.add_argument("--reps", type=int, default=9, help="timed repetitions of each command (default 9, min 5)")
    ap.add_argument(
        "--repeat-only",
        action="store_true",
        help="only the repeat-run comparison (plain pytest vs cached vs fresh probe)",
    )
    args = ap.parse_args(argv)
    if args.reps < 5:
        ap.error("--reps must be at least 5")
    print("repeat runs: plain pytest / plugin with cached probe / plugin with fresh probe ...", file=sys.stderr)
    repeat = repeat_runs(args.reps)
    if args.repeat_only:
        out = write_json(
            args.out, {"benchmark": "probe_time", "machine": machine(), "reps": args.reps, "repeat_runs": repeat}
        )
        print_repeat(repeat)
        print(f"\nresults: {out}")
        return 0

    info = machine()
    env = child_env()
    cmd_probe = probe_argv()
    cmd_torch = [sys.executable, "-c", "import torch"]
    cmd_pass = [sys.executable, "-c", "pass"]
    last: dict[str, str] = {}

    def run(name: str, cmd: list[str]):
        def go() -> float:
            wall, proc = timed_run(cmd, env=env)
            last[name] = proc.stdout[-2000:]
            return wall

        return go

    print(f"probe: {' '.join(cmd_probe)}; {args.reps} reps, interleaved", file=sys.stderr)
    times = interleave(
        {
            "rocmcompat probe --json": run("probe", cmd_probe),
            "python -c 'import torch'": run("torch", cmd_torch),
            "python -c pass": run("pass", cmd_pass),
        },
        args.reps,
    )
    stats = {name: summary(t) for name, t in times.items()}
    probe_med = stats["rocmcompat probe --json"]["median"]
    torch_med = stats["python -c 'import torch'"]["median"]
    beyond = probe_med - torch_med
    paired = statistics.median(
        p - t for p, t in zip(times["rocmcompat probe --json"], times["python -c 'import torch'"])
    )
    print("in-process parts ...", file=sys.stderr)
    breakdown = parts(max(5, args.reps // 2))
    imports = child_imports(5)
    cli_imports = importtime("import pytest_rocmcompat.cli.main, pytest_rocmcompat.probe.live")

    result = {
        "benchmark": "probe_time",
        "machine": info,
        "command": cmd_probe,
        "reps": args.reps,
        "wall_s": {name: {"samples": t, **stats[name]} for name, t in times.items()},
        "beyond_import_torch_s": beyond,
        "beyond_import_torch_paired_s": paired,
        "ratio_probe_to_torch": paired_ratio(times["rocmcompat probe --json"], times["python -c 'import torch'"]),
        "target": {"beyond_import_torch_max_s": TARGET_BEYOND_TORCH_S, "met": beyond < TARGET_BEYOND_TORCH_S},
        "parts": breakdown,
        "native_child_imports_s": imports,
        "cli_process_imports_s": {k: v for k, v in cli_imports.items() if k.startswith("pytest_rocmcompat")},
        "probe_output_tail": last.get("probe", ""),
        "repeat_runs": repeat,
    }
    out = write_json(args.out, result)

    print(
        table(
            [[n, s["median"], s["min"], s["max"], s["mad"]] for n, s in stats.items()],
            ["command", "median s", "min s", "max s", "MAD s"],
        )
    )
    print()
    print(
        table(
            [
                [
                    "probe beyond import torch",
                    f"{beyond:+.3f}",
                    f"{paired:+.3f}",
                    f"< {TARGET_BEYOND_TORCH_S}",
                    "met" if beyond < TARGET_BEYOND_TORCH_S else "NOT MET",
                ]
            ],
            ["", "of medians s", "paired median s", "target s", "status"],
        )
    )
    print()
    secs = breakdown["seconds"]
    rows = [[k, v["median"] * 1000, breakdown["errors"].get(k, "")] for k, v in secs.items()]
    print(table(rows, ["probe() part (in-process)", "median ms", "error"]))
    print(f"  ({breakdown['distributions_scanned']} installed distributions scanned)")
    print()
    rows = [[k, v * 1000] for k, v in imports.items()] + [
        [f"CLI process: {k}", v * 1000] for k, v in result["cli_process_imports_s"].items()
    ]
    print(table(rows, ["import (python -X importtime, cumulative)", "ms"]))
    print()
    print_repeat(repeat)
    print(f"\nresults: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
