"""Real-GPU check of xdist pinning and GPU locks: ``pytest -n 2`` on a machine with 2+ GPUs.

Generates a small suite (six ``gpus(1)`` tests and two ``gpus(2)`` tests; each records the
worker, the visibility variable, the UUIDs of the GPUs torch sees and when it ran), runs it
under ``pytest -n 2`` with the plugin, and checks: each worker's ``gpus(1)`` tests saw only
its own GPU, the workers' GPUs differ, each ``gpus(2)`` test saw two GPUs, and no two tests
that saw the same GPU ran at the same time.

    python bench/gpu_locks_check.py OUTDIR
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import textwrap
from itertools import combinations
from pathlib import Path

SUITE = """
import json, os, time, pytest, torch
LOG = {log!r}

def record(name, seconds):
    start = time.time()
    uuids = [str(torch.cuda.get_device_properties(i).uuid) for i in range(torch.cuda.device_count())]
    x = torch.ones(1 << 20, device="cuda")
    torch.cuda.synchronize()
    time.sleep(seconds)
    line = {{"test": name, "worker": os.environ.get("PYTEST_XDIST_WORKER", "child"),
             "visible": os.environ.get("CUDA_VISIBLE_DEVICES"), "uuids": uuids,
             "start": start, "end": time.time()}}
    with open(LOG, "a") as fh:
        fh.write(json.dumps(line) + "\\n")

@pytest.mark.gpus(1)
@pytest.mark.parametrize("i", range(6))
def test_one(i):
    record(f"one{{i}}", 0.5)

@pytest.mark.gpus(2)
@pytest.mark.parametrize("i", range(2))
def test_two(i):
    record(f"two{{i}}", 1.0)
"""


def check(runs: list[dict]) -> dict:
    ones = [r for r in runs if r["test"].startswith("one")]
    twos = [r for r in runs if r["test"].startswith("two")]
    per_worker: dict[str, set[str]] = {}
    for r in ones:
        per_worker.setdefault(r["worker"], set()).update(r["uuids"])
    overlaps = []
    for a, b in combinations(runs, 2):
        if set(a["uuids"]) & set(b["uuids"]) and not (a["end"] <= b["start"] or b["end"] <= a["start"]):
            overlaps.append((a["test"], b["test"]))
    workers = list(per_worker.values())
    return {
        "tests_recorded": len(runs),
        "gpus1_each_saw_one": all(len(r["uuids"]) == 1 for r in ones),
        "gpus2_each_saw_two": len(twos) == 2 and all(len(set(r["uuids"])) == 2 for r in twos),
        "workers": {w: sorted(u) for w, u in per_worker.items()},
        "workers_disjoint": len(workers) == 2 and not (workers[0] & workers[1]),
        "overlapping_tests_on_a_shared_gpu": overlaps,
    }


def main() -> int:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    log = out / "pin.jsonl"
    log.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "test_pin.py").write_text(textwrap.dedent(SUITE.format(log=str(log))))
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-n",
                "2",
                "test_pin.py",
                "-p",
                "no:cacheprovider",
                "-q",
                "-rs",
                "--junitxml",
                str(out / "pin_junit.xml"),
            ],
            cwd=tmp,
            capture_output=True,
            text=True,
            timeout=300,
        )
    print(proc.stdout[-3000:], proc.stderr[-2000:])
    summary = check([json.loads(line) for line in log.read_text().splitlines()])
    print(json.dumps(summary, indent=1))
    ok = (
        proc.returncode == 0
        and summary["tests_recorded"] == 8
        and summary["gpus1_each_saw_one"]
        and summary["gpus2_each_saw_two"]
        and summary["workers_disjoint"]
        and not summary["overlapping_tests_on_a_shared_gpu"]
    )
    print("gpu locks check:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
