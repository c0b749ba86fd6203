"""The script each rank runs: ``python -m pytest_rocmcompat.collectives.worker SPEC.json``.

It reads its rank from ``RANK`` / ``WORLD_SIZE`` / ``LOCAL_RANK``, joins the process
group with a time limit, runs every case of the spec and appends one JSON line per
event to ``<result_dir>/rank<R>.jsonl`` (flushed at once, so the launcher knows how far
a rank got when it hangs or dies). Inputs depend on the rank and the element index;
every element of every output is compared with its closed-form expected value.

The spec's optional ``fault`` (``{"rank", "at", "kind", "spawn_child", "message"}``, or a
list of them) makes a rank stall, abort, exit or raise at a given point, or ``corrupt`` its first
output of a case: it exists to test the harness's hang, crash and mismatch handling.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from pytest_rocmcompat.collectives.plan import ITEMSIZE, Case, elements
from pytest_rocmcompat.safe_io.redact import REDACTED, is_secret_name

if TYPE_CHECKING:  # main() imports torch after the "import" fault point; the module and dist arrive as arguments
    import torch

    Output = torch.Tensor | list[torch.Tensor] | None  # what a case's call writes into (None: barrier)

ENV_PREFIXES = (
    "NCCL_",
    "RCCL_",
    "HSA_",
    "HIP_",
    "CUDA_VISIBLE",
    "ROCR_",
    "TORCH_NCCL_",
    "GLOO_",
    "MASTER_",
    "UCX_",
    "FI_",
)
TIMEOUT_TEXT = re.compile(r"(?i)timed? ?out|watchdog caught collective operation timeout|DistStoreError")
UNSUPPORTED_TEXT = re.compile(r"(?i)not supported|unsupported|does not support|not implemented")
EXACT_LIMIT = {"bfloat16": 256, "float16": 2048, "float32": 1 << 24, "int32": (1 << 31) - 1}


class Events:
    """Append-only JSON lines, flushed per event."""

    def __init__(self, path: Path) -> None:
        self._fh = open(path, "a", encoding="utf-8")  # noqa: SIM115  held for the worker's life, closed in close()

    def emit(self, event: str, **data: object) -> None:
        self._fh.write(json.dumps({"event": event, "t": time.time(), **data}, default=str) + "\n")
        self._fh.flush()


def levels(dtype: str, world: int) -> int:
    """Distinct input values per element so that sums over ``world`` ranks stay exact
    (where any can: see :func:`sum_tolerance`).
    """
    return max(2, min(251, (EXACT_LIMIT[dtype] - 1) // world))


def sum_tolerance(torch: ModuleType, dtype: str, world: int) -> float:
    """0 when a sum over ``world`` ranks is exact in ``dtype``; else the rounding bound of
    ``world`` additions (bf16 beyond 255 ranks, fp16 beyond 2047).
    """
    q = levels(dtype, world)
    if world * (q - 1) < EXACT_LIMIT[dtype]:
        return 0.0
    return float(world * torch.finfo(getattr(torch, dtype)).eps * world * (q - 1))


def settings() -> dict[str, str]:
    """The collectives-relevant variables of this rank, secret-looking values redacted."""
    return {
        k: (REDACTED if is_secret_name(k) else v) for k, v in sorted(os.environ.items()) if k.startswith(ENV_PREFIXES)
    }


def versions(torch: ModuleType, dist: ModuleType, backend: str) -> dict[str, str | None]:
    info: dict[str, str | None] = {
        "torch": torch.__version__,
        "hip": getattr(torch.version, "hip", None),
        "cuda": torch.version.cuda,
        "backend": backend,
    }
    if backend == "nccl" and torch.cuda.is_available():
        try:
            info["nccl"] = ".".join(map(str, torch.cuda.nccl.version()))
        except Exception as exc:
            info["nccl"] = f"unknown ({exc})"
        info["nccl_library"] = "RCCL" if info["hip"] else "NCCL"
        info["device_name"] = torch.cuda.get_device_name()
    return info


def faults(spec: dict) -> list[dict]:
    """The spec's injected faults (``fault``: one mapping or a list of them)."""
    raw = spec.get("fault") or []
    return [raw] if isinstance(raw, dict) else list(raw)


def fault_point(spec: dict, rank: int, at: str, events: Events) -> None:
    """Act out an injected fault if one is this rank's and this point's."""
    fault = next(
        (f for f in faults(spec) if f.get("rank") == rank and f.get("at") == at and f.get("kind") != "corrupt"), None
    )
    if fault is None:
        return
    message = fault.get("message", "")
    if message:
        sys.stderr.write(message + "\n")
        sys.stderr.flush()
    kind = fault.get("kind", "stall")
    if fault.get("spawn_child"):
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(100000)"])
        events.emit("child", pid=child.pid)
    if kind == "stall":
        events.emit("stall", at=at)
        while True:
            time.sleep(3600)
    if kind == "abort":
        os.abort()
    if kind == "exit":
        os._exit(3)
    raise RuntimeError(message or f"injected fault at {at}")


class Runner:
    """Runs cases on one rank."""

    def __init__(
        self, torch: ModuleType, dist: ModuleType, rank: int, world: int, device: torch.device, spec: dict
    ) -> None:
        self.torch, self.dist, self.rank, self.world, self.device = torch, dist, rank, world, device
        self.iters, self.warmup = int(spec.get("iters", 5)), int(spec.get("warmup", 1))
        self.corrupt = {f.get("at") for f in faults(spec) if f.get("kind") == "corrupt" and f.get("rank") == rank}

    def pattern(self, src: int, count: int, q: int, extra: int = 0, start: int = 0) -> torch.Tensor:
        """Rank ``src``'s input at element indices ``start ..``: integers in ``[0, q)``."""
        idx = self.torch.arange(start, start + count, device=self.device, dtype=self.torch.int64)
        return (idx * 3 + src * 5 + extra * 7 + 1) % q

    def sentinel(self, count: int, dtype: torch.dtype) -> torch.Tensor:
        return self.torch.full((count,), -1, dtype=dtype, device=self.device)

    def sync(self) -> None:
        if self.device.type == "cuda":
            self.torch.cuda.synchronize(self.device)

    def prepare(self, case: Case) -> tuple[Callable[[], object], Output, torch.Tensor | None, float]:
        """``(call, output, expected, tolerance)`` for one case; call() runs the collective once."""
        torch, dist, rank, n = self.torch, self.dist, self.rank, self.world
        dtype = getattr(torch, case.dtype)
        count = elements(case.op, case.nbytes, ITEMSIZE[case.dtype], n)
        q = levels(case.dtype, n)
        pat = self.pattern
        if case.op == "all_reduce":
            x = pat(rank, count, q).to(dtype)
            op = {"sum": dist.ReduceOp.SUM, "max": dist.ReduceOp.MAX, "avg": dist.ReduceOp.AVG}[case.variant]
            combine = torch.maximum if case.variant == "max" else torch.add
            expected = pat(0, count, q)
            for r in range(1, n):
                expected = combine(expected, pat(r, count, q))
            tol = sum_tolerance(torch, case.dtype, n) if case.variant == "sum" else 0.0
            if case.variant == "avg":
                expected = expected.double() / n
                tol = (n + 1) * torch.finfo(dtype).eps * (q - 1)
            return (lambda: dist.all_reduce(x, op=op)), x, expected, tol
        if case.op == "all_gather":
            c = count // n
            x = pat(rank, c, q).to(dtype)
            expected = torch.cat([pat(r, c, q) for r in range(n)])
            if case.variant == "list":
                outs = [self.sentinel(c, dtype) for _ in range(n)]
                return (lambda: dist.all_gather(outs, x)), outs, expected, 0.0
            out = self.sentinel(count, dtype)
            gather = getattr(dist, "all_gather_single", None) or dist.all_gather_into_tensor  # renamed in 2.13
            return (lambda: gather(out, x)), out, expected, 0.0
        if case.op == "reduce_scatter":
            c = count // n
            x = pat(rank, count, q).to(dtype)
            expected = pat(0, c, q, start=rank * c)
            for r in range(1, n):
                expected += pat(r, c, q, start=rank * c)
            out = self.sentinel(c, dtype)
            scatter = getattr(dist, "reduce_scatter_single", None) or dist.reduce_scatter_tensor  # renamed in 2.13
            return ((lambda: scatter(out, x, op=dist.ReduceOp.SUM)), out, expected, sum_tolerance(torch, case.dtype, n))
        if case.op == "broadcast":
            root = n - 1  # not 0: a backend that ignores the root fails
            x = pat(root, count, q).to(dtype) if rank == root else self.sentinel(count, dtype)
            return (lambda: dist.broadcast(x, src=root)), x, pat(root, count, q), 0.0
        if case.op == "all_to_all":
            c = count // n
            x = torch.cat([pat(rank, c, q, extra=dst) for dst in range(n)]).to(dtype)
            expected = torch.cat([pat(src, c, q, extra=rank) for src in range(n)])
            out = self.sentinel(count, dtype)
            return (lambda: dist.all_to_all_single(out, x)), out, expected, 0.0
        if case.op == "sendrecv":
            nxt, prv = (rank + 1) % n, (rank - 1) % n
            x = pat(rank, count, q).to(dtype)
            out = self.sentinel(count, dtype)

            def ring() -> None:
                ops = [dist.P2POp(dist.isend, x, nxt), dist.P2POp(dist.irecv, out, prv)]
                for work in dist.batch_isend_irecv(ops):
                    work.wait()

            return ring, out, pat(prv, count, q), 0.0
        if case.op == "barrier":
            return (dist.barrier), None, None, 0.0
        raise ValueError(f"unknown operation {case.op!r}")

    def check(self, out: Output, expected: torch.Tensor | None, tol: float, dtype: str) -> dict[str, Any]:
        torch = self.torch
        if out is None or expected is None:  # (both None, or neither: the barrier has no output)
            return {"mismatches": 0, "checked": 0}
        got = torch.cat(out) if isinstance(out, list) else out
        if tol:
            bad = (got.double() - expected.double()).abs() > tol
        else:
            bad = got != expected.to(getattr(torch, dtype))
        count = int(bad.sum().item())
        result: dict[str, Any] = {"mismatches": count, "checked": got.numel()}
        if count:
            i = int(bad.nonzero()[0].item())
            result["first_bad"] = {"index": i, "got": float(got[i].item()), "expected": float(expected[i].item())}
        return result

    def run(self, case: Case) -> dict:
        result = {**case.to_dict(), "rank": self.rank}
        if case.op == "all_reduce" and case.variant == "avg" and case.dtype == "int32":
            return {**result, "skipped": "ReduceOp.AVG is defined for floating-point tensors only"}
        call, out, expected, tol = self.prepare(case)
        result["bytes"] = elements(case.op, case.nbytes, ITEMSIZE[case.dtype], self.world) * ITEMSIZE[case.dtype]
        try:
            call()
        except RuntimeError as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            if UNSUPPORTED_TEXT.search(first) and not TIMEOUT_TEXT.search(first):
                return {**result, "skipped": f"the {self.dist.get_backend()} backend: {first}"}
            raise
        self.sync()
        if case.name in self.corrupt and out is not None:
            self.corrupt.discard(case.name)
            (out[-1] if isinstance(out, list) else out).view(-1)[-1] += 1
        result.update(self.check(out, expected, tol, case.dtype))
        if case.timed:
            result["seconds"] = self.time(call)
        return result

    def time(self, call: Callable[[], object]) -> float:
        """Mean seconds per call, the slowest rank's (all ranks agree on it)."""
        for _ in range(self.warmup):
            call()
        self.sync()
        self.dist.barrier()
        start = time.perf_counter()
        for _ in range(self.iters):
            call()
        self.sync()
        mine = self.torch.tensor(
            [(time.perf_counter() - start) / self.iters], dtype=self.torch.float64, device=self.device
        )
        self.dist.all_reduce(mine, op=self.dist.ReduceOp.MAX)
        return float(mine.item())


def main(argv: list[str]) -> int:
    spec = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local = int(os.environ.get("LOCAL_RANK", rank))
    events = Events(Path(spec["result_dir"]) / f"rank{rank}.jsonl")
    events.emit(
        "start",
        pid=os.getpid(),
        host=socket.gethostname(),
        settings=settings(),
        warm=os.environ.get("ROCMCOMPAT_WARM") == "1",
    )
    try:
        fault_point(spec, rank, "import", events)
        import torch
        import torch.distributed as dist

        if spec["device"] == "cuda":
            torch.cuda.set_device(local)
            device = torch.device("cuda", local)
        else:
            device = torch.device("cpu")
        fault_point(spec, rank, "init", events)
        kwargs = {
            "backend": spec["backend"],
            "init_method": spec["init_method"],
            "rank": rank,
            "world_size": world,
            "timeout": timedelta(seconds=float(spec["op_timeout_s"])),
        }
        if device.type == "cuda":
            kwargs["device_id"] = device  # eager NCCL init: an init hang shows up here, in time
        dist.init_process_group(**kwargs)
        events.emit("init", versions=versions(torch, dist, spec["backend"]), device=str(device))
        runner = Runner(torch, dist, rank, world, device, spec)
        for raw in spec["cases"]:
            case = Case(**raw)
            events.emit("begin", case=case.label)
            fault_point(spec, rank, case.name, events)
            events.emit("case", **runner.run(case))
        fault_point(spec, rank, "end", events)
        dist.barrier()
        dist.destroy_process_group()
    except BaseException as exc:
        text = traceback.format_exc()
        events.emit("error", text=text, timeout=bool(TIMEOUT_TEXT.search(f"{type(exc).__name__}: {exc}")))
        sys.stderr.write(text)
        sys.stderr.flush()
        os._exit(1)  # no atexit / destructor of a broken process group may hang the exit
    events.emit("done")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
