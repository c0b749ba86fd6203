"""Performance figures, recorded with ``rocm_measure`` next to the datasheet peak and
compared with the matrix's floors. Device-event timing after warm-up, median of repeats,
random inputs (``gpubench.py`` beside this file); bench/gpu_crosscheck.py times the same
work with plain loops to show the harness does not under-measure."""

from __future__ import annotations

import gpubench as gb
import pytest


def _peak(gpu_peak, key: str):
    if gpu_peak is None:
        return None
    if key == "memory":
        return gpu_peak.memory_gbps
    if key == "host":
        return gpu_peak.host_gbps
    return gpu_peak.get(key)


def _detail(figure: gb.Figure, gpu_peak) -> str:
    return figure.detail + (f"; peak from {gpu_peak.product} datasheet" if gpu_peak else "; device not in peaks table")


@pytest.mark.gpus(1)
@pytest.mark.parametrize("dtype", ["bf16", "fp16"])
def test_gemm_tflops(torch, gpu_device, gpu_peak, rocm_measure, dtype):
    fig = gb.bench_gemm(torch, gpu_device, n=8192, dtype={"bf16": torch.bfloat16, "fp16": torch.float16}[dtype])
    m = rocm_measure(f"gemm_{dtype}_tflops", fig.value, peak=_peak(gpu_peak, dtype), detail=_detail(fig, gpu_peak))
    assert fig.value > 0 and m.value == fig.value


@pytest.mark.gpus(1)
def test_copy_d2d_gbps(torch, gpu_device, gpu_peak, rocm_measure):
    fig = gb.bench_copy_d2d(torch, gpu_device, nbytes=gb.GIB)
    rocm_measure("copy_d2d_gbps", fig.value, peak=_peak(gpu_peak, "memory"), detail=_detail(fig, gpu_peak))
    assert fig.value > 0


@pytest.mark.gpus(1)
@pytest.mark.parametrize("direction", ["h2d", "d2h"])
def test_host_copy_gbps(torch, gpu_device, gpu_peak, rocm_measure, direction):
    fig = gb.bench_host_copy(torch, gpu_device, direction)
    rocm_measure(f"copy_{direction}_gbps", fig.value, peak=_peak(gpu_peak, "host"), detail=_detail(fig, gpu_peak))
    assert fig.value > 0
