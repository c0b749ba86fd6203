"""Rank start-up with and without warm processes (``pytest_rocmcompat.running.warm``).

A collectives launch starts one process per rank; each pays the interpreter and ``import
torch`` before its first collective. This times the same small launch cold (no warm process:
the pool is emptied first) and warm (ranks started ahead, as the launcher does after every
launch and the collectives suite before each world), interleaved, ``--reps`` times. The pause
between a launch and the next (``--gap``, default 8 s) stands for the tests that run between
two launches while the warm ranks import torch.

    python bench/launch_warm.py [--reps 5] [--gap 8] [--world gloo-2] [--out .bench/launch_warm.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pytest_rocmcompat.collectives import plan
from pytest_rocmcompat.collectives.launcher import launch
from pytest_rocmcompat.collectives.world import World
from pytest_rocmcompat.running import warm


def world_of(text: str) -> World:
    backend, n = text.split("-")
    device = "cpu" if backend == "gloo" else "cuda"
    return World(backend, int(n), device, tuple(range(int(n))), tuple(range(int(n))))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--gap", type=float, default=8.0)
    ap.add_argument("--world", default="gloo-2")
    ap.add_argument("--out", default=".bench/launch_warm.json")
    args = ap.parse_args()
    world = world_of(args.world)
    cases = [c for c in plan.build(gpu=world.device == "cuda", max_bytes=4096) if c.name == "all_reduce_sum"][:2]
    env = {k: v for k, v in os.environ.items() if k != "TORCHELASTIC_USE_AGENT_STORE"}
    samples: dict[str, list[float]] = {"cold": [], "warm": []}
    for rep in range(args.reps):
        for mode in ("cold", "warm"):
            warm.pool().shutdown()
            if mode == "warm":
                warm.pool().prewarm(env, len(world.ranks))
            time.sleep(args.gap)  # the tests between two launches
            start = time.monotonic()
            result = launch(world, cases, timeout=300, op_timeout=60)
            took = time.monotonic() - start
            starts = [r.last("start") or {} for r in result.ranks]
            if result.outcome != "pass" or any(bool(s.get("warm")) != (mode == "warm") for s in starts):
                print(
                    f"rep {rep} {mode}: {result.outcome} {result.message[:300]} warm={[s.get('warm') for s in starts]}"
                )
                return 1
            samples[mode].append(took)
            print(f"rep {rep + 1}/{args.reps} {mode}: {took:.2f} s", flush=True)
    warm.pool().shutdown()
    cold, hot = statistics.median(samples["cold"]), statistics.median(samples["warm"])
    summary = {
        "world": args.world,
        "cold_median_s": cold,
        "warm_median_s": hot,
        "saved_s": cold - hot,
        "ratio": hot / cold,
        "samples": samples,
        "gap_s": args.gap,
    }
    print(
        f"{args.world} launch, median of {args.reps}: cold {cold:.2f} s, warm {hot:.2f} s, "
        f"saved {cold - hot:.2f} s ({hot / cold:.2f}x)"
    )
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
