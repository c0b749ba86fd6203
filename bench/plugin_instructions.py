"""Plugin overhead in executed instructions: a noise-free companion to plugin_overhead.py.

Wall time on a shared 2-core machine swings by 10-20% between identical runs, far more than
the 5% being measured. Instruction counts (valgrind's cachegrind, no cache simulation) of the
same runs repeat to a fraction of a percent whatever else the machine is doing, so the ratio
plugin/bare is a stable measure of the extra work the plugin does. It is not wall time:
instructions of the Python interpreter weigh alike whether they hit cache or not.

Builds the same 5,000-test suite, 100 rules and replayed MI300X node as plugin_overhead.py,
warms the bytecode and checked-matrix caches with one plain run of each variant, then counts
the instructions of one run of each under valgrind (a few minutes each). ``plugin-no-cache``
turns the matrix cache off, so it parses and checks the matrix as the first run after an edit:

    python bench/plugin_instructions.py [--out .bench/plugin_instructions.json]
        [--variants bare,plugin,plugin-0-active,plugin-no-cache]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import tempfile
import time
from pathlib import Path

from _common import default_out, machine, table, write_json
from plugin_overhead import TARGET_OVERHEAD, child_env, make_workspace, pytest_argv

VARIANTS = {
    "bare": {"plugin": False},
    "plugin": {"plugin": True},
    "plugin-0-active": {"plugin": True, "matrix": "matrix_inactive.yaml"},
    "plugin-no-cache": {"plugin": True, "matrix_cache": False},  # the matrix parsed in every run
}


def count_instructions(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, float]:
    """Instructions executed by ``argv`` and its children (valgrind follows none: pytest runs in-process)."""
    start = time.monotonic()
    proc = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
    )
    found = re.search(r"I\s+refs:\s+([\d,]+)", proc.stderr)
    if found is None:
        raise SystemExit(f"valgrind printed no instruction count (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    return int(found.group(1).replace(",", "")), time.monotonic() - start


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=default_out("plugin_instructions"), help="JSON results (default %(default)s)")
    ap.add_argument("--variants", default="bare,plugin,plugin-0-active,plugin-no-cache")
    args = ap.parse_args(argv)
    chosen = [v.strip() for v in args.variants.split(",") if v.strip()]
    with tempfile.TemporaryDirectory(prefix="rocmcompat-instr-") as tmp:
        root = Path(tmp)
        suite = make_workspace(root)
        runs, envs = {}, {}
        for name in chosen:
            options = dict(VARIANTS[name])
            envs[name] = child_env(root, matrix_cache=options.pop("matrix_cache", True))
            runs[name] = pytest_argv(collect=False, root=root, **options)
        for name, run in runs.items():  # warm-up: bytecode and matrix caches written outside valgrind
            subprocess.run(run, cwd=root, env=envs[name], capture_output=True)
        counts = {}
        for name, run in runs.items():
            counts[name], seconds = count_instructions(run, root, envs[name])
            print(f"  {name}: {counts[name]:,} instructions ({seconds:.0f} s under valgrind)", flush=True)
    rows = [
        (name, f"{n:,}", f"{(n / counts['bare'] - 1) * 100:+.2f}%" if "bare" in counts else "-")
        for name, n in counts.items()
    ]
    print(table(rows, ("variant", "instructions", "vs bare")))
    if "bare" in counts and "plugin" in counts:
        overhead = counts["plugin"] / counts["bare"] - 1
        print(
            f"plugin overhead in instructions: {overhead * 100:+.2f}% "
            f"(target <= {TARGET_OVERHEAD * 100:.0f}%: {'met' if overhead <= TARGET_OVERHEAD else 'NOT MET'})"
        )
    write_json(args.out, {"machine": machine(), "suite": suite, "instructions": counts})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
