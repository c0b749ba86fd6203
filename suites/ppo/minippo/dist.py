"""Data parallelism: gradient all-reduce over a torch.distributed group, and a launcher
that starts one real worker process per rank (like torchrun: RANK, WORLD_SIZE, a TCP
rendezvous on localhost). gloo on CPU; nccl (RCCL on ROCm) on GPUs."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

import torch

from pytest_rocmcompat.running import warm
from pytest_rocmcompat.running.processes import TreeGuard, kill_group

PACKAGE_ROOT = Path(__file__).resolve().parents[1]  # suites/ppo: the folder holding minippo
PRELOAD = ("torch", "torch.distributed", "transformers")  # what a worker imports before its first step


class DataParallel:
    """This process's place in the group; sums tensors and gradients over the ranks."""

    def __init__(self, rank: int, world: int) -> None:
        self.rank, self.world = rank, world

    def all_reduce_sum(self, tensor: torch.Tensor) -> torch.Tensor:
        import torch.distributed as dist

        out = tensor.clone()
        dist.all_reduce(out, op=dist.ReduceOp.SUM)
        return out

    def all_reduce_grads(self, params: list[torch.nn.Parameter]) -> None:
        """Sum the gradients of ``params`` over the ranks (one flat buffer, one collective)."""
        import torch.distributed as dist

        grads = [p.grad for p in params if p.grad is not None]
        flat = torch.cat([g.reshape(-1) for g in grads])
        dist.all_reduce(flat, op=dist.ReduceOp.SUM)
        offset = 0
        for g in grads:
            g.copy_(flat[offset : offset + g.numel()].view_as(g))
            offset += g.numel()


class LaunchError(RuntimeError):
    pass


def launch(world: int, backend: str, configs: list[dict], out_dir: Path, timeout: float = 300.0) -> list[list[dict]]:
    """Run each of ``configs`` data-parallel over ``world`` worker processes; returns, per rank,
    one result per configuration (rank 0 also saves the final policy weights of configuration
    I to ``out_dir/params_rank0_I.pt``)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    # A file store in a fresh folder: no port to pick, so parallel sessions cannot collide.
    rendezvous = Path(tempfile.mkdtemp(prefix="rendezvous-", dir=out_dir)) / "store"
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(filter(None, [str(PACKAGE_ROOT), os.environ.get("PYTHONPATH")])),
        MINIPPO_INIT_METHOD=f"file://{rendezvous}",
        WORLD_SIZE=str(world),
        OMP_NUM_THREADS="1",
    )
    procs = []
    failures = []
    guard = TreeGuard()  # finds what the workers start, setsid escapees included
    try:
        for rank in range(world):  # a warm process (imports paid ahead) where one fits, else a new one
            args = ["--backend", backend, "--out", str(out_dir), "--configs", json.dumps(configs)]
            procs.append(
                warm.pool().popen(
                    "minippo.worker", args, dict(env, RANK=str(rank), LOCAL_RANK=str(rank)), preload=PRELOAD
                )
            )
        deadline = time.monotonic() + timeout
        for rank, proc in enumerate(procs):
            try:
                output, _ = proc.communicate(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                for p in procs:
                    kill_group(p.pid)
                output = (proc.communicate()[0] or "") + f"\n(killed after {timeout:.0f} s)"
            if proc.returncode != 0:
                failures.append(f"rank {rank} exited with {proc.returncode}:\n{output[-3000:]}")
    finally:  # a failure, Ctrl-C or SIGTERM: no rank outlives the launch
        for p in procs:
            kill_group(p.pid)
        guard.kill([p.pid for p in procs])
    if failures:
        raise LaunchError("mini-PPO data-parallel workers failed:\n" + "\n".join(failures))
    return [json.loads((out_dir / f"result_rank{r}.json").read_text()) for r in range(world)]
