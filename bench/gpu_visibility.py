"""On a real multi-GPU host: the probe lists every device; only a stated stack is narrowed to the visible ones.

For each visibility setting it starts a fresh process (a CUDA runtime reads ``CUDA_VISIBLE_DEVICES``
once) that probes the machine, counts the devices torch sees, and derives the environment the
checks read (``derived_facts.derive``) twice: for the live probe (never narrowed: NVML's order need
not be CUDA's) and for the same devices and variable stated as a replay would (``arch=`` and
``env.CUDA_VISIBLE_DEVICES=``, with ``CUDA_DEVICE_ORDER=PCI_BUS_ID``), which keeps as many devices as
torch sees, with the indices the variable names.

    python bench/gpu_visibility.py --out results/visibility.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

CHILD = r"""
import json, sys
from pytest_rocmcompat.probe.live import probe
from pytest_rocmcompat.knowledge.derived_facts import derive
import os
from dataclasses import replace
from pytest_rocmcompat.stack.environment import Environment
from pytest_rocmcompat.stack.overrides import apply_overrides
env = probe()
derived = derive(env)
sets = ["platform=cuda", "arch=" + ",".join(g.arch for g in env.gpus), "env.CUDA_DEVICE_ORDER=PCI_BUS_ID"]
if "CUDA_VISIBLE_DEVICES" in os.environ:
    sets.append("env.CUDA_VISIBLE_DEVICES=" + os.environ["CUDA_VISIBLE_DEVICES"])
stated = derive(apply_overrides(Environment(platform="cpu"), sets))
import torch
print(json.dumps({
    "probed": [[g.index, g.arch] for g in env.gpus],
    "derived": [[g.index, g.arch] for g in derived.gpus],
    "stated": [[g.index, g.arch] for g in stated.gpus],
    "torch_sees": torch.cuda.device_count(),
    "notes": [n for n in stated.notes if "GPUs a process sees" in n],
}))
"""


def run(variable: str | None, value: str | None) -> dict[str, object]:
    environ = {k: v for k, v in os.environ.items() if k not in ("CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES")}
    if variable is not None and value is not None:
        environ[variable] = value
    done = subprocess.run([sys.executable, "-c", CHILD], env=environ, capture_output=True, text=True, timeout=180)
    line = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "{}"
    result: dict[str, object] = json.loads(line)
    result["setting"] = f"{variable}={value}" if variable else "(unset)"
    if done.returncode:
        result["stderr"] = done.stderr[-2000:]
    return result


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    uuid = subprocess.run(["nvidia-smi", "--query-gpu=uuid", "--format=csv,noheader"], capture_output=True, text=True)
    first_uuid = uuid.stdout.split()[0] if uuid.stdout.split() else "GPU-unknown"
    settings = [
        (None, None),
        ("CUDA_VISIBLE_DEVICES", "1"),
        ("CUDA_VISIBLE_DEVICES", "1,0"),
        ("CUDA_VISIBLE_DEVICES", first_uuid),
    ]
    results = [run(variable, value) for variable, value in settings]
    failures = []
    for result in results:
        probed, derived, stated = result.get("probed"), result.get("derived"), result.get("stated")
        seen = result.get("torch_sees")
        if not isinstance(probed, list) or not isinstance(derived, list) or not isinstance(stated, list):
            failures.append(f"{result['setting']}: no result")
            continue
        if derived != probed:
            failures.append(f"{result['setting']}: the live probe was narrowed: {derived}")
        # a UUID list is left as stated (not applied); an index list gives torch's count
        expected = len(probed) if result["setting"].endswith(first_uuid) else seen
        if len(stated) != expected:
            failures.append(f"{result['setting']}: stated stack kept {len(stated)} devices, expected {expected}")
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump({"results": results, "failures": failures}, fh, indent=1)
    print(json.dumps({"results": results, "failures": failures}, indent=1))
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
