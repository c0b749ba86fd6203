"""Where a forked child's CUDA start-up goes, and what a warmed standby child saves (issue 24).

A parent imports torch and never initialises CUDA (as the isolation template does), then forks
children in several ways, each measured a few times:

- ``cold``: the child initialises everything through torch at its first CUDA use;
- ``driver-warm``: the child first calls the driver itself (``cuInit``, retain the primary
  context of device 0 through ``libcuda``), then torch; the phases are timed apart;
- ``standby``: the child does the driver warm-up, reports ready and waits; the parent waits for
  ready, then sends "go": the time from "go" to the test's end is what a test pays when a
  standby was prepared while the previous test ran;
- ``parallel-4``: four children warm up at once (the wall time until all are ready).

Also recorded per child: ``torch.cuda.is_initialized()`` and ``memory_allocated()`` right after
the driver warm-up (a standby must leave torch's own state untouched).

    python bench/cuda_child_start.py [--reps 5] [--out FILE.json]
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import statistics
import sys
import time


def driver_warm() -> float:
    """cuInit and retain device 0's primary context through libcuda; seconds taken."""
    t = time.perf_counter()
    cuda = ctypes.CDLL("libcuda.so.1")
    assert cuda.cuInit(0) == 0, "cuInit failed"
    dev = ctypes.c_int()
    assert cuda.cuDeviceGet(ctypes.byref(dev), 0) == 0
    ctx = ctypes.c_void_p()
    assert cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0
    return time.perf_counter() - t


def torch_phases(torch) -> dict[str, float]:
    out: dict[str, float] = {}
    t = time.perf_counter()
    torch.cuda.init()
    out["torch_init"] = time.perf_counter() - t
    t = time.perf_counter()
    x = torch.ones(256, 256, device="cuda")
    torch.cuda.synchronize()
    out["first_alloc"] = time.perf_counter() - t
    t = time.perf_counter()
    y = x @ x
    torch.cuda.synchronize()
    out["first_matmul"] = time.perf_counter() - t
    assert float(y.sum()) == 256.0**3
    return out


def child(kind: str, write_fd: int, read_fd: int | None) -> None:
    import torch

    rec: dict[str, object] = {"kind": kind}
    t0 = time.perf_counter()
    if kind in ("driver-warm", "standby", "parallel"):
        rec["driver_warm"] = driver_warm()
        rec["torch_initialized_after_warm"] = torch.cuda.is_initialized()
    if kind in ("standby", "parallel"):
        os.write(write_fd, b"R")
        if kind == "parallel":
            os._exit(0)
        assert read_fd is not None
        os.read(read_fd, 1)
        t0 = time.perf_counter()
    rec.update(torch_phases(torch))
    rec["memory_allocated_after"] = torch.cuda.memory_allocated()
    rec["child_total"] = time.perf_counter() - t0
    os.write(write_fd, json.dumps(rec).encode() + b"\n")
    os._exit(0)


def one(kind: str) -> dict:
    r, w = os.pipe()
    go_r, go_w = os.pipe()
    t_fork = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        os.close(go_w)
        try:
            child(kind, w, go_r)
        finally:
            os._exit(1)
    os.close(w)
    os.close(go_r)
    rec: dict = {}
    if kind == "standby":
        assert os.read(r, 1) == b"R"
        rec["standby_ready"] = time.perf_counter() - t_fork
        time.sleep(0.2)  # the previous test still running
        t_go = time.perf_counter()
        os.write(go_w, b"G")
    else:
        t_go = t_fork
    data = b""
    while not data.endswith(b"\n"):
        chunk = os.read(r, 65536)
        if not chunk:
            break
        data += chunk
    t_report = time.perf_counter()
    os.waitpid(pid, 0)
    t_exit = time.perf_counter()
    os.close(r)
    os.close(go_w)
    rec.update(json.loads(data.decode().strip().lstrip("R") or "{}"))
    rec["go_to_report"] = t_report - t_go
    rec["report_to_exit"] = t_exit - t_report
    rec["go_to_exit"] = t_exit - t_go
    return rec


def parallel(n: int) -> float:
    t = time.perf_counter()
    pipes, pids = [], []
    for _ in range(n):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            try:
                child("parallel", w, None)
            finally:
                os._exit(1)
        os.close(w)
        pipes.append(r)
        pids.append(pid)
    for r in pipes:
        os.read(r, 1)
    wall = time.perf_counter() - t
    for r, pid in zip(pipes, pids):
        os.close(r)
        os.waitpid(pid, 0)
    return wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    t = time.perf_counter()
    import torch

    result: dict = {"import_torch": time.perf_counter() - t, "torch": torch.__version__, "runs": {}}
    assert not torch.cuda.is_initialized()
    for kind in ("cold", "driver-warm", "standby"):
        result["runs"][kind] = [one(kind) for _ in range(args.reps)]
    result["parallel_1"] = [parallel(1) for _ in range(args.reps)]
    result["parallel_4"] = [parallel(4) for _ in range(args.reps)]
    summary = {}
    for kind, runs in result["runs"].items():
        keys = sorted({k for r in runs for k in r if isinstance(r[k], float)})
        summary[kind] = {k: round(statistics.median(r[k] for r in runs if k in r), 4) for k in keys}
        summary[kind]["torch_initialized_after_warm"] = [r.get("torch_initialized_after_warm") for r in runs]
        summary[kind]["memory_allocated_after"] = [r.get("memory_allocated_after") for r in runs]
    summary["parallel_1"] = round(statistics.median(result["parallel_1"]), 4)
    summary["parallel_4"] = round(statistics.median(result["parallel_4"]), 4)
    result["summary"] = summary
    print(json.dumps(summary, indent=1))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
