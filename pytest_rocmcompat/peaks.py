"""Datasheet peaks of the GPUs the harness knows, so a measured figure has context.

Dense (no sparsity) throughput in TFLOP/s and memory bandwidth in GB/s, each
entry with its source. Look-ups go by the device name the probe recorded
(``"NVIDIA H100 80GB HBM3"``, ``"AMD Instinct MI300X"``), then by architecture.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass


@dataclass(frozen=True)
class Peak:
    product: str
    names: tuple[str, ...]          # case-insensitive globs over the probed device name
    arch: str                        # gfx942, sm_90, ...
    tflops: dict[str, float]         # dtype -> dense TFLOP/s: fp64, fp32, tf32, fp16, bf16, fp8, int8
    memory_gbps: float               # HBM / GDDR bandwidth, GB/s (10^9 bytes)
    source: str                      # datasheet URL

    def get(self, dtype: str) -> float | None:
        return self.tflops.get(dtype)


PEAKS: tuple[Peak, ...] = (
    Peak("NVIDIA H100 SXM5", ("*H100*HBM3*", "*H100 SXM*"), "sm_90",
         {"fp64": 66.9, "fp32": 66.9, "tf32": 494.7, "fp16": 989.4, "bf16": 989.4, "fp8": 1978.9,
          "int8": 1978.9},
         3350.0, "https://www.nvidia.com/en-us/data-center/h100/ (datasheet: sparsity figures halved)"),
    Peak("NVIDIA H200 SXM", ("*H200*",), "sm_90",
         {"fp64": 66.9, "fp32": 66.9, "tf32": 494.7, "fp16": 989.4, "bf16": 989.4, "fp8": 1978.9,
          "int8": 1978.9},
         4800.0, "https://www.nvidia.com/en-us/data-center/h200/ (datasheet: sparsity figures halved)"),
)


def peak_for(name: str | None, arch: str | None = None) -> Peak | None:
    """The table entry for a device: by name glob first, then by a unique architecture."""
    lowered = (name or "").lower()
    for peak in PEAKS:
        if lowered and any(fnmatch.fnmatchcase(lowered, g.lower()) for g in peak.names):
            return peak
    by_arch = [p for p in PEAKS if arch and p.arch == arch]
    return by_arch[0] if len(by_arch) == 1 else None
