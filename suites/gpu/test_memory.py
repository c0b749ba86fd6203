"""Memory: large allocation and release, caching-allocator statistics, expandable segments
(in child processes: the allocator reads its configuration once), pinned host transfers."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

GIB = 1 << 30
MIB = 1 << 20

# Child: four 64 MiB tensors kept alive, then the allocator's view of its segments.
CHILD = r"""
import json, warnings
warnings.simplefilter("always")
import torch
d = torch.device("cuda", 0)
keep = [torch.ones(64 << 20, dtype=torch.uint8, device=d) for _ in range(4)]
torch.cuda.synchronize(d)
segs = [s for s in torch.cuda.memory_snapshot() if s.get("segment_type", "large") == "large"]
print("RESULT " + json.dumps({"segments": len(segs), "expandable": any(bool(s.get("is_expandable")) for s in segs),
                              "reserved": torch.cuda.memory_reserved(d), "sum": int(sum(int(t.sum()) for t in keep))}))
"""


def _alloc_conf_var(runtime_name: str) -> str:
    return "PYTORCH_HIP_ALLOC_CONF" if runtime_name == "hip" else "PYTORCH_CUDA_ALLOC_CONF"


@pytest.fixture(scope="module")
def expandable_runs(torch, gpu_device, runtime_name):
    """Both settings, run at the same time in two child processes: {True: result, False: result}."""
    var = _alloc_conf_var(runtime_name)
    procs = {}
    for on in (True, False):
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_HIP_ALLOC_CONF", "PYTORCH_ALLOC_CONF")
        }
        env[var] = f"expandable_segments:{on}"
        procs[on] = subprocess.Popen(
            [sys.executable, "-c", CHILD], env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
    results = {}
    for on, proc in procs.items():
        out, err = proc.communicate(timeout=240)
        line = next((ln for ln in out.splitlines() if ln.startswith("RESULT ")), None)
        results[on] = {
            "var": f"{var}=expandable_segments:{on}",
            "rc": proc.returncode,
            "stderr": err[-2000:],
            **(json.loads(line[7:]) if line else {}),
        }
    return results


@pytest.mark.gpus(1)
@pytest.mark.parametrize("on", [True, False], ids=["expandable-on", "expandable-off"])
def test_expandable_segments(expandable_runs, on, rocm_property):
    r = expandable_runs[on]
    rocm_property("rocm_alloc_conf", json.dumps({k: r.get(k) for k in ("var", "segments", "expandable", "reserved")}))
    assert r["rc"] == 0 and "segments" in r, f"child with {r['var']} failed (rc {r['rc']}): {r['stderr']}"
    assert r["sum"] == 4 * (64 << 20), f"{r['var']}: tensors hold wrong data"
    if on:
        if "not supported" in r["stderr"].lower() and not r["expandable"]:
            pytest.skip(f"{r['var']}: expandable segments not supported here: {r['stderr'].strip()[-200:]}")
        assert r["expandable"] or r["segments"] == 1, (
            f"{r['var']} was not applied: {r['segments']} ordinary segments for 4 x 64 MiB"
        )
    else:
        assert not r["expandable"] and r["segments"] >= 4, (
            f"{r['var']}: expected one segment per 64 MiB tensor, got {r['segments']} (expandable={r['expandable']})"
        )


@pytest.mark.gpus(1)
def test_large_allocation_and_release(torch, gpu_device):
    free, total = torch.cuda.mem_get_info(gpu_device)
    size = min(int(free * 0.5), int(total * 0.25), 16 * GIB) // MIB * MIB
    assert size >= 256 * MIB, f"only {free / GIB:.1f} GiB free of {total / GIB:.1f} GiB"
    torch.cuda.empty_cache()
    before = torch.cuda.memory_allocated(gpu_device)
    big = torch.empty(size, dtype=torch.uint8, device=gpu_device)
    big.fill_(7)
    assert int(big[-1].item()) == 7 and int(big[size // 2].item()) == 7
    assert torch.cuda.memory_allocated(gpu_device) - before >= size
    del big
    torch.cuda.empty_cache()
    assert torch.cuda.memory_allocated(gpu_device) == before, "the large tensor's memory was not released"
    free_after, _ = torch.cuda.mem_get_info(gpu_device)
    assert free_after >= free - 512 * MIB, (
        f"after release {free_after / GIB:.2f} GiB free, before {free / GIB:.2f} GiB: the allocator kept the block"
    )


@pytest.mark.gpus(1)
def test_caching_allocator_statistics(torch, gpu_device, rocm_property):
    torch.cuda.synchronize(gpu_device)
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats(gpu_device)
    base = torch.cuda.memory_allocated(gpu_device)
    x = torch.ones(256 * MIB // 4, device=gpu_device)
    stats = torch.cuda.memory_stats(gpu_device)
    assert stats["allocated_bytes.all.peak"] >= base + 256 * MIB
    assert stats["allocation.all.current"] >= 1
    del x
    assert torch.cuda.memory_allocated(gpu_device) == base
    assert torch.cuda.memory_reserved(gpu_device) >= 256 * MIB, "the freed block should stay cached"
    torch.cuda.empty_cache()
    stats = torch.cuda.memory_stats(gpu_device)
    rocm_property(
        "rocm_allocator",
        json.dumps(
            {
                k: stats.get(k)
                for k in ("num_alloc_retries", "num_ooms", "allocated_bytes.all.peak", "reserved_bytes.all.current")
            }
        ),
    )
    assert stats.get("num_ooms", 0) == 0


@pytest.mark.gpus(1)
def test_pinned_host_transfers(torch, gpu_device):
    host = torch.randn(16 * MIB // 4).pin_memory()
    assert host.is_pinned()
    dev = host.to(gpu_device, non_blocking=True)
    back = torch.empty_like(host).pin_memory()
    back.copy_(dev * 2, non_blocking=True)
    torch.cuda.synchronize(gpu_device)
    assert torch.equal(back, host * 2)
