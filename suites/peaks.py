"""Datasheet peaks of the GPUs the harness knows, so a measured figure has context.

Dense (no sparsity) throughput in TFLOP/s and memory bandwidth in GB/s, each
entry with its source (docs/peaks.md lists them with notes). For each dtype the
highest dense figure the vendor gives is used (matrix / tensor-core where there
is one). ``host_gbps`` is the host link per direction (PCIe), for H2D/D2H.
Look-ups go by the device name the probe recorded (``"NVIDIA H100 80GB HBM3"``,
``"AMD Instinct MI300X"``), then by architecture when only one entry has it.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Peak:
    product: str
    names: tuple[str, ...]  # case-insensitive globs over the probed device name
    arch: str  # gfx942, sm_90, ...
    tflops: dict[str, float]  # dtype -> dense TFLOP/s: fp64, fp32, tf32, fp16, bf16, fp8, int8
    memory_gbps: float  # HBM / GDDR bandwidth, GB/s (10^9 bytes)
    source: str  # datasheet URL
    host_gbps: float | None = None  # host link bandwidth per direction, GB/s
    notes: str = field(default="", compare=False)

    def get(self, dtype: str) -> float | None:
        return self.tflops.get(dtype)


_PCIE4, _PCIE5 = 32.0, 64.0  # x16, per direction (raw; ~26 / ~53 GB/s usable)
_H100_SXM = {"fp64": 66.9, "fp32": 66.9, "tf32": 494.7, "fp16": 989.4, "bf16": 989.4, "fp8": 1978.9, "int8": 1978.9}
_MI300 = {"fp64": 163.4, "fp32": 163.4, "tf32": 653.7, "fp16": 1307.4, "bf16": 1307.4, "fp8": 2614.9, "int8": 2614.9}

PEAKS: tuple[Peak, ...] = (
    # ---- AMD Instinct ----
    Peak(
        "AMD Instinct MI300X",
        ("*MI300X*",),
        "gfx942",
        dict(_MI300),
        5300.0,
        "https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html",
        _PCIE5,
    ),
    Peak(
        "AMD Instinct MI325X",
        ("*MI325X*",),
        "gfx942",
        dict(_MI300),
        6000.0,
        "https://www.amd.com/en/products/accelerators/instinct/mi300/mi325x.html",
        _PCIE5,
    ),
    Peak(
        "AMD Instinct MI250X",
        ("*MI250X*",),
        "gfx90a",
        {"fp64": 95.7, "fp32": 95.7, "fp16": 383.0, "bf16": 383.0, "int8": 383.0},
        3276.8,
        "https://www.amd.com/en/products/accelerators/instinct/mi200/mi250x.html",
        _PCIE4,
        "per OAM module (two GCDs; torch sees each GCD as a device with half of these)",
    ),
    Peak(
        "AMD Instinct MI210",
        ("*MI210*",),
        "gfx90a",
        {"fp64": 45.3, "fp32": 45.3, "fp16": 181.0, "bf16": 181.0, "int8": 181.0},
        1638.4,
        "https://www.amd.com/en/products/accelerators/instinct/mi200/mi210.html",
        _PCIE4,
    ),
    Peak(
        "AMD Instinct MI100",
        ("*MI100*",),
        "gfx908",
        {"fp64": 11.5, "fp32": 46.1, "fp16": 184.6, "bf16": 92.3, "int8": 184.6},
        1228.8,
        "https://www.amd.com/en/products/accelerators/instinct/mi100.html",
        _PCIE4,
    ),
    Peak(
        "AMD Instinct MI50",
        ("*MI50*", "*MI60*", "*Vega 20*"),
        "gfx906",
        {"fp64": 6.6, "fp32": 13.3, "fp16": 26.5},
        1024.0,
        "https://www.amd.com/en/products/professional-graphics/instinct-mi50",
        _PCIE4,
        "no bf16 hardware (bf16 is emulated); MI60 figures differ slightly",
    ),
    Peak(
        "AMD Radeon RX 7900 XTX",
        ("*7900 XTX*",),
        "gfx1100",
        {"fp32": 61.4, "fp16": 122.8},
        960.0,
        "https://www.amd.com/en/products/graphics/desktops/radeon/7000-series/amd-radeon-rx-7900xtx.html",
        _PCIE4,
    ),
    # ---- NVIDIA ----
    Peak(
        "NVIDIA A100 SXM4 80GB",
        ("*A100*SXM4*80GB*",),
        "sm_80",
        {"fp64": 19.5, "fp32": 19.5, "tf32": 156.0, "fp16": 312.0, "bf16": 312.0, "int8": 624.0},
        2039.0,
        "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
        "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf",
        _PCIE4,
    ),
    Peak(
        "NVIDIA A100 PCIe 80GB",
        ("*A100*80GB*PCIe*", "*A100*PCIe*80GB*"),
        "sm_80",
        {"fp64": 19.5, "fp32": 19.5, "tf32": 156.0, "fp16": 312.0, "bf16": 312.0, "int8": 624.0},
        1935.0,
        "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
        "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf",
        _PCIE4,
    ),
    Peak(
        "NVIDIA A100 40GB",
        ("*A100*40GB*",),
        "sm_80",
        {"fp64": 19.5, "fp32": 19.5, "tf32": 156.0, "fp16": 312.0, "bf16": 312.0, "int8": 624.0},
        1555.0,
        "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
        "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf",
        _PCIE4,
    ),
    Peak(
        "NVIDIA H100 SXM5",
        ("*H100*HBM3*", "*H100 SXM*"),
        "sm_90",
        dict(_H100_SXM),
        3350.0,
        "https://www.nvidia.com/en-us/data-center/h100/",
        _PCIE5,
        "datasheet tensor figures are with sparsity; halved here",
    ),
    Peak(
        "NVIDIA H100 PCIe",
        ("*H100*PCIe*",),
        "sm_90",
        {"fp64": 51.0, "fp32": 51.0, "tf32": 378.0, "fp16": 756.0, "bf16": 756.0, "fp8": 1513.0, "int8": 1513.0},
        2000.0,
        "https://www.nvidia.com/en-us/data-center/h100/",
        _PCIE5,
        "datasheet tensor figures are with sparsity; halved here",
    ),
    Peak(
        "NVIDIA H200 SXM",
        ("*H200*",),
        "sm_90",
        dict(_H100_SXM),
        4800.0,
        "https://www.nvidia.com/en-us/data-center/h200/",
        _PCIE5,
        "same compute as H100 SXM; datasheet tensor figures are with sparsity; halved here",
    ),
)


def peak_for(name: str | None, arch: str | None = None) -> Peak | None:
    """The table entry for a device: by name glob first, then by a unique architecture."""
    lowered = (name or "").lower()
    for peak in PEAKS:
        if lowered and any(fnmatch.fnmatchcase(lowered, g.lower()) for g in peak.names):
            return peak
    by_arch = [p for p in PEAKS if arch and p.arch == arch]
    return by_arch[0] if len(by_arch) == 1 else None
