"""Timing helpers of the GPU suite: device-event timing, medians, throughput figures.

Everything takes the ``torch`` module and a device, so the same code runs on a GPU
(CUDA or ROCm, timed with device events) and on the CPU (timed with
``time.perf_counter`` after the work is done), which is how the plugin's own tests
exercise it. Inputs are random (never all zeros: zero operands can take fast paths),
the first calls are warm-up, and a figure is the median of the repeats.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

GIB = 1 << 30
MIB = 1 << 20


@dataclass(frozen=True)
class Timing:
    """Seconds per call of each repeat (each repeat averages ``inner`` back-to-back calls)."""

    samples: tuple[float, ...]
    inner: int
    clock: str  # "device-events" | "perf_counter"

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def spread(self) -> float:
        """(max - min) / median: how steady the repeats were."""
        return (max(self.samples) - min(self.samples)) / self.median if self.median > 0 else 0.0

    def describe(self) -> str:
        return f"median of {len(self.samples)} repeats x {self.inner} calls, {self.clock}, spread {self.spread:.1%}"


@dataclass(frozen=True)
class Figure:
    """A throughput figure with what was measured."""

    value: float
    unit: str
    timing: Timing
    what: str

    @property
    def detail(self) -> str:
        return f"{self.what}; {self.timing.describe()}"


def is_gpu(device: Any) -> bool:
    return getattr(device, "type", str(device)) == "cuda"


def synchronize(torch: Any, device: Any) -> None:
    if is_gpu(device):
        torch.cuda.synchronize(device)


def time_calls(
    torch: Any, fn: Callable[[], object], device: Any, *, warmup: int = 3, repeats: int = 7, inner: int = 1
) -> Timing:
    """Time ``fn``: ``warmup`` untimed calls, then ``repeats`` samples of ``inner`` calls each.

    On a GPU each sample lies between two device events recorded on the current stream,
    so host-side launch overhead does not count as long as the queue stays full; on the
    CPU each sample is wall time.
    """
    if repeats < 1 or inner < 1 or warmup < 0:
        raise ValueError("time_calls: repeats and inner must be >= 1, warmup >= 0")
    for _ in range(warmup):
        fn()
    synchronize(torch, device)
    samples = []
    if is_gpu(device):
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(repeats)]
        for start, end in events:
            start.record()
            for _ in range(inner):
                fn()
            end.record()
        torch.cuda.synchronize(device)
        samples = [start.elapsed_time(end) / 1e3 / inner for start, end in events]
        clock = "device-events"
    else:
        for _ in range(repeats):
            t0 = time.perf_counter()
            for _ in range(inner):
                fn()
            samples.append((time.perf_counter() - t0) / inner)
        clock = "perf_counter"
    return Timing(tuple(samples), inner, clock)


def gemm_flops(m: int, n: int, k: int) -> int:
    """Floating-point operations of an (m x k) @ (k x n) product: one multiply and one add each."""
    return 2 * m * n * k


def tflops(flops: float, seconds: float) -> float:
    return flops / seconds / 1e12 if seconds > 0 else float("nan")


def gbps(nbytes: float, seconds: float) -> float:
    """GB/s with GB = 10^9 bytes, as datasheets count."""
    return nbytes / seconds / 1e9 if seconds > 0 else float("nan")


def random_tensor(torch: Any, shape: tuple[int, ...], dtype: Any, device: Any, seed: int = 0):
    """Standard-normal values (never all zeros), generated on ``device``."""
    gen = torch.Generator(device=device).manual_seed(seed)
    return torch.randn(shape, generator=gen, device=device, dtype=torch.float32).to(dtype)


def bench_gemm(
    torch: Any, device: Any, n: int = 8192, dtype: Any = None, *, warmup: int = 3, repeats: int = 7, inner: int = 5
) -> Figure:
    """Throughput of an n x n x n matrix multiply (``torch.matmul`` into a preallocated output)."""
    dtype = dtype or torch.bfloat16
    a = random_tensor(torch, (n, n), dtype, device, seed=1)
    b = random_tensor(torch, (n, n), dtype, device, seed=2)
    out = torch.empty((n, n), dtype=dtype, device=device)
    timing = time_calls(torch, lambda: torch.matmul(a, b, out=out), device, warmup=warmup, repeats=repeats, inner=inner)
    name = str(dtype).replace("torch.", "")
    return Figure(tflops(gemm_flops(n, n, n), timing.median), "TFLOP/s", timing, f"{n}x{n}x{n} {name} matmul")


def bench_copy_d2d(
    torch: Any, device: Any, nbytes: int = GIB, *, warmup: int = 3, repeats: int = 7, inner: int = 5
) -> Figure:
    """Device-to-device copy bandwidth, counting bytes read plus bytes written (2 x size)."""
    count = nbytes // 4
    src = random_tensor(torch, (count,), torch.float32, device, seed=3)
    dst = torch.empty_like(src)
    timing = time_calls(torch, lambda: dst.copy_(src), device, warmup=warmup, repeats=repeats, inner=inner)
    return Figure(
        gbps(2 * count * 4, timing.median), "GB/s", timing, f"{count * 4 / MIB:.0f} MiB copy_, read+write counted"
    )


def bench_host_copy(
    torch: Any,
    device: Any,
    direction: str,
    nbytes: int = 256 * MIB,
    *,
    warmup: int = 2,
    repeats: int = 7,
    inner: int = 3,
) -> Figure:
    """Host-to-device (``"h2d"``) or device-to-host (``"d2h"``) bandwidth with pinned host memory."""
    if direction not in ("h2d", "d2h"):
        raise ValueError(f"bench_host_copy: direction must be 'h2d' or 'd2h', not {direction!r}")
    count = nbytes // 4
    dev = random_tensor(torch, (count,), torch.float32, device, seed=4)
    host = torch.empty((count,), dtype=torch.float32, pin_memory=is_gpu(device))
    host.copy_(dev)  # the host buffer holds the same non-zero data
    if direction == "h2d":

        def fn():
            return dev.copy_(host, non_blocking=True)
    else:

        def fn():
            return host.copy_(dev, non_blocking=True)

    timing = time_calls(torch, fn, device, warmup=warmup, repeats=repeats, inner=inner)
    pinned = "pinned" if host.is_pinned() else "pageable"
    return Figure(gbps(count * 4, timing.median), "GB/s", timing, f"{count * 4 / MIB:.0f} MiB {pinned} {direction}")
