"""Seed sweep of the mini-PPO learning tests: how many steps each seed needs to reach the target.

    python bench/ppo_seeds.py --algorithm grpo --seeds 20
    python bench/ppo_seeds.py --algorithm ppo --seeds 20 --set lr=0.003
    python bench/ppo_seeds.py --algorithm grpo --lora --seeds 10

Prints one line per seed (steps to target or 'miss', start reward, seconds) and a summary:
misses, worst and median steps. The learning tests' step budgets come from these sweeps
(docs/ppo.md records them). Runs on the CPU by default, ``--device cuda`` on a GPU.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "suites" / "ppo"))

from minippo.learning import LEARNING_PRESETS, learn


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--algorithm", choices=["grpo", "ppo"], default="grpo")
    parser.add_argument("--lora", action="store_true")
    parser.add_argument("--bf16", action="store_true")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="override a RunConfig field (repeatable)"
    )
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    preset = LEARNING_PRESETS["lora" if args.lora else args.algorithm]
    base = preset.config.replace(bf16=args.bf16)
    for item in args.set:
        key, _, value = item.partition("=")
        current = getattr(base, key)
        kind = int if current is None else type(current)
        if value.lower() == "none":
            base = base.replace(**{key: None})
        else:
            base = base.replace(**{key: (value in ("1", "true")) if kind is bool else kind(value)})
    print(
        f"config: {base}\ntarget: window mean >= {preset.target} within {base.steps} steps "
        f"(window {preset.window}); start (first step) <= {preset.start_max}"
    )
    reached, starts, misses = [], [], []
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        t0 = time.perf_counter()
        result = learn(base.replace(seed=seed), preset, args.device)
        seconds = time.perf_counter() - t0
        starts.append(result.start)
        if result.reached_at is None:
            misses.append(seed)
        else:
            reached.append(result.reached_at)
        print(
            f"seed {seed:3d}: {'miss' if result.reached_at is None else result.reached_at:>5} steps, "
            f"start {result.start:.3f}, best window {result.best:.3f}, {seconds:.1f} s",
            flush=True,
        )
    print(
        f"\n{len(reached)}/{args.seeds} reached the target; misses: {misses or 'none'}; "
        f"steps median {statistics.median(reached) if reached else '-'}, worst {max(reached) if reached else '-'}; "
        f"start reward max {max(starts):.3f}"
    )
    return 1 if misses else 0


if __name__ == "__main__":
    raise SystemExit(main())
