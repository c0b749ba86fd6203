"""Cost of isolated tests (fresh forked processes, and opt-in reusable sandboxes) against in-process.

Runs real pytest sessions of N tests, interleaved, each variant once per repetition:
trivial tests and torch tests (on the GPU where one is available) in-process and
isolated (fresh: a child forked from the template per test; reuse: ini rocm_isolate_reuse),
the torch tests declaring a GPU (``gpus(1)``: each next test's process is a standby forked
and CUDA-started while the previous test runs, and the same with ini rocm_isolate_standby=off),
the isolated torch suite with one crashing test in the middle, one isolated test alone (a
template's start-up), and ``python -c "import torch"``. Targets (issue 24): a fresh isolated
suite costs at most 2x its in-process wall time plus one template start; the reuse mode keeps
issue 15's 1.3x; a crash among fresh tests costs one child, not a template restart; on an
H100, 10 fresh isolated GPU tests run in under 8 s.

    python bench/isolation_overhead.py [--tests 10] [--reps 3] [--out .bench/isolation_overhead.json]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from _common import default_out, interleave, machine, summary, table, timed_run, write_json

from pytest_rocmcompat.stack.environment import GPU, Environment

TORCH_TEST = (
    "def test_{i}():\n    import torch\n    dev = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
    "    x = torch.ones(256, 256, device=dev)\n    assert float((x @ x).sum()) == 256.0 ** 3\n"
)
CRASH_TEST = "def test_crash():\n    import ctypes\n    ctypes.string_at(0)\n"


def write_suite(root: Path, n: int) -> None:
    mark = "@pytest.mark.isolated(timeout=300)\n"
    plain = "".join(f"def test_{i}():\n    pass\n" for i in range(n))
    torch_tests = "".join(TORCH_TEST.format(i=i) for i in range(n))
    iso_plain = "import pytest\n" + "".join(f"{mark}def test_{i}():\n    pass\n" for i in range(n))
    iso_torch = "import pytest\n" + "".join(mark + TORCH_TEST.format(i=i) for i in range(n))
    gpu_mark = "@pytest.mark.gpus(1)\n"  # declared GPU tests: each next one's process is a warmed standby
    gpu_torch = "import pytest\n" + "".join(gpu_mark + TORCH_TEST.format(i=i) for i in range(n))
    iso_gpu = "import pytest\n" + "".join(mark + gpu_mark + TORCH_TEST.format(i=i) for i in range(n))
    half = n // 2
    iso_crash = (
        "import pytest\n"
        + "".join(mark + TORCH_TEST.format(i=i) for i in range(half))
        + mark
        + CRASH_TEST
        + "".join(mark + TORCH_TEST.format(i=i) for i in range(half, n))
    )
    files = {
        "test_plain.py": plain,
        "test_torch.py": torch_tests,
        "test_iso_plain.py": iso_plain,
        "test_iso_torch.py": iso_torch,
        "test_gpu_torch.py": gpu_torch,
        "test_iso_gpu.py": iso_gpu,
        "test_iso_crash.py": iso_crash,
        "test_iso_one.py": "import pytest\n" + mark + TORCH_TEST.format(i=0),
        "test_one.py": TORCH_TEST.format(i=0),
    }
    for name, text in files.items():
        (root / name).write_text(text)
    (root / "pytest.ini").write_text("[pytest]\n")
    (root / "env.json").write_text(recorded_environment().to_json())


def recorded_environment() -> Environment:
    """The sessions' environment, given (no probe per session): this host's NVIDIA GPUs, if any,
    as ``nvidia-smi`` names them, so that tests declaring ``gpus(1)`` run rather than skip."""
    import shutil
    import subprocess

    gpus: list[GPU] = []
    if shutil.which("nvidia-smi"):
        query = ["nvidia-smi", "--query-gpu=index,name,compute_cap", "--format=csv,noheader"]
        done = subprocess.run(query, capture_output=True, text=True, timeout=60, check=False)
        for line in done.stdout.splitlines():
            index, name, cap = (part.strip() for part in line.split(","))
            gpus.append(GPU(int(index), name, "sm_" + cap.replace(".", ""), vendor="nvidia"))
    if not gpus:
        return Environment(python="3")
    return Environment(python="3", platform="cuda", gpus=tuple(gpus))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=10)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--out", default=default_out("isolation_overhead"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_suite(root, args.tests)
        base = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rocm-env", "env.json"]

        def session(name: str, *extra: str):
            ok = (1,) if "crash" in name else (0,)
            return lambda: timed_run([*base, name, *extra], cwd=root, ok_codes=ok)[0]

        reuse = ("-o", "rocm_isolate_reuse=true")

        times = interleave(
            {
                "in-process, trivial": session("test_plain.py"),
                "isolated, trivial": session("test_iso_plain.py"),
                "in-process, torch": session("test_torch.py"),
                "isolated, torch": session("test_iso_torch.py"),
                "in-process, torch, gpus(1)": session("test_gpu_torch.py"),
                "isolated, torch, gpus(1)": session("test_iso_gpu.py"),
                "isolated, torch, gpus(1), no standby": session("test_iso_gpu.py", "-o", "rocm_isolate_standby=off"),
                "isolated, torch, one crash": session("test_iso_crash.py"),
                "isolated (reuse), torch": session("test_iso_torch.py", *reuse),
                "isolated (reuse), torch, one crash": session("test_iso_crash.py", *reuse),
                "isolated, one torch test": session("test_iso_one.py"),
                "in-process, one torch test": session("test_one.py"),
                "import torch": lambda: timed_run([sys.executable, "-c", "import torch"])[0],
            },
            args.reps,
        )
    med = {k: summary(v)["median"] for k, v in times.items()}
    n = args.tests
    start = med["isolated, one torch test"] - med["in-process, one torch test"]  # one template start
    allowed = 2.0 * med["in-process, torch"] + start
    allowed_reuse = 1.3 * med["in-process, torch"] + start
    crash_cost = med["isolated, torch, one crash"] - med["isolated, torch"]
    crash_cost_reuse = med["isolated (reuse), torch, one crash"] - med["isolated (reuse), torch"]
    allowed_gpu = 2.0 * med["in-process, torch, gpus(1)"] + start
    derived = {
        "template start (one torch test: isolated - in-process)": start,
        "isolated (fresh) torch suite, gpus(1): warmed standbys": med["isolated, torch, gpus(1)"],
        "isolated (fresh) torch suite, gpus(1), standby off": med["isolated, torch, gpus(1), no standby"],
        "allowed: 2 x in-process gpus(1) suite + one template start": allowed_gpu,
        "isolated (fresh) torch suite": med["isolated, torch"],
        "allowed: 2 x in-process torch suite + one template start": allowed,
        "isolated (reuse) torch suite": med["isolated (reuse), torch"],
        "allowed (reuse): 1.3 x in-process + one start": allowed_reuse,
        "isolated trivial test, each (vs in-process)": (med["isolated, trivial"] - med["in-process, trivial"]) / n,
        "one crash among fresh tests costs": crash_cost,
        "one crash among reused tests costs": crash_cost_reuse,
        "fresh crash cost / (template start + torch import)": crash_cost / (start + med["import torch"]),
    }
    print(table(list(med.items()), (f"median wall time (s), {n} tests", "value")))
    print(table(list(derived.items()), ("derived (s)", "value")))
    met = (
        med["isolated, torch"] <= allowed
        and med["isolated, torch, gpus(1)"] <= allowed_gpu
        and med["isolated (reuse), torch"] <= allowed_reuse
    )
    print(
        f"targets fresh <= 2 x in-process + one start (unmarked and gpus(1)), reuse <= 1.3 x: {'met' if met else 'NOT met'}"
    )
    write_json(
        args.out,
        {
            "tests": n,
            "reps": args.reps,
            "machine": machine(),
            "samples": times,
            "medians": med,
            "derived": derived,
            "target_met": met,
        },
    )
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
