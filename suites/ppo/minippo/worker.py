"""One data-parallel rank (started by :func:`minippo.dist.launch`, or by torchrun).

``python -m minippo.worker --backend gloo|nccl --out DIR --configs JSON-LIST``

Runs each configuration in turn in one process group (the start-up, mostly importing
transformers, is paid once); writes ``result_rank{R}.json`` (one entry per configuration)
and, on rank 0, ``params_rank0_{I}.pt`` with the final policy weights of configuration I.
"""

from __future__ import annotations

import argparse
import json
import os
from datetime import timedelta
from pathlib import Path

import torch
import torch.distributed as dist

from .config import RunConfig
from .dist import DataParallel
from .trainer import Trainer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--backend", choices=["gloo", "nccl"], required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--configs", required=True)
    args = parser.parse_args()
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    torch.set_num_threads(1)
    if args.backend == "nccl":
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
        device = torch.device("cuda", torch.cuda.current_device())
    else:
        device = torch.device("cpu")
    dist.init_process_group(
        args.backend,
        init_method=os.environ["MINIPPO_INIT_METHOD"],
        rank=rank,
        world_size=world,
        timeout=timedelta(seconds=120),
        **({"device_id": device} if args.backend == "nccl" else {}),
    )
    try:
        results = []
        for index, config in enumerate(json.loads(args.configs)):
            trainer = Trainer(RunConfig(**config), device, DataParallel(rank, world))
            history = trainer.run()
            results.append(
                {
                    "rank": rank,
                    "world": world,
                    "rewards": [s.reward for s in history],
                    "seconds": dict(trainer.clock.seconds),
                }
            )
            if rank == 0:
                torch.save(
                    {k: v.detach().cpu() for k, v in trainer.policy.state_dict().items()},
                    args.out / f"params_rank0_{index}.pt",
                )
        (args.out / f"result_rank{rank}.json").write_text(json.dumps(results))
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
