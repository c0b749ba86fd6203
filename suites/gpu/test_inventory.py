"""Inventory: the device is what the matrix says it should be."""

from __future__ import annotations

import pytest

from pytest_rocmcompat.stack.arch import arch_matches


def _matrix(rocm_matrix):
    if rocm_matrix is None or rocm_matrix.platform is None:
        pytest.skip("no matrix with a platform given (--rocm-matrix)")
    return rocm_matrix


@pytest.mark.gpus(1)
def test_arch_is_in_matrix(rocm_matrix, gpu_device, gpu_arch, gpu_props, rocm_property):
    rocm_property("rocm_gpu", f"{gpu_props.name} {gpu_arch}")
    matrix = _matrix(rocm_matrix)
    if not matrix.archs:
        pytest.skip(f"matrix {matrix.name!r} lists no arch")
    assert any(arch_matches(gpu_arch, a) for a in matrix.archs), (
        f"device {gpu_props.name} is {gpu_arch}; matrix {matrix.name!r} lists {', '.join(matrix.archs)}"
    )


@pytest.mark.gpus(1)
def test_memory_meets_matrix(rocm_matrix, gpu_device, gpu_props):
    matrix = _matrix(rocm_matrix)
    need = matrix.expect.get("min_gpu_memory_gib")
    if need is None:
        pytest.skip(f"matrix {matrix.name!r} sets no expect.min_gpu_memory_gib")
    have = gpu_props.total_memory / (1 << 30)
    assert have >= float(need), f"{gpu_props.name} has {have:.1f} GiB; matrix {matrix.name!r} expects >= {need} GiB"


@pytest.mark.gpus(1)
def test_runtime_matches_platform(rocm_matrix, gpu_device, runtime_name, torch):
    matrix = _matrix(rocm_matrix)
    expected = {"rocm": "hip", "cuda": "cuda"}.get(matrix.platform)
    if expected is None:
        pytest.skip(f"matrix {matrix.name!r} is for platform {matrix.platform}")
    assert runtime_name == expected, (
        f"torch {torch.__version__} runs on {runtime_name}, but matrix {matrix.name!r} is for {matrix.platform}: "
        f"install a {'+rocm' if expected == 'hip' else '+cu'} build of torch"
    )
